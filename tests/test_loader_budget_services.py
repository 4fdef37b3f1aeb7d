"""Dropbox, OneDrive, Confluence and Google Drive documents are held to ``budget`` as a
local file is, each against its loopback stand-in: cut to the budget, a revision ending
``@budget=N`` after the one read whole, and a budget out of range refused before any
request is sent."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from citesift.errors import InvalidArgument
from citesift.model import SourceDocument
from citesift.sources.loaders.confluence import load_confluence_page_sync
from citesift.sources.loaders.gdrive import load_google_drive_file_sync
from servers import MisbehavingServer
from test_loader_dropbox import dropbox  # noqa: F401 - fixture
from test_loader_dropbox import load as load_dropbox
from test_loader_onedrive import graph  # noqa: F401 - fixture
from test_loader_onedrive import load as load_onedrive
from test_loader_single_pages import LIMITS, services  # noqa: F401 - fixture

BUDGET = 3
Read = Callable[[MisbehavingServer, object], SourceDocument]


def _dropbox(server: MisbehavingServer, budget: object) -> SourceDocument:
    [document] = load_dropbox(server, "/team", patterns=["Plan.md"], budget=budget).documents
    return document  # type: ignore[no-any-return]


def _onedrive(server: MisbehavingServer, budget: object) -> SourceDocument:
    [document] = load_onedrive(server, patterns=["a.md"], budget=budget).documents
    return document  # type: ignore[no-any-return]


def _confluence(server: MisbehavingServer, budget: object) -> SourceDocument:
    wiki = server.url("/wiki")
    return load_confluence_page_sync("42", wiki, "pat", limits=LIMITS, budget=budget)  # type: ignore[arg-type]


def _google_drive(server: MisbehavingServer, budget: object) -> SourceDocument:
    api = server.url("").rstrip("/")
    return load_google_drive_file_sync("doc1", "tok", LIMITS, api, budget=budget)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("stand_in", "read"),
    [("dropbox", _dropbox), ("graph", _onedrive), ("services", _confluence),
     ("services", _google_drive)],
)  # fmt: skip
def test_each_loader_holds_its_document_to_the_budget(
    stand_in: str, read: Read, request: pytest.FixtureRequest
) -> None:
    server: MisbehavingServer = request.getfixturevalue(stand_in)
    whole = read(server, 300_000)
    cut = read(server, BUDGET)
    assert not whole.truncated and sum(len(b.text) for b in whole.blocks) > BUDGET
    assert cut.truncated and cut.budget_cut
    assert 0 < sum(len(b.text) for b in cut.blocks) <= BUDGET
    assert cut.revision == f"{whole.revision or ''}@budget={BUDGET}"
    asked = len(server.seen)
    with pytest.raises(InvalidArgument, match=r"^budget must be"):
        read(server, -1)
    assert len(server.seen) == asked  # refused before any request
