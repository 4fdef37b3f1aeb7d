"""BM25 for passages read in their document: each passage scores by its own text (with its
title and section path) and by its whole document, each side scaled by its best score for
the query, in equal parts.

A passage is small enough to cite but says little on its own; its document says what it
is about. Scaling each side by its best score makes the two comparable without a weight
fitted to any data: the best passage and the best document each bring 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from citesift.index.lexical.bm25 import BM25Index, top_rows


class PassageIndex:
    """Passages and their documents, both BM25-indexed: passages by id with the id of the
    document they belong to, documents by id with their whole text."""

    def __init__(self) -> None:
        self.passages = BM25Index()
        self.documents = BM25Index()
        self._document_of: dict[str, str] = {}
        self._owners: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.passages)

    @property
    def ids(self) -> list[str]:
        """Passage ids in row order (the order of ``allowed`` masks)."""
        return self.passages.ids

    def add(self, ids: Sequence[str], texts: Sequence[str], documents: Sequence[str]) -> None:
        """Index each passage ``texts[i]`` under ``ids[i]``, as part of ``documents[i]``."""
        self.passages.add(ids, texts)
        self._document_of.update(zip(ids, documents, strict=True))
        self._owners = None

    def remove(self, ids: Iterable[str]) -> None:
        """Forget these passages (unknown ids are ignored)."""
        gone = list(ids)
        self.passages.remove(gone)
        for passage in gone:
            self._document_of.pop(passage, None)
        self._owners = None

    def set_documents(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Index (or re-index) each document's whole text."""
        self.documents.add(ids, texts)
        self._owners = None

    def remove_documents(self, ids: Iterable[str]) -> None:
        """Forget these documents' whole texts."""
        self.documents.remove(ids)
        self._owners = None

    def search(
        self, query: str, k: int, allowed: np.ndarray | None = None
    ) -> tuple[list[str], np.ndarray]:
        """The ids and scores of the ``k`` best passages with a positive score, best first;
        equal scores are ordered by the passage's own BM25 score, then by row. ``allowed`` (a
        boolean mask in row order) restricts the candidates, and the scaling to them."""
        own = self.passages.scores(query)
        whole = self.documents.scores(query)[self._owner_rows()] if len(own) else own
        if allowed is not None:
            own, whole = np.where(allowed, own, 0.0), np.where(allowed, whole, 0.0)
        fused = by_best(own) + by_best(whole)
        rows = top_rows(fused, k, own)
        return [self.passages.ids[r] for r in rows], fused[rows]

    def _owner_rows(self) -> np.ndarray:
        """For each passage row, the row of its document in the document index."""
        if self._owners is None:
            row = {doc: i for i, doc in enumerate(self.documents.ids)}
            self._owners = np.fromiter(
                (row[self._document_of[p]] for p in self.passages.ids), dtype=np.int64
            )
        return self._owners


def by_best(scores: np.ndarray) -> np.ndarray:
    """``scores`` divided by the highest (unchanged when none is positive)."""
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
