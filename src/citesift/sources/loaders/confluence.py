"""Confluence: one page through the content REST API (``expand=body.storage,version``), its
storage-format body read as HTML, its title, id and version kept. Authorization is given
whole (``Basic ...`` for an e-mail and API token) or as a personal access token (sent as
a bearer token), else from ``CONFLUENCE_AUTHORIZATION`` or ``CONFLUENCE_TOKEN``."""

from __future__ import annotations

import os
import re
from html import escape
from typing import Any

from citesift.errors import LOAD_FAILED, LoadError, invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, token_from
from citesift.sources.loaders.results import answer_json, fetched

LABEL = "confluence"
_ID = re.compile(r"[0-9]{1,20}")


async def load_confluence_page(
    page_id: str,
    base_url: str,
    token: str | None = None,
    authorization: str | None = None,
    limits: LoadLimits | None = None,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """The page ``page_id`` of the Confluence site at ``base_url`` (such as
    ``https://team.atlassian.net/wiki``), named by its web address, held to ``budget``
    characters of text."""
    if not isinstance(page_id, str) or not _ID.fullmatch(page_id):
        raise invalid("page_id", page_id, "a Confluence page id (digits)")
    budget = checked_budget(budget)
    limits = limits or LoadLimits()
    endpoint = limits.endpoint(base_url, LABEL)
    header = authorization or os.environ.get("CONFLUENCE_AUTHORIZATION")
    bearer = token_from(token, "CONFLUENCE_TOKEN")
    headers = {"Authorization": header} if header else {}
    if not header and bearer:
        headers = {"Authorization": f"Bearer {bearer}"}
    target = f"rest/api/content/{page_id}?expand=body.storage,version"
    title, body, version = _storage(answer_json(await fetched(endpoint, target, headers), LABEL))
    page = f"<html><head><title>{escape(title or page_id)}</title></head><body>{body}</body></html>"
    return loaded_document(
        page.encode("utf-8"), endpoint.url(f"pages/{page_id}"), f"{page_id}.html",
        site="confluence", revision=version, content_type="text/html",
        metadata={"pageId": page_id, "title": title or page_id}, budget=budget,
    )  # fmt: skip


def _storage(page: Any) -> tuple[str | None, str, str | None]:
    """A content answer's title, storage-format body and version number."""
    body = page.get("body") if isinstance(page, dict) else None
    storage = body.get("storage") if isinstance(body, dict) else None
    value = storage.get("value") if isinstance(storage, dict) else None
    if not isinstance(value, str):
        raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
    title = page.get("title")
    version = page.get("version")
    number = version.get("number") if isinstance(version, dict) else None
    return (title if isinstance(title, str) else None, value,
            None if number is None else str(number))  # fmt: skip


def load_confluence_page_sync(
    page_id: str,
    base_url: str,
    token: str | None = None,
    authorization: str | None = None,
    limits: LoadLimits | None = None,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """``load_confluence_page`` from synchronous code."""
    return run_sync(load_confluence_page(page_id, base_url, token, authorization, limits, budget))
