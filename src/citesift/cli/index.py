"""``citesift index add/stats/rm`` and ``citesift search``: the local retrieval index."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn
from urllib.parse import urlsplit

import typer
from rich.console import Console
from rich.progress import Progress

from citesift import __version__
from citesift.cli.app import app
from citesift.encoding import decode_html
from citesift.index.rag import create_rag
from citesift.model import Document, Hit, SourceHit
from citesift.store.chunks import ChunkTable
from citesift.store.sqlite import SQLiteStore, default_store_path

TEXT_SUFFIXES = (".txt", ".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")
SNIPPET = 240

index_app = typer.Typer(help="Add documents to the local index, inspect it, remove them.")
app.add_typer(index_app, name="index", no_args_is_help=True)
err = Console(stderr=True)

StoreOption = Annotated[
    Path | None, typer.Option("--store", help="The SQLite store (default: .citesift/).")
]


class SearchMode(StrEnum):
    """How ``search`` scores chunks."""

    hybrid = "hybrid"
    bm25 = "bm25"
    dense = "dense"


@index_app.command("add")
def add(
    sources: Annotated[list[str], typer.Argument(help="Files, folders or http(s) URLs.")],
    store: StoreOption = None,
    mode: Annotated[SearchMode, typer.Option(help="bm25 skips embedding.")] = SearchMode.hybrid,
    chunk_size: Annotated[int, typer.Option(help="Most characters per chunk.")] = 512,
    chunk_overlap: Annotated[int, typer.Option(help="Characters chunks share.")] = 50,
    contact: Annotated[
        str | None,
        typer.Option(envvar="CITESIFT_CONTACT", help="Your URL or e-mail, sent with URL reads."),
    ] = None,
) -> None:
    """Ingest files (.txt, .md, .html) and web pages into the index, replacing earlier
    versions of the same documents."""
    docs = [doc for source in sources for doc in _documents(source, contact)]
    rag = create_rag(store=_store(store), mode=mode.value, chunk_size=chunk_size,
                     chunk_overlap=chunk_overlap)  # fmt: skip
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("Indexing", total=len(docs))
        rag.progress = lambda done, total: progress.update(task, completed=done)
        chunks = rag.ingest(docs)
    typer.echo(f"indexed {len(docs)} document(s) as {chunks} chunk(s)")


@index_app.command("stats")
def stats(store: StoreOption = None) -> None:
    """Documents, chunks and embedded chunks in the index."""
    with SQLiteStore(_store(store)) as sqlite:
        typer.echo(json.dumps(ChunkTable(sqlite).stats(), indent=2))


@index_app.command("rm")
def rm(
    ids: Annotated[list[str], typer.Argument(help="Document ids (see search results).")],
    store: StoreOption = None,
) -> None:
    """Remove documents and all their chunks from the index."""
    with SQLiteStore(_store(store)) as sqlite:
        removed = ChunkTable(sqlite).delete(ids)
    if not removed:
        _fail(f"no document with id {', '.join(ids)} in the index", code=1)
    typer.echo(f"removed {removed} chunk(s)")


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for.")],
    top_k: Annotated[int, typer.Option("--top-k", min=1, help="How many chunks.")] = 5,
    mode: Annotated[SearchMode, typer.Option(help="How to score.")] = SearchMode.hybrid,
    rerank: Annotated[bool, typer.Option("--rerank", help="Rerank with BM25.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per hit.")] = False,
    store: StoreOption = None,
) -> None:
    """Search the local index: the best chunks with their scores and sources."""
    rag = create_rag(store=_store(store), mode=mode.value, rerank=rerank)
    with err.status("Searching…"):
        hits = rag.search(query, top_k=top_k)
    for rank, hit in enumerate(hits, start=1):
        typer.echo(json.dumps(_as_json(hit), ensure_ascii=False) if as_json else _line(rank, hit))
    if not hits:
        err.print("no results")


def _documents(source: str, contact: str | None) -> list[Any]:
    """What ``source`` holds: a web page, a file, or the files of a folder."""
    if urlsplit(source).scheme in ("http", "https"):
        return [_web_page(source, contact)]
    path = Path(source)
    if path.is_dir():
        found = sorted(
            p for p in path.rglob("*") if p.suffix.lower() in TEXT_SUFFIXES + HTML_SUFFIXES
        )
        return [_file(p) for p in found]
    if not path.is_file():
        _fail(f"no such file, folder or URL: {source}")
    return [_file(path)]


def _file(path: Path) -> Any:
    """A text file as a document dict, an HTML file read into a SourceDocument."""
    suffix = path.suffix.lower()
    if suffix in HTML_SUFFIXES:
        from citesift.extract.document import extract_document

        html = decode_html(path.read_bytes())[0]
        return extract_document(html, url=path.resolve().as_uri(), site="file", key=str(path))
    if suffix not in TEXT_SUFFIXES:
        _fail(f"{path}: only {', '.join(TEXT_SUFFIXES + HTML_SUFFIXES)} files can be indexed")
    text = path.read_bytes().decode("utf-8", errors="replace")
    meta = {"title": path.name, "url": path.resolve().as_uri(), "site": "file"}
    return {"id": str(path), "content": text, "metadata": meta}


def _web_page(url: str, contact: str | None) -> Any:
    """The page at ``url`` read politely (robots.txt, limits) as a SourceDocument."""
    if not contact:
        _fail("reading a URL needs --contact (your URL or e-mail, sent in the User-Agent)")
    from citesift.net import ClientIdentity
    from citesift.sources.web import WebPageSource

    source = WebPageSource(ClientIdentity("citesift", __version__, contact))
    with err.status(f"Reading {url}…"):
        outcome = source.read_sync(SourceHit(url, url))
    if not isinstance(outcome, Document):
        _fail(f"{url}: not read ({outcome})", code=1)
    return outcome.document


def _store(path: Path | None) -> Path:
    return path if path is not None else default_store_path()


def _line(rank: int, hit: Hit) -> str:
    meta = hit.metadata
    where = meta.get("url") or meta.get("document_id", "")
    text = " ".join(hit.content.split())
    snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
    score = "-" if hit.score is None else f"{hit.score:.4f}"
    return f"{rank}. [{score}] {meta.get('document_id')}  {where}\n   {snippet}"


def _as_json(hit: Hit) -> dict[str, Any]:
    return {"id": hit.id, "score": hit.score, "content": hit.content, "metadata": hit.metadata}


def _fail(message: str, code: int = 2) -> NoReturn:
    err.print(f"error: {message}", style="red", highlight=False, soft_wrap=True)
    raise typer.Exit(code)
