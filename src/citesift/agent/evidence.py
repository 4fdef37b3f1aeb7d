"""Evidence: the passages a run has read, each with the place it came from, numbered E1, E2…
in the order they were found, and chosen from the pages read by the retrieval layer."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from citesift.errors import ClientError, ModelError
from citesift.index import Embedder, bm25_score, create_rag
from citesift.index.documents import as_ingest_doc
from citesift.index.embedders import shared_embedder
from citesift.index.embedders.base import normalise_rows
from citesift.index.vectors import top_k_indices
from citesift.model import Block, Licence, Match, Place, SourceDocument, TextPlace
from citesift.store import SQLiteStore
from citesift.store.chunks import ChunkTable
from citesift.text.places import places_in, places_json, sentence_link

PASSAGE_CHARS = 600
"""The size of a passage shown as evidence: a few sentences, enough to carry a value and its
context."""
PASSAGES_PER_READ = 4
"""How many passages one page read adds to the evidence."""
CLOSEST = "closest"
"""The kind of a page's passages closest to the query by meaning, shown when none of them
holds a word of the query (a page may say what was asked in words of its own)."""
OPENING = "opening"
"""The kind of a page's first passages, shown in their stead when no model can rank the
page by meaning: nothing chose them but their place."""
UNMATCHED = (CLOSEST, OPENING)
"""The kinds of passages shown though none held a word of the query: no answer by words."""
UNRANKED = (ImportError, OSError, ModelError, ClientError)
"""What an embedder that cannot rank a page raises: its package or model file missing or
broken (``ModelError``), its endpoint failing (``ClientError``, ``EmbeddingError`` among
them)."""
MEANING_READ = 32
"""A page's first passages (about 19 KB) ranked by meaning when none holds a word of the
query: embedding them took 2.5 to 3.5 s on two busy CPU cores, and more would hold up the
read longer."""
EXTRACT_CHARS = 8_000
"""The most of one list or table an extract action keeps."""
LISTED_KINDS = ("list_item", "table_cell")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One passage the model may cite: ``id`` (``E1``…), where it came from (``url``,
    ``title``, ``licence``, the ``snapshot_id`` of the bytes fetched, the ``block`` it starts
    in and its ``source_start``/``source_end`` in the decoded snapshot) and its ``text``.
    ``kind`` says what it is: a page ``passage``, one of a page's passages closest to the
    query by meaning, shown as none held a word of it (``closest``), one of its first when
    no model could rank them (``opening``), a ``search result`` or an ``extract``.
    Evidence from a PDF or Office file, where a span of the source means nothing, has
    ``places``: where in ``text`` each block it spans begins, and that block's page, slide
    or sheet (none for a web page)."""

    id: str
    url: str
    kind: str
    text: str
    title: str = ""
    licence: Licence | None = None
    snapshot_id: str | None = None
    block: int | None = None
    source_start: int | None = None
    source_end: int | None = None
    places: tuple[TextPlace, ...] = ()

    @property
    def place(self) -> Place | None:
        """Where the evidence begins in its file (None for a web page)."""
        return self.places[0].place if self.places else None

    def link(self) -> str:
        """A link to the evidence's first sentence: the page of a file it is on
        (``#page=N``), or a text fragment of it in a web page."""
        return sentence_link(self.url, self.text, self.places)[0]

    def to_dict(self) -> dict[str, Any]:
        """The evidence as plain JSON-ready values, its places compact (only the fields each
        place has: a spreadsheet's extract has one for each cell)."""
        return asdict(replace(self, places=())) | {"places": places_json(self.places)}

    def block_text(self) -> str:
        """How the evidence is shown to the model."""
        return f"[{self.id}] {self.url} ({self.kind})\n{self.text}\n\n"


class EvidenceLog:
    """Every piece of evidence of a run, in order, and the retrieval index over the pages
    read (BM25 over passages, in memory: a run's pages are few). ``embedder`` ranks the
    passages of a page none of which holds a word of the query by meaning (the bundled
    MiniLM when None, loaded at the first such page). A read may run in a thread of its
    own: ``close`` waits for it."""

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder
        self.items: list[Evidence] = []
        self._reading = threading.Lock()
        self._store = SQLiteStore(":memory:")
        self._rag = create_rag(store=self._store, retrieval="bm25", chunk_size=PASSAGE_CHARS)
        self._chunks = ChunkTable(self._store)
        self._texts: set[tuple[str, str]] = set()

    def add(self, draft: Evidence) -> Evidence | None:
        """Number ``draft`` and keep it (None when the same text from the same URL is kept
        already, or it has no text)."""
        key = (draft.url, draft.text)
        if not draft.text.strip() or key in self._texts:
            return None
        self._texts.add(key)
        item = replace(draft, id=f"E{len(self.items) + 1}")
        self.items.append(item)
        return item

    def read(
        self, documents: Sequence[SourceDocument], query: str, per_page: int = PASSAGES_PER_READ
    ) -> list[Evidence]:
        """Index ``documents`` and keep, for each, the ``per_page`` passages that best answer
        ``query``; of a page none of whose passages holds a word of the query, the
        ``per_page`` closest to it by meaning, of kind ``CLOSEST`` (its first, of kind
        ``OPENING``, when no model can rank them)."""
        with self._reading:
            return self._read(documents, query, per_page)

    def _read(
        self, documents: Sequence[SourceDocument], query: str, per_page: int
    ) -> list[Evidence]:
        """``read``, under the lock ``close`` waits on."""
        self._rag.ingest(documents)
        found: list[Evidence] = []
        for document in documents:
            ingested = as_ingest_doc(document)
            wanted = {"document_id": ingested.id}
            matches = self._rag.search(query, top_k=per_page, filter=wanted)
            kind = "passage"
            if not matches:
                kind, matches = self.closest(ingested.id, query, per_page)
            for match in matches:
                where = match.provenance
                if where is None:
                    continue
                item = self.add(
                    Evidence(
                        "",
                        where.url or document.url,
                        kind,
                        match.content,
                        where.title or document.title,
                        where.licence,
                        where.snapshot_id,
                        where.block,
                        where.source_start,
                        where.source_end,
                        places_in(document.blocks, ingested.block_starts, where.start, where.end),
                    )
                )
                if item is not None:
                    found.append(item)
        return found

    def closest(self, document_id: str, query: str, count: int) -> tuple[str, list[Match]]:
        """The ``count`` passages of a document closest to ``query`` by meaning, the closest
        first, among its first ``MEANING_READ``, of kind ``CLOSEST`` (a page of ``count`` or
        fewer ranked all the same); its first ``count``, of kind ``OPENING``, when the
        embedder cannot rank them (``UNRANKED``): a read does not fail for want of a model."""
        chunks = self._chunks.first(document_id, MEANING_READ)
        if not chunks:
            return OPENING, chunks
        try:
            embedder = self.embedder or shared_embedder()
            vectors = normalise_rows(embedder.embed([query, *(c.content for c in chunks)]))
        except UNRANKED:
            return OPENING, chunks[:count]
        return CLOSEST, [chunks[i] for i in top_k_indices(vectors[1:] @ vectors[0], count)]

    def extract(self, document: SourceDocument, intent: str) -> Evidence | None:
        """The list or table of ``document`` that best matches ``intent`` (its items one a
        line, with the heading it sits under), kept whole as one piece of evidence; None when
        the page has no list or table."""
        runs = _listed_runs(document.blocks)
        if not runs:
            return None
        texts = ["\n".join(_run_lines(document.blocks, first, last)) for first, last in runs]
        best = best_first(texts, intent)[0]
        first, last = runs[best]
        return self.add(
            Evidence(
                "",
                document.url,
                "extract",
                texts[best][:EXTRACT_CHARS],
                document.title,
                document.licence,
                document.snapshot_id,
                first,
                document.blocks[first].source_start,
                document.blocks[last].source_end,
                _run_places(document.blocks, first, last),
            )
        )

    def close(self) -> None:
        """Let the index go (the evidence itself stays), once a read running in another
        thread is done with it: a run cancelled mid-read leaves its thread running."""
        with self._reading:
            self._store.close()

    def by_id(self) -> dict[str, Evidence]:
        """The evidence by its id."""
        return {item.id: item for item in self.items}


def best_first(texts: Sequence[str], query: str) -> list[int]:
    """The indices of ``texts``, the best match for ``query`` first (BM25; ties keep their
    order; no threshold)."""
    if not texts or not query.strip():
        return list(range(len(texts)))
    matches = [Match(str(i), None, text) for i, text in enumerate(texts)]
    return [int(m.id) for m in bm25_score(query, matches)]


def ranked(items: Sequence[Evidence], query: str) -> list[Evidence]:
    """``items``, the best match for ``query`` first."""
    return [items[i] for i in best_first([e.text for e in items], query)]


def _listed_runs(blocks: Sequence[Block]) -> list[tuple[int, int]]:
    """The first and last index of each run of list items or table cells."""
    runs: list[tuple[int, int]] = []
    start: int | None = None
    for i, block in enumerate([*blocks, None]):
        listed = block is not None and block.kind in LISTED_KINDS
        if listed and start is None:
            start = i
        elif not listed and start is not None:
            runs.append((start, i - 1))
            start = None
    return runs


def _run_lines(blocks: Sequence[Block], first: int, last: int) -> list[str]:
    """A run's items one a line, under the section path it sits in."""
    section = " > ".join(blocks[first].section)
    return ([section] if section else []) + [
        f"- {block.text}" for block in blocks[first : last + 1]
    ]


def _run_places(blocks: Sequence[Block], first: int, last: int) -> tuple[TextPlace, ...]:
    """The place of each item of a run read from a file, where its line begins in the run's
    text (``_run_lines``), within the ``EXTRACT_CHARS`` an extract keeps."""
    lines, items = _run_lines(blocks, first, last), blocks[first : last + 1]
    at = sum(len(line) + 1 for line in lines[: len(lines) - len(items)])  # the section's
    places: list[TextPlace] = []
    for block, line in zip(items, lines[len(lines) - len(items) :], strict=True):
        if at >= EXTRACT_CHARS:
            break
        if block.place is not None:
            places.append(TextPlace(at, block.place))
        at += len(line) + 1
    return tuple(places)
