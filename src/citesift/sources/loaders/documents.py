"""A downloaded body as a ``SourceDocument`` with its attribution: a PDF or Office file by
its bytes, HTML by its type or name, anything else read as a Markdown note (plain text is
one too), each named by the URI it was loaded from."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from citesift.errors import LOAD_FAILED, DocumentError, LoadError
from citesift.extract.document import extract_document, now_ms
from citesift.extract.html import DEFAULT_BUDGET
from citesift.extract.notes import note_document
from citesift.extract.sniff import document_kind
from citesift.model import SourceDocument
from citesift.sources.files import FileRefused, file_text
from citesift.sources.loaders.files import read_under

HTML_NAMES = (".html", ".htm")


def loaded_document(
    body: bytes,
    uri: str,
    name: str,
    *,
    site: str,
    revision: str | None,
    content_type: str | None = None,
    metadata: dict[str, Any] | None = None,
    budget: int = DEFAULT_BUDGET,
) -> SourceDocument:
    """``body`` (downloaded from ``uri``, named ``name``) read into a document of ``site``
    at ``revision``, read now, with ``metadata`` added, its text held to ``budget``
    characters as a local file's is (a revision the budget cut says so: ``cut_at``);
    ``LoadError`` when it is binary data that no reader knows, or a broken PDF or Office
    file."""
    try:
        if document_kind(body, content_type) is not None:
            document = extract_document(body, url=uri, site=site, key=uri, budget=budget)
        else:
            text = file_text(body)
            is_html = "html" in (content_type or "") or name.lower().endswith(HTML_NAMES)
            document = (
                extract_document(text, url=uri, site=site, key=uri, budget=budget)
                if is_html
                else note_document(text, uri, name, now_ms(), site=site, budget=budget)
            )
    except (DocumentError, FileRefused) as error:
        raise LoadError(LOAD_FAILED, f"{uri}: {error}") from error
    revision = read_under(revision, document, budget)
    return replace(document, revision=revision, metadata={**document.metadata, **(metadata or {})})
