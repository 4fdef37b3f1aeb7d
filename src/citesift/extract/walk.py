"""One pass over the source: element stack, dropped elements, block boundaries, candidates.

The scan keeps no tree. It walks the token stream once with a stack of open tags, applies
the drop rules of ``rules``, cuts blocks at block boundaries, and records for every block
the source spans of its text runs (so text and offsets are built later, and only for the
blocks that are kept). Every closed block-level element is recorded as the range of
candidate blocks it holds, which is all main-content detection needs. The loop is one
function on purpose: local variables are what make one Python pass over a page affordable.

Speed limit (the 90 benchmark pages, ~1.6 ms a page; shares of the instructions counted
under callgrind, which do not move with the machine's load): the loop's own Python 34%,
the regex search for the ~640 tokens a page that reach it 15% (about a third of that is
the call itself), verdicts for the ~115 distinct start tags a page 22% (~2.5 µs each, most
of it in ``re``: the attribute parse and the class/id name tokens), the jumps over dropped
elements 12% (with the raw-text bodies the loop jumps, C searches pass over 82% of a
page's characters), the kept blocks' text 8%, the rest 8%. 10x trafilatura needs ~15-20%
less, spread over parts that each resisted: reusing one scanner (``finditer``), a per-word
cache for furniture names, fewer calls per verdict and a one-pass parse of plain attribute
text each moved the count by under 1%; leaving no-op inline tags to the regex only works
where two tags touch (7% of tokens); a lexbor parse with a bare walk over its ~1,540 nodes
costs ~1 ms before any rule.
"""

from __future__ import annotations

import html as htmllib
import re
from dataclasses import dataclass, field

from citesift.extract import rules
from citesift.extract.skip import Searches, skip_dropped
from citesift.extract.tokens import (
    PLAINTEXT,
    RAW_TEXT_ENDS,
    TOKEN,
    attributes,
    declares_content,
    furniture_names,
    is_dropped,
    is_furniture,
    is_hidden,
    raw_text_end,
    slug,
    title_slug,
)

# Start tags that close an open <p>, and the tags that close their own earlier siblings.
_P_CLOSERS = rules.BLOCK_TAGS - {"body", "html", "td", "th", "tr", "caption", "tbody", "thead"}
_SIBLING_CLOSERS = {
    tag: (frozenset(names.split()), frozenset(stops.split()))
    for tag, names, stops in (
        ("li", "li", "ul ol menu table"),
        ("dd", "dd dt", "dl table"),
        ("dt", "dd dt", "dl table"),
        ("td", "td th", "tr table"),
        ("th", "td th", "tr table"),
        ("tr", "tr td th", "table tbody thead tfoot"),
        ("body", "head", "html"),
        ("p", "p", "td th table caption button html body"),
    )
}
# What a scan holds in memory, in characters of its limit: a block, a text run, and the
# allowance any limit gets (so that a tiny budget still reads a thousand short blocks).
BLOCK_COST = 8
RUN_COST = 4
MIN_COST = 16_000
HEADING_MAX_CHARS = 300  # a heading element holding more text than this is not one
MAX_DEPTH = 512  # open elements; a deeper one closes the innermost first (as browsers do)
_SIBLING_REACH = 32  # how far back an implied end tag looks (bounds pathological nesting)
# Attribute names that can drop an element, name it furniture or make it a note.
# Searched in lower-cased text: ``re.IGNORECASE`` tries the alternation far more slowly.
_TELLING = re.compile("class|id|hidden|style|role|typeof|itemprop")
_NOTE_CLASSES = frozenset(("hatnote", "dablink", "rellink"))
_HREF = ' href="'  # how most links' attribute text starts
# An <a> is a link only with a target or a script to follow (``<a name=...>`` marks a
# place in the page: the text it wraps is not links)
_LINK_ATTR = re.compile(r"(?:^|\s)(?:href|onclick)\s*+=", re.IGNORECASE)


# dropped, furniture, note, landmark, main, thread (named as comments), sitewide, and the
# id that may be the slug of the element's heading (``tokens.title_slug``)
Verdict = tuple[bool, bool, bool, bool, bool, bool, bool, str]


@dataclass(slots=True)
class Candidate:
    """A block found by the scan: where its text runs are, and how much of it is links."""

    pieces: list[tuple[int, int]]
    kind: str
    level: int
    size: int
    link: int


@dataclass(slots=True)
class Scan:
    """What one pass found: candidate blocks and element ranges over them."""

    candidates: list[Candidate] = field(default_factory=list)
    containers: list[tuple[int, int]] = field(default_factory=list)
    tables: list[tuple[int, int]] = field(default_factory=list)
    named: list[tuple[int, int]] = field(default_factory=list)
    landmarks: list[tuple[int, int]] = field(default_factory=list)
    declared: list[tuple[int, int]] = field(default_factory=list)  # say they are the content
    threads: list[tuple[int, int]] = field(default_factory=list)  # named as comment threads
    sitewide: list[tuple[int, int]] = field(default_factory=list)  # named as footers, notices
    cells: list[tuple[int, int]] = field(default_factory=list)  # table cells
    furniture_dropped: bool = False
    stopped: bool = False
    plaintext: int = -1  # where the raw text after a <plaintext> start tag begins


def _is_scoped(tag: str, counts: dict[str, int]) -> bool:
    """Whether landmark ``tag`` sits in an element it belongs to rather than to the page."""
    return any(counts.get(name) for name in rules.SCOPED_LANDMARKS.get(tag, ()))


def _heading_level(tags: list[str]) -> int:
    """The level of the innermost open heading (2 when none is near the top)."""
    for tag in reversed(tags[-8:]):
        if tag in rules.HEADING_TAGS:
            return int(tag[1])
    return 2


def _unhead(cands: list[Candidate], first: int) -> None:
    """Make the heading blocks from ``first`` on paragraphs when together they run past
    ``HEADING_MAX_CHARS``: a heading is a line, and one that holds paragraphs of text is a
    heading tag left open (or misused for emphasis) around the page's text."""
    held = 0
    for cand in cands[first:]:
        held += cand.size
        if held > HEADING_MAX_CHARS:
            break
    else:
        return
    for cand in cands[first:]:
        if cand.kind == "heading":
            cand.kind, cand.level = "paragraph", 0


def _is_titled(html: str, cand: Candidate, titled: str) -> bool:
    """Whether block ``cand``, the first of an element whose id is ``titled``, is a heading
    whose text makes that id: documentation generators build section ids from their titles,
    so a section "Sharing with a single developer" is not a share widget."""
    if cand.kind != "heading":
        return False
    text = "".join(html[start:end] for start, end in cand.pieces)
    return slug(htmllib.unescape(text)) == titled


def _sibling_to_close(tags: list[str], tag: str) -> int:
    """Index of an open element that opening ``tag`` implicitly closes, or -1."""
    names, stops = _SIBLING_CLOSERS[tag]
    low = max(0, len(tags) - _SIBLING_REACH)
    for i in range(len(tags) - 1, low - 1, -1):
        if tags[i] in stops:
            return -1
        if tags[i] in names:
            return i
    return -1


def _is_note(attrs: dict[str, str], mode: rules.Mode) -> bool:
    """Whether page mode shows the element as a note (``role="note"``, a hatnote)."""
    if mode != "page" or not attrs:
        return False
    return attrs.get("role") == "note" or not _NOTE_CLASSES.isdisjoint(
        attrs.get("class", "").split()
    )


def _styled(tag: str, policy: rules.Policy) -> bool:
    """Whether inline style can hide ``tag`` (not a collapsed section in article mode)."""
    return policy.mode == "page" or tag not in rules.COLLAPSIBLE_TAGS


def verdict(tag: str, raw_attrs: str, policy: rules.Policy) -> Verdict:
    """Whether an element is dropped, is page furniture, is a note, is a landmark, and
    declares itself the page's main content (``tokens.declares_content``).

    Furniture by tag or ARIA role is dropped when ``policy`` detects main content, and kept
    as a landmark (a scope for headings) otherwise; furniture by class or id name is only a
    hint (kept, and judged by ``content`` once the scan is done).
    """
    attrs = attributes(raw_attrs) if len(raw_attrs) > 1 else {}
    is_block = tag in rules.BLOCK_TAGS
    dropped = tag in policy.drop_tags or (
        bool(attrs)
        and (
            is_dropped(tag, attrs, policy.mode, policy.mediawiki)
            or ((policy.hidden_blocks or not is_block) and is_hidden(attrs, _styled(tag, policy)))
        )
    )
    if is_block and policy.furniture and not dropped:
        if is_furniture(tag, attrs):
            return True, True, False, False, False, False, False, ""
        named, thread, sitewide = furniture_names(tag, attrs)
        note = _is_note(attrs, policy.mode)
        titled = title_slug(attrs) if named and not thread else ""
        return False, named, note, False, declares_content(tag, attrs), thread, sitewide, titled
    landmark = is_block and not dropped and is_furniture(tag, attrs)
    note = is_block and _is_note(attrs, policy.mode)
    return dropped, False, note, landmark, False, False, False, ""


def _verdict(
    tag: str, raw_attrs: str, policy: rules.Policy, known: dict[tuple[str, str], Verdict]
) -> Verdict:
    """``verdict``, shared by start tags whose attributes cannot change it.

    A leading ``href`` never changes it, so a page's links share the verdict of the rest of
    their attributes (most have the same few classes or none) instead of one link each.
    """
    if raw_attrs.startswith(_HREF):
        raw_attrs = raw_attrs[raw_attrs.find('"', len(_HREF)) + 1 :]  # from after its value
    if "class" not in raw_attrs and _TELLING.search(raw_attrs.lower()) is None:
        raw_attrs = ""
    found = known.get((tag, raw_attrs))
    if found is None:
        found = known[tag, raw_attrs] = verdict(tag, raw_attrs, policy)
    return found


def scan(html: str, policy: rules.Policy, limit: int) -> Scan:
    """Walk ``html`` once under ``policy``; stop once about ``limit`` characters were kept.

    It also stops once its blocks and text runs, counted as ``BLOCK_COST`` and ``RUN_COST``
    characters each, pass ``limit`` plus ``MIN_COST``: a page of one-letter blocks or runs
    (``x<br>`` or ``<a>x</a>`` repeated) costs memory by the block and the run, not by the
    letter. No more than ``MAX_DEPTH`` elements are open at once; elements that hold no block
    record no range. So what a scan holds is bounded by its limit, whatever the page.
    """
    out = Scan()
    drop_tags = policy.drop_tags
    cands, containers, tables, cells = out.candidates, out.containers, out.tables, out.cells
    block_tags, void_tags = rules.BLOCK_TAGS, rules.VOID_TAGS
    heading_tags, cell_tags = rules.HEADING_TAGS, rules.CELL_TAGS
    tags: list[str] = []
    kinds: list[str] = []
    opened: list[int] = []
    counts: dict[str, int] = {}
    # (stack index, first candidate, where its range goes) of furniture-named and landmarks
    marks: list[tuple[int, int, list[tuple[int, int]]]] = []
    verdicts: dict[tuple[str, str], Verdict] = {}
    slugged: list[tuple[str, list[tuple[int, int]]]] = []  # ids that may be headings' slugs
    searches: Searches = {}  # the page's searches for the jumps over dropped elements
    pieces: list[tuple[int, int]] = []
    size = link = total = cost = last = 0
    cost_limit = limit + MIN_COST

    def flush() -> None:
        nonlocal pieces, size, link, total, cost
        if size:
            kind = kinds[-1] if kinds else "paragraph"
            level = _heading_level(tags) if kind == "heading" else 0
            cands.append(Candidate(pieces, kind, level, size, link))
            total += size
            cost += BLOCK_COST
        if pieces:
            pieces, size, link = [], 0, 0

    def pop_to(index: int) -> None:
        while len(tags) > index:
            tag = tags[-1]
            if tag in block_tags:
                if pieces:
                    flush()
                if opened[-1] < len(cands):
                    containers.append((opened[-1], len(cands)))
                    if tag == "table":
                        tables.append(containers[-1])
                    elif tag in cell_tags:
                        cells.append(containers[-1])
                    elif tag in heading_tags:
                        _unhead(cands, opened[-1])
            tags.pop()
            kinds.pop()
            opened.pop()
            counts[tag] -= 1
            while marks and marks[-1][0] == len(tags):
                _, first, into = marks.pop()
                if first < len(cands):
                    into.append((first, len(cands)))

    search = TOKEN.search
    pos = 0
    end = len(html)  # only a tag that runs to the end can lack its ">"
    while (m := search(html, pos)) is not None:
        if cost > cost_limit:  # blocks and runs: what the scan holds in memory
            out.stopped = True
            break
        start, pos = m.span()
        if start > last:
            if not html[last:start].isspace():
                size += start - last
                if counts.get("a"):
                    link += start - last
                pieces.append((last, start))
                cost += RUN_COST
            elif pieces:  # white space between runs: no more of them than runs
                pieces.append((last, start))
        last = pos
        end_slash, name, raw_attrs = m.groups()
        if name is None or (pos == end and html[-1] != ">"):
            continue  # a comment or declaration, or a tag cut by the end of input (dropped)
        tag = name.lower()
        if end_slash:
            if not counts.get(tag):
                if pieces and (tag == "br" or tag == "p"):
                    flush()
            elif tags[-1] == tag and tag not in block_tags:
                tags.pop()
                kinds.pop()
                opened.pop()
                counts[tag] -= 1
            else:
                index = len(tags) - 1
                while tags[index] != tag:
                    index -= 1
                pop_to(index)
            continue
        if tag in void_tags:
            if pieces and (tag == "br" or tag == "hr"):
                flush()
            continue
        if tag in RAW_TEXT_ENDS and tag != PLAINTEXT:
            last = pos = raw_text_end(html, tag, pos)
            continue
        is_block = tag in block_tags
        if not is_block and len(raw_attrs) <= 1 and tag != "a" and tag not in drop_tags:
            continue  # a bare inline element: nothing to record
        if is_block:
            if tag in _SIBLING_CLOSERS and tag != "p":
                index = _sibling_to_close(tags, tag)
                if index >= 0:
                    pop_to(index)
            if counts.get("p") and tag in _P_CLOSERS:
                index = _sibling_to_close(tags, "p")
                if index >= 0:
                    pop_to(index)
        found = verdicts.get((tag, raw_attrs))
        if found is None:  # pages repeat the same tags with the same attributes
            found = verdicts[tag, raw_attrs] = _verdict(tag, raw_attrs, policy, verdicts)
        dropped, furniture, note, landmark, main, thread, sitewide, titled = found
        if is_block:
            if pieces:
                flush()
            if furniture and not dropped:
                into = out.named
                if titled:  # named only if its heading does not bear the id out
                    into = []
                    slugged.append((titled, into))
                marks.append((len(tags), len(cands), into))
            if main:
                marks.append((len(tags), len(cands), out.declared))
            if thread:
                marks.append((len(tags), len(cands), out.threads))
            if sitewide:
                marks.append((len(tags), len(cands), out.sitewide))
            if landmark and not _is_scoped(tag, counts):
                marks.append((len(tags), len(cands), out.landmarks))
        if dropped:
            out.furniture_dropped |= furniture
            around = frozenset([t for t, n in counts.items() if n and t != "a"])  # open blocks
            last = pos = skip_dropped(html, tag, pos, around, searches)
            continue
        if not is_block and (tag != "a" or _LINK_ATTR.search(raw_attrs) is None):
            continue  # inline elements only matter when dropped, and links for link density
        if len(tags) >= MAX_DEPTH:
            pop_to(len(tags) - 1)
        parent = kinds[-1] if kinds else "paragraph"
        tags.append(tag)
        kinds.append("note" if note else rules.KIND_BY_TAG.get(tag, parent))
        opened.append(len(cands))
        counts[tag] = counts.get(tag, 0) + 1
        if tag == PLAINTEXT:  # all that follows is its text
            out.plaintext = pos
            pos = len(html)
        if total > limit:
            out.stopped = True
            break
    else:
        if len(html) > last and not html[last:].isspace():
            size += len(html) - last
            pieces.append((last, len(html)))
    pop_to(0)
    flush()
    for titled, ranges in slugged:
        out.named.extend(r for r in ranges if not _is_titled(html, cands[r[0]], titled))
    if cands and (not containers or containers[-1] != (0, len(cands))):
        containers.append((0, len(cands)))  # the body a browser builds around any page
    return out
