"""``citesift index add/ls/stats/rm``: the local retrieval index."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import MofNCompleteColumn, Progress, TaskID

from citesift.checks import encodable
from citesift.cli.app import group
from citesift.cli.options import (
    DEFAULT_READING,
    EXIT_USAGE,
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
from citesift.cli.reading import EXIT_FAILED, EXIT_LIMITED, fail
from citesift.cli.terminal import safe, safe_json, say
from citesift.errors import InvalidArgument, WorkerLost
from citesift.extract.html import DEFAULT_BUDGET
from citesift.index.partition import listed_id, listed_ids
from citesift.index.rag import Rag, create_rag
from citesift.ingest import IndexAddReport, IndexProgress, index_add
from citesift.sources.files import document_ids
from citesift.sources.gather import RefusalKind, SourceRefusal
from citesift.sources.loaders.limits import DEFAULT_MAX_FILES
from citesift.sources.page_access import PageAccess
from citesift.sources.web import is_web_url
from citesift.store import AnyStore, is_postgres_url, open_store, store_path
from citesift.store.location import uri_path

index_app = group("index", "Add documents to the local index, list them, remove them.")
err = Console(stderr=True, soft_wrap=True)
EXIT_STATUS: dict[RefusalKind, int] = {
    "invalid": EXIT_USAGE,
    "failed": EXIT_FAILED,
    "limited": EXIT_LIMITED,
}
"""The exit status each kind of refusal asks for."""


@index_app.command("add")
def add(
    sources: Annotated[
        list[str],
        typer.Argument(metavar="SOURCE", help="Files, folders, web pages or remote sources."),
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
            help="Which files of a folder, repository or bucket to read, as .gitignore"
            " patterns ('*.md', 'docs/**/*.pdf'); repeat for more. Default for a folder:"
            " text, HTML, PDF and Office names.",
        ),
    ] = None,
    max_files: Annotated[
        int, typer.Option(help="Most files read from one remote tree (GitHub, S3, GCS).")
    ] = DEFAULT_MAX_FILES,
    prune: Annotated[
        bool,
        typer.Option(
            help="Remove the indexed files of the named folders that no longer exist (with"
            " --workers, once every item is read)."
        ),
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
    budget: Annotated[
        int,
        typer.Option(
            min=0,
            help="Most characters of text kept of each file, local or remote, as extract.",
        ),
    ] = DEFAULT_BUDGET,
) -> None:
    """Add files (.txt, .md, .html, .pdf, .docx, .pptx, .xlsx), folders of them, web
    pages, S3 and Cloud Storage prefixes, GitHub repositories and Notion pages to the
    index, replacing earlier versions of the same documents. Credentials come from the
    environment (AWS_*, GOOGLE_OAUTH_ACCESS_TOKEN, GITHUB_TOKEN, NOTION_TOKEN). A folder's
    .gitignore files are respected; a file whose bytes are unchanged since it was indexed
    is not read again. Markdown notes keep their title, sections, tags and front matter.
    Pages read are kept as snapshots in the same store. What cannot be read is said on
    standard error and the rest is added; the exit status is 0 when anything was added or
    everything was up to date. A document cut short is named on standard error (when the
    text budget cut it, --budget keeps more). A document's id is its URI (file:///... for a
    file, the page's URL for a page)."""
    path = index_store(store, existing=False)
    pages = None
    if any(is_web_url(source) for source in sources):  # a bad contact is said before any read
        pages = _page_access(contact, allow_private, path, offline, deadline)
    columns = (*Progress.get_default_columns(), MofNCompleteColumn())
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        try:
            report = index_add(sources, store=path, retrieval=retrieval.value, mode=mode.value,
                               chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                               glob=tuple(glob or ()), max_files=max_files, prune=prune,
                               workers=workers, pages=pages, deadline=deadline,
                               progress=_bars(bar), budget=budget)  # fmt: skip
        except InvalidArgument as error:
            usage_error(str(error))
        except WorkerLost as error:
            fail(f"{error}: run the command again")
    _say(report, budget)


def _page_access(
    contact: str | None, allow_private: bool, store: str, offline: bool, deadline: float | None
) -> PageAccess:
    """How pages are read: the flags over the environment and the config file."""
    with source_setup(contact, allow_private, store, offline, deadline) as setup:
        return setup.page_access()


def _bars(bar: Progress) -> IndexProgress:
    """A bar for each thing ``index_add`` says it is doing, moved as it goes."""
    tasks: dict[str, TaskID] = {}

    def heard(what: str, done: int, total: int) -> None:
        if what not in tasks:
            tasks[what] = bar.add_task(escape(safe(what)), total=total or None)
        bar.update(tasks[what], completed=done, total=total or None)

    return heard


def _say(report: IndexAddReport, budget: int) -> None:
    """What ``index add`` did, or why nothing was indexed (then exit with its status)."""
    for refusal in report.refused:
        say(f"skipped {refusal.name}: {refusal.reason}", err=True)
    for empty in report.empty_documents:
        say(f"skipped {shown(empty.id)}: {empty.reason}", err=True)
    for name in report.cut:
        why = (
            f" (budget {budget:,} characters; --budget keeps more)"
            if name in report.budget_cut
            else " by a size or time bound"
        )
        say(f"cut {shown(name)}: the text was cut short{why}", err=True)
    if report.elsewhere:
        say(f"{report.elsewhere} source item(s) read by another command on the same store")
    if report.did_nothing:
        fail("nothing was indexed", _status(report.refused))
    if report.added:
        cut = f", {len(report.cut)} of them cut short" if report.cut else ""
        say(f"indexed {report.added} document(s) as {report.chunks} chunk(s){cut}")
    if report.empty:
        say(
            f"skipped {report.empty} empty document(s): no text to index (kept the earlier"
            " version of any indexed before; index rm removes one)"
        )
    if report.unchanged:
        say(f"{report.unchanged} document(s) unchanged")
    if report.removed:
        say(f"removed {report.removed} document(s) whose files are gone")
    if report.refused:
        say(f"skipped {len(report.refused)} source(s) that could not be read", err=True)


def shown(document_id: str) -> str:
    """A document's id as a user names it: a file's path, else the id (a page's URL)."""
    if not document_id.startswith("file://"):
        return document_id
    return uri_path(document_id)


def _status(refused: tuple[SourceRefusal, ...]) -> int:
    """The exit status when nothing was added: the refusals' own when they agree (a usage
    error, a failure, or "try later"), else failure."""
    statuses = {EXIT_STATUS[refusal.kind] for refusal in refused}
    return statuses.pop() if len(statuses) == 1 else EXIT_FAILED


@index_app.command("ls")
def ls(store: Store = None, output: Listing = ListFormat.text) -> None:
    """The documents in the index: each one's id, number of chunks and title."""
    with reading_index(store) as kept, create_rag(store=kept, retrieval="bm25") as rag:
        documents = rag.documents()
    if output is ListFormat.json:
        say(safe_json([asdict(d) for d in documents], indent=2))
        return
    for document in documents:
        say(f"{listed_id(document.id)}\t{document.chunks}\t{document.title or ''}")


@index_app.command("stats")
def stats(store: Store = None) -> None:
    """Documents, chunks and embedded chunks in the index."""
    with reading_index(store) as kept, create_rag(store=kept, retrieval="bm25") as rag:
        counts = rag.stats()
    typer.echo(json.dumps(asdict(counts), indent=2))


@index_app.command("rm")
def rm(
    ids: Annotated[
        list[str],
        typer.Argument(
            metavar="DOCUMENT",
            help="Document ids as index ls shows them (a partition's as 'ID (partition P)'),"
            " file paths or page URLs (a page's #fragment dropped unless a document of"
            " that very id is kept).",
        ),
    ],
    store: Store = None,
) -> None:
    """Remove documents and all their chunks from the index."""
    with create_rag(store=index_store(store), retrieval="bm25") as rag:
        removed = sum(_remove(rag, name) for name in dict.fromkeys(ids))
    if not removed:
        fail(f"no document with id {', '.join(ids)} in the index")
    say(f"removed {removed} chunk(s)")


def _remove(rag: Rag, name: str) -> int:
    """Remove the documents ``name`` names; how many chunks went. A page's URL with a
    ``#fragment`` names that very id when a document of it is kept (as an older version
    kept them), else the page's document; any other name, every id it can mean: as given,
    as a file, or as ``index ls`` shows a partition's document."""
    if "#" in name and is_web_url(name) and encodable(name) and (gone := rag.delete(name)):
        return gone
    return rag.delete([*document_ids([name]), *listed_ids(name)])


def index_store(name: str | None, *, existing: bool = True, reading: bool = False) -> str:
    """The index's store: ``--store``, else ``$CITESIFT_STORE`` or the config file's, else
    the default path; unless ``existing`` is False, one that ``index add`` has made (a
    PostgreSQL URL is checked by connecting; a file, when ``reading`` and this process cannot
    write it or its folder, by opening it only to read it)."""
    named = load_cli_settings({"store": name}).store
    if is_postgres_url(named):
        return checked_store(str(named))
    try:
        chosen = store_path(named)
    except InvalidArgument as error:
        usage_error(str(error))
    if existing and not chosen.exists():
        fail(f"no index at {chosen}: add documents with citesift index add")
    return checked_store(chosen, read_only=reading and not _writable(str(chosen)))


def reading_index(name: str | None) -> AnyStore:
    """The index's store (as ``index_store`` finds it) for a command that reads it (search,
    ls, stats): opened only to read it when this process cannot write its file or folder, so
    a store there is still read; else opened as ever, so an older store is brought up to
    date and a search embeds chunks indexed without vectors of its embedder."""
    location = index_store(name, reading=True)
    return open_store(location, read_only=not _writable(location))


def _writable(location: str) -> bool:
    """Whether this process may write a store's file and make its side files beside it (a
    server's store: always)."""
    if is_postgres_url(location):
        return True
    path = Path(location)
    return os.access(path, os.W_OK) and os.access(path.absolute().parent, os.W_OK)
