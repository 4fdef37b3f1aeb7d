"""GitHub loader against a loopback stand-in of the trees API and raw file host: a tree
read with a filter and a cap on files, one file failing with a 500, one past the byte cap,
one slower than the deadline; bounds refused before any request; the token kept secret."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from citesift.errors import LOAD_FAILED, InvalidArgument, LoadError
from citesift.sources.loaders.github import (
    GitHubRepo,
    load_github_file,
    load_github_tree_sync,
    parse_github,
)
from citesift.sources.loaders.limits import LoadLimits
from loader_servers import json_answer, slow_body, text_answer
from servers import MisbehavingServer, seconds_to_cancel, serve

SECRET = "ghp_secret_token_value"
TREE = {
    "sha": "t1",
    "tree": [
        {"path": "README.md", "type": "blob", "sha": "s-readme"},
        {"path": "docs", "type": "tree", "sha": "s-docs"},
        {"path": "docs/My Note.md", "type": "blob", "sha": "s-note"},
        {"path": "docs/broken.md", "type": "blob", "sha": "s-broken"},
        {"path": "docs/big.md", "type": "blob", "sha": "s-big"},
        {"path": "docs/slow.md", "type": "blob", "sha": "s-slow"},
        {"path": "src/main.py", "type": "blob", "sha": "s-main"},
    ],
}


@pytest.fixture
def github() -> Iterator[MisbehavingServer]:
    with serve() as server:
        server.route("/repos/octo/notes/git/trees/main", json_answer(TREE))
        server.route("/octo/notes/main/README.md", text_answer("# Notes\n\nThe readme."))
        server.route(
            "/octo/notes/main/docs/My%20Note.md",
            text_answer("---\ntags: [x]\n---\n# My Note\n\n## Part\n\nTides twice a day."),
        )
        server.route("/octo/notes/main/docs/broken.md", text_answer("oops", status=500))
        server.route("/octo/notes/main/docs/big.md", text_answer("big " * 1000))
        server.route("/octo/notes/main/docs/slow.md", slow_body)
        yield server


def repo(server: MisbehavingServer, token: str | None = None) -> GitHubRepo:
    base = server.url("").rstrip("/")
    return GitHubRepo("octo", "notes", "main", token, api=base, raw=base)


LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=1000)


def test_a_tree_loads_what_it_can_and_reports_the_rest(github: MisbehavingServer) -> None:
    started = time.monotonic()
    loaded = load_github_tree_sync(repo(github), ["*.md"], max_files=10, limits=LIMITS)
    assert time.monotonic() - started < 8
    assert [d.title for d in loaded.documents] == ["Notes", "My Note"]
    note = loaded.documents[1]
    assert note.url == "https://github.com/octo/notes/blob/main/docs/My Note.md"
    assert note.revision == "s-note"
    assert note.metadata["tags"] == ["x"]
    assert note.metadata["path"] == "docs/My Note.md" and note.metadata["ref"] == "main"
    assert [(b.kind, b.section) for b in note.blocks][-1] == ("paragraph", ("My Note", "Part"))
    reasons = {f.source: f.reason for f in loaded.failures}
    assert reasons["docs/broken.md"].startswith("github 500: ")
    assert reasons["docs/big.md"] == "github: response exceeds 1000 bytes"
    assert "timed out" in reasons["docs/slow.md"]
    assert github.hits("/octo/notes/main/src/main.py") == 0


def test_max_files_caps_the_downloads_in_tree_order(github: MisbehavingServer) -> None:
    loaded = load_github_tree_sync(repo(github), max_files=1.9, limits=LIMITS)
    assert [d.title for d in loaded.documents] == ["Notes"] and loaded.failures == ()


@pytest.mark.parametrize("count", [0, -3, float("nan"), float("-inf")])
def test_no_files_asked_for_means_no_request(github: MisbehavingServer, count: float) -> None:
    loaded = load_github_tree_sync(repo(github), max_files=count)
    assert loaded.documents == () and github.seen == []


def test_every_download_failing_is_an_error(github: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match="github: all eligible downloads failed") as caught:
        load_github_tree_sync(repo(github), ["docs/b*.md"], limits=LIMITS)
    assert caught.value.code == LOAD_FAILED


@pytest.mark.parametrize("timeout", [0, -1, 2**31, 1.5, True, "15", float("nan")])
def test_a_deadline_that_is_not_whole_milliseconds_is_refused(timeout: object) -> None:
    with pytest.raises(InvalidArgument, match="timeout_ms"):
        LoadLimits(timeout_ms=timeout)  # type: ignore[arg-type]


@pytest.mark.parametrize("cap", [0, -1, 1.5, None])
def test_a_byte_cap_that_is_not_a_positive_whole_number_is_refused(cap: object) -> None:
    with pytest.raises(InvalidArgument, match="max_response_bytes"):
        LoadLimits(max_response_bytes=cap)  # type: ignore[arg-type]


def test_the_widest_deadline_is_accepted() -> None:
    assert LoadLimits(timeout_ms=2**31 - 1).endpoint("https://x.test", "x").timeout > 2e6
    assert LoadLimits(timeout_ms=1).timeout_ms == 1


def test_the_token_is_sent_from_the_environment_and_never_shown(
    github: MisbehavingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    with pytest.raises(LoadError) as caught:
        asyncio.run(load_github_file(repo(github), "docs/broken.md", LIMITS))
    assert github.seen[-1].headers["Authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(caught.value) and SECRET not in repr(repo(github))


def test_a_file_with_a_space_is_asked_for_encoded(github: MisbehavingServer) -> None:
    note = asyncio.run(load_github_file(repo(github), "docs/My Note.md", LIMITS))
    assert github.seen[-1].path == "/octo/notes/main/docs/My%20Note.md"
    assert note.revision == "main"


def test_a_missing_file_is_an_error_naming_its_address(github: MisbehavingServer) -> None:
    with pytest.raises(LoadError, match=r"github 404: http://127\.0\.0\.1:\d+/octo/notes/main/x"):
        asyncio.run(load_github_file(repo(github), "x", LIMITS))


def test_the_callers_cancellation_is_never_swallowed(github: MisbehavingServer) -> None:
    slow = LoadLimits(timeout_ms=60_000)
    spent = seconds_to_cancel(lambda: load_github_file(repo(github), "docs/slow.md", slow))
    assert spent < 2


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("github:octo/notes", ("octo", "notes", "HEAD")),
     ("github:octo/notes@v1.2", ("octo", "notes", "v1.2"))],
)  # fmt: skip
def test_github_sources_are_parsed(spec: str, expected: tuple[str, str, str]) -> None:
    parsed = parse_github(spec)
    assert (parsed.owner, parsed.repo, parsed.ref) == expected


@pytest.mark.parametrize("spec", ["github:octo", "github:../x@y", "github:a/b@..", "git:a/b"])
def test_bad_github_sources_are_refused(spec: str) -> None:
    with pytest.raises(InvalidArgument):
        parse_github(spec)


def test_an_entry_the_tree_names_oddly_is_a_failed_download(github: MisbehavingServer) -> None:
    odd = {"tree": [{"path": "/", "type": "blob"}, {"path": "README.md", "type": "blob"}]}
    github.route("/repos/octo/notes/git/trees/odd", json_answer(odd))
    github.route("/octo/notes/odd/README.md", text_answer("# Notes"))
    base = github.url("").rstrip("/")
    loaded = load_github_tree_sync(GitHubRepo("octo", "notes", "odd", api=base, raw=base))
    assert [d.title for d in loaded.documents] == ["Notes"]
    assert [f.source for f in loaded.failures] == ["/"]
