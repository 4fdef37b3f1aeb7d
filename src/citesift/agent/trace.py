"""Tracing a stored run: for each field of its answer, the value, the evidence it cites,
and the exact span of the stored snapshot that evidence came from, with its context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from citesift.errors import StoreCorrupt, invalid
from citesift.extract.document import snapshot_text
from citesift.store import AnyStore
from citesift.store.runs import cited_ids, runs_in
from citesift.store.snapshots import snapshots_in

CONTEXT_CHARS = 200
"""How much of the snapshot is shown on each side of a span."""
MAX_SPAN_CHARS = 4_000
"""How much of one span is shown (a whole table's markup can be long)."""


@dataclass(frozen=True, slots=True)
class SpanTrace:
    """One piece of evidence and where it sits: the stored snapshot's id, the span's offsets
    in its decoded text, the span itself (``span``) and what comes ``before`` and
    ``after`` it. The snapshot fields are None when the page was not kept."""

    id: str
    url: str
    kind: str
    text: str
    snapshot_id: str | None
    source_start: int | None
    source_end: int | None
    before: str | None = None
    span: str | None = None
    after: str | None = None


@dataclass(frozen=True, slots=True)
class FieldTrace:
    """One field of an answer: its pointer, value, whether it was verified (or its citation
    corrected), and the evidence it cites, each traced to its bytes."""

    pointer: str
    value: Any
    verified: bool
    corrected: bool
    evidence: tuple[SpanTrace, ...]


@dataclass(frozen=True, slots=True)
class RunTrace:
    """A stored run's task, answer data and the traces of its fields."""

    run_id: str
    task: str
    data: Any
    status: str | None
    fields: tuple[FieldTrace, ...]


def trace(store: AnyStore, run_id: str, pointer: str | None = None) -> RunTrace:
    """The trace of run ``run_id`` (a unique prefix will do) in ``store``: every field, or
    only ``pointer``'s. ``InvalidArgument`` for a run or pointer there is not."""
    run = runs_in(store).get(run_id) if isinstance(run_id, str) else None
    if run is None:
        raise invalid("run", run_id, "the id of a stored run")
    answer = run.answer if isinstance(run.answer, dict) else {}
    fields = [f for f in run.listed("fields") if isinstance(f.get("pointer"), str)]
    if pointer is not None:
        fields = [f for f in fields if f["pointer"] == pointer]
        if not fields:
            raise invalid("pointer", pointer, "the JSON Pointer of a field of the answer")
    evidence = {e["id"]: e for e in run.listed("evidence") if isinstance(e.get("id"), str)}
    snapshots = snapshots_in(store)
    texts: dict[str, str | None] = {}

    def traced(item: dict[str, Any]) -> SpanTrace:
        kept = item.get("snapshot_id")
        found = SpanTrace(
            item["id"], _text(item.get("url")), _text(item.get("kind")), _text(item.get("text")),
            kept if isinstance(kept, str) else None, *_offsets(item),
        )  # fmt: skip
        if found.snapshot_id is None or found.source_start is None or found.source_end is None:
            return found
        if found.snapshot_id not in texts:
            try:
                snapshot = snapshots.get(found.snapshot_id)
            except StoreCorrupt:  # a damaged page traces as one not kept; the rest still do
                snapshot = None
            texts[found.snapshot_id] = None if snapshot is None else snapshot_text(snapshot)
        source = texts[found.snapshot_id]
        if source is None:
            return found
        start, end = found.source_start, found.source_end
        return SpanTrace(
            found.id, found.url, found.kind, found.text, found.snapshot_id, start, end,
            source[max(start - CONTEXT_CHARS, 0) : start],
            source[start : min(end, start + MAX_SPAN_CHARS)],
            source[end : end + CONTEXT_CHARS],
        )  # fmt: skip

    return RunTrace(
        run.id,
        run.task,
        answer.get("data"),
        answer.get("status"),
        tuple(
            FieldTrace(
                f["pointer"],
                f.get("value"),
                bool(f.get("verified")),
                bool(f.get("corrected")),
                tuple(traced(evidence[i]) for i in cited_ids(f) if i in evidence),
            )
            for f in fields
        ),
    )


def _offsets(item: dict[str, Any]) -> tuple[int, int] | tuple[None, None]:
    """The span a stored piece of evidence names, when it names one: whole offsets, in order."""
    start, end = item.get("source_start"), item.get("source_end")
    if type(start) is int and type(end) is int and 0 <= start <= end:
        return start, end
    return None, None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
