"""Tracing a stored run: for each field of its answer, the value, the evidence it cites,
the exact span of the stored snapshot that evidence came from, with its context, and a link
to the sentence of it that holds the value."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Any

from citesift.agent.provenance import value_link
from citesift.errors import StoreCorrupt, invalid
from citesift.extract.document import extract_document, snapshot_text
from citesift.extract.sniff import document_kind
from citesift.index.documents import BLOCK_SEPARATOR, block_starts, file_span
from citesift.model import Block, Snapshot, TextPlace
from citesift.store import AnyStore
from citesift.store.runs import cited_ids, stored_run
from citesift.store.snapshots import snapshots_in
from citesift.text.places import place_words, places_in, sentence_places, stored_places

CONTEXT_CHARS = 200
"""How much of the snapshot is shown on each side of a span."""
MAX_SPAN_CHARS = 4_000
"""How much of one span is shown (a whole table's markup can be long)."""


@dataclass(frozen=True, slots=True)
class SpanTrace:
    """One piece of evidence and where it sits: the stored snapshot's id, the span's offsets
    in characters of its decoded text (``source_start``/``source_end``; the snapshot keeps
    the bytes and their charset, and no offset counts bytes), the span itself (``span``)
    and what comes ``before`` and ``after`` it. The snapshot fields are None when the page
    was not kept. Evidence of a PDF or Office file is shown in the file's text as read (the
    block or blocks it lies in, never its bytes), with its ``place`` (``page 1, paragraph 2
    to page 2, paragraph 1``), as the run kept it when the file itself is not kept. ``link``
    leads to the sentence of the evidence that holds the field's value (its first sentence
    when none does): a text fragment in a web page, the sentence's page in a file
    (``#page=2``)."""

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
    place: str | None = None
    link: str | None = None


@dataclass(frozen=True, slots=True)
class FieldTrace:
    """One field of an answer: its pointer, value, whether it was verified (or its citation
    corrected), and the evidence it cites, each traced to its span of the stored page."""

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
    run = stored_run(store, run_id)
    answer = run.answer if isinstance(run.answer, dict) else {}
    fields = [f for f in run.listed("fields") if isinstance(f.get("pointer"), str)]
    if pointer is not None:
        fields = [f for f in fields if f["pointer"] == pointer]
        if not fields:
            raise invalid("pointer", pointer, "the JSON Pointer of a field of the answer")
    evidence = {e["id"]: e for e in run.listed("evidence") if isinstance(e.get("id"), str)}
    snapshots = snapshots_in(store)
    texts: dict[str, str | _FileText | None] = {}

    def traced(item: dict[str, Any]) -> tuple[SpanTrace, tuple[TextPlace, ...]]:
        """The evidence ``item`` traced to its span of the stored page, and the places its
        sentences are linked by (none in a web page)."""
        kept = item.get("snapshot_id")
        start, end = _offsets(item)
        found = SpanTrace(
            item["id"], _text(item.get("url")), _text(item.get("kind")), _text(item.get("text")),
            kept if isinstance(kept, str) else None, start, end,
        )  # fmt: skip
        if found.snapshot_id is None or found.source_start is None or found.source_end is None:
            return _with_kept_place(found, item)
        if found.snapshot_id not in texts:
            try:
                snapshot = snapshots.get(found.snapshot_id)
            except StoreCorrupt:  # a damaged page traces as one not kept; the rest still do
                snapshot = None
            texts[found.snapshot_id] = None if snapshot is None else _readable(snapshot)
        source = texts[found.snapshot_id]
        if source is None:
            return _with_kept_place(found, item)
        if isinstance(source, _FileText):
            return source.traced(found, item.get("block")) or _with_kept_place(found, item)
        start, end = found.source_start, found.source_end
        spanned = replace(
            found,
            before=source[max(start - CONTEXT_CHARS, 0) : start],
            span=source[start : min(end, start + MAX_SPAN_CHARS)],
            after=source[end : end + CONTEXT_CHARS],
        )
        return spanned, ()

    def linked(field: dict[str, Any], evidence_id: str) -> SpanTrace:
        """The evidence traced, linked at its sentence that holds the field's value."""
        span, places = traces[evidence_id]
        value = field.get("value")
        link, _ = value_link(span.url, span.text, places, value, sentences[evidence_id])
        return replace(span, link=link)

    cited = dict.fromkeys(i for f in fields for i in cited_ids(f) if i in evidence)
    traces = {i: traced(evidence[i]) for i in cited}  # evidence many fields cite, traced once
    sentences = {i: sentence_places(span.text, places) for i, (span, places) in traces.items()}
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
                tuple(linked(f, i) for i in cited_ids(f) if i in evidence),
            )
            for f in fields
        ),
    )


@dataclass(frozen=True, slots=True)
class _FileText:
    """A stored PDF or Office file as read: its blocks, their text as ingested (joined by
    ``BLOCK_SEPARATOR``, where its evidence's passages lie) and where each block begins."""

    url: str
    blocks: tuple[Block, ...]
    starts: tuple[int, ...]
    text: str

    def traced(
        self, found: SpanTrace, block: object
    ) -> tuple[SpanTrace, tuple[TextPlace, ...]] | None:
        """``found`` with its passage as it lies in the file's text, from where it begins in
        ``block`` (as ``replay_run`` reads it), its context kept within the blocks it spans,
        and the places of those blocks; None when ``block`` is none of the file's."""
        if type(block) is not int or not 0 <= block < len(self.blocks):
            return None
        start, end = file_span(self.blocks, self.starts, block, found.text)
        end = min(end, len(self.text))
        last = max(bisect.bisect_right(self.starts, max(end - 1, start)) - 1, block)
        first, final = self.blocks[block].place, self.blocks[last].place
        spanned = replace(
            found,
            before=self.text[max(start - CONTEXT_CHARS, self.starts[block]) : start],
            span=self.text[start : min(end, start + MAX_SPAN_CHARS)],
            after=self.text[
                end : min(end + CONTEXT_CHARS, self.starts[last] + len(self.blocks[last].text))
            ],
            place=place_words(first, final),
        )
        return spanned, places_in(self.blocks, self.starts, start, end)


def _with_kept_place(
    found: SpanTrace, item: dict[str, Any]
) -> tuple[SpanTrace, tuple[TextPlace, ...]]:
    """``found``, a piece of evidence not traced in its file, with where in the file it lies,
    in words, and its places, as the run kept them (none for a web page, or a run kept
    without them)."""
    places = stored_places(item.get("places"), len(found.text))
    if not places:
        return found, ()
    return replace(found, place=place_words(places[0].place, places[-1].place)), places


def _readable(snapshot: Snapshot) -> str | _FileText | None:
    """A stored page's decoded text, or a stored file's text as read (None when its reader
    refuses it now)."""
    try:
        if document_kind(snapshot.body, snapshot.content_type) is None:
            return snapshot_text(snapshot)
        document = extract_document(snapshot)
    except ValueError:  # a file whose reader refuses it now (a zip that is no Office file)
        return None
    text = BLOCK_SEPARATOR.join(b.text for b in document.blocks)
    return _FileText(document.url, document.blocks, block_starts(document.blocks), text)


def _offsets(item: dict[str, Any]) -> tuple[int, int] | tuple[None, None]:
    """The span a stored piece of evidence names, when it names one: whole offsets, in order."""
    start, end = item.get("source_start"), item.get("source_end")
    if type(start) is int and type(end) is int and 0 <= start <= end:
        return start, end
    return None, None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
