"""The citations of a document: each sentence that cites a source, with the address cited.

Markdown: inline links ``[text](url)``, footnotes ``[^1]`` and numbered references ``[3]``
(or reference links ``[text][3]``) resolved through their definitions (``[^1]: ...``,
``[3]: ...``, ``[3] ...``, ``3. ...`` holding an address). HTML: ``<a href>`` and ``<cite>``
holding an address. A marker standing just after a sentence's full stop belongs to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urljoin

from citesift.extract import strip_tags
from citesift.text import sentence_spans

Kind = Literal["markdown", "html"]
MAX_CITATIONS = 2_000
"""Citations beyond this many in one document are not checked."""

_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_DEFINITION = re.compile(r"^[ \t]*(?:\[(\^?[\w.-]+)\]:?|(\d+)\.)[ \t]+(.*)$", re.MULTILINE)
_INLINE = re.compile(r"\[([^\]\n]*)\]\(\s*(https?://[^)\s]+)(?:\s+\"[^\"\n]*\")?\s*\)")
_REFERENCE = re.compile(r"\[([^\]\n]+)\]\[([\w.-]+)\]")
_MARKER = re.compile(r"\[(\^?[\w.-]+)\]")
_EMPHASIS = re.compile(r"[*_`]+")
_ANCHOR = re.compile(r"<a\b[^>]*?\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))[^>]*>", re.I)
_CITE = re.compile(r"<cite\b[^>]*>(.*?)</cite\s*>", re.I | re.S)
_BLOCK_END = re.compile(
    r"</(?:p|li|h[1-6]|div|td|th|blockquote|section|article)\s*>|<br\s*/?>", re.I
)
_NOTE = re.compile(r"\[\^?\w{1,4}\]|\d{1,4}")
"""A marker that stands for a note, not a linked phrase."""
_NOTES_ONLY = re.compile(r"(?:\s|\[\^?\w{1,4}\])*")
NOTE_CHARS = 4_000
"""How far into a reference list entry its address is looked for."""
_NOTE_END = re.compile(r"</li\s*>|</p\s*>|</div\s*>", re.I)
_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")
_LEFTOVER = re.compile(r"\[(?:\^?\w{1,4})\]|\s+")


@dataclass(frozen=True, slots=True)
class Citation:
    """A sentence citing ``url``: the sentence as read (markup and markers removed), the
    marker or link text that cites, and the sentence's span in the document."""

    sentence: str
    url: str
    marker: str
    start: int
    end: int


def find_citations(
    text: str, kind: Kind = "markdown", base_url: str | None = None
) -> list[Citation]:
    """Each (sentence, cited address) of ``text`` in document order, at most once each."""
    found = _html_citations(text, base_url) if kind == "html" else _markdown_citations(text)
    seen: set[tuple[int, str]] = set()
    unique = []
    for citation in found:
        if (citation.start, citation.url) not in seen and citation.sentence:
            seen.add((citation.start, citation.url))
            unique.append(citation)
    return unique[:MAX_CITATIONS]


def _markdown_citations(text: str) -> list[Citation]:
    definitions: dict[str, str] = {}
    body = list(text)
    for match in _DEFINITION.finditer(text):
        address = _URL.search(match.group(3))
        if address is None:
            continue
        definitions.setdefault(match.group(1) or match.group(2), address.group(0).rstrip(".,;"))
        body[match.start() : match.end()] = " " * (match.end() - match.start())
    prose = "".join(body)
    spans = sentence_spans(_MARKER.sub(_blank_note(definitions), prose))
    out: list[Citation] = []
    for position, url, marker in _markdown_marks(prose, definitions):
        start, end = _owning_sentence(prose, spans, position, marker)
        out.append(Citation(_plain_markdown(prose[start:end]), url, marker, start, end))
    return sorted(out, key=lambda c: c.start)


def _markdown_marks(prose: str, definitions: dict[str, str]) -> list[tuple[int, str, str]]:
    """(position, address, marker) of every inline link, reference link and marker."""
    marks = [(m.start(), m.group(2), m.group(1)) for m in _INLINE.finditer(prose)]
    marks += [
        (m.start(), definitions[m.group(2)], m.group(1))
        for m in _REFERENCE.finditer(prose)
        if m.group(2) in definitions
    ]
    marks += [
        (m.start(), definitions[m.group(1)], m.group(0))
        for m in _MARKER.finditer(prose)
        if m.group(1) in definitions and not _link_follows(m)
    ]
    return marks


def _blank_note(definitions: dict[str, str]) -> Callable[[re.Match[str]], str]:
    """Blanks a note marker, so that a full stop before it still ends its sentence."""

    def blank(match: re.Match[str]) -> str:
        noted = match.group(1) in definitions and not _link_follows(match)
        return " " * len(match.group(0)) if noted else match.group(0)

    return blank


def _link_follows(match: re.Match[str]) -> bool:
    return match.string.startswith(("(", "["), match.end())


def _plain_markdown(sentence: str) -> str:
    """A Markdown sentence as read: links become their text, markers and emphasis go."""
    text = _INLINE.sub(lambda m: m.group(1), sentence)
    text = _REFERENCE.sub(lambda m: m.group(1), text)
    text = _MARKER.sub("", text)
    return _tidy(_EMPHASIS.sub("", text))


def _html_citations(html: str, base_url: str | None) -> list[Citation]:
    """Sentences of the page's text holding an ``<a href>`` to the web or a ``<cite>``
    naming an address (offsets are the page's, as ``strip_tags`` keeps them). A link to a
    note on the page cites the address in that note; the notes' own links cite nothing."""
    text = list(strip_tags(html))
    for match in _BLOCK_END.finditer(html):
        text[match.start()] = "\n"  # a block's end ends its sentence
    prose = "".join(text)
    spans = sentence_spans(prose)
    notes: list[tuple[int, int]] = []
    marks: list[tuple[int, str, str]] = []
    for match in _ANCHOR.finditer(html):
        href = next(g for g in match.groups() if g is not None).strip()
        note = _note(html, href[1:]) if href.startswith("#") else None
        if note is not None:
            notes.append(note)
        url = _note_address(html, note) if note else None
        url = url or (urljoin(base_url, href) if base_url else href)
        if url.startswith(("http://", "https://")):
            closing = html.find("</a", match.end())
            label = prose[match.end() : closing if closing >= 0 else match.end()]
            marks.append((match.end(), url, _tidy(label)))
    for match in _CITE.finditer(html):
        address = _URL.search(strip_tags(match.group(1)))
        if address is not None and not _ANCHOR.search(match.group(1)):
            marks.append((match.start(), address.group(0), address.group(0)))
    out = []
    for position, url, marker in marks:
        if any(start <= position < end for start, end in notes):
            continue
        start, end = _owning_sentence(prose, spans, position, marker)
        sentence = _tidy(_LEFTOVER.sub(_space_or_nothing, prose[start:end]))
        out.append(Citation(sentence, url, marker, start, end))
    return sorted(out, key=lambda c: c.start)


def _note(html: str, name: str) -> tuple[int, int] | None:
    """The span of the note ``id=name`` (a reference list entry), when the page has it."""
    if not name:
        return None
    found = re.search(rf"\bid\s*=\s*[\"']?{re.escape(name)}[\"'\s>]", html)
    if found is None:
        return None
    ending = _NOTE_END.search(html, found.end(), found.end() + NOTE_CHARS)
    return found.start(), ending.start() if ending else min(len(html), found.end() + NOTE_CHARS)


def _note_address(html: str, note: tuple[int, int]) -> str | None:
    """The first web address linked in a note."""
    link = re.search(r"href\s*=\s*[\"']?(https?://[^\"'\s>]+)", html[note[0] : note[1]], re.I)
    return link.group(1) if link else None


def _space_or_nothing(match: re.Match[str]) -> str:
    return "" if match.group(0).startswith("[") else " "


def _owning_sentence(
    prose: str, spans: list[tuple[int, int]], position: int, marker: str
) -> tuple[int, int]:
    """The sentence ``position`` lies in; a note marker (``[1]``, ``1``) opening a sentence,
    after the full stop of the one before, belongs to the one before."""
    if not spans:
        return position, position
    index = max((i for i, (start, _) in enumerate(spans) if start <= position), default=0)
    start, end = spans[index]
    if index > 0 and _NOTE.fullmatch(marker) and _NOTES_ONLY.fullmatch(prose[start:position]):
        return spans[index - 1]
    return start, end


def _tidy(text: str) -> str:
    """White space collapsed, addresses written out in the text dropped, and no space left
    before punctuation where a marker was taken out."""
    return _BEFORE_STOP.sub(r"\1", " ".join(_URL.sub("", text).split()))
