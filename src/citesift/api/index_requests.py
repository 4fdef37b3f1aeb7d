"""The bodies of citesift's own index routes, in the Python API's words: ingesting web pages
into the local index, and searching it."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from citesift.api.fields import RequestBody
from citesift.index.arguments import MAX_TOP_K
from citesift.index.query import MAX_QUERY_CHARS
from citesift.index.rag import DEFAULT_TOP_K
from citesift.settings import DEFAULT_MODE
from citesift.sources.gather import RefusalKind
from citesift.text.chunking import MIN_CHUNK_SIZE

MAX_PAGES = 50
"""Pages one ingest request may name; more is a 400 (the reads run one after another)."""
Retrieval = Literal["hybrid", "bm25", "dense"]


class OwnBody(RequestBody):
    """A body of citesift's own routes: snake_case keys, none it does not know (numbers as
    every body takes them, see ``RequestBody``)."""

    model_config = ConfigDict(extra="forbid")


class IngestRequest(OwnBody):
    """Web pages to read (politely, as any fetch) and add to the index, replacing earlier
    versions of the same pages; local files are never read from a request."""

    urls: list[str] = Field(min_length=1, max_length=MAX_PAGES)
    mode: Literal["article", "page"] = DEFAULT_MODE
    retrieval: Retrieval = "hybrid"
    chunk_size: int = Field(512, ge=MIN_CHUNK_SIZE, le=100_000)
    chunk_overlap: int = Field(50, ge=0, le=100_000)


class IndexSearchRequest(OwnBody):
    """A query against the local index: the ``top_k`` best chunks with their provenance."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    top_k: int = Field(DEFAULT_TOP_K, ge=1, le=MAX_TOP_K)
    retrieval: Retrieval = "hybrid"


class Refused(BaseModel):
    """A page not added: its address, why, and the kind of refusal (``invalid``, ``failed``,
    or ``limited``: try again later)."""

    name: str
    reason: str
    kind: RefusalKind


class EmptyPage(BaseModel):
    """A page read that holds no text to index, and why."""

    id: str
    reason: str


class IngestResponse(BaseModel):
    """What an ingest did, as ``index_add``'s report says: the pages ``added`` and their
    ``chunks``, the pages ``refused`` and why, the pages read ``empty`` (no text to index, an
    earlier version of one kept as it was; each in ``empty_documents`` with why), the pages
    ``cut`` short by a bound on their size or reading time (only their first part indexed),
    of which ``budget_cut`` the text budget cut; ``unchanged``, ``removed`` and ``elsewhere``
    count files and shared jobs, 0 for pages."""

    success: bool = True
    added: int
    chunks: int
    unchanged: int
    removed: int
    refused: list[Refused]
    elsewhere: int
    empty: int = 0
    empty_documents: list[EmptyPage] = Field(default_factory=list)
    cut: list[str] = Field(default_factory=list)
    budget_cut: list[str] = Field(default_factory=list)


class IndexHit(BaseModel):
    """One chunk found: its id, score, text, metadata and provenance (document, span,
    snapshot, licence)."""

    id: str
    score: float | None
    content: str
    metadata: dict[str, object]
    provenance: dict[str, object] | None
    link: str | None = None
    """A link that scrolls to the chunk on its page (a text fragment), as MCP gives it."""


class IndexSearchResponse(BaseModel):
    """The chunks found, best first."""

    success: bool = True
    hits: list[IndexHit]
