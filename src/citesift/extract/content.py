"""Main-content detection over scanned candidates: the best-scoring element, then per block.

Each candidate block scores its own text, minus its link text, when it reads like prose (a
paragraph, quotation or code, or a table cell as long as a paragraph), and its whole length
against it when it is mostly links (menus, related links, tag clouds). The
element whose blocks sum highest is the article: an outer element only wins if what it
adds is prose, not furniture. Inside it, link lists are dropped block by block.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import accumulate

from citesift.extract.walk import Candidate, Scan

PROSE_KINDS = frozenset(("paragraph", "quote", "code"))  # long table cells count too
LINK_DENSITY_MAX = 0.5  # above this share of link text a block is navigation
PROSE_MIN_CHARS = 40  # shorter blocks neither help nor hurt an element's score
SHORT_LINKY_CHARS = 80  # a short block that is mostly links
MIN_ARTICLE_SCORE = 200  # below this no element stands out: keep every candidate
NAMED_PROSE_SHARE = 0.5  # a furniture-named element holding this share of the prose is content
TABLE_PROSE_CHARS = 100  # a table cell this long reads as prose, not data
TABLE_PROSE_SHARE = 0.5  # a table with less of its text in prose cells holds data
DECLARED_SHARE = 0.8  # of the best element's prose a declared main element must hold
PLAUSIBLE_SHARE = 0.25  # an article with less of the page's prose than this,
PLAUSIBLE_CHARS = 1000  # and less prose than this, is doubted
LISTED_GAIN = 5  # list items counted, an element must hold this many times the prose
STATED_SHARE = 0.5  # as is one with less text than this share of the article's stated length
SLIVER_SHARE = 0.1  # an article with less of the page's readable text than this is no article
# Beside a lone best paragraph, blocks of these kinds join it however short (without links)
SIBLING_KINDS = frozenset(("heading", "paragraph", "table_cell"))


def block_score(cand: Candidate, lists: bool = False) -> int:
    """How much a block says "article prose here" (negative for link lists); ``lists``
    lets a list item as long as a paragraph count as one."""
    if cand.link > cand.size * LINK_DENSITY_MAX:
        return -cand.size
    if cand.size < PROSE_MIN_CHARS or not reads_as_prose(cand, lists):
        return 0
    return cand.size - cand.link


def reads_as_prose(cand: Candidate, lists: bool = False) -> bool:
    """Whether a block's kind and length let it count as prose.

    Pages laid out in tables put their article in cells: a cell as long as a paragraph
    reads as one. List items count only when ``lists`` says so (the looser rules): teaser
    lists of related stories and comment threads look like them, but so does an article
    written as a list (release notes, a digest).
    """
    if cand.kind in PROSE_KINDS:
        return True
    long_kinds = ("table_cell", "list_item") if lists else ("table_cell",)
    return cand.kind in long_kinds and cand.size >= TABLE_PROSE_CHARS


@dataclass(frozen=True, slots=True)
class Sums:
    """Prefix sums of the candidates' block scores (``net``) and of their prose (the
    positive scores): a range's total is ``sums[end] - sums[start]``. Built once a page."""

    net: list[int]
    prose: list[int]

    @classmethod
    def of(cls, scan: Scan, lists: bool = False) -> Sums:
        scores = [block_score(c, lists) for c in scan.candidates]
        return cls(_sums(scores), _sums(s if s > 0 else 0 for s in scores))

    def held(self, start: int, end: int) -> int:
        """The prose candidates ``start..end`` hold."""
        return self.prose[end] - self.prose[start]


def best_range(scan: Scan, sums: Sums) -> tuple[int, int] | None:
    """The candidate range of the highest-scoring element, or None when none stands out.

    A comment thread, or an element inside one, is never the article however much prose
    its replies hold: the article is what they reply to. Nor is the text a site repeats on
    every page (an element named as its footer, a legal or cookie notice) unless it holds
    ``NAMED_PROSE_SHARE`` of the page's prose (a page of terms): a disclaimer reads as
    prose and outscores a short post whose element also holds a list of related links.
    """
    net = sums.net
    best, best_score = None, MIN_ARTICLE_SCORE
    whole = sums.held(0, len(scan.candidates))
    out = [*scan.threads, *(r for r in scan.sitewide if sums.held(*r) < whole * NAMED_PROSE_SHARE)]
    for start, end in scan.containers:
        score = net[end] - net[start]
        if score > best_score and not any(_holds(t, (start, end)) for t in out):
            best, best_score = (start, end), score
    return best


def declared_range(scan: Scan, sums: Sums, best: tuple[int, int]) -> tuple[int, int]:
    """The element inside ``best`` that declares itself the main content, or the table
    cell, that holds at least ``DECLARED_SHARE`` of best's prose (a surer cut of the same
    article); else ``best``. Of several, the innermost: an entry's text inside the entry
    with its byline and tags, an ``<article>`` inside ``<main>``, on a page laid out in a
    table the cell that holds the story without the cells of menus and ads beside it.

    A declared element around ``best`` is not taken: it adds what best's score left out.
    """
    first, stop = best
    need = sums.held(first, stop) * DECLARED_SHARE
    chosen = best
    for start, end in (*scan.declared, *scan.cells):
        held = sums.held(start, end)
        if first <= start and end <= stop and held >= need and end - start < chosen[1] - chosen[0]:
            chosen = (start, end)
    return chosen


def is_navigation(cand: Candidate) -> bool:
    """Whether a block inside the article is still a link list (and not a heading)."""
    if cand.kind == "heading":
        return False
    return cand.link > cand.size * LINK_DENSITY_MAX and cand.size < SHORT_LINKY_CHARS * 4


def holds_data(total: int, prose: int) -> bool:
    """Whether a table whose blocks hold ``total`` characters, ``prose`` of them in cells
    long enough to read as prose, holds data rather than prose laid out in a table."""
    return prose < total * TABLE_PROSE_SHARE


def data_table_blocks(scan: Scan) -> set[int]:
    """Indices of the candidates that sit in tables of data.

    Tables are not prose: inside an article they belong to it (the results or figures the
    story discusses), but where no article stands out a table of data is left out.
    """
    cands = scan.candidates
    sizes = _sums(c.size for c in cands)
    prose_cells = _sums(c.size if c.size >= TABLE_PROSE_CHARS else 0 for c in cands)
    return covered(
        (start, end)
        for start, end in scan.tables
        if holds_data(sizes[end] - sizes[start], prose_cells[end] - prose_cells[start])
    )


def named_furniture_blocks(scan: Scan, sums: Sums, start: int, end: int) -> set[int]:
    """Indices of the blocks in start..end inside elements whose class or id names furniture.

    A name is only a hint: an element named like furniture that holds most of the article's
    prose (``class="article-header"`` around the story) is kept.
    """
    whole = sums.held(start, end)
    named = (
        (first, stop)
        for first, stop in scan.named
        if start <= first and stop <= end and sums.held(first, stop) < whole * NAMED_PROSE_SHARE
    )
    threads = ((first, stop) for first, stop in scan.threads if start <= first and stop <= end)
    return covered([*named, *threads])


def _sums(values: Iterable[int]) -> list[int]:
    """Prefix sums: the sum over candidates ``i..j`` is ``sums[j] - sums[i]``."""
    return [0, *accumulate(values)]


def covered(ranges: Iterable[tuple[int, int]]) -> set[int]:
    """The indices that some of ``ranges`` cover, each index visited once however the
    ranges nest (nested elements give nested ranges)."""
    found: set[int] = set()
    reach = 0
    for start, end in sorted(ranges):
        if end > reach:
            found.update(range(max(start, reach), end))
            reach = end
    return found


def select(scan: Scan, data_tables: bool, furniture: bool = True, stated: int = 0) -> list[int]:
    """Indices of the candidates that make the article, in reading order (``_article``),
    or of the whole page less its comment threads when that article is a sliver of the
    page's readable text (``_is_sliver``): a page of records has no article to find."""
    chosen = _article(scan, data_tables, furniture, stated)
    threads = covered(scan.threads)
    if not _is_sliver(scan, chosen, threads):
        return chosen
    return [i for i in range(len(scan.candidates)) if i not in threads]


def _is_sliver(scan: Scan, chosen: list[int], threads: set[int]) -> bool:
    """Whether the ``chosen`` blocks hold under ``SLIVER_SHARE`` of the page's readable
    text: its blocks that are not mostly links, outside comment threads (``threads``).

    A directory, a catalogue or an annotated list of links is many short records of equal
    weight: the best element is one record's note, a tenth or less of what the page says,
    where an article beside menus, teasers and comments holds far more of the text that is
    not links or replies. Such a page is read whole (its entries' links included), as a
    reader reads it.
    """
    cands = scan.candidates
    readable = sum(
        c.size
        for i, c in enumerate(cands)
        if c.link <= c.size * LINK_DENSITY_MAX and i not in threads
    )
    return sum(cands[i].size for i in chosen) < readable * SLIVER_SHARE


def _article(scan: Scan, data_tables: bool, furniture: bool, stated: int) -> list[int]:
    """Indices of the candidates that make the article, in reading order.

    A selection is doubted when it is empty, when it holds less prose than both
    ``PLAUSIBLE_CHARS`` and ``PLAUSIBLE_SHARE`` of the page's, or less text than
    ``STATED_SHARE`` of the ``stated`` length of the article (what the page's structured
    data says it holds):
    looser selections are tried in turn (the best element without its furniture-named
    parts dropped, then every block that is not a link list), and the first plausible one
    is kept, else the one with the most prose. Before that, ``_listed`` may read the page
    again with list items as long as a paragraph counted as prose. A plausible best element
    that is a single block is read with its siblings (``_with_siblings``).
    """
    sums = Sums.of(scan)
    found = best_range(scan, sums) if furniture else None
    if found is not None:
        found = declared_range(scan, sums, found)
    chosen = _selection(scan, sums, found, data_tables, furniture)
    listed = _listed(scan, found, chosen, data_tables) if furniture else None
    if listed is not None:
        return listed
    need = min(sums.held(0, len(scan.candidates)) * PLAUSIBLE_SHARE, PLAUSIBLE_CHARS)

    def prose(option: list[int]) -> int:
        return _prose(sums, option)

    def plausible(option: list[int]) -> bool:
        if prose(option) < need or not option:
            return False
        return not stated or sum(scan.candidates[i].size for i in option) >= stated * STATED_SHARE

    if plausible(chosen):
        if found is not None and found[1] - found[0] == 1:
            return _with_siblings(scan, sums, found)
        return chosen
    tried = [chosen]
    if found is not None and furniture:
        tried.append(_selection(scan, sums, found, data_tables, furniture=False))
    tried.append(_selection(scan, sums, None, data_tables=False, furniture=False))
    for option in tried[1:]:
        if plausible(option):
            return option
    return max(tried, key=prose)


def _listed(
    scan: Scan, found: tuple[int, int] | None, chosen: list[int], data_tables: bool
) -> list[int] | None:
    """The article read with list items as long as a paragraph counted as prose, when the
    evidence for it is strong; else None.

    An article written as a list (release notes, a digest, a thread of replies under a
    short post) scores as almost nothing while its list holds most of the page's text. So
    when the chosen blocks hold less than ``PLAUSIBLE_SHARE`` (and ``PLAUSIBLE_CHARS``) of
    the page's prose counted that way, the best element under that count is taken if it
    holds the chosen element and at least ``LISTED_GAIN`` times the chosen prose: teaser
    lists and sidebars of comment excerpts beside a real article rarely hold that much.
    """
    if not any(c.kind == "list_item" and reads_as_prose(c, True) for c in scan.candidates):
        return None  # the same reading
    loose = Sums.of(scan, lists=True)
    held = _prose(loose, chosen)
    if held >= min(loose.held(0, len(scan.candidates)) * PLAUSIBLE_SHARE, PLAUSIBLE_CHARS):
        return None
    best = best_range(scan, loose)
    if best is None or (found is not None and not _holds(best, found)):
        return None
    best = declared_range(scan, loose, best)
    option = _selection(scan, loose, best, data_tables, furniture=True)
    return option if _prose(loose, option) > held * LISTED_GAIN else None


def _with_siblings(scan: Scan, sums: Sums, found: tuple[int, int]) -> list[int]:
    """The block ``found`` with the blocks beside it in its parent element that are prose,
    or short blocks of ``SIBLING_KINDS`` without links, less furniture-named parts.

    An article is rarely one paragraph: where its paragraphs have no element of their own
    (old pages, paragraphs left unclosed, a blog post beside its sidebar in one column), the
    best element is a single paragraph, and its siblings that read as prose are the rest
    of it, as readability adds a candidate's siblings.
    """
    parent = min(
        (r for r in scan.containers if _holds(r, found) and r != found),
        key=lambda r: r[1] - r[0],
        default=found,
    )
    start, end = parent
    left_out = named_furniture_blocks(scan, sums, start, end)
    cands = scan.candidates
    joined = [
        i
        for i in range(start, end)
        if i not in left_out
        and (sums.held(i, i + 1) > 0 or (cands[i].kind in SIBLING_KINDS and not cands[i].link))
    ]
    # short blocks before the first prose are the page's title and kicker, not its text
    first = next((n for n, i in enumerate(joined) if sums.held(i, i + 1) > 0), 0)
    return joined[first:]


def _prose(sums: Sums, option: list[int]) -> int:
    """The prose the candidates ``option`` hold."""
    held = sums.prose
    return sum(held[i + 1] - held[i] for i in option)


def _holds(outer: tuple[int, int], inner: tuple[int, int]) -> bool:
    """Whether candidate range ``outer`` holds range ``inner``."""
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _selection(
    scan: Scan, sums: Sums, found: tuple[int, int] | None, data_tables: bool, furniture: bool
) -> list[int]:
    """The blocks of element range ``found`` (the page when None) less link lists, data
    tables where no article stands out, and (``furniture``) furniture-named parts."""
    start, end = found if found else (0, len(scan.candidates))
    left_out = data_table_blocks(scan) if data_tables and found is None else set()
    if furniture:
        left_out |= named_furniture_blocks(scan, sums, start, end)
    cands = scan.candidates
    return [i for i in range(start, end) if i not in left_out and not is_navigation(cands[i])]
