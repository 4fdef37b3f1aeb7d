"""A stored research run graded again: each field of its answer, as a claim, against the
sentences of the evidence it cites. ``verify_run`` reads the passages kept in the answer;
``replay_run`` reads them again from the stored snapshots, so a value or passage changed
after the run (or a page that was never kept) shows, all without the network. A sentence
of a PDF or Office file, read again or as kept, is linked by its page and names its place."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from citesift.errors import StoreCorrupt, invalid
from citesift.extract.document import extract_document
from citesift.index import Embedder
from citesift.index.documents import block_starts, file_span
from citesift.index.embedders import CachedEmbedder, shared_embedder
from citesift.model import Block, Passage, Place, Snapshot
from citesift.store import AnyStore, SQLiteStore
from citesift.store.location import is_postgres_url
from citesift.store.runs import StoredRun, cited_ids, stored_run
from citesift.store.snapshots import snapshots_in
from citesift.text import citation_sources
from citesift.text.places import link_to, sentence_places, stored_places
from citesift.verify.claim_check import about_claim, verify_read_far
from citesift.verify.judges.base import Judge

FieldStatus = Literal["supported", "partially_supported", "not_supported", "source unavailable"]
LONG_VALUE_WORDS = 6
"""A text value of at least this many words is a statement of its own: it is checked as it
is, without the field's name in front."""
_NAME_PART = re.compile(r"[A-Za-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class Sentence:
    """One sentence of cited evidence: the evidence id, its URL and a link to it: a text
    fragment in a web page; in a PDF or Office file, its page (``#page=N``), with its
    ``place`` there (None in a web page, or in evidence kept without its place)."""

    evidence_id: str
    text: str
    url: str
    fragment_url: str
    place: Place | None = None


@dataclass(frozen=True, slots=True)
class FieldCheck:
    """One field graded again: the ``claim`` checked (the field's name and value, the name
    saying what the value is, not a fact its evidence must repeat), the
    verdict, its 0–1 ``score`` and ``reason``, the ``supporting`` sentences, whether the
    run had marked it ``verified``, and whether it is ``flagged`` (not supported now)."""

    pointer: str
    value: Any
    claim: str
    status: FieldStatus
    score: float
    reason: str
    supporting: tuple[Sentence, ...]
    verified: bool

    @property
    def flagged(self) -> bool:
        """True when the field's value is not supported by its cited evidence now."""
        return self.status != "supported"


@dataclass(frozen=True, slots=True)
class RunCheck:
    """Every field of a run graded again; ``from_snapshots`` tells a replay (passages read
    from the stored pages) from a check of the passages kept in the answer."""

    run_id: str
    task: str
    from_snapshots: bool
    fields: tuple[FieldCheck, ...]

    @property
    def flagged(self) -> tuple[str, ...]:
        """The pointers of the fields not supported now."""
        return tuple(f.pointer for f in self.fields if f.flagged)

    def as_json(self) -> dict[str, Any]:
        """The check as JSON, as ``trace --verify`` and ``replay`` print it: each field's
        ``status`` in snake case as a document check's is (``unavailable`` for "source
        unavailable"), and the ``flagged`` pointers."""
        fields = [
            asdict(f) | ({"status": "unavailable"} if f.status == "source unavailable" else {})
            for f in self.fields
        ]
        return asdict(self) | {"fields": fields, "flagged": list(self.flagged)}


def verify_run(
    store: AnyStore,
    run_id: str,
    pointer: str | None = None,
    *,
    judge: Judge | None = None,
    embedder: Embedder | None = None,
) -> RunCheck:
    """Grade each field of run ``run_id`` (or only ``pointer``'s) against the passages of
    the evidence it cites, as kept in the answer."""
    return _graded(store, run_id, pointer, judge, embedder, from_snapshots=False)


def replay_run(
    store: AnyStore,
    run_id: str,
    pointer: str | None = None,
    *,
    judge: Judge | None = None,
    embedder: Embedder | None = None,
) -> RunCheck:
    """Grade each field of run ``run_id`` (or only ``pointer``'s) against its cited evidence
    read again from the snapshots in ``store``: the sentences of the stored page within each
    cited span. Evidence whose page was not kept (a search result) cannot be replayed."""
    return _graded(store, run_id, pointer, judge, embedder, from_snapshots=True)


def field_claim(pointer: str, value: Any) -> str:
    """The statement a field makes: its name's words and its value (``/opened_in`` = 1998
    reads "opened in: 1998"); an array's item and a long text value stand alone."""
    about, claim = _field_parts(pointer, value)
    return about_claim(about, claim)


def _field_parts(pointer: str, value: Any) -> tuple[str, str]:
    """What a field's claim is about and what it states (``verify_claim``'s ``about`` and
    ``claim``): its name's words, which a page need not repeat (``height`` = 42 is stated
    by "It stands 42 metres tall."), and its value, which it must. A yes or no states the
    name's words themselves (``free: yes``), so they are then the claim."""
    text = _value_text(value)
    if len(text.split()) >= LONG_VALUE_WORDS:
        return "", text
    last = pointer.rsplit("/", 1)[-1]
    name = "" if last.isdigit() else _name_words(last)
    if isinstance(value, bool):
        return "", about_claim(name, text)
    return name, text


def _graded(
    store: AnyStore,
    run_id: str,
    pointer: str | None,
    judge: Judge | None,
    embedder: Embedder | None,
    *,
    from_snapshots: bool,
) -> RunCheck:
    if not isinstance(store, SQLiteStore) and not is_postgres_url(getattr(store, "url", None)):
        raise invalid("store", store, "a SQLite or PostgreSQL store")
    run = stored_run(store, run_id)
    fields = _fields(run, pointer)
    evidence = {e["id"]: e for e in run.listed("evidence") if isinstance(e.get("id"), str)}
    read = _SnapshotSentences(store) if from_snapshots else _KeptSentences()
    with SQLiteStore(":memory:") as vectors:  # a passage cited by many fields is embedded once
        remembering = CachedEmbedder(embedder or shared_embedder(), vectors)
        checks = []
        for field in fields:
            cited = [evidence[i] for i in cited_ids(field) if i in evidence]
            sentences = [s for item in cited for s in read(item)]
            checks.append(_check(field, sentences, judge, remembering))
    return RunCheck(run.id, run.task, from_snapshots, tuple(checks))


def _fields(run: StoredRun, pointer: str | None) -> list[dict[str, Any]]:
    fields = [f for f in run.listed("fields") if isinstance(f.get("pointer"), str)]
    if pointer is not None:
        fields = [f for f in fields if f["pointer"] == pointer]
        if not fields:
            raise invalid("pointer", pointer, "the JSON Pointer of a field of the answer")
    return fields


def _check(
    field: dict[str, Any], sentences: Sequence[Sentence], judge: Judge | None, embedder: Embedder
) -> FieldCheck:
    pointer, value = field["pointer"], field.get("value")
    about, stated = _field_parts(pointer, value)
    claim = about_claim(about, stated)
    verified = bool(field.get("verified"))
    if not sentences:
        reason = "no cited evidence could be read"
        return FieldCheck(pointer, value, claim, "source unavailable", 0.0, reason, (), verified)
    texts = [s.text for s in sentences]
    check = verify_read_far(stated, texts, judge, embedder=embedder, about=about)
    supporting = tuple(sentences[i] for i in check.supporting)
    return FieldCheck(
        pointer, value, claim, check.label, check.score, check.reason, supporting, verified
    )


class _KeptSentences:
    """The sentences of passages as kept in the answer, each at its place in a file (each
    passage read once, however many fields cite it)."""

    def __init__(self) -> None:
        self.passages: dict[str, list[Sentence]] = {}

    def __call__(self, item: Mapping[str, Any]) -> list[Sentence]:
        if item["id"] not in self.passages:
            self.passages[item["id"]] = _kept(item)
        return self.passages[item["id"]]


def _kept(item: Mapping[str, Any]) -> list[Sentence]:
    """The sentences of a passage as kept in the answer, each at its place in a file."""
    text, url, item_id = str(item.get("text") or ""), str(item.get("url") or ""), item["id"]
    places = stored_places(item.get("places"), len(text))
    return [
        Sentence(item_id, text[a:b], url, link_to(url, text[a:b], place), place)
        for a, b, place in sentence_places(text, places)
    ]


class _SnapshotSentences:
    """The sentences of cited spans, read from the stored snapshots (each page once)."""

    def __init__(self, store: AnyStore) -> None:
        self.snapshots = snapshots_in(store)
        self.pages: dict[str, _StoredPage | None] = {}

    def __call__(self, item: Mapping[str, Any]) -> list[Sentence]:
        snapshot_id, start, end = (
            item.get(k) for k in ("snapshot_id", "source_start", "source_end")
        )
        if (
            not isinstance(snapshot_id, str)
            or not isinstance(start, int)
            or not isinstance(end, int)
        ):
            return []
        if snapshot_id not in self.pages:
            try:
                snapshot = self.snapshots.get(snapshot_id)
            except StoreCorrupt:  # a damaged page cannot be read again; the others still are
                snapshot = None
            self.pages[snapshot_id] = None if snapshot is None else _stored_page(snapshot)
        page = self.pages[snapshot_id]
        if page is None:
            return []
        if page.in_file:
            start, end = page.file_span(item.get("block"), str(item.get("text") or ""))
        return [
            Sentence(item["id"], p.content.strip(), p.url, p.fragment_url, p.place)
            for p, (a, b) in zip(page.passages, page.spans, strict=True)
            if a < end and b > start and p.content.strip()
        ]


@dataclass(frozen=True, slots=True)
class _StoredPage:
    """A stored page's sentences, each with its span where evidence names spans: in the
    decoded page; in a PDF or Office file, whose blocks have no span there, in the file's
    text as ingested (``block_starts``) from the block the evidence
    starts in."""

    passages: list[Passage]
    spans: list[tuple[int, int]]
    blocks: tuple[Block, ...]
    starts: tuple[int, ...]
    in_file: bool

    def file_span(self, block: object, text: str) -> tuple[int, int]:
        """The span of a passage of the file: ``text`` (as kept) from where it begins in
        ``block`` (its start when it begins nowhere there, as after an edit)."""
        return file_span(self.blocks, self.starts, block, text)


def _stored_page(snapshot: Snapshot) -> _StoredPage | None:
    """The sentences of a stored page (None when it can no longer be read)."""
    try:
        document = extract_document(snapshot)
    except ValueError:  # a file whose reader refuses it now
        return None
    passages = citation_sources(document)
    in_file = any(block.place is not None for block in document.blocks)
    if not in_file:
        spans = [(p.source_start, p.source_end) for p in passages]
        return _StoredPage(passages, spans, document.blocks, (), in_file)
    starts = block_starts(document.blocks)
    spans = [(starts[p.block] + p.start, starts[p.block] + p.end) for p in passages]
    return _StoredPage(passages, spans, document.blocks, starts, in_file)


def _value_text(value: Any) -> str:
    """A value as it would be written (a whole float without ``.0``)."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _name_words(token: str) -> str:
    """A pointer token as words: ``openedIn``, ``opened_in`` and ``opened-in`` alike."""
    return " ".join(w.lower() for w in _NAME_PART.findall(_CAMEL.sub(" ", token)))
