"""BM25 for passages read in their document: each passage scores by its own text (with its
title and section path) and by its whole document, each side scaled by its best score for
the query, in equal parts. Only a passage whose own text holds a query term is a hit: its
document's score ranks it, never finds it (a passage of none of the words is no lexical
hit, however well its document matches).

A passage is small enough to cite but says little on its own; its document says what it
is about. Scaling each side by its best score makes the two comparable without a weight
fitted to any data: the best passage and the best document each bring 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from citesift.index.lexical.bm25 import BM25Index, Vocabulary, top_rows

_MARGIN = 1e-9
"""Fused scores are 0 to 2: a passage is left out only when it falls short by more than
this, far more than the rounding of the sums that rank it."""


class PassageIndex:
    """Passages and their documents, both BM25-indexed over one vocabulary: passages by id
    with the id of the document they belong to, documents by id with their whole text."""

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary if vocabulary is not None else Vocabulary()
        self.passages = BM25Index(vocabulary=self.vocabulary)
        self.documents = BM25Index(vocabulary=self.vocabulary)
        self._numbers: dict[str, int] = {}
        self._names: list[str] = []
        """Each document number's id."""
        self._owner = np.zeros(0, dtype=np.int64)
        """Per passage row, its document's number."""
        self._document_rows = np.zeros(0, dtype=np.int64)
        """Per document number, its row in the document index (-1: none)."""
        self._place_cache: np.ndarray | None = None
        self._by_document: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.passages)

    @property
    def ids(self) -> list[str | None]:
        """Passage ids in row order (the order of ``allowed`` masks; None: removed)."""
        return self.passages.ids

    def add(self, ids: Sequence[str], texts: Sequence[str], documents: Sequence[str]) -> list[int]:
        """Index each passage ``texts[i]`` under ``ids[i]``, as part of ``documents[i]``;
        their rows."""
        rows = self.passages.add(ids, texts)
        self.own(rows, documents)
        return rows

    def own(self, rows: Sequence[int] | np.ndarray, documents: Sequence[str]) -> None:
        """Record that passage ``rows[i]`` (ascending) belongs to ``documents[i]``."""
        self._changed()
        if len(rows) and max(rows) >= len(self._owner):
            self._owner = _grown(self._owner, int(max(rows)) + 1, 0)
        self._owner[np.asarray(rows, dtype=np.int64)] = [self._number(d) for d in documents]

    def restore_owners(self, rows: np.ndarray, documents: list[str]) -> None:
        """Put back, in a fresh index whose passage rows are put back, which document each
        live passage row belongs to (every row has a place, removed ones past the last live
        one too)."""
        self._changed()
        self._names = list(dict.fromkeys(documents))
        self._numbers = {d: i for i, d in enumerate(self._names)}
        self._document_rows = _grown(self._document_rows, len(self._names), -1)
        self._owner = _grown(self._owner, len(self.passages.row_ids), 0)
        if len(rows):
            numbers = map(self._numbers.__getitem__, documents)
            self._owner[rows] = np.fromiter(numbers, np.int64, len(documents))

    def remove(self, ids: Iterable[str]) -> list[int]:
        """Forget these passages (unknown ids are ignored); the rows they had."""
        self._changed()
        return self.passages.remove(ids)

    def set_documents(self, ids: Sequence[str], texts: Sequence[str]) -> list[int]:
        """Index (or re-index) each document's whole text; their rows."""
        rows = self.documents.add(ids, texts)
        self.place_documents(ids, rows)
        return rows

    def place_documents(self, ids: Sequence[str], rows: Sequence[int] | np.ndarray) -> None:
        """Record that document ``ids[i]`` is row ``rows[i]`` of the document index."""
        self._changed()
        numbers = [self._number(d) for d in ids]
        self._document_rows[numbers] = rows

    def remove_documents(self, ids: Iterable[str]) -> list[int]:
        """Forget these documents' whole texts; the rows they had."""
        self._changed()
        ids = list(ids)
        self._document_rows[[self._numbers[d] for d in ids if d in self._numbers]] = -1
        return self.documents.remove(ids)

    def search(
        self, query: str, k: int, allowed: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray]:
        """The ids and scores of the ``k`` best passages holding a query term (a positive own
        score), best first; equal scores are ordered by the passage's own BM25 score, then by
        row. ``allowed`` (a boolean mask in row order) restricts the candidates, and the
        scaling to them."""
        terms = self.passages.query_terms(query)  # one vocabulary: the same for both
        own = self.passages.scores_of(terms)
        documents = self.documents.scores_of(terms, extra=1)  # the last: "no document"
        places = self._places()
        if allowed is None:
            rows, bests = candidates(own, documents, places, k, self._passages_by_document())
        else:
            rows = np.flatnonzero(allowed[: len(own)])
            rows, bests = rows[own[rows] > 0], (None, None)
        top, fused = fused_top(own, documents, places, rows, bests, k)
        return [str(self.passages.ids[r]) for r in top], fused

    def _places(self) -> np.ndarray:
        """Per passage row, its document's row in the document index; the "no document"
        row past the last for a removed passage or a document with no whole text (kept
        until the next change)."""
        if self._place_cache is None:
            count = len(self.passages.ids)
            places = self._document_rows[self._owner[:count]]
            missing = (places < 0) | ~self.passages.alive
            self._place_cache = np.where(missing, len(self.documents.ids), places)
        return self._place_cache

    def _passages_by_document(self) -> tuple[np.ndarray, np.ndarray]:
        """``passages_by_document`` of the live rows (kept until the next change)."""
        if self._by_document is None:
            self._by_document = passages_by_document(self._places(), len(self.documents.ids))
        return self._by_document

    def _changed(self) -> None:
        self._place_cache = self._by_document = None

    def owners(self, rows: np.ndarray) -> list[str | None]:
        """The document of each passage row."""
        names = self._names
        return [names[n] for n in self._owner[rows].tolist()]

    def _number(self, document: str) -> int:
        number = self._numbers.setdefault(document, len(self._numbers))
        if number == len(self._names):
            self._names.append(document)
        if number >= len(self._document_rows):
            self._document_rows = _grown(self._document_rows, number + 1, -1)
        return number


Bests = tuple[float | None, float | None]
"""What the own and document sides are scaled by (None: the best of the rows fused)."""


def passages_by_document(places: np.ndarray, documents: int) -> tuple[np.ndarray, np.ndarray]:
    """The passage rows of each of ``documents`` rows, as ``rows[starts[d]:starts[d + 1]]``
    (ascending), from each passage row's document row ``places``."""
    order = np.argsort(places, kind="stable")
    return np.searchsorted(places[order], np.arange(documents + 1)), order


def top_documents(documents: np.ndarray, k: int) -> tuple[np.ndarray, float]:
    """The rows of the documents scoring at least the ``k``-th best positive score (those
    whose matching passages are scored first), and that score: the best a passage of any
    other document has on its document side (0 when ``k`` or fewer score)."""
    scored = np.flatnonzero(documents > 0)
    if len(scored) > k > 0:
        ceiling = float(-np.partition(-documents[scored], k - 1)[k - 1])
        return scored[documents[scored] >= ceiling], ceiling
    return (scored if k > 0 else scored[:0]), 0.0


def candidates(
    own: np.ndarray,
    documents: np.ndarray,
    places: np.ndarray,
    k: int,
    by_document: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, Bests]:
    """The passage rows that can be among the ``k`` best (ascending), and what each side is
    scaled by: the best own and document scores of every passage that could rank. ``own``
    and ``places`` are per passage row (its score, its document's row in ``documents``, the
    document scores), ``by_document`` their ``passages_by_document``.

    Only a passage that matches itself (a positive own score) can rank: its document
    orders the hits, it finds none. The matching passages of the k best documents are scored
    first: the k-th best of them is a floor the k best reach, and a passage of another
    document (whose document side is at most the k-th document's) that its own score cannot
    lift to the floor is left out, so only the few that can rank are fused and sorted.
    """
    scored, ceiling = top_documents(documents, k)
    starts, members = by_document
    near = np.concatenate(
        [members[starts[d] : starts[d + 1]] for d in scored.tolist()] or [members[:0]]
    )
    near = near[own[near] > 0]
    if not len(near):
        return np.flatnonzero(own > 0), (None, None)
    whole = documents[places[near]]
    # The near passages have the best documents: no passage elsewhere has a better one.
    bests = float(own.max()), float(whole.max())
    cut = 0.0
    if len(near) >= k:
        fused = by_best(own[near], bests[0]) + by_best(whole, bests[1])
        floor = -np.partition(-fused, k - 1)[k - 1]
        # A passage elsewhere fuses to at most own / own_best + ceiling / whole_best: it
        # needs an own score of at least this cut (less a margin over rounding).
        cut = (floor - ceiling / bests[1] - _MARGIN) * (bests[0] if bests[0] > 0 else 1.0)
    far = np.flatnonzero(own >= cut) if cut > 0 else np.flatnonzero(own > 0)
    return np.union1d(near, far), bests


def fused_top(
    own: np.ndarray,
    documents: np.ndarray,
    places: np.ndarray,
    rows: np.ndarray,
    bests: Bests,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of the passage ``rows`` (ascending) and their fused scores, best first:
    the own score scaled by its best plus the document's scaled by its; equal scores are
    ordered by the own score, then by row."""
    own = own[rows]
    fused = by_best(own, bests[0]) + by_best(documents[places[rows]], bests[1])
    top = top_rows(fused, k, own)
    return rows[top], fused[top]


def _grown(array: np.ndarray, size: int, fill: int) -> np.ndarray:
    """``array`` with room for at least ``size`` entries (doubling), new ones ``fill``."""
    out = np.full(max(size, 2 * len(array), 1024), fill, dtype=array.dtype)
    out[: len(array)] = array
    return out


def by_best(scores: np.ndarray, best: float | None = None) -> np.ndarray:
    """``scores`` divided by ``best`` (default: the highest of them), unchanged when it is
    not positive."""
    if best is None:
        best = float(scores.max()) if len(scores) else 0.0
    return scores / best if best > 0 else scores


def document_text(contexts: Sequence[str], contents: Sequence[tuple[int, int, str]]) -> str:
    """A document's whole text as its passages give it: each distinct context line once,
    then the passages' contents (``(start, end, text)``, in order) with the text they
    repeat from the one before left out."""
    lines = dict.fromkeys(line for c in contexts for line in c.splitlines() if line)
    parts, covered = list(lines), 0
    for start, end, text in contents:
        parts.append(text[max(covered - start, 0) :])
        covered = max(covered, end)
    return "\n".join(p for p in parts if p)
