"""The parser-free, offset-preserving tag stripper: markup becomes white space in place.

``strip_tags(html)`` returns a string of the same length in which every character outside
markup stays at its offset, so any span found in the output slices the same span of the
input. Passes, each over the previous one's output:

1. ``script`` and ``style`` elements, body included, up to the end tag an HTML tokenizer
   would use: ``</script`` followed by tab, LF, FF, CR, space, ``/`` or ``>``, then on to
   the next ``>``. The start tag obeys the same rule, so ``<scripts>`` and ``<script-x>``
   are ordinary tags. An element with no such end tag is blanked to the end of the input,
   as a browser would swallow the rest of the page into it.
2. Comments ``<!-- ... -->``; one without ``-->`` stays text.
3. Every ``<...>`` tag, from ``<`` to the first following ``>``; a ``<`` with none stays text.
4. A fixed set of entities (``&amp; &lt; &gt; &quot; &#39; &apos; &nbsp;``), each replaced by
   its character padded with spaces to the entity's length, so ``&lt;b&gt;`` can never form
   a tag again; nothing else (no numeric references) is decoded.

Blanking turns every character into a space except ``\\n``, so line structure survives.
Every pass is one regular-expression scan; passes 2 and 3 only scan up to the last closing
delimiter in the text, which keeps them linear on input full of unclosed openers.
"""

from __future__ import annotations

import re

_END_OF_NAME = r"(?=[\t\n\f\r />]|\Z)"
_RAW_TEXT = re.compile(
    "|".join(
        # body: anything up to the first "</name" that ends the name; possessive, so linear
        rf"<{name}{_END_OF_NAME}[^<]*+(?:<(?!/{name}[\t\n\f\r />])[^<]*+)*+"
        rf"(?:</{name}(?:>|[\t\n\f\r /][^>]*+(?:>|\Z))|\Z)"
        for name in ("script", "style")
    ),
    re.IGNORECASE,
)
_COMMENT = re.compile(r"<!--[^-]*+(?:-(?!->)[^-]*+)*+-->")
_TAG = re.compile(r"<[^>]*>")
ENTITIES = {
    "&amp;": "&",
    "&lt;": "<",
    "&gt;": ">",
    "&quot;": '"',
    "&#39;": "'",
    "&apos;": "'",
    "&nbsp;": "\u00a0",
}
_ENTITY = re.compile("|".join(re.escape(name) for name in ENTITIES))


def strip_tags(html: str) -> str:
    """``html`` with markup blanked and the fixed entities decoded in place (same length)."""
    text = _RAW_TEXT.sub(_blank, html)
    text = _blank_delimited(text, _COMMENT, "-->")
    text = _blank_delimited(text, _TAG, ">")
    return _ENTITY.sub(_padded_entity, text)


def _blank(match: re.Match[str]) -> str:
    markup = match.group()
    if "\n" not in markup:
        return " " * len(markup)
    return "\n".join(" " * len(line) for line in markup.split("\n"))


def _blank_delimited(text: str, pattern: re.Pattern[str], close: str) -> str:
    """Blank every match of ``pattern``, scanning only as far as the last ``close``.

    No opener after the last ``close`` can be closed, so leaving that tail out of the scan
    changes nothing except that the scan can no longer be quadratic.
    """
    end = text.rfind(close)
    if end < 0:
        return text
    end += len(close)
    return pattern.sub(_blank, text[:end]) + text[end:]


def _padded_entity(match: re.Match[str]) -> str:
    entity = match.group()
    return ENTITIES[entity].ljust(len(entity))
