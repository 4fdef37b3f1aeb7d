"""BM25 over the PostgreSQL store: the posting lists of a query's terms, read in one
snapshot, scored here by the embedded index's formula and ranked with its pruning (its
functions, not a copy), so both stores give the same hits and scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from citesift.index.lexical.bm25 import idf_of, saturation_of, weighed
from citesift.index.lexical.passages import (
    candidates,
    fused_top,
    passages_by_document,
)
from citesift.store.chunks import StoredChunk
from citesift.store.postgres.chunks import LexicalView
from citesift.store.postgres.postings import Postings


@dataclass(frozen=True, slots=True)
class Scored:
    """Owners that matched (their numbers, ascending), their BM25 scores and their keys."""

    numbers: np.ndarray
    scores: np.ndarray
    keys: np.ndarray


@dataclass(frozen=True, slots=True)
class Candidates:
    """Chunks that may rank, by row number (ascending): their own scores, and each one's
    document as its place in ``documents`` (the document scores, the last 0: none)."""

    numbers: np.ndarray
    own: np.ndarray
    places: np.ndarray
    documents: np.ndarray


def scored(postings: Postings, terms: int, live: float, mean: float, k1: float, b: float) -> Scored:
    """The BM25 score of each owner of ``postings`` (of a query of ``terms`` terms), summed
    term by term in the query's order, as the embedded index sums them."""
    df = np.bincount(postings.term, minlength=terms).astype(np.float64)
    part = idf_of(live, df)[postings.term]
    weights = weighed(part, postings.tf.copy(), saturation_of(postings.length, mean, k1, b), k1)
    numbers, slots = _owners(postings.owner)
    sums = np.bincount(slots, weights=weights, minlength=len(numbers))
    keys = np.zeros(len(numbers), dtype=np.int64)
    keys[slots] = postings.key  # an owner's postings all name its key
    return Scored(numbers, sums, keys)


DENSE_SPAN = 8
"""Owners are counted in an array spanning their numbers when the span is at most this
many times the postings (a sort is dearer); else sorted."""


def _owners(owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``owner`` numbers (ascending), and each posting's place among them."""
    if not len(owner):
        return owner, owner.astype(np.intp)
    low = int(owner.min())
    span = int(owner.max()) - low + 1
    if span > DENSE_SPAN * len(owner):
        numbers, slots = np.unique(owner, return_inverse=True)
        return numbers, slots.reshape(-1)
    offsets = (owner - low).astype(np.intp)
    seen = np.bincount(offsets, minlength=span) > 0
    slot_of = np.cumsum(seen) - 1
    return np.flatnonzero(seen) + low, slot_of[offsets]


def lexical_candidates(view: LexicalView, terms: Sequence[str], k1: float, b: float) -> Candidates:
    """The chunks that may rank: those holding a term of the query (a chunk of none is no
    lexical hit, however well its document matches), with their documents' scores."""
    got = view.read(terms)
    n, length, dn, dlength = got.totals
    own = scored(got.lists["chunks"], len(terms), n, length / n if n else 0.0, k1, b)
    whole = scored(got.lists["documents"], len(terms), dn, dlength / dn if dn else 0.0, k1, b)
    order = np.argsort(whole.keys, kind="stable")
    keys, documents = whole.keys[order], np.r_[whole.scores[order], 0.0]
    places = np.searchsorted(keys, own.keys)
    found = places < len(keys)
    found[found] = keys[places[found]] == own.keys[found]
    return Candidates(own.numbers, own.scores, np.where(found, places, len(keys)), documents)


def lexical_top(
    view: LexicalView, terms: Sequence[str], k: int, k1: float, b: float
) -> list[tuple[StoredChunk, float]]:
    """The ``k`` best chunks for ``terms`` and their fused scores, best first, as the
    embedded store's ``PassageIndex.search`` ranks them (ties by own score, then by row)."""
    found = lexical_candidates(view, terms, k1, b)
    by_document = passages_by_document(found.places, len(found.documents) - 1)
    rows, bests = candidates(found.own, found.documents, found.places, k, by_document)
    top, fused = fused_top(found.own, found.documents, found.places, rows, bests, k)
    chunks = view.chunks(found.numbers[top].tolist())
    return list(zip(chunks, fused.tolist(), strict=True))
