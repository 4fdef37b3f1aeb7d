"""The few tags metadata is read from, found by one regex scan (linear, whatever the nesting).

``read_page_tags`` walks the start tags of ``html``, ``body``, ``meta``, ``link``, ``time``,
the first ``h1``, ``<a rel="license">`` and the raw-text elements (whose bodies it skips,
keeping ``<title>`` and JSON-LD scripts), and ignores everything else, comments included.
A tree parser would cost time quadratic in the nesting depth on hostile pages; this never
looks at nesting at all.
"""

from __future__ import annotations

import html as htmllib
import re
from collections import defaultdict
from dataclasses import dataclass

from citesift.extract.chars import unescape_attribute
from citesift.extract.tokens import TOKEN, attributes, raw_text_end

MAX_TAGS = 5_000
MAX_ELEMENT_CHARS = 5_000  # of an <h1> or <a rel="license"> read for its text
MAX_LICENCE_ANCHORS = 32  # links that name a licence, read for their text
_OPEN = re.compile(
    r"""<(?:!--.*?(?:-->|\Z)
    | (?P<raw>script|style|title|textarea|noscript|xmp|iframe|noembed)(?=[\t\n\f\r />])
    | (?P<tag>meta|link|html|body|h1|time|a(?=[^<>]*?license))(?=[\t\n\f\r />])
    )""",
    re.IGNORECASE | re.DOTALL | re.VERBOSE,
)
_ATTRIBUTES = re.compile(r"""([^>=]*+(?:=\s*+(?:"[^"]*+"|'[^']*+')?[^>=]*+)*+)(>?)""")
"""A tag's attribute text up to its ">" (none when the input ends first): quotes open a value
only after "=" (as in tokens)."""
_JSONLD_TYPE = re.compile(r"\s*application/ld\+json\s*", re.IGNORECASE)
_BREAK = re.compile(r"<br\b[^>]*>", re.IGNORECASE)
_END_TAGS = {tag: re.compile(rf"</{tag}[\t\n\f\r />]", re.IGNORECASE) for tag in ("a", "h1")}

Tag = tuple[dict[str, str], int, int]  # attributes, and the span of what the element holds


@dataclass(frozen=True, slots=True)
class PageTags:
    """What the metadata tags of a page hold, in document order."""

    html_attrs: dict[str, str]
    body_attrs: dict[str, str]
    metas: tuple[dict[str, str], ...]
    links: tuple[dict[str, str], ...]
    times: tuple[dict[str, str], ...]
    licence_anchors: tuple[tuple[dict[str, str], str], ...]
    title: str | None
    h1: str | None
    jsonld: tuple[str, ...]


def read_page_tags(html: str) -> PageTags:
    """The metadata tags of ``html`` (the first ``MAX_TAGS`` of them)."""
    tags: dict[str, list[Tag]] = defaultdict(list)
    pos = 0
    for _ in range(MAX_TAGS):
        match = _OPEN.search(html, pos)
        if match is None:
            break
        pos = match.end()
        name = (match.group("raw") or match.group("tag") or "").lower()
        if not name:
            continue
        rest = _ATTRIBUTES.match(html, pos)
        if rest is None or not rest.group(2):
            break  # a tag cut by the end of input: nothing follows it
        pos = rest.end()
        end = raw_text_end(html, name, pos) if match.group("raw") else pos
        tags[name].append((_decoded(attributes(rest.group(1))), pos, end))
        pos = end
    return _page_tags(html, tags)


def _page_tags(html: str, tags: dict[str, list[Tag]]) -> PageTags:
    titles = [html[start:end] for _, start, end in tags["title"]]
    h1s = [_element_text(html, "h1", start) for _, start, _ in tags["h1"][:1]]
    anchors = tags["a"][:MAX_LICENCE_ANCHORS]
    return PageTags(
        html_attrs=next((attrs for attrs, _, _ in tags["html"]), {}),
        body_attrs=next((attrs for attrs, _, _ in tags["body"]), {}),
        metas=tuple(attrs for attrs, _, _ in tags["meta"]),
        links=tuple(attrs for attrs, _, _ in tags["link"]),
        times=tuple(attrs for attrs, _, _ in tags["time"]),
        licence_anchors=tuple((at, _element_text(html, "a", start)) for at, start, _ in anchors),
        title=htmllib.unescape(titles[0]) if titles else None,
        h1=h1s[0] if h1s else None,
        jsonld=tuple(
            html[start:end]
            for attrs, start, end in tags["script"]
            if _JSONLD_TYPE.fullmatch(attrs.get("type", ""))
        ),
    )


def _decoded(attrs: dict[str, str]) -> dict[str, str]:
    return {name: unescape_attribute(value) for name, value in attrs.items()}


def _element_text(html: str, tag: str, start: int) -> str:
    """The text of the element whose start tag ends at ``start``: tags out, entities decoded."""
    window = html[start : start + MAX_ELEMENT_CHARS]
    end = _END_TAGS[tag].search(window)
    inner = _BREAK.sub(" ", window[: end.start() if end else len(window)])
    return htmllib.unescape(TOKEN.sub("", inner))
