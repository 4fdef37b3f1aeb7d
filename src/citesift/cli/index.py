"""``citesift index add/stats/rm`` and ``citesift search``: the local retrieval index."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

import typer
from rich.console import Console
from rich.progress import Progress

from citesift.cli.app import app
from citesift.cli.extract import ExtractMode
from citesift.cli.options import (
    AllowPrivate,
    Contact,
    Deadline,
    Offline,
    Store,
    checked_store,
    load_cli_settings,
    source_setup,
    usage_error,
)
from citesift.cli.reading import fail, fail_outcome
from citesift.errors import ClientError
from citesift.index.embedders.base import Embedder
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.rag import create_rag
from citesift.index.rerankers.base import DEFAULT_RERANK_WEIGHT, Reranker, RerankError
from citesift.index.rerankers.by_name import RERANKERS, reranker_by_name
from citesift.model import Document, Match, SourceHit
from citesift.settings import SourceSetup
from citesift.sources.files import FileRefused, document_ids, file_document, indexable_files
from citesift.store.chunks import ChunkTable
from citesift.store.sqlite import SQLiteStore, default_store_path

SNIPPET = 240

index_app = typer.Typer(help="Add documents to the local index, inspect it, remove them.")
app.add_typer(index_app, name="index", no_args_is_help=True)
err = Console(stderr=True, soft_wrap=True)


class SearchMode(StrEnum):
    """How ``search`` scores chunks."""

    hybrid = "hybrid"
    bm25 = "bm25"
    dense = "dense"


@index_app.command("add")
def add(
    sources: Annotated[list[str], typer.Argument(help="Files, folders or http(s) URLs.")],
    store: Store = None,
    mode: Annotated[SearchMode, typer.Option(help="bm25 skips embedding.")] = SearchMode.hybrid,
    extract: Annotated[
        ExtractMode, typer.Option(help="What to keep of a page: its article prose or all it shows.")
    ] = ExtractMode.article,
    chunk_size: Annotated[int, typer.Option(help="Most characters per chunk.")] = 512,
    chunk_overlap: Annotated[int, typer.Option(help="Characters chunks share.")] = 50,
    allow_private: AllowPrivate = False,
    contact: Contact = None,
    offline: Offline = False,
    deadline: Deadline = None,
) -> None:
    """Ingest files (.txt, .md, .html) and web pages into the index, replacing earlier
    versions of the same documents. Pages read are kept as snapshots in the same store;
    HTML files and pages alike are read as ``--extract`` says (article prose by default)."""
    path = _store(store, existing=False)
    with ExitStack() as stack:
        setup = cache(lambda: stack.enter_context(
            source_setup(contact, allow_private, path, offline, deadline)
        ))  # fmt: skip
        docs = [doc for source in sources for doc in _documents(source, setup, extract)]
    rag = create_rag(store=path, mode=mode.value, chunk_size=chunk_size,
                     chunk_overlap=chunk_overlap)  # fmt: skip
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("Indexing documents", total=len(docs))
        rag.progress = lambda done, total: progress.update(task, completed=done)
        _show_embedding(rag.embedder, progress)
        chunks = rag.ingest(docs)
    typer.echo(f"indexed {len(docs)} document(s) as {chunks} chunk(s)")


def _show_embedding(embedder: Embedder | None, progress: Progress) -> None:
    """A second bar for the chunks of each batch being embedded (the slow part on a CPU)."""
    if isinstance(embedder, CachedEmbedder):
        task = progress.add_task("Embedding chunks", total=None, visible=False)
        embedder.progress = lambda done, total: progress.update(
            task, completed=done, total=total, visible=done < total
        )


@index_app.command("stats")
def stats(store: Store = None) -> None:
    """Documents, chunks and embedded chunks in the index."""
    with SQLiteStore(_store(store)) as sqlite:
        typer.echo(json.dumps(ChunkTable(sqlite).stats(), indent=2))


@index_app.command("rm")
def rm(
    ids: Annotated[
        list[str], typer.Argument(help="Document ids (see search results) or file paths.")
    ],
    store: Store = None,
) -> None:
    """Remove documents and all their chunks from the index."""
    with SQLiteStore(_store(store)) as sqlite:
        removed = ChunkTable(sqlite).delete(document_ids(ids))
    if not removed:
        fail(f"no document with id {', '.join(ids)} in the index")
    typer.echo(f"removed {removed} chunk(s)")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="How many chunks.")] = 5,
    mode: Annotated[SearchMode, typer.Option(help="How to score.")] = SearchMode.hybrid,
    rerank: Annotated[bool, typer.Option("--rerank", help="Rerank the candidates.")] = False,
    reranker: Annotated[
        str | None,
        typer.Option(help=f"Which reranker ({', '.join(RERANKERS)}; implies --rerank)."),
    ] = None,
    rerank_key: Annotated[
        str | None,
        typer.Option(help="API key of an HTTP reranker (default: $CITESIFT_<NAME>_API_KEY)."),
    ] = None,
    rerank_url: Annotated[
        str | None, typer.Option(help="Another endpoint for an HTTP reranker (a stand-in).")
    ] = None,
    rerank_model: Annotated[
        str | None,
        typer.Option(help="The reranker's model; for cross-encoder a local model directory."),
    ] = None,
    rerank_weight: Annotated[
        float,
        typer.Option(min=0, max=1, help="The reranker's share of the score; the rest stays."),
    ] = DEFAULT_RERANK_WEIGHT,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per hit.")] = False,
    store: Store = None,
) -> None:
    """Search the local index: the best chunks with their scores and sources."""
    chosen = reranker or ("bm25" if rerank else None)
    ranker = _reranker(chosen, rerank_key, rerank_url, rerank_model) if chosen else None
    rag = create_rag(
        store=_store(store), mode=mode.value, rerank=ranker, rerank_weight=rerank_weight
    )
    try:
        with err.status("Searching…"):
            hits = rag.search(query, top_k=top_k)
    except (RerankError, ClientError) as error:
        fail(str(error))
    for rank, hit in enumerate(hits, start=1):
        typer.echo(json.dumps(_as_json(hit), ensure_ascii=False) if as_json else _line(rank, hit))
    if not hits:
        err.print("no results")


def _reranker(name: str, key: str | None, url: str | None, model: str | None) -> Reranker:
    """The named reranker, or a clear error naming what is wrong."""
    try:
        return reranker_by_name(name, api_key=key, base_url=url, model=model)
    except (ValueError, RuntimeError) as error:
        usage_error(str(error))


def _documents(source: str, setup: Callable[[], SourceSetup], extract: ExtractMode) -> list[Any]:
    """What ``source`` holds: a web page (read with ``setup()``), a file, or the files of a
    folder (a file there that cannot be indexed is skipped with a warning)."""
    if urlsplit(source).scheme in ("http", "https"):
        return [_web_page(source, setup(), extract)]
    path = Path(source)
    if path.is_dir():
        found = (_in_folder(p, extract) for p in indexable_files(path))
        return [doc for doc in found if doc is not None]
    if not path.is_file():
        usage_error(f"no such file, folder or URL: {source}")
    try:
        return [file_document(path, extract.value)]
    except FileRefused as refusal:
        usage_error(f"{path}: {refusal}")


def _in_folder(path: Path, extract: ExtractMode) -> Any | None:
    """A folder's file as a document, or None (and a warning) when it cannot be indexed."""
    try:
        return file_document(path, extract.value)
    except FileRefused as refusal:
        err.print(f"skipped {path}: {refusal}", markup=False, highlight=False)
        return None


def _web_page(url: str, setup: SourceSetup, extract: ExtractMode) -> Any:
    """The page at ``url`` read politely (robots.txt, limits) as a SourceDocument."""
    with err.status(f"Reading {url}…"):
        outcome = setup.web_pages(extract.value).read_sync(SourceHit(url, url))
    if not isinstance(outcome, Document):
        fail_outcome(f"{url}: not read:", outcome)
    return outcome.document


def _store(path: Path | None, *, existing: bool = True) -> Path:
    """The index's store: ``--store``, else ``$CITESIFT_STORE`` or the config file's, else
    the default path; unless ``existing`` is False, one that ``index add`` has made."""
    named = load_cli_settings({"store": path}).store
    chosen = Path(named) if named else default_store_path()
    if existing and not chosen.exists():
        fail(f"no index at {chosen}: add documents with citesift index add")
    return checked_store(chosen)


def _line(rank: int, hit: Match) -> str:
    origin = hit.provenance
    doc_id = origin.document_id if origin else hit.id
    where = (origin.url if origin else None) or doc_id
    text = " ".join(hit.content.split())
    snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
    score = "-" if hit.score is None else f"{hit.score:.4f}"
    return f"{rank}. [{score}] {doc_id}  {where}\n   {snippet}"


def _as_json(hit: Match) -> dict[str, Any]:
    origin = asdict(hit.provenance) if hit.provenance else None
    return {"id": hit.id, "score": hit.score, "content": hit.content,
            "metadata": hit.metadata, "provenance": origin}  # fmt: skip
