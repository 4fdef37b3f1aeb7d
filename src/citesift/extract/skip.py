"""Jump over a dropped element in one C-level search per nested tag of the same name.

Dropped elements (menus, scripts' neighbours, reference lists, hidden blocks…) hold more
than half the tags of a typical page, so the scan does not walk them tag by tag. It looks
only for start and end tags of the dropped element's own name, counting nesting, and for
end tags of block-level elements open around it, which (as in a browser) close it too.
Comments and raw-text bodies are skipped whole, so markup inside them counts for nothing.

The search for a dropped tag finds its own start and end tags and those of every
block-level element, and the names not open around it are passed over in Python: so each
dropped tag name is one compiled search for the life of the process, not one for each
combination of open elements (a compilation costs about as much as reading a page). A page
that keeps dropping new tag names (custom elements) would still pay one each, so past
``PATTERNS_PER_PAGE`` names a page's remaining jumps use one search for every tag and sort
the names out in Python: slower per tag, but linear whatever the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from citesift.extract import rules
from citesift.extract.tokens import PLAINTEXT, RAW_TEXT_TAGS, raw_text_end

# A start tag of body content ends an unclosed <head>, as it does in a browser (a page cut
# short in its head, or that never writes <body>, still shows its text).
_BODY_STARTS = (rules.BLOCK_TAGS - {"head", "html"}) | rules.words("a img span font b i table")
_HEAD_ENDERS = _BODY_STARTS | {"head"}
# The names a dropped element's search finds besides its own: every block-level element
# (those open around it close it), less raw-text ones, which it finds as such.
_BLOCK_NAMES = rules.BLOCK_TAGS - frozenset(RAW_TEXT_TAGS)
_FOREIGN = frozenset(("svg", "math"))  # where "/>" closes an element as it opens it
_NAME_END = r"(?=[\t\n\f\r />])"
PATTERNS_PER_PAGE = 64
_ANY_TAG = re.compile(
    r"<(?:/([A-Za-z][^\t\n\f\r />]*+)|([A-Za-z][^\t\n\f\r />]*+)|(?!)()|!--.*?(?:-->|\Z))",
    re.DOTALL,
)
"""Every end and start tag, and comments, with the groups of ``_pattern``'s searches. A
name is read to its end, or to the end of input (a tag cut there, which nothing follows),
so a run of ``<n<n<n`` is read once, not once from every ``<`` in it."""
Searches = dict[str, re.Pattern[str]]  # a page's searches, by dropped tag name


def _sorted_out(
    closing: str | None, opening: str | None, names: frozenset[str]
) -> tuple[str | None, str | None, str | None]:
    """What ``_pattern(names)`` would have found where ``_ANY_TAG`` found a tag (or nothing)."""
    if opening is not None:
        name = opening.lower()
        if name in RAW_TEXT_TAGS:
            return None, None, opening
        return None, opening if name in names else None, None
    if closing is not None and closing.lower() in names:
        return closing, None, None
    return None, None, None


@lru_cache(maxsize=512)
def _pattern(names: frozenset[str]) -> re.Pattern[str]:
    """End tags and start tags of ``names``, raw-text starts (groups 1-3), and comments."""
    wanted = _either(names)
    return re.compile(
        rf"<(?:/({wanted}){_NAME_END}|({wanted}){_NAME_END}"
        rf"|({_either(RAW_TEXT_TAGS)}){_NAME_END}|!--.*?(?:-->|\Z))",
        re.DOTALL,
    )


def _either(names: Iterable[str]) -> str:
    """An alternation of tag ``names`` in any ASCII letter case, branching on the first letter.

    ``re`` tries the branches of an alternation one by one at every ``<`` it meets, so the
    names are grouped under their first letter, and letters are matched by character
    classes rather than ``re.IGNORECASE``, which ``re`` matches far more slowly.
    """
    by_first: dict[str, list[str]] = {}
    for name in sorted(names):
        by_first.setdefault(name[0], []).append(name[1:])
    return "|".join(
        f"{re.escape(case)}(?:{'|'.join(map(_anycase, rests))})"
        for first, rests in by_first.items()
        for case in sorted({first, first.upper()}, reverse=True)
    )


def _anycase(name: str) -> str:
    """A pattern for tag name text ``name`` in any ASCII letter case, as HTML reads it."""
    return "".join(f"[{c}{c.upper()}]" if "a" <= c <= "z" else re.escape(c) for c in name)


def _tag_end(html: str, pos: int) -> int:
    """The position just after the ``>`` that ends the tag under way at ``pos``, or -1 when
    the input ends first. Reading goes on from there, so no stretch is searched twice."""
    found = html.find(">", pos)
    return found if found < 0 else found + 1


def _search(tag: str, searches: Searches) -> re.Pattern[str]:
    """The search for dropped ``tag``: its own while the page has used few, else
    ``_ANY_TAG``."""
    found = searches.get(tag)
    if found is None:
        if len(searches) >= PATTERNS_PER_PAGE:
            return _ANY_TAG
        wide = _HEAD_ENDERS if tag == "head" else _BLOCK_NAMES | {tag}
        found = searches[tag] = _pattern(wide)
    return found


def skip_dropped(html: str, tag: str, pos: int, around: frozenset[str], searches: Searches) -> int:
    """Where reading resumes after element ``tag`` whose start tag ended at ``pos``.

    ``around`` holds the block-level tag names open around it (``rules.BLOCK_TAGS`` only).
    The answer is just past its own end tag, or at an end tag of an element around it (left
    for the caller to handle), or the end of input when it never closes. ``searches`` holds
    the page's compiled searches (one dict for all the jumps of one page).
    """
    if tag == PLAINTEXT:
        return len(html)  # no end tag ends it
    names = _HEAD_ENDERS if tag == "head" else around | {tag}
    pattern = searches.get(tag) or _search(tag, searches)
    search = pattern.search
    depth: dict[str, int] = dict.fromkeys(names, 0)
    while (m := search(html, pos)) is not None:
        closing, opening, raw = m.groups()
        pos = m.end()
        if pattern is _ANY_TAG:
            closing, opening, raw = _sorted_out(closing, opening, names)
            if not (closing or opening or raw):
                continue
        elif (opening or closing or "").lower() not in names and not raw:
            continue  # a block-level element not open around it: nothing to count
        if raw or opening:
            pos = _tag_end(html, pos)
            if pos < 0:
                return len(html)  # a start tag cut by the end of input: nothing follows
        if raw:
            pos = raw_text_end(html, raw.lower(), pos)
        elif opening:
            name = opening.lower()
            if tag == "head" and name in _BODY_STARTS:
                return m.start()
            closed = tag in _FOREIGN and html[pos - 2] == "/"
            depth[name] += 0 if closed else 1
        elif closing:
            name = closing.lower()
            if not depth[name]:
                if name != tag:
                    return m.start()
                end = _tag_end(html, pos)
                return len(html) if end < 0 else end
            depth[name] -= 1
    return len(html)
