"""HTML to blocks: article prose (default) or everything a page shows, each with its offsets.

``html_to_blocks`` returns :class:`Blocks`, a ``list`` of :class:`~citesift.model.Block`
that also carries ``truncated``. The budget counts kept characters (code points, so an
astral character is one and is never split). Blocks are kept whole while they fit; the
block that crosses the budget keeps its words that fit (cut at the last white space before
the budget, or at the budget itself when the block has none there, never between a
character and its combining marks), everything after it is dropped, and ``truncated`` is
true. ``extract_document`` copies that flag into ``SourceDocument.truncated``.

The budget bounds the work too. Every step is linear in the page, whatever its markup
(unclosed tags, deep nesting, floods of attributes or references); the scan stops once it
has found ``SCAN_BUDGETS`` budgets of text in article mode (one in page mode), or as many
blocks and text runs as that much text would make (``walk``), and reads at most the first
``MAX_SOURCE_CHARS`` characters of a page (``truncated`` then). So a hostile page costs at
most about ten times what a normal page of its size does (a few seconds for a 6 MB one, the
fetch's default body cap), and its memory stays a small multiple of the page or of the
budget, whichever is less.

Offsets point into the string given: see ``source_text`` for the invariant. NUL and lone
surrogates in block text are replaced one for one by U+FFFD, so every position holds.

Article mode on MediaWiki markup applies the Wikipedia rules (tables, figures, quotations,
code and maths are not the article's prose); on other pages it detects the main content
(``content``: the best-scoring element, an element inside it that declares itself the
content, and looser selections when the result is implausibly small beside the page's
prose or the ``articleBody`` its JSON-LD states), keeps quotations and code, and keeps
tables that sit inside the article. It leaves out the heading that repeats the page's
``<title>`` (the document's title); page mode keeps it, as the page shows it.
Article mode also leaves out a heading with nothing kept under it, and keeps sections that
inline style collapses (a reader expands them). Headings inside a landmark (navigation,
sidebar, page header or footer) head only that landmark (``sections``).
"""

from __future__ import annotations

import html as htmllib
import re

from citesift.errors import invalid
from citesift.extract import content, rules, walk
from citesift.extract.rules import Mode
from citesift.extract.sections import Sections, without_empty_headings
from citesift.extract.stated import stated_body_chars
from citesift.extract.textmap import build, starts_cluster
from citesift.extract.tokens import raw_text_end
from citesift.model import Block
from citesift.numbers import number_in

DEFAULT_BUDGET = 300_000
MAX_SOURCE_CHARS = 16_000_000  # of a page read; beyond, the page is taken as truncated
SCAN_BUDGETS = 4  # article mode reads up to this many budgets of text before choosing
MIN_ARTICLE_CHARS = 250  # an article shorter than this retries without class/id furniture rules
_UNSAFE = re.compile("[\x00\ud800-\udfff]")
_PARSOID_ROOT = "mediawiki.org/rdf/"  # in the <html prefix=…> of a whole Parsoid document
_PARSOID_ROOT_SCAN = 4096
_PARSOID_MARK = 'typeof="mw:'  # on Parsoid's transclusions and extensions, even in fragments
_MEDIAWIKI_MARKS = ("mw-parser-output", "mw-editsection", "mw-references", "mw-headline")
_MARKUP_SCAN = 32_768  # MediaWiki and Parsoid mark their markup early in the page
_TITLE_SCAN = 400_000
_TITLE = re.compile(r"<title(?=[\t\n\f\r />])[^>]*+>?", re.IGNORECASE)
_TITLE_CHARS = 4096  # of a title's source read (a longer one names no heading)
_MODES = ("article", "page")


class Blocks(list[Block]):
    """Blocks in reading order, whether the text was cut short, and whether the budget
    (the block crossing it, or a scan bounded by it) is what cut it."""

    truncated: bool = False
    budget_cut: bool = False


def _require_text(html: object) -> None:
    """Refuse anything but ``str`` with a message that says what to do."""
    if not isinstance(html, str):
        raise TypeError(f"html must be str, not {type(html).__name__} (decode bytes first)")


def sanitise(html: str) -> str:
    """``html`` with NUL and lone surrogates replaced by U+FFFD (positions unchanged)."""
    _require_text(html)
    return _UNSAFE.sub("\ufffd", html)


def checked_budget(value: object, name: str = "budget", least: int = 0) -> int:
    """``value``, the most characters of text kept of each document, when it is a whole
    number from ``least`` to ``MAX_SOURCE_CHARS`` (no more of a page is read whatever the
    budget), else an ``InvalidArgument`` naming ``name``: the one check of a text budget
    given to a loader, ``index_add`` or a source, made before any request is sent."""
    return int(number_in(name, value, least, MAX_SOURCE_CHARS, whole=True))


def _check(mode: str, budget: int) -> None:
    """Refuse an unknown mode or a budget that is not a non-negative integer."""
    if mode not in _MODES:
        raise invalid("mode", mode, "'article' or 'page'")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
        raise invalid("budget", budget, "a non-negative integer")


def _has(html: str, mark: str, end: int = _MARKUP_SCAN) -> bool:
    """Whether ``mark`` occurs in the first ``end`` characters of ``html`` (no copy made)."""
    return html.find(mark, 0, end) >= 0


def is_parsoid(html: str) -> bool:
    """Whether the page is MediaWiki Parsoid output (prose only, no page furniture)."""
    if not _has(html, "mw"):
        return False
    return _has(html, _PARSOID_ROOT, _PARSOID_ROOT_SCAN) or _has(html, _PARSOID_MARK)


def is_mediawiki(html: str) -> bool:
    """Whether the page or fragment carries MediaWiki's markup (Wikipedia rules apply)."""
    return _has(html, "mw-") and any(_has(html, mark) for mark in _MEDIAWIKI_MARKS)


def markup(html: str) -> tuple[bool, bool]:
    """Whether the page carries MediaWiki's markup, and whether it is Parsoid output.

    Every mark of either starts with "mw": a page without it early is scanned for it once.
    """
    if not _has(html, "mw"):
        return False, False
    parsoid = is_parsoid(html)
    return parsoid or is_mediawiki(html), parsoid


def _chosen(html: str, mode: Mode, limit: int) -> tuple[walk.Scan, list[int]]:
    """Scan the page and pick the candidates ``mode`` keeps."""
    mediawiki, parsoid = markup(html)
    policy = rules.policy(mode, mediawiki, parsoid)
    scan = walk.scan(html, policy, limit)
    if mode == "page" or parsoid:
        return scan, list(range(len(scan.candidates)))
    chosen = content.select(scan, policy.data_tables, stated=stated_body_chars(html))
    if (
        not scan.furniture_dropped
        or sum(scan.candidates[i].size for i in chosen) >= MIN_ARTICLE_CHARS
    ):
        return scan, chosen
    retry = walk.scan(html, rules.without_furniture(policy), limit)
    again = content.select(retry, policy.data_tables, furniture=False)
    if sum(retry.candidates[i].size for i in again) > sum(scan.candidates[i].size for i in chosen):
        return retry, again
    return scan, chosen


def _is_page_title(text: str, title: str) -> bool:
    """Whether a heading repeats the page's own ``<title>``."""
    if not title or not text:
        return False
    return (text in title and 2 * len(text) >= len(title)) or title in text


def _page_title(html: str) -> str:
    """The page's ``<title>`` text, white space collapsed (empty when it has none).

    One search for the start tag, possessive to its ">", and one for its end tag: linear
    even on a page of ``<title>`` openers."""
    found = _TITLE.search(html, 0, _TITLE_SCAN)
    if found is None or not found.group().endswith(">"):
        return ""
    start = found.end()
    end = min(raw_text_end(html, "title", start), start + _TITLE_CHARS)
    return " ".join(htmllib.unescape(html[start:end]).split())


def _blocks(
    html: str, scan: walk.Scan, chosen: list[int], budget: int, mode: Mode
) -> tuple[list[Block], list[int]]:
    """The chosen blocks with their heading path and levels, up to the first one that takes
    their text past ``budget`` (no later one can be kept). Article mode leaves out the
    heading that repeats the page's own title (the document's title says it); page mode
    shows it, as the page does."""
    keep = set(chosen)
    title = _page_title(html) if mode == "article" else ""
    sections = Sections(scan.landmarks)
    out: list[Block] = []
    levels: list[int] = []  # a heading's level, 0 for other blocks
    used = 0
    for i, cand in enumerate(scan.candidates):
        sections.at(i)
        if i not in keep and cand.kind != "heading":
            continue
        text, offsets, start, end = build(html, cand.pieces, scan.plaintext, budget)
        if not text or (cand.kind == "heading" and _is_page_title(text, title)):
            continue
        if cand.kind == "heading":
            section = sections.heading(cand.level, text)
        else:
            section = sections.section()
        if i in keep:
            out.append(Block(text, cand.kind, section, start, end, offsets))  # type: ignore[arg-type]
            levels.append(cand.level if cand.kind == "heading" else 0)
            used += len(text) if cand.kind != "heading" else 0  # headings may go as empty
            if used > budget:
                break
    return out, levels


def _cut(block: Block, room: int) -> Block | None:
    """The words of ``block`` that fit in ``room`` characters, or None when none do; a
    word cut keeps its characters whole with their marks (text and source agree there)."""
    text = block.text
    cut = room
    if not text[cut].isspace():
        space = text.rfind(" ", 0, cut)
        cut = space if space > 0 else cut
    while cut > 0 and not starts_cluster(text[cut]):
        cut -= 1
    kept = text[:cut].rstrip()
    if not kept:
        return None
    offsets = tuple(a for a in block.offsets if a[0] < len(kept))
    end = block.to_source(len(kept))
    return Block(kept, block.kind, block.section, block.source_start, end, offsets)


def _within(blocks: list[Block], budget: int, stopped: bool, scanned: bool) -> Blocks:
    """Keep blocks while they fit in ``budget``; cut the one that crosses it. ``stopped``:
    the page was read in part; ``scanned``: by the scan's bound, which the budget sets."""
    out = Blocks()
    out.truncated = stopped or scanned
    out.budget_cut = scanned
    used = 0
    for block in blocks:
        if used + len(block.text) <= budget:
            out.append(block)
            used += len(block.text)
            continue
        part = _cut(block, budget - used) if budget > used else None
        if part is not None:
            out.append(part)
        out.truncated = out.budget_cut = True
        break
    return out


def html_to_blocks(html: str, mode: Mode = "article", budget: int = DEFAULT_BUDGET) -> Blocks:
    """The readable blocks of ``html``: article prose (default) or all a page shows."""
    _check(mode, budget)
    _require_text(html)
    cut = len(html) > MAX_SOURCE_CHARS
    if cut:
        end = html.rfind("<", 0, MAX_SOURCE_CHARS)  # cut before a tag, never inside one
        html = html[: end if end > 0 else MAX_SOURCE_CHARS]  # offsets hold for the page given
    limit = budget * SCAN_BUDGETS if mode == "article" else budget
    scan, chosen = _chosen(html, mode, limit)
    blocks, levels = _blocks(html, scan, chosen, budget, mode)
    if mode == "article":
        blocks = without_empty_headings(blocks, levels)
    return _within(blocks, budget, cut, scan.stopped)
