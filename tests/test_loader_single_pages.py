"""Loaders of one page: Confluence (storage-format HTML) and Google Drive (a Doc exported
as text), each against a loopback stand-in that answers, fails with a 500, sends too much
or too slowly; the credential from the environment and never in an error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from citesift.errors import InvalidArgument, LoadError
from citesift.sources.loaders.confluence import load_confluence_page_sync
from citesift.sources.loaders.gdrive import load_google_drive_file_sync
from citesift.sources.loaders.limits import LoadLimits
from loader_servers import json_answer, slow_body, text_answer
from servers import MisbehavingServer, serve

LIMITS = LoadLimits(timeout_ms=1500, max_response_bytes=1000)
PAGE = {
    "id": "42",
    "title": "On-call <handbook>",
    "version": {"number": 7},
    "body": {"storage": {"value": "<h2>Escalation</h2><p>Call the lead after 15 minutes.</p>"}},
}


@pytest.fixture
def services() -> Iterator[MisbehavingServer]:
    with serve() as server:
        server.route("/wiki/rest/api/content/42", json_answer(PAGE))
        server.route("/wiki/rest/api/content/500", text_answer("", status=500))
        server.route("/wiki/rest/api/content/9", json_answer({"id": "9", "body": {}}))
        server.route("/drive/v3/files/doc1/export", text_answer("Quarterly goals.\n\nHire two."))
        server.route("/drive/v3/files/huge/export", text_answer("x" * 5000))
        server.route("/drive/v3/files/slow/export", slow_body)
        yield server


def test_a_confluence_page_is_read_as_html(
    services: MisbehavingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLUENCE_TOKEN", "pat-secret")
    base = services.url("/wiki")
    page = load_confluence_page_sync("42", base, limits=LIMITS)
    assert page.title == "On-call <handbook>" and page.revision == "7"
    assert page.url == services.url("/wiki/pages/42")
    assert [b.text for b in page.blocks] == ["Escalation", "Call the lead after 15 minutes."]
    assert page.metadata["pageId"] == "42"
    seen = services.seen[0]
    assert seen.path == "/wiki/rest/api/content/42?expand=body.storage,version"
    assert seen.headers["Authorization"] == "Bearer pat-secret"


def test_confluence_takes_a_whole_authorization_header(services: MisbehavingServer) -> None:
    load_confluence_page_sync("42", services.url("/wiki"), authorization="Basic abc=")
    assert services.seen[0].headers["Authorization"] == "Basic abc="


@pytest.mark.parametrize(
    ("page", "message"),
    [("500", r"^confluence 500: http://127\.0\.0\.1:\d+/wiki/rest/api/content/500$"),
     ("9", r"^confluence: failed to read/parse response body$")],
)  # fmt: skip
def test_confluence_failures_name_the_service(
    services: MisbehavingServer, page: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONFLUENCE_TOKEN", "pat-secret")
    with pytest.raises(LoadError, match=message) as caught:
        load_confluence_page_sync(page, services.url("/wiki"), limits=LIMITS)
    assert "pat-secret" not in str(caught.value)


def test_a_drive_file_is_exported_as_text(
    services: MisbehavingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "drive-secret")
    api = services.url("").rstrip("/")
    document = load_google_drive_file_sync("doc1", limits=LIMITS, api=api)
    assert document.url == "gdrive://doc1"
    assert [b.text for b in document.blocks] == ["Quarterly goals.", "Hire two."]
    assert services.seen[0].path == "/drive/v3/files/doc1/export?mimeType=text/plain"
    assert services.seen[0].headers["Authorization"] == "Bearer drive-secret"


@pytest.mark.parametrize(
    ("file_id", "message"),
    [("huge", "^gdrive: response exceeds 1000 bytes$"),
     ("slow", r"^gdrive: timed out after 1\.5s$"),
     ("gone", r"^gdrive 404: ")],
)  # fmt: skip
def test_drive_failures_name_the_service(
    services: MisbehavingServer, file_id: str, message: str
) -> None:
    api = services.url("").rstrip("/")
    with pytest.raises(LoadError, match=message) as caught:
        load_google_drive_file_sync(file_id, "drive-secret", LIMITS, api)
    assert "drive-secret" not in str(caught.value)


@pytest.mark.parametrize("bad", ["", "a/b", "../x", 3])
def test_bad_ids_are_refused_before_any_request(services: MisbehavingServer, bad: object) -> None:
    with pytest.raises(InvalidArgument):
        load_google_drive_file_sync(bad, api=services.url("").rstrip("/"))  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument):
        load_confluence_page_sync(bad, services.url("/wiki"))  # type: ignore[arg-type]
    assert services.seen == []
