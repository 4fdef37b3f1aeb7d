"""Copying one store into another (the embedded SQLite file into PostgreSQL, or back): every
snapshot, every chunk with its vectors, the embedding cache and the hosts' blocks.

Each part is read a page at a time and written in batches, so a store larger than memory
copies; a copy run again writes the same rows again (snapshots are kept once, chunks are
replaced per document, cached vectors by key), so an interrupted copy is finished by
running it once more. Limiter starts are left behind: they are a minute's history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby

from citesift.index.embedders.base import Progress
from citesift.index.rag import INGEST_BATCH, ChunkStore, chunk_store
from citesift.store import AnyStore
from citesift.store.chunks import StoredChunk
from citesift.store.embeddings import every_vector, migrate_embeddings, save_vectors
from citesift.store.limits import budget_in, every_block
from citesift.store.snapshots import snapshots_in

VECTOR_BATCH = 1_000


@dataclass(frozen=True, slots=True)
class StoreCopy:
    """What a copy wrote: fetches kept, documents and chunks, cached vectors, host blocks."""

    snapshots: int
    documents: int
    chunks: int
    vectors: int
    blocks: int


def copy_store(
    source: AnyStore, target: AnyStore, progress: Callable[[str, int], None] | None = None
) -> StoreCopy:
    """Copy everything ``source`` keeps into ``target``; ``progress(part, done)`` hears how
    far each part (``snapshots``, ``chunks``, ``vectors``) has got."""
    tell = progress or (lambda part, done: None)
    snapshots, into = 0, snapshots_in(target)
    for snapshot in snapshots_in(source).every():
        into.save(snapshot)
        snapshots += 1
        if snapshots % 100 == 0:
            tell("snapshots", snapshots)
    documents, chunks = _copy_chunks(chunk_store(source), chunk_store(target), tell)
    vectors = _copy_vectors(source, target, lambda done, _: tell("vectors", done))
    blocks = 0
    budget = budget_in(target)
    for host, until_ms in every_block(source):
        budget.block(host, until_ms)
        blocks += 1
    return StoreCopy(snapshots, documents, chunks, vectors, blocks)


def _copy_chunks(
    source: ChunkStore, target: ChunkStore, tell: Callable[[str, int], None]
) -> tuple[int, int]:
    """Every document's chunks (vectors included), a batch of documents per transaction."""
    documents = chunks = 0
    for batch in _batches(groupby(_all_chunks(source), key=lambda c: c.document_id)):
        target.upsert([d for d, _ in batch], [c for _, parts in batch for c in parts])
        documents += len(batch)
        chunks += sum(len(parts) for _, parts in batch)
        tell("chunks", chunks)
    return documents, chunks


def _all_chunks(store: ChunkStore) -> Iterator[StoredChunk]:
    table = getattr(store, "table", None)
    return iter(table.all()) if table is not None else iter(())


def _batches(
    groups: Iterable[tuple[str, Iterable[StoredChunk]]],
) -> Iterator[list[tuple[str, list[StoredChunk]]]]:
    batch: list[tuple[str, list[StoredChunk]]] = []
    for document, parts in groups:
        batch.append((document, list(parts)))
        if len(batch) == INGEST_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _copy_vectors(source: AnyStore, target: AnyStore, progress: Progress) -> int:
    """The embedding cache, row for row (bytes unchanged), in batches."""
    migrate_embeddings(source)
    migrate_embeddings(target)
    done = 0
    for embedder, keys, rows in every_vector(source, VECTOR_BATCH):
        save_vectors(target, embedder, keys, rows)
        done += len(keys)
        progress(done, done)
    return done


__all__ = ["StoreCopy", "copy_store"]
