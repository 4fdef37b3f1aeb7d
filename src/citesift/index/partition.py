"""Partitions: several tenants' documents in one store, each search seeing only its own.

This is retrieval isolation, not an authorisation boundary: it keeps one partition's chunks
out of another's results (even when a store ignores the filter), but anyone holding the
store can read every partition. Enforce access control before a request gets here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from citesift.checks import encodable
from citesift.errors import invalid
from citesift.index.arguments import MAX_COUNT, MAX_TOP_K, count, count_or
from citesift.index.documents import as_ingest_doc
from citesift.index.query import query_text
from citesift.index.rag import Rag, create_rag
from citesift.index.retriever import query_of
from citesift.index.texts import whole_text
from citesift.model import Match
from citesift.store.chunks import PARTITION_KEY, IndexedDocument, IndexStats

NAMESPACE = "citesift.rag.partition"
LISTED = "partition"
"""The word a listing of the whole store names a document's partition by."""
DEFAULT_OVERFETCH = 4
MAX_PARTITION_CHARS = 256
"""The longest partition name: a tenant's name or key, kept in every id and chunk of it."""
MAX_OVERFETCH = 16


@dataclass(frozen=True, slots=True)
class PartitionDiagnostics:
    """What one partitioned search examined: foreign candidates crowd out own results, so
    recall is potentially reduced whenever ``rejected`` > 0."""

    partition: str
    requested_top_k: int
    candidate_limit: int
    examined: int
    rejected: int
    returned: int
    recall: Literal["potentially-reduced"] = "potentially-reduced"


class PartitionedRag:
    """A ``Rag`` seen through one partition: namespaced ids, partition-filtered searches."""

    def __init__(
        self,
        rag: Rag,
        partition: str,
        overfetch_factor: int,
        on_diagnostics: Callable[[PartitionDiagnostics], None] | None = None,
    ) -> None:
        self.rag, self.partition = rag, partition
        self.overfetch_factor, self.on_diagnostics = overfetch_factor, on_diagnostics

    def close(self) -> None:
        """Close the store the RAG opened (see ``Rag.close``)."""
        self.rag.close()

    def __enter__(self) -> PartitionedRag:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def ingest(self, docs: Iterable[Any]) -> int:
        """Ingest into this partition (the partition key in metadata is forced to it)."""
        return self.rag.ingest(self._own(as_ingest_doc(d)) for d in docs)

    def delete(self, ids: str | Sequence[str]) -> int:
        """Remove these documents of this partition and all their chunks; how many chunks
        went (0: no such document), as ``Rag.delete`` says."""
        named = [ids] if isinstance(ids, str) else ids
        return self.rag.delete([self.namespaced(str(i)) for i in named])

    def documents(self) -> list[IndexedDocument]:
        """This partition's documents, by their own ids (the namespace taken off), as
        ``Rag.documents`` lists the store's."""
        prefix = self.namespaced("")[:-2]  # the id's JSON up to the document's own string
        return [
            replace(document, id=json.loads(document.id)[2])
            for document in self.rag.documents()
            if document.id.startswith(prefix)
        ]

    def stats(self) -> IndexStats:
        """This partition's documents and chunks, as ``Rag.stats`` counts the store's. The
        chunks embedded are counted for the store alone: ``embedded`` is left empty here."""
        documents = self.documents()
        chunks = sum(document.chunks for document in documents)
        return IndexStats(documents=len(documents), chunks=chunks, embedded={}, partitions=1)

    def has_documents(self) -> bool:
        """Whether this partition holds any document: one row read of it where the store
        can (``has_documents_in``), else this partition's ``stats``."""
        check: Callable[[str], bool] | None = getattr(self.rag.store, "has_documents_in", None)
        return check(self.partition) if check is not None else self.stats().documents > 0

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Match]:
        """This partition's best chunks, from one store search of ``top_k × factor``."""
        most = min(MAX_TOP_K, MAX_COUNT // self.overfetch_factor)
        k = count_or("top_k", top_k, self.rag.top_k, 1, most)
        limit = k * self.overfetch_factor
        wanted = {**(filter or {}), PARTITION_KEY: {"$eq": self.partition}}
        text = query_text(query)
        found = self.rag.candidates(text, limit, wanted)[:limit]
        own = [self._local(h) for h in found if h.metadata.get(PARTITION_KEY) == self.partition]
        out = self.rag.finish(text, own, k)
        stats = PartitionDiagnostics(
            self.partition, k, limit, len(found), len(found) - len(own), len(out)
        )
        if self.on_diagnostics is not None:
            self.on_diagnostics(stats)
        return out

    def retrieve(
        self, query: str | None = None, messages: Sequence[Any] | None = None
    ) -> list[Match]:
        """The retriever contract of an agent runtime: search the query (or the last message)."""
        return self.search(query_of(query, messages))

    def namespaced(self, document_id: str) -> str:
        """The store-wide id of this partition's document ``document_id``."""
        return namespaced_id(self.partition, document_id)

    def _own(self, doc: Any) -> Any:
        meta = {**doc.metadata, PARTITION_KEY: self.partition, "partition_document_id": doc.id}
        return replace(doc, id=self.namespaced(doc.id), metadata=meta)

    def _local(self, hit: Match) -> Match:
        """``hit`` with the partition's own document id (the namespace taken off)."""
        meta = dict(hit.metadata)
        origin = hit.provenance
        doc_id = str(meta.pop("partition_document_id", origin.document_id if origin else hit.id))
        if origin is None:
            return replace(hit, metadata=meta)
        own = replace(origin, document_id=doc_id)
        return replace(hit, id=f"{doc_id}_chunk_{origin.chunk}", metadata=meta, provenance=own)


def namespaced_id(partition: str, document_id: str) -> str:
    """The store-wide id of the document ``document_id`` of ``partition``."""
    return json.dumps([NAMESPACE, partition, whole_text("id", document_id)], ensure_ascii=False)


def listed_id(document_id: str) -> str:
    """A document's id in a listing of the whole store: a partition's document by its own
    id and its partition's name (``gusts (partition team-a)``), never the namespaced id
    the store keeps; any other as is. ``listed_ids`` reads it back."""
    named = partition_named(document_id)
    return document_id if named is None else f"{named[1]} ({LISTED} {named[0]})"


def listed_ids(name: str) -> list[str]:
    """The store-wide ids ``name`` may mean as ``listed_id`` shows them: for each way
    ``X (partition P)`` splits (an id or a name may hold the words too), the id of ``X``
    in ``P``; none for a name not of that form (or not text, which no id is)."""
    if not name.endswith(")") or not encodable(name):
        return []
    found, start = [], name.find(f" ({LISTED} ")
    while start > 0:
        own, partition = name[:start], name[start + len(LISTED) + 3 : -1]
        if partition:
            found.append(namespaced_id(partition, own))
        start = name.find(f" ({LISTED} ", start + 1)
    return found


def partition_named(document_id: str) -> tuple[str, str] | None:
    """The partition and the partition's own id of a store-wide ``document_id`` that a
    ``PartitionedRag`` namespaced, so a listing of the whole store can show it by name; None
    for any other id."""
    if not document_id.startswith(f'["{NAMESPACE}", '):
        return None
    try:
        named = json.loads(document_id)
    except ValueError:
        return None
    if len(named) != 3 or not all(isinstance(part, str) for part in named):
        return None
    return named[1], named[2]


def create_partitioned_rag(
    partition: str,
    overfetch_factor: int = DEFAULT_OVERFETCH,
    on_diagnostics: Callable[[PartitionDiagnostics], None] | None = None,
    **rag_kwargs: Any,
) -> PartitionedRag:
    """A RAG (``create_rag(**rag_kwargs)``) isolated to ``partition``.

    ``partition`` is a string of 1 to 256 characters (with no lone surrogate),
    ``overfetch_factor`` an integer from 1 to 16 (how many candidates per result one store
    search brings),
    ``on_diagnostics`` None or a callable that hears about every search (how many foreign
    candidates crowded out own results); anything else is an ``InvalidArgument``.
    """
    if not isinstance(partition, str) or not 0 < len(partition) <= MAX_PARTITION_CHARS:
        raise invalid("partition", partition, f"a string of 1 to {MAX_PARTITION_CHARS} characters")
    whole_text("partition", partition)
    factor = count("overfetch_factor", overfetch_factor, 1, MAX_OVERFETCH)
    if on_diagnostics is not None and not callable(on_diagnostics):
        raise invalid("on_diagnostics", on_diagnostics, "None or a callable")
    rag = create_rag(**rag_kwargs)
    return PartitionedRag(rag, partition, factor, on_diagnostics)
