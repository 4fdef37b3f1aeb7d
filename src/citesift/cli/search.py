"""``citesift search``: the best chunks of the local index for a query."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

import typer
from rich.console import Console

from citesift.cli.app import app
from citesift.cli.index import reading_index
from citesift.cli.options import (
    ListFormat,
    Listing,
    Retrieval,
    RetrievalMode,
    Store,
    usage_error,
)
from citesift.cli.reading import fail
from citesift.cli.terminal import safe_json, say
from citesift.errors import ClientError, InvalidArgument, StoreError
from citesift.index.arguments import MAX_TOP_K, count
from citesift.index.partition import listed_id
from citesift.index.query import query_text
from citesift.index.rag import DEFAULT_TOP_K, create_rag
from citesift.index.rerankers.base import DEFAULT_RERANK_WEIGHT, Reranker, RerankError
from citesift.index.rerankers.by_name import RERANKERS, reranker_by_name
from citesift.model import Match

SNIPPET = 240
"""Most characters of a chunk shown on a line."""


@app.command()
def search(
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to look for.")],
    top_k: Annotated[
        int, typer.Option("--top-k", help=f"How many chunks (1 to {MAX_TOP_K:,}).")
    ] = (DEFAULT_TOP_K),
    retrieval: Retrieval = RetrievalMode.hybrid,
    rerank: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help=f"Rerank the candidates with this reranker ({', '.join(RERANKERS)}).",
        ),
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
    min_similarity: Annotated[
        float | None,
        typer.Option(
            min=-1,
            max=1,
            help="Hybrid: leave out chunks sharing no word with the query and less similar "
            "than this (the embedder's cosine; default: keep all).",
        ),
    ] = None,
    output: Listing = ListFormat.text,
    store: Store = None,
) -> None:
    """Search the local index: the best chunks with their scores and sources."""
    try:
        count("top_k", top_k, 1, MAX_TOP_K)
        query_text(query)
    except InvalidArgument as error:
        usage_error(str(error))
    ranker = _reranker(rerank, rerank_key, rerank_url, rerank_model) if rerank else None
    with reading_index(store) as kept:
        rag = create_rag(
            store=kept,
            retrieval=retrieval.value,
            rerank=ranker,
            rerank_weight=rerank_weight,
            min_similarity=min_similarity,
        )
        rag.backfill = _say_backfill
        try:
            with rag, Console(stderr=True).status("Searching…"):
                hits = rag.search(query, top_k=top_k)
        except (RerankError, ClientError, StoreError) as error:
            fail(str(error))
    if output is ListFormat.json:
        say(safe_json([_as_json(hit) for hit in hits], indent=2))
        return
    for rank, hit in enumerate(hits, start=1):
        say(_line(rank, hit))
    if not hits:
        say("no results", err=True)


def _say_backfill(done: int, total: int) -> None:
    """Say so before a search embeds the chunks an index holds without vectors of its
    embedder (added with ``--retrieval bm25``): once, but every one of them."""
    if done == 0:
        say(f"embedding {total} chunk(s) the index holds without vectors (once)", err=True)


def _reranker(name: str, key: str | None, url: str | None, model: str | None) -> Reranker:
    """The named reranker, or a clear error naming what is wrong."""
    try:
        return reranker_by_name(name, api_key=key, base_url=url, model=model)
    except (ValueError, RuntimeError) as error:
        usage_error(str(error))


def _line(rank: int, hit: Match) -> str:
    """A hit as its rank, score and document id (and title, and its place in a PDF or
    Office file), then a snippet of its text."""
    origin = hit.provenance
    doc_id = listed_id(origin.document_id if origin else hit.id)
    title = (origin.title if origin else None) or hit.metadata.get("title")
    text = " ".join(hit.content.split())
    snippet = text if len(text) <= SNIPPET else text[: SNIPPET - 1] + "…"
    score = "-" if hit.score is None else f"{hit.score:.4f}"
    named = f"  {title}" if title else ""
    placed = f" ({origin.place.label()})" if origin and origin.place else ""
    return f"{rank}. [{score}] {doc_id}{named}{placed}\n   {snippet}"


def _as_json(hit: Match) -> dict[str, Any]:
    origin = asdict(hit.provenance) if hit.provenance else None
    return {"id": hit.id, "score": hit.score, "content": hit.content,
            "metadata": hit.metadata, "provenance": origin}  # fmt: skip
