"""Closeness of meaning between a claim's statements and a page's sentences, measured
against the page itself: a source may back a statement in words of its own, and the
sentence that does stands out from the rest of the page by meaning even when few of the
statement's words are in it. Cosines alone do not tell this (their level depends on how a
page is written); how far one sentence stands above the page's others does."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from citesift.index import Embedder
from citesift.verify.candidates import unit_vectors

STANDOUT = 4.0
"""Standard deviations a sentence's cosine with a statement must stand above the mean of
the page's sentences for it to back the statement by meaning. The best of a few hundred
unrelated sentences reaches about 3 by chance (the top of 300 draws of a normal), 4 only
about one draw in 30,000; a page of fewer than 18 sentences cannot reach it at all. (3 and
4 were compared on the development claims; 3 let too many unrelated pages through.)"""


def standing_out(
    statements: Sequence[str],
    sentences: Sequence[str],
    read: Sequence[int],
    embedder: Embedder,
    page: np.ndarray | None = None,
) -> tuple[int, ...]:
    """Those of the sentences ``read`` (indices into ``sentences``) that stand out from the
    page by meaning for one of ``statements`` (``STANDOUT``), the most outstanding first.
    ``page`` holds the sentences' unit vectors when already known (``Candidates.vectors``);
    otherwise they are embedded with the statements, in one call, read as
    ``find_candidates`` reads them."""
    if not statements or not read or len(sentences) < 2:
        return ()
    if page is None or len(page) != len(sentences):
        vectors = unit_vectors(embedder, [*statements, *sentences])
        said, page = vectors[: len(statements)], vectors[len(statements) :]
    else:
        said = unit_vectors(embedder, statements)
    cosines = page @ said.T
    spread = cosines.std(axis=0)
    lifted = (cosines[list(read)] - cosines.mean(axis=0)) / np.where(spread > 0, spread, np.inf)
    best = lifted.max(axis=1)
    return tuple(read[int(i)] for i in np.argsort(-best, kind="stable") if best[i] >= STANDOUT)
