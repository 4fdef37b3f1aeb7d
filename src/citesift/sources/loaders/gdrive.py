"""Google Drive: one Google Docs file exported as plain text (``files/{id}/export`` with
``mimeType=text/plain``), named ``gdrive://{id}``. The access token comes from
``GOOGLE_OAUTH_ACCESS_TOKEN`` unless given."""

from __future__ import annotations

import re

from citesift.errors import invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import SourceDocument
from citesift.net import run_sync
from citesift.sources.loaders.documents import loaded_document
from citesift.sources.loaders.limits import LoadLimits, token_from
from citesift.sources.loaders.results import fetched

LABEL = "gdrive"
API = "https://www.googleapis.com"
TOKEN_VARIABLE = "GOOGLE_OAUTH_ACCESS_TOKEN"
_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


async def load_google_drive_file(
    file_id: str,
    token: str | None = None,
    limits: LoadLimits | None = None,
    api: str = API,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """The Drive file ``file_id`` as text, a document named ``gdrive://{file_id}``, held
    to ``budget`` characters of text."""
    if not isinstance(file_id, str) or not _ID.fullmatch(file_id):
        raise invalid("file_id", file_id, "a Google Drive file id")
    budget = checked_budget(budget)
    limits = limits or LoadLimits()
    endpoint = limits.endpoint(api, LABEL, token_from(token, TOKEN_VARIABLE))
    answer = await fetched(endpoint, f"drive/v3/files/{file_id}/export?mimeType=text/plain")
    return loaded_document(answer.body, f"gdrive://{file_id}", file_id, site="gdrive",
                           revision=None, metadata={"fileId": file_id},
                           budget=budget)  # fmt: skip


def load_google_drive_file_sync(
    file_id: str,
    token: str | None = None,
    limits: LoadLimits | None = None,
    api: str = API,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """``load_google_drive_file`` from synchronous code."""
    return run_sync(load_google_drive_file(file_id, token, limits, api, budget))
