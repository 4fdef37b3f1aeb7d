"""Partitions: several tenants' documents in one store, each search seeing only its own.

This is retrieval isolation, not an authorisation boundary: it keeps one partition's chunks
out of another's results (even when a store ignores the filter), but anyone holding the
store can read every partition. Enforce access control before a request gets here.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from citesift.index.arguments import MAX_COUNT
from citesift.index.documents import as_ingest_doc
from citesift.index.rag import Rag, create_rag
from citesift.index.retriever import query_of
from citesift.model import Match
from citesift.numbers import is_finite_number
from citesift.store.chunks import PARTITION_KEY

NAMESPACE = "citesift.rag.partition"
DEFAULT_OVERFETCH = 4
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
        on_diagnostics: Callable[[PartitionDiagnostics], None],
    ) -> None:
        self.rag, self.partition = rag, partition
        self.overfetch_factor, self.on_diagnostics = overfetch_factor, on_diagnostics

    def ingest(self, docs: Iterable[Any]) -> int:
        """Ingest into this partition (the partition key in metadata is forced to it)."""
        return self.rag.ingest(self._own(as_ingest_doc(d)) for d in docs)

    def delete(self, ids: Sequence[str]) -> None:
        """Remove these documents of this partition."""
        self.rag.delete([self.namespaced(str(i)) for i in ([ids] if isinstance(ids, str) else ids)])

    def search(
        self, query: str, top_k: int | None = None, filter: dict[str, Any] | None = None
    ) -> list[Match]:
        """This partition's best chunks, from one store search of ``top_k × factor``."""
        k = _requested(top_k, self.rag.top_k)
        limit = k * self.overfetch_factor
        if limit > MAX_COUNT:
            raise TypeError(f"candidate limit {k} × {self.overfetch_factor} is too large")
        wanted = {**(filter or {}), PARTITION_KEY: {"$eq": self.partition}}
        found = self.rag.candidates(str(query), limit, wanted)[:limit]
        own = [self._local(h) for h in found if h.metadata.get(PARTITION_KEY) == self.partition]
        out = self.rag.finish(str(query), own, k)
        stats = PartitionDiagnostics(
            self.partition, k, limit, len(found), len(found) - len(own), len(out)
        )
        self.on_diagnostics(stats)
        return out

    def retrieve(
        self, query: str | None = None, messages: Sequence[Any] | None = None
    ) -> list[Match]:
        """The retriever contract of an agent runtime: search the query (or the last message)."""
        return self.search(query_of(query, messages))

    def namespaced(self, document_id: str) -> str:
        """The store-wide id of this partition's document ``document_id``."""
        return json.dumps([NAMESPACE, self.partition, document_id], ensure_ascii=False)

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


def create_partitioned_rag(
    partition: str,
    overfetch_factor: int = DEFAULT_OVERFETCH,
    on_diagnostics: Callable[[PartitionDiagnostics], None] | None = None,
    **rag_kwargs: Any,
) -> PartitionedRag:
    """A RAG (``create_rag(**rag_kwargs)``) isolated to ``partition``.

    ``partition`` must be a non-empty string, ``overfetch_factor`` an integer from 1 to 16,
    and ``on_diagnostics`` a callable (it hears about every search); else ``TypeError``.
    """
    if not isinstance(partition, str) or not partition:
        raise TypeError("partition must be a non-empty string")
    if not _whole(overfetch_factor) or not 1 <= overfetch_factor <= MAX_OVERFETCH:
        raise TypeError(f"overfetch_factor must be an integer from 1 to {MAX_OVERFETCH}")
    if not callable(on_diagnostics):
        raise TypeError("on_diagnostics is required: a callable taking PartitionDiagnostics")
    rag = create_rag(**rag_kwargs)
    return PartitionedRag(rag, partition, int(overfetch_factor), on_diagnostics)


def _whole(value: object) -> bool:
    """True for a finite number with no fraction (not a bool)."""
    return is_finite_number(value) and float(value).is_integer()  # type: ignore[arg-type]


def _requested(top_k: object, default: int) -> int:
    """``top_k`` floored and at least 1 (the default when it is not a finite number); huge
    values stay huge, so that the candidate limit refuses them."""
    if not is_finite_number(top_k):
        return default
    return max(1, math.floor(top_k))
