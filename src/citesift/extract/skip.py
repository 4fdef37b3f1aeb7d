"""Jump over a dropped element in one C-level search per nested tag of the same name.

Dropped elements (menus, scripts' neighbours, reference lists, hidden blocks…) hold more
than half the tags of a typical page, so the scan does not walk them tag by tag. It looks
only for start and end tags of the dropped element's own name, counting nesting, and for
end tags of block-level elements open around it, which (as in a browser) close it too.
Comments and raw-text bodies are skipped whole, so markup inside them counts for nothing.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citesift.extract.tokens import RAW_TEXT_TAGS, raw_text_end

_HEAD_ENDERS = frozenset(("head", "body"))  # a <body> start tag ends an unclosed <head>
_FOREIGN = frozenset(("svg", "math"))  # where "/>" closes an element as it opens it


@lru_cache(maxsize=512)
def _pattern(names: frozenset[str]) -> re.Pattern[str]:
    """Comments, raw-text starts, and start or end tags of ``names`` (groups 1-3)."""
    wanted = "|".join(sorted(map(_anycase, names)))
    raw = "|".join(map(_anycase, RAW_TEXT_TAGS))
    return re.compile(
        rf"<(?:!--.*?(?:-->|\Z)|(/?)({wanted})(?=[\t\n\f\r />])|({raw})(?=[\t\n\f\r />]))",
        re.DOTALL,
    )


def _anycase(name: str) -> str:
    """A pattern for tag name ``name`` in any ASCII letter case, as HTML reads tag names.

    Character classes rather than ``re.IGNORECASE``, which ``re`` matches far more slowly.
    """
    return "".join(f"[{c}{c.upper()}]" if "a" <= c <= "z" else re.escape(c) for c in name)


def _tag_end(html: str, pos: int) -> int:
    """The position just after the ``>`` that ends the tag under way at ``pos``."""
    found = html.find(">", pos)
    return len(html) if found < 0 else found + 1


def skip_dropped(html: str, tag: str, pos: int, around: frozenset[str]) -> int:
    """Where reading resumes after element ``tag`` whose start tag ended at ``pos``.

    ``around`` holds the block-level tag names open around it. The answer is just past its
    own end tag, or at an end tag of an element around it (left for the caller to handle),
    or the end of input when it never closes.
    """
    names = _HEAD_ENDERS if tag == "head" else around | {tag}
    search = _pattern(frozenset(names)).search
    depth: dict[str, int] = dict.fromkeys(names, 0)
    while (m := search(html, pos)) is not None:
        end_slash, name, raw = m.groups()
        pos = m.end()
        if raw:
            pos = raw_text_end(html, raw.lower(), _tag_end(html, pos))
        elif name:
            name = name.lower()
            if tag == "head" and name == "body":
                return m.start()
            if not end_slash:
                closed = tag in _FOREIGN and html[_tag_end(html, pos) - 2] == "/"
                depth[name] += 0 if closed else 1
            elif depth[name]:
                depth[name] -= 1
            else:
                return _tag_end(html, pos) if name == tag else m.start()
    return len(html)
