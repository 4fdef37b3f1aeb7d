"""What every process taking part in one ``index_add`` needs to read and index items the
same way (``IngestJob``, handed to worker processes), and the steps they share."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from citesift.extract.rules import Mode
from citesift.index.documents import IngestDoc
from citesift.index.rag import Rag, create_rag
from citesift.ingest.report import Tally
from citesift.sources.gather import Item, LoadOptions, read_item
from citesift.sources.page_access import PageAccess, open_pages
from citesift.sources.web import WebPageSource


@dataclass(frozen=True, slots=True)
class IngestJob:
    """The index's store (a SQLite path or a PostgreSQL URL), its retrieval mode and chunk
    bounds, how pages are read (``mode``, ``pages``: None when no source is a page) and how
    files are loaded."""

    store: str = field(repr=False)  # a PostgreSQL URL holds its password
    retrieval: str
    mode: Mode
    chunk_size: int | None
    chunk_overlap: int | None
    files: LoadOptions
    pages: PageAccess | None

    def rag(self) -> Rag:
        """The index, open (close it when done)."""
        return create_rag(store=self.store, retrieval=self.retrieval, chunk_size=self.chunk_size,
                          chunk_overlap=self.chunk_overlap)  # fmt: skip


@contextmanager
def page_source(job: IngestJob) -> Iterator[WebPageSource | None]:
    """The web-page source of ``job`` (None when no source is a page), closed after."""
    if job.pages is None:
        yield None
        return
    with open_pages(job.pages, job.store, job.mode) as pages:
        yield pages


@contextmanager
def opened(job: IngestJob) -> Iterator[tuple[Rag, WebPageSource | None]]:
    """The index and the page source of a worker, both closed however the work ends."""
    with ExitStack() as stack:
        rag = stack.enter_context(job.rag())
        yield rag, stack.enter_context(page_source(job))


def read_and_index(
    items: Sequence[Item],
    rag: Rag,
    pages: WebPageSource | None,
    job: IngestJob,
    after_each: Callable[[], object] = lambda: None,
) -> Tally:
    """Read ``items`` (``after_each`` called as each is read) and index the documents they
    hold in one go: one write for the lot, not one for each file."""
    tally = Tally(items=len(items))
    documents: dict[str, IngestDoc] = {}
    for item in items:
        tally.sort(read_item(item, pages, job.mode, job.files), documents)
        after_each()
    if documents:
        tally.ingest(rag, documents)
    return tally
