"""``citesift index add/ls/stats/rm``: the local retrieval index."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import MofNCompleteColumn, Progress

from citesift.cli.app import group
from citesift.cli.gather import LoadOptions, Refusal, Unchanged, gather
from citesift.cli.index_workers import MAX_WORKERS, Job, add_with_workers, page_setup
from citesift.cli.options import (
    DEFAULT_READING,
    AllowPrivate,
    Contact,
    Deadline,
    ListFormat,
    Listing,
    Mode,
    Offline,
    Retrieval,
    RetrievalMode,
    Store,
    checked_store,
    load_cli_settings,
    source_setup,
    usage_error,
)
from citesift.cli.reading import EXIT_FAILED, fail
from citesift.cli.terminal import safe, safe_json, say
from citesift.index.documents import IngestDoc, as_ingest_doc
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.rag import INGEST_BATCH, Rag, create_rag
from citesift.sources.files import document_ids
from citesift.sources.loaders import gone
from citesift.sources.loaders.limits import DEFAULT_MAX_FILES, LoadLimits
from citesift.sources.web import is_web_url
from citesift.store import default_store_path, is_postgres_url

index_app = group("index", "Add documents to the local index, list them, remove them.")
err = Console(stderr=True, soft_wrap=True)


@index_app.command("add")
def add(
    sources: Annotated[
        list[str], typer.Argument(metavar="SOURCE", help="LoadOptions, folders or http(s) URLs.")
    ],
    store: Store = None,
    retrieval: Retrieval = RetrievalMode.hybrid,
    mode: Mode = DEFAULT_READING,
    chunk_size: Annotated[int, typer.Option(help="Most characters per chunk.")] = 512,
    chunk_overlap: Annotated[int, typer.Option(help="Characters chunks share.")] = 50,
    glob: Annotated[
        list[str] | None,
        typer.Option(
            "--glob",
            "--filter",
            help="Which files of a folder, repository or bucket to read, as .gitignore"
            " patterns ('*.md', 'docs/**/*.pdf'); repeat for more. Default for a folder:"
            " text, HTML, PDF and Office names.",
        ),
    ] = None,
    max_files: Annotated[
        int, typer.Option(help="Most files read from one remote tree (GitHub, S3, GCS).")
    ] = DEFAULT_MAX_FILES,
    prune: Annotated[
        bool, typer.Option(help="Remove the indexed files of a folder that no longer exist.")
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            help="Worker processes reading and indexing (a folder's files shared among them;"
            " with a PostgreSQL store, with the same command on other machines too)."
        ),
    ] = 1,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    offline: Offline = False,
    deadline: Deadline = None,
) -> None:
    """Add files (.txt, .md, .html, .pdf, .docx, .pptx, .xlsx), folders of them, web
    pages, S3 and Cloud Storage prefixes, GitHub repositories and Notion pages to the
    index, replacing earlier versions of the same documents. Credentials come from the
    environment (AWS_*, GOOGLE_OAUTH_ACCESS_TOKEN, GITHUB_TOKEN, NOTION_TOKEN). A folder's
    .gitignore files are respected; a file whose bytes are unchanged since it was indexed
    is not read again. Markdown notes keep their title, sections, tags and front matter.
    Pages read are kept as snapshots in the same store. What cannot be read is said on
    standard error and the rest is added; the exit status is 0 when anything was added or
    everything was up to date. A document's id is its URI (file:///... for a file, the
    page's URL for a page)."""
    path = index_store(store, existing=False)
    if not 1 <= workers <= MAX_WORKERS:
        usage_error(f"--workers must be 1 to {MAX_WORKERS}")
    if workers > 1 and prune:
        usage_error("--prune reads every folder whole: run it without --workers")
    try:  # its arguments are checked before any source is read
        rag = create_rag(store=path, mode=retrieval.value, chunk_size=chunk_size,
                         chunk_overlap=chunk_overlap)  # fmt: skip
    except ValueError as error:
        usage_error(str(error))
    with rag:
        try:
            indexed = {d.id: d.revision for d in rag.documents()}
            limits = LoadLimits() if deadline is None else LoadLimits(round(deadline * 1000))
            files = LoadOptions(tuple(glob or ()), indexed, limits=limits, max_files=max_files)
        except ValueError as error:
            usage_error(str(error))
        if workers > 1:
            pages = any(is_web_url(source) for source in sources)
            access = (contact, allow_private, offline, deadline) if pages else None
            job = Job(path, retrieval.value, mode.value, chunk_size, chunk_overlap, files, access)
            _add_with_workers(sources, job, workers)
            return
        docs: dict[str, IngestDoc] = {}  # by id: a file named twice (alone, in its folder) is one
        refusals: list[Refusal] = []
        unchanged: set[str] = set()
        with ExitStack() as stack:
            setup = None
            if any(
                is_web_url(source) for source in sources
            ):  # a bad contact is said before any read
                setup = stack.enter_context(
                    source_setup(contact, allow_private, path, offline, deadline)
                )
            for source in sources:
                with _reading(source) as progress:
                    for found in gather(
                        source, setup, mode.value, replace(files, progress=progress)
                    ):
                        if isinstance(found, Refusal):
                            say(f"skipped {found.name}: {found.reason}", err=True)
                            refusals.append(found)
                        elif isinstance(found, Unchanged):
                            unchanged.add(found.name)
                        else:
                            document = as_ingest_doc(found)
                            docs[document.id] = document
        removed = _prune(rag, sources, indexed, {*docs, *unchanged}) if prune else 0
        if not docs and not unchanged and not removed:
            fail("nothing was indexed", _status(refusals))
        if docs:
            with Progress(console=err, transient=True, disable=not err.is_terminal) as progress:
                _follow(rag, progress, len(docs))
                chunks = rag.ingest(list(docs.values()))
            say(f"indexed {len(docs)} document(s) as {chunks} chunk(s)")
        if unchanged:
            say(f"{len(unchanged)} document(s) unchanged")
        if removed:
            say(f"removed {removed} document(s) whose files are gone")
        if refusals:
            say(f"skipped {len(refusals)} source(s) that could not be read", err=True)


def _add_with_workers(sources: list[str], job: Job, workers: int) -> None:
    """``index add`` by ``workers`` processes, said as ``index add`` says it."""
    setup = page_setup(job)  # a bad contact is said before any read
    if setup is not None:
        setup.close()
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("Indexing", total=None)
        try:
            tally = add_with_workers(
                sources, job, workers, lambda done, total: bar.update(task, completed=done,
                                                                      total=total)
            )  # fmt: skip
        except BrokenProcessPool:
            fail("a worker process ended before its work was done: run the command again")
    for refusal in tally.refusals:
        say(f"skipped {refusal.name}: {refusal.reason}", err=True)
    if tally.elsewhere:
        say(f"{tally.elsewhere} source item(s) read by another command on the same store")
    if not tally.documents and not tally.unchanged and not tally.elsewhere:
        fail("nothing was indexed", _status(tally.refusals))
    if tally.documents:
        say(f"indexed {tally.documents} document(s) as {tally.chunks} chunk(s)")
    if tally.unchanged:
        say(f"{len(tally.unchanged)} document(s) unchanged")
    if tally.refusals:
        say(f"skipped {len(tally.refusals)} source(s) that could not be read", err=True)


@contextmanager
def _reading(source: str) -> Iterator[Callable[[int, int], None]]:
    """A bar on standard error while ``source`` is read, moved by ``(done, total)``."""
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task(escape(safe(f"Reading {source}")), total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _prune(rag: Rag, sources: list[str], indexed: dict[str, str | None], seen: set[str]) -> int:
    """Remove the indexed files of the folders in ``sources`` that are gone from disk."""
    folders = [Path(s) for s in sources if not is_web_url(s) and Path(s).is_dir()]
    ids = sorted({i for folder in folders for i in gone(folder, list(indexed), seen)})
    if ids:
        rag.delete(ids)
    return len(ids)


def _status(refusals: list[Refusal]) -> int:
    """The exit status when nothing was added: the refusals' own when they agree (a usage
    error, a refusal, or "try later"), else failure."""
    statuses = {refusal.status for refusal in refusals}
    return statuses.pop() if len(statuses) == 1 else EXIT_FAILED


def _follow(rag: Rag, progress: Progress, total: int) -> None:
    """One bar over the documents that moves as their chunks are embedded (the slow part on
    a CPU), not only when a batch of documents is stored."""
    task = progress.add_task("Indexing documents", total=total)
    stored = 0

    def documents(done: int, _: int) -> None:
        nonlocal stored
        stored = done
        progress.update(task, completed=done)

    def embedded(done: int, of: int) -> None:
        batch = min(INGEST_BATCH, total - stored)
        progress.update(task, completed=stored + batch * done / max(of, 1))

    rag.progress = documents
    if isinstance(rag.embedder, CachedEmbedder):
        rag.embedder.progress = embedded


@index_app.command("ls")
def ls(store: Store = None, output: Listing = ListFormat.text) -> None:
    """The documents in the index: each one's id, number of chunks and title."""
    with create_rag(store=index_store(store), mode="bm25") as rag:
        documents = rag.documents()
    if output is ListFormat.json:
        say(safe_json([asdict(d) for d in documents], indent=2))
        return
    for document in documents:
        say(f"{document.id}\t{document.chunks}\t{document.title or ''}")


@index_app.command("stats")
def stats(store: Store = None) -> None:
    """Documents, chunks and embedded chunks in the index."""
    with create_rag(store=index_store(store), mode="bm25") as rag:
        counts = rag.stats()
    typer.echo(json.dumps(asdict(counts), indent=2))


@index_app.command("rm")
def rm(
    ids: Annotated[
        list[str],
        typer.Argument(
            metavar="DOCUMENT", help="Document ids (see index ls), file paths or page URLs."
        ),
    ],
    store: Store = None,
) -> None:
    """Remove documents and all their chunks from the index."""
    with create_rag(store=index_store(store), mode="bm25") as rag:
        removed = rag.delete(document_ids(ids))
    if not removed:
        fail(f"no document with id {', '.join(ids)} in the index")
    say(f"removed {removed} chunk(s)")


def index_store(name: str | None, *, existing: bool = True) -> str:
    """The index's store: ``--store``, else ``$CITESIFT_STORE`` or the config file's, else
    the default path; unless ``existing`` is False, one that ``index add`` has made (a
    PostgreSQL URL is checked by connecting)."""
    named = load_cli_settings({"store": name}).store
    if is_postgres_url(named):
        return checked_store(str(named))
    chosen = Path(named) if named else default_store_path()
    if existing and not chosen.exists():
        fail(f"no index at {chosen}: add documents with citesift index add")
    return checked_store(chosen)
