"""Checking a document's citations: each cited source read through the polite path (or
replayed from its snapshot), each citing sentence graded against the source's sentences,
and the best supporting sentence given with a text-fragment link to it. A cited PDF or
Office file is read as ``scrape`` reads it; its evidence is linked by page (``#page=N``, as
PDF viewers open at), or as the file itself, with its ``place`` in the file named.

A source that cannot be read (an error status, a timeout, a bot check standing in for the
page, a file encrypted, corrupt or past the bounds of reading one) makes its citations
"source unavailable", never "supported". So does a link that cannot be asked for (a
relative one with no base address to read it against, one that cannot be parsed), with the
reason, rather than being left out. So does a time limit that
passes before a citation is reached, or while its page is being read: the read is abandoned
then, whatever its own deadline, so the check ends in bounded time and says it was cut short.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from citesift.index import Embedder
from citesift.index.embedders import CachedEmbedder, shared_embedder
from citesift.model import Document, Licence, Limited, Passage, Place, ReadOutcome, SourceHit
from citesift.net import run_sync
from citesift.numbers import number_in
from citesift.store import SQLiteStore
from citesift.text import citation_sources
from citesift.verify.citations import Citation, Kind, find_citations_capped, unreadable
from citesift.verify.claim_check import verify_read_far
from citesift.verify.judges.base import Judge

Status = Literal["supported", "partially_supported", "not_supported", "source unavailable"]
LIMITED_TRIES = 3
"""Reads of one source answered ``Limited`` before it counts as unavailable."""
MAX_LIMITED_WAIT = 5.0
"""The longest pause, in seconds, before reading a rate-limited source again."""
MAX_SECONDS = 86_400.0
"""The longest time limit, in seconds, a caller may give a check: a day."""
SERVED_MAX_SECONDS = 300.0
"""The time limit of a check a server runs when its caller gives none: a document citing
thousands of slow addresses would otherwise hold one of its workers for hours."""
MAX_SERVED_SECONDS = 3_600.0
"""The longest time limit a server lets its caller ask for a check."""
MAX_SERVED_DOCUMENT_CHARS = 1 << 20
"""Characters of a document a server (HTTP or MCP) checks at most: as many as its request
may carry, a body or a line of at most 1 MiB."""
TIME_LIMIT_REACHED = "time limit reached"
"""The reason of a citation the check had no time left to read."""
UNDEFINED = "the note it cites is not defined"
"""The reason of a citation of a footnote (``[^4]``) the document defines nowhere."""
Progress = Callable[[int, int], None]


class Reader(Protocol):
    """What reads a cited page: a source such as ``WebPageSource``. A read must end soon
    after its task is cancelled (a time limit cancels it)."""

    async def read(self, hit: SourceHit) -> ReadOutcome: ...


@dataclass(frozen=True, slots=True)
class CitationCheck:
    """One citation's verdict: ``evidence`` is the source's best supporting sentence and
    ``evidence_url`` a link to it in the page (in a PDF, to its page); ``place`` where it
    sits in a PDF or Office file (None in a web page); ``snapshot_id`` the fetch it was read
    from; ``title`` and ``licence`` the source's, to cite it by; ``abstained`` when the
    judge gave no verdict (``ClaimCheck.abstained``)."""

    citation: Citation
    status: Status
    score: float
    reason: str
    evidence: str | None = None
    evidence_url: str | None = None
    snapshot_id: str | None = None
    title: str | None = None
    licence: Licence | None = None
    place: Place | None = None
    abstained: bool = False


@dataclass(frozen=True, slots=True)
class DocumentCheck:
    """Every citation's verdict and the counts; ``passed`` when every one is supported;
    ``cut_short`` when the time limit passed before every citation was graded; ``unchecked``
    the citations found past the first ``MAX_CITATIONS``, not read (the check fails then)."""

    citations: tuple[CitationCheck, ...]
    supported: int
    partially_supported: int
    not_supported: int
    unavailable: int
    cut_short: bool = False
    unchecked: int = 0

    @property
    def passed(self) -> bool:
        """True when every citation of the document is supported by its source."""
        return self.supported == len(self.citations) and not self.unchecked


def check_citations(
    text: str,
    reader: Reader,
    kind: Kind = "markdown",
    *,
    base_url: str | None = None,
    judge: Judge | None = None,
    embedder: Embedder | None = None,
    progress: Progress | None = None,
    max_seconds: float | None = None,
) -> DocumentCheck:
    """Find the citations of ``text`` (Markdown or HTML), read each cited page once with
    ``reader``, one at a time so the per-host limits hold, and grade each citing sentence:
    the pages in the order first cited, each with all its citations, so that one page at a
    time is held. The verdicts come in document order.

    ``max_seconds`` (seconds of wall time, at most a day) bounds the whole check: once they
    have passed, each citation not yet graded is "source unavailable" ("time limit reached")
    and the report is ``cut_short``. A read under way is abandoned at that moment, whatever
    its own deadline; a page read in time is still graded, so the check may run past the
    limit by the grading of one page (bounded by the page's text budget).

    ``base_url`` is the address the document's relative links start from, in either kind;
    without it each relative link is "source unavailable" (``RELATIVE``), as is an address
    that cannot be parsed (``UNPARSEABLE``).

    Only the first ``MAX_CITATIONS`` citations are checked: the report counts the others as
    ``unchecked`` and does not pass."""
    ends = None if max_seconds is None else time.monotonic() + checked_max_seconds(max_seconds)
    citations, unchecked = find_citations_capped(text, kind, base_url)
    model = embedder or shared_embedder()
    graded: dict[int, CitationCheck] = {}
    cut_short = False
    for url, cited in _by_page(citations).items():
        cut_short = cut_short or _passed(ends)
        why = unreadable(url) if url else UNDEFINED
        page = None if cut_short else why or run_sync(_read(reader, url, ends))
        passages = _passages(page)
        with SQLiteStore(":memory:") as vectors:  # the page is embedded once for all its citations
            remembering = CachedEmbedder(model, vectors)
            for n, index in enumerate(cited):
                cut_short = cut_short or page is None or (n > 0 and _passed(ends))
                if page is None or cut_short:
                    graded[index] = CitationCheck(
                        citations[index], "source unavailable", 0.0, TIME_LIMIT_REACHED
                    )
                else:
                    graded[index] = _check(citations[index], page, passages, judge, remembering)
                if progress is not None:
                    progress(len(graded), len(citations))
    checks = [graded[index] for index in range(len(citations))]
    return summarise(checks, cut_short=cut_short, unchecked=unchecked)


def _by_page(citations: Sequence[Citation]) -> dict[str, list[int]]:
    """The indices of the citations of each page, pages in the order first cited: each page
    is read once and let go after its citations are graded, so one page at a time is held
    however the document interleaves its sources."""
    pages: dict[str, list[int]] = {}
    for index, citation in enumerate(citations):
        pages.setdefault(citation.url, []).append(index)
    return pages


def _passed(ends: float | None) -> bool:
    """Whether the time limit (a ``time.monotonic()`` value, or None for none) has passed."""
    return ends is not None and time.monotonic() >= ends


def summarise(
    checks: Sequence[CitationCheck], *, cut_short: bool = False, unchecked: int = 0
) -> DocumentCheck:
    """The counts over ``checks`` (``unchecked`` citations were found but not read)."""

    def count(status: Status) -> int:
        return sum(c.status == status for c in checks)

    return DocumentCheck(
        tuple(checks),
        count("supported"),
        count("partially_supported"),
        count("not_supported"),
        count("source unavailable"),
        cut_short,
        unchecked,
    )


def checked_max_seconds(max_seconds: object) -> float:
    """``max_seconds`` when it is a number of seconds over 0 and at most ``MAX_SECONDS``."""
    return number_in("max_seconds", max_seconds, 0, MAX_SECONDS, above=True)


async def _read(reader: Reader, url: str, ends: float | None) -> Document | str | None:
    """The page's document, or why it is unavailable, or None when ``ends`` (a
    ``time.monotonic()`` value) passes first: the read under way is then cancelled."""
    left = None if ends is None else ends - time.monotonic()
    try:
        async with asyncio.timeout(left):
            outcome = await _read_patiently(reader, url, ends)
    except TimeoutError:
        return None
    if isinstance(outcome, Document):
        return outcome
    if isinstance(outcome, Limited):
        return f"rate limited: {outcome.reason}".rstrip(": ")
    status = f"status {outcome.status}: " if outcome.status else ""
    return f"{status}{outcome.reason}" or "the page could not be read"


async def _read_patiently(reader: Reader, url: str, ends: float | None) -> ReadOutcome:
    """The read's outcome, asked again up to ``LIMITED_TRIES`` times while it is ``Limited``
    after the pause it asks for (at most ``MAX_LIMITED_WAIT`` seconds), unless that pause
    would reach ``ends``: the time left then goes to the other citations."""
    outcome: ReadOutcome = Limited()
    for tried in range(1, LIMITED_TRIES + 1):
        outcome = await reader.read(SourceHit(url, url))
        if not isinstance(outcome, Limited) or tried == LIMITED_TRIES:
            break
        pause = min(outcome.retry_in or 1.0, MAX_LIMITED_WAIT)
        if ends is not None and time.monotonic() + pause >= ends:
            break
        await asyncio.sleep(pause)
    return outcome


def _passages(page: Document | str | None) -> list[Passage]:
    """The page's passages that hold text, cut once for all the citations of the page."""
    if page is None or isinstance(page, str):
        return []
    return [p for p in citation_sources(page.document) if p.content.strip()]


def _check(
    citation: Citation,
    page: Document | str,
    passages: list[Passage],
    judge: Judge | None,
    embedder: Embedder,
) -> CitationCheck:
    if isinstance(page, str):
        return CitationCheck(citation, "source unavailable", 0.0, page)
    if not passages:
        return CitationCheck(citation, "source unavailable", 0.0, "the page holds no text")
    check = verify_read_far(
        citation.sentence, [p.content.strip() for p in passages], judge, embedder=embedder
    )
    best: Passage | None = passages[check.supporting[0]] if check.supporting else None
    return CitationCheck(
        citation,
        check.label,
        check.score,
        check.reason,
        best.content.strip() if best else None,
        best.fragment_url if best else None,
        page.document.snapshot_id,
        page.document.title,
        page.document.licence,
        best.place if best else None,
        check.abstained,
    )
