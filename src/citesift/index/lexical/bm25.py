"""BM25 (Lucene's idf): an index over segments of postings, queries scored in C; and the same
scoring of a short list of matches, with no index kept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from citesift.checks import text_arg
from citesift.index.lexical.tokens import Tokenize, Tokenizer
from citesift.model import Match
from citesift.numbers import number_in

_Terms = tuple[np.ndarray, np.ndarray]  # term ids, term counts
DEFAULT_K1 = 1.5
DEFAULT_B = 0.75


MAX_K1 = 1e6


def bm25_parameters(k1: object, b: object) -> tuple[float, float]:
    """``k1`` (term frequency saturation, 0 to a million) and ``b`` (length normalisation,
    0 to 1) as floats, or ``InvalidArgument`` naming the one out of range."""
    return number_in("k1", k1, 0, MAX_K1), number_in("b", b, 0, 1)


MERGE_CAP = 8_000_000
"""Postings past which a segment is no longer merged (a merge sorts both segments)."""


@dataclass(frozen=True, slots=True)
class Segment:
    """Postings sorted by term: ``terms`` (distinct, ascending), ``starts`` (where each
    term's postings begin, plus the end), and per posting its ``rows`` and ``tf``. A segment
    never changes; ``key`` names it where it is kept."""

    key: int
    terms: np.ndarray
    starts: np.ndarray
    rows: np.ndarray
    tf: np.ndarray
    members: np.ndarray
    """The rows it holds, ascending (a row with no terms has no postings, yet is one)."""

    def spans(self, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the postings of each of ``terms`` begin and end (equal for a term the
        segment lacks): each term's postings are one run, ``rows[lo:hi]``."""
        lo = np.searchsorted(self.terms, terms)
        return self.starts[lo], self.starts[np.searchsorted(self.terms, terms, side="right")]


_EMPTY_ROWS = np.zeros(0, dtype=np.int32)
_EMPTY_TF = np.zeros(0, dtype=np.float32)


def sealed(
    key: int, rows: np.ndarray, terms: np.ndarray, tf: np.ndarray, members: np.ndarray
) -> Segment:
    """A segment of postings given in any order (the order of equal terms is kept)."""
    order = np.argsort(terms, kind="stable")
    terms, rows, tf = terms[order], rows[order], tf[order]
    heads = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]]) if len(terms) else order[:0]
    starts = np.r_[heads, len(terms)].astype(np.int64)
    heads_terms = terms[heads].astype(np.int32)
    return Segment(key, heads_terms, starts, rows.astype(np.int32), tf, members.astype(np.int64))


@dataclass(slots=True)
class Vocabulary:
    """Terms and their ids (an id is never reused), shared by the indexes of one store."""

    ids: dict[str, int] = field(default_factory=dict)
    terms: list[str] = field(default_factory=list)

    def id_of(self, term: str) -> int:
        found = self.ids.get(term)
        if found is None:
            found = self.ids[term] = len(self.terms)
            self.terms.append(term)
        return found


class BM25Index:
    """Okapi BM25 (Lucene's idf) over documents added and removed by id.

    Each document is a row (its id, length and liveness); its term counts go into a pending
    list, sealed into an immutable segment of postings sorted by term before a search, and
    small segments are merged. A query reads its terms' postings from each segment and
    scores the live rows in C: nothing is rebuilt as the index grows, and the segments can
    be kept as they are and loaded back.
    """

    def __init__(
        self,
        k1: float = DEFAULT_K1,
        b: float = DEFAULT_B,
        tokenizer: Tokenize | None = None,
        vocabulary: Vocabulary | None = None,
    ) -> None:
        self.k1, self.b = bm25_parameters(k1, b)
        self.tokenize = tokenizer if tokenizer is not None else Tokenizer()
        self.vocabulary = vocabulary if vocabulary is not None else Vocabulary()
        self.row_ids: list[str | None] = []
        """Each row's document id (None once removed)."""
        self._rows: dict[str, int] = {}
        self._lengths = np.zeros(0, dtype=np.float64)
        self._alive = np.zeros(0, dtype=bool)
        self._total_length = 0.0
        self.pending: list[tuple[int, np.ndarray, np.ndarray]] = []
        """(row, term ids, counts) added since the last seal."""
        self.segments: list[Segment] = []
        self._pending_cache: Segment | None = None
        self._saturation_cache: np.ndarray | None = None
        self._next_key = 0

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def ids(self) -> list[str | None]:
        """Document ids in row order (the order of ``allowed`` masks and of ``scores``);
        a removed row's is None."""
        return self.row_ids

    @property
    def lengths(self) -> np.ndarray:
        """Per row, its length in terms (0 once removed)."""
        return self._lengths[: len(self.row_ids)]

    @property
    def alive(self) -> np.ndarray:
        """Per row, whether it holds a document (False once removed)."""
        return self._alive[: len(self.row_ids)]

    def restore_pending(self, row: int, terms: _Terms) -> None:
        """Put back the term counts of a row kept unsealed."""
        self.pending.append((row, *terms))
        self._pending_cache = None

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> list[int]:
        """Index (or re-index) each ``texts[i]`` under ``ids[i]``; their new rows."""
        return self.add_terms(ids, [self.terms(t) for t in texts])

    def terms(self, text: str) -> _Terms:
        """The term ids and counts of ``text`` (new terms join the vocabulary)."""
        counts = Counter(self.tokenize(text))
        ids = list(map(self.vocabulary.ids.get, counts))
        if None in ids:
            ids = [self.vocabulary.id_of(t) for t in counts]
        return np.array(ids, dtype=np.int32), np.array(list(counts.values()), dtype=np.float32)

    def add_terms(self, ids: Sequence[str], terms: Sequence[_Terms]) -> list[int]:
        """Index documents given as term ids and counts; their new rows."""
        self.remove(ids)
        self._saturation_cache = None
        first = len(self.row_ids)
        rows = list(range(first, first + len(ids)))
        lengths = np.array([float(c.sum()) for _, c in terms], dtype=np.float64)
        self._grow(first + len(ids))
        self._lengths[first : first + len(ids)] = lengths
        self._alive[first : first + len(ids)] = True
        self._total_length += float(lengths.sum())
        for row, doc_id, (term_ids, counts) in zip(rows, ids, terms, strict=True):
            self.row_ids.append(doc_id)
            self._rows[doc_id] = row
            self.pending.append((row, term_ids, counts))
        self._pending_cache = None
        return rows

    def restore_rows(
        self, rows: np.ndarray, ids: list[str], lengths: np.ndarray, used: int
    ) -> None:
        """Put back the live rows as they were kept (ascending), of ``used`` rows in all:
        the others were removed, and no row is used twice."""
        self._grow(used)
        self._saturation_cache = None
        row_ids = np.full(used, None, dtype=object)
        row_ids[rows] = ids
        self.row_ids = row_ids.tolist()
        self._rows = dict(zip(ids, rows.tolist(), strict=True))
        self._lengths[rows] = lengths
        self._alive[rows] = True
        self._total_length = float(lengths.sum())

    def restore_segment(self, segment: Segment) -> None:
        self.segments.append(segment)
        self._next_key = max(self._next_key, segment.key + 1)

    def remove(self, ids: Iterable[str]) -> list[int]:
        """Forget these documents (unknown ids are ignored); the rows they had."""
        gone = []
        self._saturation_cache = None
        for doc_id in ids:
            row = self._rows.pop(doc_id, None)
            if row is not None:
                self._alive[row] = False
                self._total_length -= float(self._lengths[row])
                self.row_ids[row] = None
                gone.append(row)
        return gone

    def seal(self) -> tuple[list[Segment], list[Segment]]:
        """Turn the pending rows into a segment and merge small segments; the segments made
        and those dropped (to keep the stored copy in step)."""
        made: list[Segment] = []
        dropped: list[Segment] = []
        if not self.pending:
            return made, dropped
        self._next_key += 1
        self.pending = [p for p in self.pending if self._alive[p[0]]]
        self.segments.append(self._postings_of_pending(self._next_key - 1))
        self.pending, self._pending_cache = [], None
        made.append(self.segments[-1])
        while len(self.segments) > 1 and self._mergeable(*self.segments[-2:]):
            older, newer = self.segments[-2], self.segments[-1]
            live = np.concatenate([older.rows, newer.rows])
            keep = self._alive[live]
            terms = np.concatenate([np.repeat(s.terms, np.diff(s.starts)) for s in (older, newer)])
            members = np.concatenate([older.members, newer.members])
            merged = self._sealed(
                live[keep],
                terms[keep],
                np.concatenate([older.tf, newer.tf])[keep],
                members[self._alive[members]],
            )
            self.segments[-2:] = [merged]
            for segment in (older, newer):
                (made.remove(segment) if segment in made else dropped.append(segment))
            made.append(merged)
        return made, dropped

    def _saturation(self) -> np.ndarray:
        """Per row, ``k1`` times its length normalisation (kept until the next change)."""
        if self._saturation_cache is None:
            live = len(self._rows)
            mean = self._total_length / live if live else 0.0
            lengths = self._lengths[: len(self.row_ids)]
            self._saturation_cache = saturation_of(lengths, mean, self.k1, self.b)
        return self._saturation_cache

    def _pending_segment(self) -> Segment:
        """The pending rows as a segment (kept until the next change): searched, not kept."""
        if self._pending_cache is None:
            self._pending_cache = self._postings_of_pending(-1)
        return self._pending_cache

    def _postings_of_pending(self, key: int) -> Segment:
        members = np.fromiter((r for r, _, _ in self.pending), np.int64, len(self.pending))
        if not self.pending:
            return sealed(key, _EMPTY_ROWS, _EMPTY_ROWS, _EMPTY_TF, members)
        rows = np.repeat(members, [len(t) for _, t, _ in self.pending])
        terms = np.concatenate([t for _, t, _ in self.pending])
        tf = np.concatenate([c for _, _, c in self.pending]).astype(np.float32)
        return sealed(key, rows, terms, tf, members)

    def _sealed(
        self, rows: np.ndarray, terms: np.ndarray, tf: np.ndarray, members: np.ndarray
    ) -> Segment:
        self._next_key += 1
        return sealed(self._next_key - 1, rows, terms, tf, members)

    @staticmethod
    def _mergeable(older: Segment, newer: Segment) -> bool:
        """Whether to merge the two newest segments: the older is not much bigger and the
        merge stays under the cap (so segments grow geometrically, a merge stays cheap)."""
        sizes = len(older.rows), len(newer.rows)
        return sizes[0] <= 2 * sizes[1] and sum(sizes) <= MERGE_CAP

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every row (row order of ``ids``; 0 for removed rows) for
        ``query``. Each distinct query term counts once: a claim that repeats a word is not
        about it twice."""
        return self.scores_of(self.query_terms(query))

    def query_terms(self, query: str) -> np.ndarray:
        """The ids of the distinct terms of ``query`` the vocabulary knows, in query order."""
        known = self.vocabulary.ids
        terms = {known[t]: None for t in self.tokenize(query) if t in known}
        return np.fromiter(terms, np.int32, len(terms))

    def scores_of(self, wanted: np.ndarray, extra: int = 0) -> np.ndarray:
        """``scores`` of a query given as ``query_terms``, with ``extra`` zeros past the
        last row (a caller's sentinel, at no copy)."""
        live = len(self._rows)
        size = len(self.row_ids) + extra
        if not len(wanted) or not live:
            return np.zeros(size)
        segments = (*self.segments, self._pending_segment())
        spans = [s.spans(wanted) for s in segments]
        lengths = np.concatenate([hi - lo for lo, hi in spans])
        # Each term's postings are one run in each segment: copied as slices, not gathered
        # one by one. A row's postings are all in one segment, in the query's term order:
        # each row's score is summed term by term, in that order, with no sort.
        runs = [
            (s, a, b)
            for s, (lo, hi) in zip(segments, spans, strict=True)
            for a, b in zip(lo.tolist(), hi.tolist(), strict=True)
            if b > a
        ]
        # As indexes (gathering and counting by them would convert them each time).
        rows = np.concatenate([s.rows[a:b] for s, a, b in runs] or [_EMPTY_ROWS], dtype=np.intp)
        tf = np.concatenate([s.tf[a:b] for s, a, b in runs] or [_EMPTY_TF], dtype=np.float64)
        if len(self.row_ids) > live:  # removed rows keep postings until a merge drops them
            keep = self._alive[rows]
            rows, tf = rows[keep], tf[keep]
            run_of = np.repeat(np.arange(len(lengths)), lengths)
            lengths = np.bincount(run_of[keep], minlength=len(lengths))
        df = np.add.reduce(lengths.reshape(len(segments), len(wanted)), dtype=np.float64)
        idf = idf_of(live, df)
        part = np.repeat(np.concatenate([idf] * len(segments)), lengths)
        weights = weighed(part, tf, self._saturation()[rows], self.k1)
        return np.bincount(rows, weights=weights, minlength=size)

    def search(
        self, query: str, k: int, allowed: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray]:
        """The ids and scores of the ``k`` best documents with a positive score, best first;
        ``allowed`` (a boolean mask in row order) restricts the candidates."""
        scores = self.scores(query)
        if allowed is not None:
            scores = np.where(allowed, scores, 0.0)
        rows = top_rows(scores, k)
        return [str(self.row_ids[r]) for r in rows], scores[rows]

    def _grow(self, rows: int) -> None:
        """Room for ``rows`` rows in the length and liveness arrays (doubling)."""
        if rows <= len(self._lengths):
            return
        size = max(rows, 2 * len(self._lengths), 1024)
        self._lengths = np.resize(self._lengths, size)
        self._alive = np.resize(self._alive, size)
        self._lengths[len(self.row_ids) :] = 0.0
        self._alive[len(self.row_ids) :] = False


def idf_of(live: float, df: np.ndarray) -> np.ndarray:
    """Lucene's idf of terms found in ``df`` of ``live`` documents each."""
    return np.log1p((live - df + 0.5) / (df + 0.5))


def saturation_of(lengths: np.ndarray, mean: float, k1: float, b: float) -> np.ndarray:
    """``k1`` times the length normalisation of documents of ``lengths`` (``mean``: the
    corpus's mean length)."""
    return k1 * (1 - b + b * lengths / (mean if mean > 0 else 1.0))


def weighed(part: np.ndarray, tf: np.ndarray, saturation: np.ndarray, k1: float) -> np.ndarray:
    """Each posting's BM25 weight, ``idf * tf * (k1 + 1) / (tf + saturation)``, from ``part``
    holding its term's idf: computed in place (``part`` and ``tf``, float64, are overwritten)
    with no temporary array a step, the same operations in the same order wherever scored;
    a weight that overflows counts 0."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        part *= tf
        part *= k1 + 1
        tf += saturation
        part /= tf
    if not np.isfinite(part).all():
        part = np.where(np.isfinite(part), part, 0.0)
    return part


def top_rows(scores: np.ndarray, k: int, tiebreak: np.ndarray | None = None) -> np.ndarray:
    """Rows of the ``k`` highest positive scores, best first; equal scores are ordered by
    ``tiebreak`` (higher first) when given, then by row, so the cut at ``k`` is stable too."""
    live = np.flatnonzero(scores > 0)
    if len(live) > k > 0:
        kth = -np.partition(-scores[live], k - 1)[k - 1]
        live = live[scores[live] >= kth]
    second = -tiebreak[live] if tiebreak is not None else np.zeros(len(live))
    order = np.lexsort((live, second, -scores[live]))
    return live[order][: max(k, 0)]


def bm25_score(
    query: str, hits: Sequence[Match], k1: float = DEFAULT_K1, b: float = DEFAULT_B
) -> list[Match]:
    """New matches scored by BM25 of ``query`` over the matches themselves, best first (ties
    keep their order): the index's tokenizer and formula over a throw-away index.

    ``k1`` and ``b`` are checked by ``bm25_parameters``. With no matches the answer is
    empty; every score is finite.
    """
    text_arg(query, "query")
    index = BM25Index(k1, b)
    rows = [str(i) for i in range(len(hits))]
    index.add(rows, [text_arg(h.content, "a match's content") for h in hits])
    scores = index.scores(query)
    order = np.argsort(-scores, kind="stable")
    return [replace(hits[i], score=float(scores[i])) for i in order]
