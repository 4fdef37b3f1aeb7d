"""Notion: a page's blocks read in order through the blocks API (``page_size=100``,
``start_cursor`` from each answer's ``next_cursor``), headings and paragraphs kept as a
Markdown note; a cursor met twice, or more pages promised without a cursor, is an error.
A token comes from ``NOTION_TOKEN`` unless given."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from citesift.errors import LOAD_FAILED, LoadError, invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, token_from
from citesift.sources.loaders.pages import PageTrail
from citesift.sources.loaders.results import answer_json, fetched

LABEL = "notion"
API = "https://api.notion.com"
VERSION = "2022-06-28"
TOKEN_VARIABLE = "NOTION_TOKEN"
_PREFIX = {"heading_1": "# ", "heading_2": "## ", "heading_3": "### ", "paragraph": "",
           "bulleted_list_item": "- ", "numbered_list_item": "1. ", "quote": "> "}  # fmt: skip
_ID = re.compile(r"[0-9A-Za-z-]{1,64}")


async def load_notion_page(
    page_id: str,
    token: str | None = None,
    limits: LoadLimits | None = None,
    version: str = VERSION,
    api: str = API,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """The page ``page_id`` as a document named ``notion://{page_id}``: its headings and
    paragraphs (and list items and quotes) in the order Notion keeps them, held to
    ``budget`` characters of text."""
    if not isinstance(page_id, str) or not _ID.fullmatch(page_id):
        raise invalid("page_id", page_id, "a Notion page id")
    budget = checked_budget(budget)
    limits = limits or LoadLimits()
    endpoint = limits.endpoint(api, LABEL, token_from(token, TOKEN_VARIABLE))
    headers = {"Notion-Version": version}
    lines: list[str] = []
    cursor: str | None = None
    trail = PageTrail(LABEL)
    while True:
        query = "page_size=100" + (f"&start_cursor={quote(cursor, safe='')}" if cursor else "")
        answer = await fetched(endpoint, f"v1/blocks/{page_id}/children?{query}", headers)
        page = answer_json(answer, LABEL)
        if not isinstance(page, dict) or not isinstance(page.get("results"), list):
            raise LoadError(LOAD_FAILED, f"{LABEL}: failed to read/parse response body")
        lines.extend(filter(None, map(_line, page["results"])))
        if not page.get("has_more"):
            break
        cursor = trail.next(page.get("next_cursor"))
    text = "\n\n".join(lines).encode("utf-8")
    return loaded_document(text, f"notion://{page_id}", page_id, site="notion.so",
                           revision=None, metadata={"page_id": page_id},
                           budget=budget)  # fmt: skip


def _line(block: Any) -> str | None:
    """A block as a line of Markdown, or None for a kind not read (or empty)."""
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind not in _PREFIX:
        return None
    body = block.get(kind)
    parts = body.get("rich_text") if isinstance(body, dict) else None
    if not isinstance(parts, list):
        return None
    text = "".join(p.get("plain_text", "") for p in parts if isinstance(p, dict)).strip()
    return _PREFIX[kind] + " ".join(text.split()) if text else None


def load_notion_page_sync(
    page_id: str,
    token: str | None = None,
    limits: LoadLimits | None = None,
    version: str = VERSION,
    api: str = API,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """``load_notion_page`` from synchronous code."""
    return run_sync(load_notion_page(page_id, token, limits, version, api, budget))
