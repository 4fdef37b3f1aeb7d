"""``index_add``: files, folders, web pages and remote trees read into the index, in this
process or by N worker processes, the files of the named folders that are gone pruned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path

from citesift.errors import invalid
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.extract.rules import Mode
from citesift.index.documents import IngestDoc
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.rag import INGEST_BATCH, Rag
from citesift.ingest.job import IngestJob, page_source
from citesift.ingest.report import IndexAddReport, IndexProgress, Tally
from citesift.ingest.workers import MAX_WORKERS, index_by_workers
from citesift.numbers import number_in
from citesift.sources.gather import Item, LoadOptions, SourceRefusal, is_remote, items_of, read_item
from citesift.sources.loaders import gone
from citesift.sources.loaders.limits import DEFAULT_MAX_FILES, MAX_TIMEOUT_MS, LoadLimits
from citesift.sources.page_access import PageAccess
from citesift.sources.web import is_web_url
from citesift.store import default_store_path

INDEXING = "Indexing documents"


def index_add(
    sources: Sequence[str],
    *,
    store: str | Path | None = None,
    retrieval: str = "hybrid",
    mode: Mode = "article",
    chunk_size: int | None = 512,
    chunk_overlap: int | None = 50,
    glob: Sequence[str] = (),
    max_files: float = DEFAULT_MAX_FILES,
    prune: bool = False,
    workers: int = 1,
    pages: PageAccess | None = None,
    deadline: float | None = None,
    progress: IndexProgress | None = None,
    budget: int = DEFAULT_BUDGET,
) -> IndexAddReport:
    """Add ``sources`` to the index in ``store`` (a SQLite file or a PostgreSQL URL; none:
    the default file): files (text, Markdown, HTML, PDF, Office), folders of them (their
    .gitignore files respected, ``glob`` choosing the names as .gitignore patterns), web
    pages (read as ``pages`` says, keeping snapshots in the same store), ``s3://`` and
    ``gs://`` prefixes, ``github:owner/repo`` trees (``max_files`` at most each) and
    ``notion:`` pages. Earlier versions of the same documents are replaced (but by none
    read with no text: counted ``empty``, it keeps its earlier version); a file whose bytes
    are unchanged since it was indexed is not read again. ``mode``: what to keep of
    a page (its ``article`` prose, or all its ``page`` shows); ``retrieval``,
    ``chunk_size`` and ``chunk_overlap`` as in ``create_rag``; ``deadline``: seconds each
    remote request or page may take; ``budget``: the most characters of text kept of each
    file, local or remote (an S3, Cloud Storage, GitHub or Notion one), as
    ``extract_document`` keeps (web pages are read at ``pages``' budget); the report's
    ``cut`` names each document indexed cut short, and a local file cut at another budget
    before is read again.

    ``workers`` processes read and index (a folder's files shared among them); with a
    PostgreSQL store, the same call on other machines shares the work too, each item read
    once. ``prune`` removes the indexed files of the named folders that no longer exist,
    once every item is read: with several machines sharing the job, only in the call that
    finds the job finished. ``progress`` hears ``(what, done, in all)``: "Reading SOURCE"
    (files of a folder or remote tree), "Indexing documents", or with workers "Indexing"
    (items). What cannot be read comes back in the report's ``refused``, and the rest is
    added. A bad argument is an ``InvalidArgument``; a worker process that dies mid-way a
    ``WorkerLost``."""
    _check(sources, mode, glob, workers, pages)
    checked_budget(budget)
    limits = LoadLimits() if deadline is None else LoadLimits(_milliseconds(deadline))
    if pages is not None and deadline is not None:
        pages = replace(pages, limits=replace(pages.limits, deadline=deadline))
    heard = progress or _unheard
    location = str(default_store_path() if store is None else store)
    files = LoadOptions(tuple(glob), limits=limits, max_files=max_files, budget=budget)
    job = IngestJob(location, retrieval, mode, chunk_size, chunk_overlap, files, pages)
    with job.rag() as rag:
        known = {document.id: document.revision for document in rag.documents()}
        job = replace(job, files=replace(files, known=known))  # unchanged files are not read
        if workers == 1:
            tally, elsewhere, may_prune = _index_here(rag, sources, job, heard), 0, True
        else:
            tally, elsewhere, may_prune = _index_by_workers(sources, job, workers, prune, heard)
        removed = _prune(rag, sources, tally.added | tally.unchanged) if prune and may_prune else 0
    return tally.report(removed, elsewhere)


def _check(
    sources: Sequence[str], mode: str, glob: Sequence[str], workers: int, pages: PageAccess | None
) -> None:
    """``InvalidArgument`` for the first argument that makes no sense."""
    if isinstance(sources, str) or not sources or not all(isinstance(s, str) for s in sources):
        raise invalid("sources", sources, "a list of files, folders or URLs (one at least)")
    if mode not in ("article", "page"):
        raise invalid("mode", mode, "'article' or 'page'")
    if isinstance(glob, str) or not all(isinstance(pattern, str) for pattern in glob):
        raise invalid("glob", glob, "a list of .gitignore patterns")
    number_in("workers", workers, 1, MAX_WORKERS, whole=True)
    if pages is None and any(is_web_url(source) for source in sources):
        raise invalid("pages", pages, "a PageAccess saying who reads, as a source is a web page")


def _milliseconds(deadline: float) -> int:
    """``deadline`` seconds as whole milliseconds (one at least)."""
    seconds = number_in("deadline", deadline, 0, MAX_TIMEOUT_MS / 1000, above=True)
    return max(1, round(seconds * 1000))


def _unheard(what: str, done: int, total: int) -> None:
    """Progress no one listens to."""


def _index_here(rag: Rag, sources: Sequence[str], job: IngestJob, progress: IndexProgress) -> Tally:
    """Read every source in this process, then index what they hold in one go; a page
    named twice (by two ``#fragments``) is fetched once, while a file named twice (alone
    and in its folder) is read, or refused, at each naming, as the caller named it."""
    tally = Tally()
    documents: dict[str, IngestDoc] = {}
    fetched: set[str] = set()
    with page_source(job) as pages:
        for source in sources:
            label = f"Reading {source}"
            files = replace(job.files, progress=partial(progress, label))
            found = items_of(source, job.files)
            if isinstance(found, SourceRefusal):
                tally.refused.append(found)
                continue
            found = [item for item in found if item.source not in fetched]
            fetched.update(item.source for item in found if is_web_url(item.source))
            for done, item in enumerate(found, 1):
                tally.sort(read_item(item, pages, job.mode, files), documents)
                if item.listed:
                    progress(label, done, len(found))
            tally.items += len(found)
    if documents:
        _ingest(rag, tally, documents, progress)
    return tally


def _index_by_workers(
    sources: Sequence[str], job: IngestJob, workers: int, prune: bool, progress: IndexProgress
) -> tuple[Tally, int, bool]:
    """What ``workers`` processes read and indexed of every source's items, how many items
    another command read instead, and whether this call may prune."""
    refused: list[SourceRefusal] = []
    items: dict[str, Item] = {}  # by source: a file named twice (alone, in its folder) is one
    for source in sources:
        found = items_of(source, job.files)
        if isinstance(found, SourceRefusal):
            refused.append(found)
        else:
            items.update((item.source, item) for item in found if item.source not in items)
    tally, may_prune = Tally(), True
    if items:
        tally, may_prune = index_by_workers(list(items.values()), job, workers, prune, progress)
    tally.refused[:0] = refused
    return tally, len(items) - tally.items, may_prune


def _ingest(
    rag: Rag, tally: Tally, documents: dict[str, IngestDoc], progress: IndexProgress
) -> None:
    """``tally.ingest(rag, documents)``, ``progress`` moving as chunks are embedded (the slow
    part on a CPU), not only when a batch of documents is stored."""
    total, stored = len(documents), 0

    def on_stored(done: int, _: int) -> None:
        nonlocal stored
        stored = done
        progress(INDEXING, done, total)

    def on_embedded(done: int, of: int) -> None:
        batch = min(INGEST_BATCH, total - stored)
        progress(INDEXING, stored + batch * done // max(of, 1), total)

    rag.progress = on_stored
    if isinstance(rag.embedder, CachedEmbedder):
        rag.embedder.progress = on_embedded
    tally.ingest(rag, documents)


def _prune(rag: Rag, sources: Sequence[str], seen: set[str]) -> int:
    """Remove the indexed files of the folders in ``sources`` that are gone from disk; how
    many documents were removed."""
    named = (Path(s) for s in sources if not is_web_url(s) and not is_remote(s))
    folders = [folder for folder in named if folder.is_dir()]
    if not folders:
        return 0
    indexed = [document.id for document in rag.documents()]
    ids = sorted({i for folder in folders for i in gone(folder, indexed, seen)})
    if ids:
        rag.delete(ids)
    return len(ids)
