"""The bodies and answers of citesift's own routes under ``/citesift``, in the Python API's
words: a Wikipedia article's or a web page's passages, a claim checked against sentences,
a document's citations checked against their pages, and a research run's trace."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from citesift.agent.trace import FieldTrace
from citesift.api.index_requests import OwnBody
from citesift.sources.wikipedia import PAGE_PATH
from citesift.verify.candidates import DEFAULT_TOP
from citesift.verify.claim_check import MAX_CLAIM_CHARS, MAX_SENTENCES
from citesift.verify.document_check import (
    MAX_SERVED_DOCUMENT_CHARS,
    MAX_SERVED_SECONDS,
    SERVED_MAX_SECONDS,
)

SOURCE_OFFSET = (
    "An offset in the page's decoded source (the stored snapshot's body decoded by its"
    " charset): characters (code points) of the decoded text, not bytes."
)


class WikipediaPassagesRequest(OwnBody):
    """An article of a wiki by its key (as a search hit gives it): its attributed passages.
    ``origin`` (scheme and host) names one of the wikis the server is configured with
    (``ServeConfig.wiki_origins``, and the Wikipedia search's; none: the server's one wiki,
    or English Wikipedia), ``page_path`` its article paths."""

    key: str = Field(min_length=1, max_length=500)
    title: str | None = Field(None, max_length=500)
    origin: str | None = Field(None, max_length=2000, pattern=r"^https?://[^\s/?#]+/?$")
    page_path: str = Field(PAGE_PATH, max_length=500)


class PagePassagesRequest(OwnBody):
    """A web page (politely read: robots.txt, limiter, address policy): its attributed
    passages, of its article prose (``article``) or all it shows (``page``)."""

    url: str = Field(min_length=1, max_length=8192)
    title: str | None = Field(None, max_length=500)
    mode: Literal["article", "page"] = "article"


class ClaimRequest(OwnBody):
    """A claim and the sentences of its source: how well they support it (``about``: what
    the claim is about, as a field's name, which the sentences need not repeat)."""

    claim: str = Field(max_length=MAX_CLAIM_CHARS)
    sentences: list[str] = Field(max_length=MAX_SENTENCES)
    top: int = Field(DEFAULT_TOP, ge=1, le=100)
    about: str = Field("", max_length=MAX_CLAIM_CHARS)


class CitationsRequest(OwnBody):
    """A Markdown or HTML document whose citations are each checked against the page it
    cites (``base_url``: where its relative links point), within ``max_seconds`` seconds."""

    text: str = Field(min_length=1, max_length=MAX_SERVED_DOCUMENT_CHARS)
    kind: Literal["markdown", "html"] = "markdown"
    base_url: str | None = Field(None, max_length=8192)
    max_seconds: float = Field(SERVED_MAX_SECONDS, gt=0, le=MAX_SERVED_SECONDS)


class SourceDocumentOut(BaseModel):
    """A read document's attribution and metadata (its blocks are left out: the passages
    locate themselves in them)."""

    site: str
    key: str
    title: str
    url: str
    revision: str | None
    read_at: int
    licence: dict[str, Any] | None
    publisher: str | None = None
    page_date: int | None = None
    language: str | None = None
    description: str | None = None
    canonical_url: str | None = None
    snapshot_id: str | None = None
    truncated: bool = False
    author: str | None = None


class PassageOut(BaseModel):
    """A citable sentence: its text, attribution (title, URL, licence, revision), where it
    sits (block, offsets in the block and in the stored snapshot) and a link to it."""

    content: str
    title: str
    url: str
    site: str
    key: str
    revision: str | None
    read_at: int
    licence: dict[str, Any] | None
    block: int
    start: int
    end: int
    source_start: int = Field(description=SOURCE_OFFSET)
    source_end: int = Field(description=SOURCE_OFFSET)
    fragment_url: str
    snapshot_id: str | None = None
    place: dict[str, Any] | None = None


class PassagesResponse(BaseModel):
    """A document read, and its passages in reading order."""

    success: bool = True
    document: SourceDocumentOut
    passages: list[PassageOut]
    warning: str | None = None
    """Said when the page holds no text to cite, or is a redirect or disambiguation page."""


class ClaimResponse(BaseModel):
    """A claim's verdict: ``supported``, ``partially_supported`` or ``not_supported``, its
    score and why, the indices of the supporting sentences, and whether the judge
    abstained (gave no verdict)."""

    success: bool = True
    label: str
    supporting: list[int]
    score: float
    reason: str
    abstained: bool


class CitationOut(BaseModel):
    """One citation's verdict, as ``citation_json`` gives it (the CLI's and the MCP tool's
    too): the citing sentence, the page cited, the marker citing it (a note defined nowhere
    cites no page: its marker names it) and the sentence's span in the document, the
    status (``unavailable`` when the page could not be read), whether the judge abstained,
    and the page's best supporting sentence with a link to it, the page's title and
    licence (and, in a PDF or Office file, its place: page, slide or sheet, paragraph, row,
    column)."""

    sentence: str
    url: str
    marker: str
    start: int
    end: int
    status: str
    score: float
    reason: str
    evidence: str | None
    evidence_url: str | None
    snapshot_id: str | None
    title: str | None
    licence: dict[str, Any] | None
    place: dict[str, Any] | None
    abstained: bool


class CitationsResponse(BaseModel):
    """Every citation's verdict and the counts; ``passed`` when every one is supported;
    ``cut_short`` when the time limit passed before every citation was read; ``unchecked``
    the citations past the first 2,000, not read."""

    success: bool = True
    citations: list[CitationOut]
    supported: int
    partially_supported: int
    not_supported: int
    unavailable: int
    passed: bool
    cut_short: bool
    unchecked: int


class TraceResponse(BaseModel):
    """A stored research run: its task, answer and the trace of each field (the fields and
    their evidence are the library's own ``FieldTrace`` and ``SpanTrace``)."""

    success: bool = True
    run_id: str
    task: str
    data: Any
    status: str | None
    fields: list[FieldTrace]
