"""Main-content detection over scanned candidates: the best-scoring element, then per block.

Each candidate block scores its own text, minus its link text, when it reads like prose, and
its whole length against it when it is mostly links (menus, related links, tag clouds). The
element whose blocks sum highest is the article: an outer element only wins if what it
adds is prose, not furniture. Inside it, link lists are dropped block by block.
"""

from __future__ import annotations

from itertools import accumulate

from citesift.extract.walk import Candidate, Scan

LINK_DENSITY_MAX = 0.5  # above this share of link text a block is navigation
PROSE_MIN_CHARS = 40  # shorter blocks neither help nor hurt an element's score
SHORT_LINKY_CHARS = 80  # a short block that is mostly links
MIN_ARTICLE_SCORE = 200  # below this no element stands out: keep every candidate


def block_score(cand: Candidate) -> int:
    """How much a block says "article prose here" (negative for link lists)."""
    if cand.kind == "heading":
        return 0
    if cand.link > cand.size * LINK_DENSITY_MAX:
        return -cand.size
    if cand.size < PROSE_MIN_CHARS:
        return 0
    return cand.size - cand.link


def best_range(scan: Scan) -> tuple[int, int] | None:
    """The candidate range of the highest-scoring element, or None when none stands out."""
    sums = [0, *accumulate(block_score(c) for c in scan.candidates)]
    best, best_score = None, MIN_ARTICLE_SCORE
    for start, end in scan.containers:
        score = sums[end] - sums[start]
        if score > best_score:
            best, best_score = (start, end), score
    return best


def is_navigation(cand: Candidate) -> bool:
    """Whether a block inside the article is still a link list (and not a heading)."""
    if cand.kind == "heading":
        return False
    return cand.link > cand.size * LINK_DENSITY_MAX and cand.size < SHORT_LINKY_CHARS * 4


def select(scan: Scan) -> list[int]:
    """Indices of the candidates that make the article, in reading order."""
    found = best_range(scan)
    start, end = found if found else (0, len(scan.candidates))
    return [i for i in range(start, end) if not is_navigation(scan.candidates[i])]
