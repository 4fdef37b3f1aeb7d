"""``citesift wiki search|read`` and ``citesift page`` against the local stand-in, and the
settings every command that fetches reads the same way (flags, ``CITESIFT_*``, config file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED
from wikipedia_server import Answer, WikipediaStandIn, fresh_stand_in

CONTACT = "https://example.org/contact"
HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = b"<html><head><meta property='og:site_name' content='Ex'></head><body><p>One fact.</p>"


@pytest.fixture
def stand_in(wikipedia_fixtures: Path) -> Iterator[WikipediaStandIn]:
    """The stand-in, and the process-wide limiters the command line uses, afresh."""
    with fresh_stand_in(wikipedia_fixtures) as server:
        yield server


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=env or {"CITESIFT_CONTACT": ""})
    return result.exit_code, result.stdout, result.stderr


def wiki(stand_in: WikipediaStandIn, *args: str) -> tuple[int, str, str]:
    return run("wiki", *args, "--origin", stand_in.origin, "--allow-private", "--contact", CONTACT)


def test_wiki_search_prints_keys_titles_and_excerpts(stand_in: WikipediaStandIn) -> None:
    code, out, _ = wiki(stand_in, "search", "Rust programming language", "--limit", "3")
    assert code == 0
    keys = [line.split("\t")[0] for line in out.splitlines() if not line.startswith(" ")]
    assert keys[0] == "Rust_(programming_language)" and len(keys) == 3
    assert stand_in.paths() == [
        "/w/rest.php/v1/search/page?q=Rust%20programming%20language&limit=3"
    ]
    assert stand_in.requests[0].headers["user-agent"].endswith(f"({CONTACT})")


def test_wiki_search_without_hits_says_no_results_as_search_does(
    stand_in: WikipediaStandIn,
) -> None:
    code, out, err = wiki(stand_in, "search", "Qqzxv nowhere")
    assert (code, out, err) == (0, "", "no results\n")


def test_wiki_search_as_json(stand_in: WikipediaStandIn) -> None:
    code, out, _ = wiki(stand_in, "search", "Dog", "--format", "json")
    assert code == 0
    assert json.loads(out)[0] == {"key": "Dog", "title": "Dog", "excerpt": "Dog"}


def test_wiki_read_prints_passages_links_and_attribution(stand_in: WikipediaStandIn) -> None:
    code, out, _ = wiki(stand_in, "read", "Dog")
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("[0:0-") and "The domestic dog" in first
    assert (
        out.splitlines()[1].strip().startswith(stand_in.origin + "/wiki/Dog#:~:text=The%20domestic")
    )
    assert out.rstrip().endswith("white space collapsed.")
    assert "CC BY-SA 4.0 <https://creativecommons.org/licenses/by-sa/4.0/>" in out
    history = f"{stand_in.origin}/w/index.php?title=Dog&action=history"
    assert f"Wikipedia contributors <{history}>" in out


def test_wiki_read_as_json_holds_the_offset_invariant(stand_in: WikipediaStandIn) -> None:
    code, out, _ = wiki(stand_in, "read", "Rust_(programming_language)", "--format", "json")
    assert code == 0
    answer = json.loads(out)
    blocks = answer["document"]["blocks"]
    assert answer["document"]["revision"] == "1318205510"
    assert answer["document"]["title"] == "Rust (programming language)"
    for passage in answer["passages"]:
        assert (
            blocks[passage["block"]]["text"][passage["start"] : passage["end"]]
            == passage["content"]
        )


@pytest.mark.parametrize(("output", "marker"), [("blocks", "[0] paragraph"), ("markdown", "# ")])
def test_wiki_read_as_blocks_or_markdown(
    stand_in: WikipediaStandIn, output: str, marker: str
) -> None:
    code, out, _ = wiki(stand_in, "read", "Dog", "--format", output)
    assert code == 0 and "The domestic dog" in out and marker in out


def test_wiki_read_through_the_core_page_path(stand_in: WikipediaStandIn) -> None:
    code, _, _ = wiki(stand_in, "read", "Dog", "--page-path", "/w/rest.php/v1/page/{key}/html")
    assert code == 0 and stand_in.paths() == ["/w/rest.php/v1/page/Dog/html"]


def test_wiki_read_of_a_missing_page_fails_clearly(stand_in: WikipediaStandIn) -> None:
    code, out, err = wiki(stand_in, "read", "No_such_page")
    assert code == 1 and out == "" and "HTTP 404" in err


def test_wiki_without_a_contact_refuses_before_sending(stand_in: WikipediaStandIn) -> None:
    code, _, err = run("wiki", "search", "Dog", "--origin", stand_in.origin, "--allow-private")
    assert code == EXIT_USAGE and "--contact" in err
    assert stand_in.requests == []


def test_wiki_contact_from_the_environment(stand_in: WikipediaStandIn) -> None:
    args = ("wiki", "search", "Dog", "--origin", stand_in.origin, "--allow-private")
    code, _, _ = run(*args, env={"CITESIFT_CONTACT": CONTACT})
    assert code == 0 and stand_in.requests[0].headers["user-agent"].endswith(f"({CONTACT})")


def test_wiki_refuses_a_private_origin_unless_allowed(stand_in: WikipediaStandIn) -> None:
    code, _, err = run("wiki", "search", "Dog", "--origin", stand_in.origin, "--contact", CONTACT)
    assert code == 1 and "failed" in err
    assert stand_in.requests == []


@pytest.mark.timeout(60)
def test_wiki_429_says_try_later_with_its_status(stand_in: WikipediaStandIn) -> None:
    # In a process of its own: the 429 blocks 127.0.0.1 in that process's shared limiter.
    stand_in.answer("/w/rest.php/v1/search/page", Answer(429, {"Retry-After": "30"}))
    args = ["wiki", "search", "Dog", "--origin", stand_in.origin, "--allow-private"]
    command = [sys.executable, "-c", "from citesift.cli import main; main()", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=50, env=_env())
    assert done.returncode == EXIT_LIMITED and "HTTP 429" in done.stderr
    assert len(stand_in.requests) == 1


def test_a_limited_read_exits_with_try_later(stand_in: WikipediaStandIn) -> None:
    stand_in.answer("/w/rest.php/v1/search/page", Answer(429, {"Retry-After": "30"}))
    first = wiki(stand_in, "search", "Dog")
    second = wiki(stand_in, "search", "Dog")  # the 429 blocks the host in this process
    assert first[0] == EXIT_LIMITED and "HTTP 429" in first[2]
    assert second[0] == EXIT_LIMITED and "limited" in second[2]
    assert len(stand_in.requests) == 1


def _env() -> dict[str, str]:
    return {**os.environ, "CITESIFT_CONTACT": CONTACT}


@pytest.mark.parametrize("origin", ["ftp://example.org", "not a url"])
def test_wiki_bad_origin_fails_clearly(origin: str) -> None:
    code, _, err = run("wiki", "search", "Dog", "--origin", origin, "--contact", CONTACT)
    assert code == EXIT_USAGE and err.startswith("error: origin must be an http(s) address")


def test_page_reads_a_web_page_as_passages(stand_in: WikipediaStandIn) -> None:
    body = PAGE.replace(b"One fact.", b"One fact. Two facts.")
    stand_in.answer("/article", Answer(200, HTML, body))
    url = stand_in.origin + "/article"
    code, out, _ = run("page", url, "--allow-private", "--contact", CONTACT)
    assert code == 0
    assert out.splitlines()[0] == "[0:0-9] One fact."
    assert "licence not stated" in out


def test_page_as_markdown_opens_with_the_title_as_extract_does(stand_in: WikipediaStandIn) -> None:
    body = b"<html><head><title>Tides</title></head><body><h1>Tides</h1><p>One fact.</p>"
    stand_in.answer("/article", Answer(200, HTML, body))
    args = ("page", stand_in.origin + "/article", "--format", "markdown")
    code, out, _ = run(*args, "--allow-private", "--contact", CONTACT)
    assert (code, out) == (0, "# Tides\n\nOne fact.\n")


def test_page_as_json_carries_the_publisher(stand_in: WikipediaStandIn) -> None:
    stand_in.answer("/article", Answer(200, HTML, PAGE))
    args = ("page", stand_in.origin + "/article", "--format", "json", "--mode", "article")
    code, out, _ = run(*args, "--allow-private", "--contact", CONTACT)
    assert code == 0 and json.loads(out)["document"]["publisher"] == "Ex"


@pytest.mark.parametrize("url", ["not-a-url", "ftp://example.org/a", "https:///no-host"])
def test_page_given_no_web_address_is_a_usage_error(url: str) -> None:
    code, out, err = run("page", url, "--contact", CONTACT)
    assert (code, out) == (EXIT_USAGE, "") and f"not an http(s) URL with a host: {url}" in err


def test_page_refuses_a_private_address_unless_allowed(stand_in: WikipediaStandIn) -> None:
    code, _, err = run("page", stand_in.origin + "/article", "--contact", CONTACT)
    assert code == 1 and "skipped" in err and stand_in.requests == []


def test_wiki_read_replays_offline_from_a_store(stand_in: WikipediaStandIn, tmp_path: Path) -> None:
    db = str(tmp_path / "citesift.db")
    code, live, _ = wiki(stand_in, "read", "Dog", "--store", db)
    assert code == 0
    code, replay, _ = wiki(stand_in, "read", "Dog", "--store", db, "--offline")
    assert code == 0 and replay == live
    assert stand_in.paths() == ["/api/rest_v1/page/html/Dog"]


def test_offline_without_a_store_answers_from_the_default_one(
    stand_in: WikipediaStandIn,
) -> None:
    code, _, err = wiki(stand_in, "read", "Dog", "--offline")
    assert code == EXIT_FAILED and "not in the store" in err and stand_in.requests == []
    default = str(Path(os.environ["CITESIFT_HOME"]) / "citesift.db")
    code, live, _ = wiki(stand_in, "read", "Dog", "--store", default)
    code, replay, _ = wiki(stand_in, "read", "Dog", "--offline")
    assert code == 0 and replay == live and len(stand_in.requests) == 1


def test_a_store_path_that_cannot_hold_one_is_a_usage_error(
    stand_in: WikipediaStandIn, tmp_path: Path
) -> None:
    code, _, err = wiki(stand_in, "read", "Dog", "--store", str(tmp_path))
    assert code == EXIT_USAGE and "cannot open a store" in err and stand_in.requests == []


# Every command that fetches, as (its arguments for a stand-in origin, the path it asks for,
# a good answer for that path, the flags that keep what it reads in a store).
JSON = {"Content-Type": "application/json"}
FETCHING: dict[str, tuple[Callable[[str], list[str]], str, Answer, tuple[str, ...]]] = {
    "fetch": (lambda origin: ["fetch", origin + "/article"], "/article", Answer(200, HTML, PAGE),
              ("--save",)),
    "page": (lambda origin: ["page", origin + "/article"], "/article", Answer(200, HTML, PAGE), ()),
    "wiki search": (lambda origin: ["wiki", "search", "Dog", "--origin", origin],
                    "/w/rest.php/v1/search/page", Answer(200, JSON, b'{"pages": []}'), ()),
    "wiki read": (lambda origin: ["wiki", "read", "Dog", "--origin", origin],
                  "/api/rest_v1/page/html/Dog", Answer(200, HTML, PAGE), ()),
    "index add": (lambda origin: ["index", "add", origin + "/article", "--retrieval", "bm25"],
                  "/article", Answer(200, HTML, PAGE), ()),
}  # fmt: skip


@pytest.fixture(params=list(FETCHING))
def command(request: pytest.FixtureRequest) -> str:
    """Each command that fetches in turn."""
    return str(request.param)


@pytest.fixture(params=["env", "config"])
def where(request: pytest.FixtureRequest) -> str:
    """Where the settings come from: ``CITESIFT_*`` variables or a config file."""
    return str(request.param)


def asked(stand_in: WikipediaStandIn) -> list[str]:
    """The paths asked for (query and robots.txt left out)."""
    return [p.split("?")[0] for p in stand_in.paths() if p != "/robots.txt"]


def settings_given(where: str, folder: Path, **settings: object) -> dict[str, str]:
    """An environment giving ``settings`` through ``CITESIFT_*`` variables or a config file."""
    if where == "env":
        return {f"CITESIFT_{name.upper()}": json.dumps(value).strip('"')
                for name, value in settings.items()}  # fmt: skip
    config = folder / "settings.toml"
    config.write_text(
        "".join(f"{name} = {json.dumps(value)}\n" for name, value in settings.items())
    )
    return {"CITESIFT_CONFIG": str(config), "CITESIFT_CONTACT": ""}


def test_allow_private_and_contact_from_the_settings(
    stand_in: WikipediaStandIn, tmp_path: Path, command: str, where: str
) -> None:
    args, path, answer, _ = FETCHING[command]
    stand_in.answer(path, answer)
    store = str(tmp_path / "index.db")
    code, _, err = run(
        *args(stand_in.origin), env={"CITESIFT_CONTACT": CONTACT, "CITESIFT_STORE": store}
    )
    assert code == 1 and stand_in.requests == []  # private addresses are refused by default
    env = settings_given(where, tmp_path, allow_private=True, contact=CONTACT, store=store)
    code, _, err = run(*args(stand_in.origin), env=env)
    assert code == 0, err
    assert stand_in.requests[0].headers["user-agent"].endswith(f"({CONTACT})")


@pytest.mark.timeout(30)
def test_deadline_from_the_settings(
    stand_in: WikipediaStandIn, tmp_path: Path, command: str, where: str
) -> None:
    args, path, answer, _ = FETCHING[command]
    stand_in.answer(path, Answer(answer.status, answer.headers, answer.body, delay=10.0))
    settings = {"allow_private": True, "contact": CONTACT, "deadline": 0.3}
    env = settings_given(where, tmp_path, store=str(tmp_path / "index.db"), **settings)
    started = time.monotonic()
    code, _, err = run(*args(stand_in.origin), env=env)
    assert code == 1 and asked(stand_in) == [path], err
    assert time.monotonic() - started < 6  # the answer comes at 10 s; the defaults would wait


def test_offline_from_the_settings_replays_the_store(
    stand_in: WikipediaStandIn, tmp_path: Path, command: str, where: str
) -> None:
    args, path, answer, keep = FETCHING[command]
    stand_in.answer(path, answer)
    store = str(tmp_path / "index.db")
    live = run(*args(stand_in.origin), "--store", store, "--allow-private", *keep,
               env={"CITESIFT_CONTACT": CONTACT})  # fmt: skip
    assert live[0] == 0 and asked(stand_in) == [path], live[2]
    env = settings_given(where, tmp_path, allow_private=True, contact=CONTACT, store=store,
                         offline=True)  # fmt: skip
    code, out, err = run(*args(stand_in.origin), env=env)
    assert code == 0, err
    assert asked(stand_in) == [path]  # answered from the store, nothing sent
    if command != "index add":
        assert out == live[1]


def test_a_bad_setting_is_a_usage_error_naming_it(
    stand_in: WikipediaStandIn, tmp_path: Path, command: str
) -> None:
    env = {"CITESIFT_CONTACT": CONTACT, "CITESIFT_DEADLINE": "soon"}
    code, _, err = run(*FETCHING[command][0](stand_in.origin), env=env)
    assert code == EXIT_USAGE and "CITESIFT_DEADLINE" in err and stand_in.requests == []


@pytest.mark.parametrize("status", [429, 503])
def test_a_host_asking_to_wait_exits_with_try_later_from_its_first_answer(
    stand_in: WikipediaStandIn, tmp_path: Path, command: str, status: int
) -> None:
    args, path, _, _ = FETCHING[command]
    stand_in.answer(path, Answer(status, {"Retry-After": "30"}))
    env = {"CITESIFT_CONTACT": CONTACT, "CITESIFT_STORE": str(tmp_path / "index.db")}
    code, _, err = run(*args(stand_in.origin), "--allow-private", env=env)
    assert code == EXIT_LIMITED, err
    assert asked(stand_in) == [path]


def test_wiki_read_of_a_title_the_wiki_redirects_names_the_title_to_ask_for(
    stand_in: WikipediaStandIn,
) -> None:
    code, out, err = wiki(stand_in, "read", "dog", "--format", "json")
    assert (code, out) == (EXIT_FAILED, "")
    assert err == "error: Wikipedia redirects dog to Dog: ask for Dog\n"
    assert stand_in.paths() == ["/api/rest_v1/page/html/dog"]


def test_wiki_read_of_a_spaced_title_sends_it_as_mediawiki_writes_it(
    stand_in: WikipediaStandIn,
) -> None:
    code, out, _ = wiki(stand_in, "read", "Rust (programming language)", "--format", "json")
    assert code == 0 and json.loads(out)["document"]["key"] == "Rust_(programming_language)"
    assert stand_in.paths()[-1] == "/api/rest_v1/page/html/Rust_(programming_language)"


def test_wiki_read_of_a_page_with_nothing_to_cite_fails_saying_so(
    stand_in: WikipediaStandIn,
) -> None:
    stand_in.answer("/api/rest_v1/page/html/Empty", Answer(200, HTML, b"<html></html>"))
    code, out, err = wiki(stand_in, "read", "Empty")
    assert (code, out) == (EXIT_FAILED, "")
    assert err == "error: read gave nothing: the page holds no text to cite\n"


def test_wiki_read_of_a_disambiguation_page_warns(stand_in: WikipediaStandIn) -> None:
    body = (
        b'<html><head><meta property="mw:PageProp/disambiguation"/></head><body><section>'
        b"<p>Mercury may refer to:</p><ul><li>Mercury (planet), the closest planet</li>"
        b"</ul></section></body></html>"
    )
    stand_in.answer("/api/rest_v1/page/html/Mercury", Answer(200, HTML, body))
    code, out, err = wiki(stand_in, "read", "Mercury")
    assert code == 0 and "Mercury may refer to" in out
    assert err.endswith("warning: the page is a disambiguation page: it lists articles, "
                        "read one of them\n")  # fmt: skip


def test_wiki_read_of_a_missing_article_names_it(stand_in: WikipediaStandIn) -> None:
    code, _, err = wiki(stand_in, "read", "No_such_page")
    assert code == EXIT_FAILED
    assert err == (
        f"error: {stand_in.origin} has no article 'No_such_page' (HTTP 404): search for its key\n"
    )


@pytest.mark.parametrize("phrase", ["", "  ", "p" * 301])
def test_wiki_search_refuses_a_blank_or_long_phrase_unsent(
    stand_in: WikipediaStandIn, phrase: str
) -> None:
    code, _, err = wiki(stand_in, "search", phrase)
    assert code == EXIT_USAGE and err.startswith("error: phrase must be text of 1 to 300")
    assert stand_in.requests == []
