"""``citesift index add`` with remote sources: a GitHub tree with a filter, a Notion page
and an S3 prefix, each from a loopback stand-in named by the environment; ``index ls``
lists each document by the URI it came from."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from typer.testing import CliRunner

from citesift.cli import app
from loader_servers import json_answer, text_answer
from servers import MisbehavingServer, serve
from test_loader_s3 import credentials, moto_url  # noqa: F401 - fixtures

TREE = {"tree": [{"path": p, "type": "blob", "sha": f"sha-{p}"}
                 for p in ("README.md", "docs/guide.md", "docs/gone.md", "app.py")]}  # fmt: skip


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def rich(text: str) -> dict[str, Any]:
    return {"rich_text": [{"plain_text": text}]}


@pytest.fixture
def services(monkeypatch: pytest.MonkeyPatch) -> Iterator[MisbehavingServer]:
    with serve() as server:
        base = server.url("").rstrip("/")
        monkeypatch.setenv("GITHUB_API_URL", base)
        monkeypatch.setenv("CITESIFT_GITHUB_RAW_URL", base)
        monkeypatch.setenv("CITESIFT_NOTION_API_URL", base)
        monkeypatch.setenv("NOTION_TOKEN", "notion-secret")
        server.route("/repos/octo/kb/git/trees/v2", json_answer(TREE))
        server.route("/octo/kb/v2/README.md", text_answer("# Knowledge base\n\nStart here."))
        server.route("/octo/kb/v2/docs/guide.md", text_answer("# Guide\n\n## Deploy\n\nRoll out."))
        server.route("/octo/kb/v2/docs/gone.md", text_answer("", status=500))
        blocks = {
            "results": [
                {"type": "heading_1", "heading_1": rich("Runbook")},
                {"type": "paragraph", "paragraph": rich("Page the on-call.")},
            ],
            "has_more": False,
        }
        server.route("/v1/blocks/abc123/children", json_answer(blocks))
        monkeypatch.setenv("CITESIFT_GCS_API_URL", base)
        monkeypatch.setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "gcs-secret")
        server.route("/storage/v1/b/kb-bucket/o", json_answer({"items": [
            {"name": "faq/returns.md", "generation": "3"}]}))  # fmt: skip
        server.route("/storage/v1/b/kb-bucket/o/faq%2Freturns.md",
                     text_answer("# Returns\n\nWithin thirty days."))  # fmt: skip
        yield server


def test_github_and_notion_sources_are_indexed(services: MisbehavingServer, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    code, out, err = run("index", "add", "github:octo/kb@v2", "--glob", "*.md",
                         "notion:abc123", "--store", store, "--retrieval", "bm25")  # fmt: skip
    assert code == 0, err
    assert out == "indexed 3 document(s) as 3 chunk(s)\n"
    assert "skipped docs/gone.md: github 500: " in err
    listed = run("index", "ls", "--store", store)[1].splitlines()
    assert [line.split("\t")[0] for line in listed] == [
        "https://github.com/octo/kb/blob/v2/README.md",
        "https://github.com/octo/kb/blob/v2/docs/guide.md",
        "notion://abc123",
    ]
    code, out, _ = run("search", "roll out deploy", "--store", store, "--retrieval", "bm25")
    assert code == 0 and "Guide" in out
    assert services.hits("/octo/kb/v2/app.py") == 0


def test_a_remote_source_that_fails_whole_says_why(
    services: MisbehavingServer, tmp_path: Path
) -> None:
    code, out, err = run("index", "add", "notion:missing", "--store", str(tmp_path / "i.db"))
    assert code != 0 and out == ""
    assert "skipped notion:missing: notion 404: " in err and "notion-secret" not in err


def test_an_s3_prefix_is_indexed(
    moto_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    s3 = boto3.client("s3", endpoint_url=moto_url)
    s3.create_bucket(Bucket="kb-docs")
    body = b"# Onboarding\n\nWelcome aboard."
    s3.put_object(Bucket="kb-docs", Key="team/onboarding.md", Body=body)
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
    store = str(tmp_path / "index.db")
    add = ("index", "add", "s3://kb-docs/team/", "--store", store, "--retrieval", "bm25")
    code, out, err = run(*add)
    assert code == 0, err
    assert out == "indexed 1 document(s) as 1 chunk(s)\n"
    assert run("index", "ls", "--store", store)[1].startswith("s3://kb-docs/team/onboarding.md\t")


def test_an_s3_prefix_without_credentials_says_which_are_missing(
    moto_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)  # as a fresh run: none found yet
    add = ("index", "add", "s3://kb-docs/team/", "--store", str(tmp_path / "index.db"))
    code, out, err = run(*add, "--retrieval", "bm25")
    assert (code, out) == (1, "") and "s3: no AWS credentials for s3://kb-docs/team/" in err
    assert "AWS_ACCESS_KEY_ID" in err and "AWS_PROFILE" in err and "network" not in err


def test_a_cloud_storage_prefix_is_indexed(services: MisbehavingServer, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    add = ("index", "add", "gs://kb-bucket/faq/", "--store", store, "--retrieval", "bm25")
    code, out, err = run(*add)
    assert code == 0, err
    assert out == "indexed 1 document(s) as 1 chunk(s)\n"
    assert run("index", "ls", "--store", store)[1] == "gs://kb-bucket/faq/returns.md\t1\tReturns\n"
    assert services.seen[0].path == "/storage/v1/b/kb-bucket/o?prefix=faq%2F"
    assert services.seen[0].headers["Authorization"] == "Bearer gcs-secret"
