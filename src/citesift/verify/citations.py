"""The citations of a document: each sentence that cites a source, with the address cited.

Markdown: inline links ``[text](url)``, autolinks ``<url>`` and addresses written out in a
sentence, footnotes ``[^1]`` and numbered references ``[3]`` (``[1, 3]``, ``[1-3]``, or
reference links ``[text][3]``) resolved through their definitions (``[^1]: ...``,
``[3]: ...``, ``[3] ...``, ``3. ...`` holding an address; a numbered list's item only when
a marker cites its number), author–year citations (``[Smith 2020]``, ``(Smith et al.,
2020)``, ``Smith (2020) found``) resolved through the reference list entry of that author
and year; a sentence, a definition or an entry soft-wrapped over several lines is one.
HTML: ``<a href>``, ``<cite>`` holding an address, a quotation's ``cite`` (each of its
sentences cites it), and the page's text read by the rules of Markdown's (addresses written
out, author–year and numbered citations resolved through the page's reference list: see
``html_text``). A marker standing just after a sentence's full stop belongs to it.
Markers and links inside code (spans, fenced or indented blocks) are no citations.

Every pattern is read in time linear in the document: link text holds at most one level of
nested brackets, a tag ends before the next ``<``, and each sentence is cleaned once however
many citations it holds.
"""

from __future__ import annotations

import heapq
import html as htmllib
import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urljoin, urlsplit

from citesift.errors import invalid
from citesift.extract import strip_tags
from citesift.text import sentence_spans
from citesift.verify.author_year import AuthorYear, author_year_citations, without_author_year
from citesift.verify.html_text import Entry, code_spans, entries, page_text, reference_sections
from citesift.verify.reference_sections import entry_lines, markdown_sections, merged_spans
from citesift.verify.wrapped import joined_lines
from citesift.verify.written_urls import (
    POINTING,
    URL,
    address_end,
    an_example,
    in_attribute,
    web_url,
    without_addresses,
    written_url,
)

Kind = Literal["markdown", "html"]
Mark = tuple[int, str, str]
"""Where a document cites an address (position, address, marker)."""
MAX_CITATIONS = 2_000
"""Citations beyond this many in one document are not checked."""
MAX_DOCUMENT_CHARS = 10_000_000
"""The longest document whose citations are looked for."""
LABEL_CHARS = 1_000
"""How far after an ``<a>`` its closing tag is looked for (the link's text)."""

_SCHEMES = ("http://", "https://")
_FOOTNOTE = r"\[(\^[^\[\]\s]+)\]:"
"""A footnote's definition opening (GFM: a label holds no space nor bracket)."""
_DEFINITION = re.compile(
    rf"^[ \t]*(?:(?:>|(?:[-+*]|\d{{1,9}}[.)])(?=[ \t]))[ \t]*)*{_FOOTNOTE}"
    r"[ \t]*(.*(?:\n[ \t]+(?!\[\^)\S.*)?)$"
    r"|^[ \t]*(?:\[(\^?[\w.-]+)\]:?|(\d+)\.)[ \t]+(.*)$",
    re.MULTILINE,
)
"""A note's definition: a footnote's anywhere one may open (in a quote, a list item; its
text on the line or the next indented one), a reference's (``[3]: ...``, ``3. ...``)."""
_AS_LINES = str.maketrans(dict.fromkeys("\r\x0b\x0c\x85\u2028\u2029", "\n") | {"\ufeff": " "})
"""Every line break the sentence rule knows (a lone CR, say) as a newline, and a byte order
mark as a space, for finding definitions: the lengths, hence the offsets, stay the same."""
_LINK_TEXT = r"((?:[^\[\]\n]|\[[^\[\]\n]*\])*)"
"""A link's text: brackets inside it nest one level deep at most."""
_INLINE = re.compile(
    rf"\[{_LINK_TEXT}\]\(\s*(?:<((?i:https?)://[^<>\n]*)>|"
    r"((?i:https?)://(?:\[[\w:.%]+\])?(?:[^\s()\[\]]|\([^\s()]*\))*)|"
    r"((?![a-zA-Z][\w+.-]*:|#)(?:[^\s()\[\]<>]|\([^\s()]*\))+))"
    r"(?:\s+\"[^\"\n]*\")?\s*\)"
)
"""A link and its address: a web address written out or in angle brackets (where it may
hold spaces), or a relative one (``rust.html``, ``/wiki/Rust``; no other scheme, no
fragment of the document itself)."""
_IMAGE = re.compile(rf"!{_INLINE.pattern}")
"""An image (``![alt](logo.png)``): it shows, it cites nothing."""
_PAREN_LINKS = re.compile(rf"\(\s*(?:{_INLINE.pattern}\s*(?:[,;]\s*)?)+\)")
"""Links standing alone in parentheses: they name the sources, they say nothing."""
_CITING_WORDS = re.compile(r"[\s\[(]*(?i:sources?|links?|here)[\s\])]*")
"""A link's text that only points at its source (``source``, ``here``, ``link``)."""
_ENDS_SENTENCE = re.compile(r"(?:[^\S\n]|[)\]\"'”’»]|\[[^\[\]\n]{1,40}\])*(?:[.?!…‽]|\n|$)")
"""What may follow a link that ends its sentence: closing brackets and quotes, note markers,
then the sentence's final punctuation or its line's end."""
_EMPTY_BRACKETS = re.compile(r"\s*[(\[]\s*(?:(?i:see|cf\.?|via)\s*)?[)\]]")
_SCHEME = re.compile(r"[a-zA-Z][\w+.-]*:")
_DESTINATION = re.compile(r"<?([^\s<>]+)>?(?:\s+[\"'(].*)?")
"""A reference definition's address alone, with its title (``[3]: /rust.html "title"``)."""
_FILE_NAME = re.compile(r"\.[A-Za-z]\w{1,4}(?:[?#]|$)")
RELATIVE = "a relative link, and no base address to read it against"
"""Why a relative link of a document read from no address cannot be checked."""
UNPARSEABLE = "the address cannot be parsed"
_REFERENCE = re.compile(rf"\[{_LINK_TEXT}\]\[([\w.-]+)\]")
_MARKER = re.compile(r"\[(\^?[\w.-]+)\]")
_RANGE = r"\d{1,9}(?:[ \t]*[-–][ \t]*\d{1,9})?"
_GROUP = re.compile(rf"\[({_RANGE}(?:[ \t]*,[ \t]*{_RANGE})*)\]")
"""Numbered references cited together: ``[1, 3]``, ``[1-3]``, ``[1–3, 5]``."""
_SEPARATOR = re.compile(r"[,–-]")
MAX_RANGE = 10
"""The most numbers a range of references (``[1-10]``) names."""
_EMPHASIS = re.compile(r"[*_`]+")
_ANCHOR = re.compile(r"<a\b([^<>]*)>", re.I)
_HREF = re.compile(r"\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.I)
_QUOTED = re.compile(
    r"<(blockquote|q)\b[^<>]*?\bcite\s*=\s*(?:\"([^\"<>]*)\"|'([^'<>]*)'|([^\s<>]+))[^<>]*>",
    re.I,
)
"""A quotation naming where it is quoted from (``<blockquote cite="...">``)."""
_QUOTE_END = re.compile(r"</(blockquote|q)\b", re.I)
QUOTE_CHARS = 20_000
"""How far after a quotation's opening its closing is looked for (its sentences cite)."""
_CITE = re.compile(r"<cite\b[^<>]*>((?:[^<]|<(?!/?cite\b))*)</cite\s*>", re.I)
_CITING_PHRASE = re.compile(
    r"(?:[,;:–—][ \t]*|^)see[ \t]*$|(?:[,;:–—][ \t]*|\b)(?:according[ \t]+to|as[ \t]+"
    rf"(?:reported|stated|described|noted|shown)[ \t]+(?:in|by)|{POINTING})[ \t]*$",
    re.I | re.M,
)
"""Words naming the work cited next (``, according to``; the pointers an address may follow,
``POINTING``, and a bare "see" only after a comma, as ``written_urls`` reads them): they say
nothing of the claim."""
_LINK_AROUND = re.compile(r"<a\b[^<>]*>\s*$", re.I)
_LINK_CLOSE_AFTER = re.compile(r"\s*</a\s*>", re.I)
_COMMA_AFTER = re.compile(r"[ \t]*,")
_SPACES = re.compile(r"\s*")
_ID = re.compile(r"\b(?:id|name)\s*=\s*[\"']?([^\"'\s<>]+)[\"'\s>]")
"""A place a link may point to (``id``, or an anchor's older ``name``)."""
_LIST_OPEN = re.compile(r"<[ou]l\b", re.I)
_LIST_CLOSE = re.compile(r"</[ou]l\s*>", re.I)
_SUP = re.compile(r"<sup\b[^<>]*>((?:[^<]|<(?!/?sup\b)){0,300})</sup\s*>", re.I)
"""A superscript, read at most 300 characters far: a note marker is short."""
_SUP_SPLIT = re.compile(r"[\s\[\],;–-]+")
_SUP_WORD = re.compile(r"\d{1,4}|[a-z]{1,4}\d{0,4}")
"""A word of a note marker: ``7``, ``a``, ``note``, ``nb``, ``n1``."""
_NOTE_LABEL = re.compile(r"\d{1,4}|[a-z]|[a-z]{1,4}\d{1,4}|\[[^\[\]]{1,60}\]")
"""A link's text that may name a note: ``1``, ``a``, ``n1``, or words in brackets."""
_ENDS = tuple(".,;:!?)\"'”’")
_OPEN_BEFORE = re.compile(r"\(\s*$")
_CLOSE_AFTER = re.compile(r"\s*\)")
_NOTE = re.compile(r"\[\^?\w{1,4}\]|\d{1,4}")
"""A marker that stands for a note, not a linked phrase."""
_NOTES_ONLY = re.compile(r"(?:\s|\[\^?\w{1,4}\])*")
NOTE_CHARS = 4_000
"""How far into a reference list entry its address is looked for."""
_NOTE_END = re.compile(r"</li\s*>|</p\s*>|</div\s*>", re.I)
_BEFORE_STOP = re.compile(r"\s+([.,;:!?])")
_LEFTOVER = re.compile(r"\[(?:\^?\w{1,4})\]|\s+")
_SAYS_NOTHING = re.compile(r"[\W_]*(?:\d{1,9}[.)][\W_]*)?(?:\w+(?:[ \t]+\w+)?[ \t]*:[\W_]*)?")
"""A sentence that says nothing once its addresses are gone: marks, a list item's number,
a label (``Source:``)."""
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_INDENTED = re.compile(r" {4}| {0,3}\t")
_CONTAINER = re.compile(rf"[ \t]*(?:>[ \t]*)*(?:(?:[-+*]|\d{{1,9}}[.)])(?:[ \t]|$)|{_FOOTNOTE})")
"""A line opening a list item or a footnote: the indented lines after it continue it."""
_TICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")
_NOT_BREAK = re.compile(r"[^\n\r\x0b\x0c\x85\u2028\u2029]")
_CHARACTER_CLASS = re.compile(r"\^(?:[a-z]-[a-z]|[A-Z]-[A-Z]|[0-9]-[0-9]|[_.])+|\^[\W_]+")
"""A footnote label that names no note a writer gives: ranges of a regular expression's
class (``a-z``, ``A-Za-z0-9_``) or no letter nor digit at all (``^.``, ``^-``)."""


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
    """Each (sentence, cited address) of ``text`` in document order, at most once each:
    the first ``MAX_CITATIONS`` of them."""
    return find_citations_capped(text, kind, base_url)[0]


def find_citations_capped(
    text: str, kind: Kind = "markdown", base_url: str | None = None
) -> tuple[list[Citation], int]:
    """The first ``MAX_CITATIONS`` citations of ``text`` and how many more it holds, so that
    a check can say it did not read them rather than pass without them."""
    if not isinstance(text, str) or len(text) > MAX_DOCUMENT_CHARS:
        raise invalid("text", text, f"a string of at most {MAX_DOCUMENT_CHARS:,} characters")
    if kind not in ("markdown", "html"):
        raise invalid("kind", kind, "'markdown' or 'html'")
    checked_base_url(base_url)
    finder = _html_citations if kind == "html" else _markdown_citations
    return finder(text, base_url, MAX_CITATIONS)


def checked_base_url(base_url: object) -> str | None:
    """``base_url`` when it is None or a web address relative links can be read against."""
    if base_url is not None and (not isinstance(base_url, str) or unreadable(base_url)):
        raise invalid("base_url", base_url, "a web address (http or https) or None")
    return base_url


def unreadable(url: str) -> str | None:
    """Why a cited address cannot be asked for as it is written: a relative link that no
    base address resolved (``RELATIVE``), or an address that cannot be parsed
    (``UNPARSEABLE``); None when it can be."""
    try:
        parts = urlsplit(url)
        host, _ = parts.hostname, parts.port  # a malformed IPv6 host or port raises here
    except ValueError:
        return UNPARSEABLE
    if not url[:8].lower().startswith(_SCHEMES):
        return RELATIVE
    return None if host else UNPARSEABLE


def _address(base_url: str | None, href: str) -> str | None:
    """The address a link cites: ``href`` read against ``base_url`` when it is relative;
    as written when it cannot be (no base, or it cannot be parsed), so that the check says
    why it is unavailable rather than drop it; None when it names no source (a place in the
    document itself, an e-mail address, a script)."""
    if not href or href.startswith("#"):
        return None
    if _SCHEME.match(href) and not href[:8].lower().startswith(_SCHEMES):
        return None
    try:
        joined = urljoin(base_url, href) if base_url else href
    except ValueError:
        joined = href
    return web_url(joined) if joined[:8].lower().startswith(_SCHEMES) else joined


def _relative_definition(text: str, base_url: str | None) -> str | None:
    """The address a reference definition (``[3]: /rust.html``) gives as a path or a
    file's name, read against ``base_url``; None for a definition holding words."""
    found = _DESTINATION.fullmatch(text.strip())
    path = found.group(1) if found else ""
    if "/" not in path and not _FILE_NAME.search(path):
        return None
    return _address(base_url, path)


def _markdown_citations(text: str, base_url: str | None, cap: int) -> tuple[list[Citation], int]:
    definitions: dict[str, str] = {}
    named: set[str] = set()  # every label given a definition, with an address or not
    lists: list[tuple[int, int]] = []  # definitions and reference list entries: no prose
    lined = text.translate(_AS_LINES)
    code = _code_blocks(lined)
    code += _code_spans(_blanked(lined, code))
    code.sort()
    uncoded = _blanked(lined, code)
    numbers = _numbers_cited(uncoded)
    joined = joined_lines(uncoded, entries=True)  # an entry wrapped over lines is one
    for match in _DEFINITION.finditer(joined):
        label = (match.group(1) or match.group(3) or match.group(4)).casefold()
        if match.group(4) and label not in numbers:
            continue  # an item of a numbered list: prose, unless a marker cites its number
        address = URL.search(match.group(2) if match.group(1) else match.group(5))
        named.add(label)
        url = written_url(address) if address else None
        if url is None and match.group(3) and joined.startswith("]:", match.end(3)):
            url = _relative_definition(match.group(5), base_url)
        if url is None:
            continue
        definitions.setdefault(label, url)
        lists.append(match.span())
    sections = markdown_sections(uncoded)
    author_year, entries = author_year_citations(joined, [(*span, "") for span in sections])
    lists = merged_spans(lists + entries + entry_lines(joined, sections))
    starts = [start for start, _ in lists]
    outside = [c for c in author_year if not _inside(lists, starts, c.start)]
    prose = _blanked(text, merged_spans(lists + [(c.start, c.end) for c in outside]))
    scanned = _blanked(prose, code)  # the prose without its code, where citations are
    notes = _Notes(definitions, named)
    marks, markers = _markdown_marks(scanned, prose, notes, outside, base_url)
    wrapped = joined_lines(scanned.translate(_AS_LINES))  # a sentence wrapped is one
    spans = sentence_spans(_blanked(_MARKER.sub(notes.blank, wrapped), markers))
    return _cited_sentences(prose, spans, marks, _plain_markdown, cap)


def _numbers_cited(text: str) -> set[str]:
    """The numbers the markers and groups of markers of ``text`` name (``[3]``, ``[1-3]``),
    but for a numbered link's text (``[2](https://...)``, ``[2][ref]``)."""
    numbers: set[str] = set()
    for group in _GROUP.finditer(text):
        if _link_follows(group):
            continue
        for first, last in _group_numbers(group.group(1)):
            numbers.update(map(str, range(first, min(last, first + MAX_RANGE - 1) + 1)))
    return numbers


def _group_numbers(written: str) -> list[tuple[int, int]]:
    """The (first, last) number of each part of a group of markers (``1, 3-5``)."""
    parts = []
    for part in written.split(","):
        low, _, high = part.replace("–", "-").partition("-")
        parts.append((int(low), int(high or low)))
    return parts


def _code_blocks(lined: str) -> list[tuple[int, int]]:
    """The spans of the lines of ``lined`` (its line breaks as newlines) in code blocks:
    fenced (to the closing fence or the document's end) or indented by four columns after a
    blank line, where no list item or footnote is continued."""
    spans: list[tuple[int, int]] = []
    fence, in_code, after_blank, continued, start = "", False, True, False, 0
    for line in lined.split("\n"):
        end, opening = start + len(line), _FENCE.match(line)
        if fence or (opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2))):
            spans.append((start, end))
            if not fence and opening:
                fence = opening.group(1)
            elif opening and opening.group(1).startswith(fence) and not opening.group(2).strip():
                fence = ""
            in_code, after_blank = False, True
        elif not line.strip():
            after_blank = True
        elif _INDENTED.match(line) and (in_code or (after_blank and not continued)):
            spans.append((start, end))
            in_code = True
        else:
            continued = (continued and line[:1] in " \t") or bool(_CONTAINER.match(line))
            in_code = after_blank = False
        start = end + 1
    return spans


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the code spans of ``text``: a run of backticks up to the next run of as
    many in the same paragraph (each run's next of its length found by bisection)."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    paragraph_ends = [m.start() for m in _BLANK_LINE.finditer(text)]
    spans: list[tuple[int, int]] = []
    for index, (start, end) in enumerate(runs):
        if spans and start < spans[-1][1]:
            continue
        same = by_length[end - start]
        after = bisect_right(same, index)
        if after == len(same):
            continue
        closing = runs[same[after]]
        if bisect_right(paragraph_ends, start) == bisect_right(paragraph_ends, closing[0]):
            spans.append((start, closing[1]))
    return spans


def _blanked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with its ``spans`` (sorted, apart) made spaces but for their line breaks:
    its length, hence every offset, stays the same."""
    pieces, done = [], 0
    for start, end in spans:
        pieces += [text[done:start], _NOT_BREAK.sub(" ", text[start:end])]
        done = end
    return "".join(pieces) + text[done:]


@dataclass(frozen=True, slots=True)
class _Notes:
    """The note and reference definitions of a Markdown document."""

    definitions: dict[str, str]
    named: set[str]

    def cited(self, marker: re.Match[str]) -> str | None:
        """The address a marker (``[3]``, ``[^note]``) cites: its definition's; ``""`` for
        a footnote defined nowhere, a citation of nothing; None when it is no citation to
        check (text in brackets, a link's text, a note naming no web address, a footnote's
        own definition: a footnote marker followed by ``:``)."""
        label = marker.group(1).casefold()
        if _link_follows(marker) or (
            label[0] == "^" and marker.string.startswith(":", marker.end())
        ):
            return None
        if label in self.definitions:
            return self.definitions[label]
        if not label.startswith("^") or label in self.named:
            return None
        return None if _CHARACTER_CLASS.fullmatch(marker.group(1)) else ""

    def numbered(self, group: re.Match[str]) -> list[tuple[str, str]]:
        """The (marker, address) of each reference a group of them cites (``[1, 3]``,
        ``[1-3]``, ``[2, 4–6]``): none unless each number written names a reference, nor
        for a range of more than ``MAX_RANGE`` numbers, which is more likely an interval."""
        numbers: list[int] = []
        if _link_follows(group) or not _SEPARATOR.search(group.group(1)):
            return []
        for first, last in _group_numbers(group.group(1)):
            written = (str(first), str(last))
            if not first <= last < first + MAX_RANGE or not self.named.issuperset(written):
                return []
            numbers += range(first, last + 1)
        cited = (str(n) for n in dict.fromkeys(numbers))
        return [(sys.intern(f"[{n}]"), self.definitions[n]) for n in cited if n in self.definitions]

    def blank(self, marker: re.Match[str]) -> str:
        """A citing marker blanked, so that a full stop before it still ends its sentence."""
        noted = self.cited(marker) is not None
        return " " * len(marker.group(0)) if noted else marker.group(0)


def _markdown_marks(
    scanned: str,
    prose: str,
    notes: _Notes,
    author_year: list[AuthorYear],
    base_url: str | None,
) -> tuple[Iterator[Mark], list[tuple[int, int]]]:
    """(position, address, marker) of every inline link, reference link, marker, group of
    markers, address written out and author–year citation of ``scanned``, the ``prose``
    without its code (a link's text is read whole in ``prose``), in position order; and the
    spans of the groups and author–year brackets that cite, which no more end a sentence
    than a marker. A relative link is read against ``base_url``. The marks of groups are
    given one at a time: a megabyte of ranges (``[1-10]``) names some 600,000."""
    definitions = notes.definitions
    links = list(_INLINE.finditer(scanned))  # images among them, which cite nothing
    inline = [m for m in links if not (m.start() and scanned[m.start() - 1] == "!")]
    references = list(_REFERENCE.finditer(scanned))
    addresses = ((m, _inline_address(m, base_url)) for m in inline)
    marks = [(m.start(), url, _text(prose, m)) for m, url in addresses if url is not None]
    marks += [
        (m.start(), definitions[m.group(2).casefold()], _text(prose, m))
        for m in references
        if m.group(2).casefold() in definitions
    ]
    single, markers, numbered = _numbered_marks(scanned, notes)
    marks += single
    marks += _written_out(scanned, merged_spans([m.span() for m in links + references]))
    marks += [(c.start, c.url, c.marker) for c in author_year]
    markers += dict.fromkeys((c.start, c.end) for c in author_year)
    marks.sort(key=_position)
    return heapq.merge(marks, numbered, key=_position), sorted(markers)


def _numbered_marks(
    scanned: str, notes: _Notes
) -> tuple[list[Mark], list[tuple[int, int]], Iterator[Mark]]:
    """(position, address, marker) of each marker of ``scanned`` citing a note or a
    reference (``[3]``, ``[^1]``), the spans of the groups of markers that cite (``[1-3]``),
    and the marks of those groups in position order, given one at a time."""
    cited = ((m.start(), notes.cited(m), m.group(0)) for m in _MARKER.finditer(scanned))
    marks = [(start, url, marker) for start, url, marker in cited if url is not None]
    markers, groups = [], []
    known: dict[tuple[str, bool], list[tuple[str, str]]] = {}  # a group written many times
    for group in _GROUP.finditer(scanned):
        key = (group.group(1), _link_follows(group))
        if key not in known:
            known[key] = notes.numbered(group)
        if known[key]:
            markers.append(group.span())
            groups.append((group.start(), known[key]))
    numbered = ((at, url, marker) for at, cites in groups for marker, url in cites)
    return marks, markers, numbered


def _position(mark: Mark) -> int:
    return mark[0]


def _written_out(scanned: str, links: list[tuple[int, int]]) -> list[Mark]:
    """(position, address, address) of each address written out in ``scanned`` (bare or
    as an autolink ``<url>``) outside ``links`` and HTML attributes, but for examples (in
    quotes, or on a domain reserved for them)."""
    starts = [start for start, _ in links]
    found = []
    for match in URL.finditer(scanned):
        if _inside(links, starts, match.start()) or in_attribute(scanned, match.start()):
            continue
        if an_example(match):
            continue
        url = written_url(match)
        if url is not None:
            found.append((match.start(), url, url))
    return found


def _text(prose: str, link: re.Match[str]) -> str:
    """A link's text as ``prose`` writes it, code included."""
    return prose[link.start(1) : link.end(1)]


def _inline_address(link: re.Match[str], base_url: str | None) -> str | None:
    """The address of an inline link (see ``_address``); one in angle brackets has its
    spaces escaped."""
    bracketed = link.group(2)
    written = link.group(3) or link.group(4)
    return _address(base_url, bracketed.strip().replace(" ", "%20") if bracketed else written)


def _link_follows(match: re.Match[str]) -> bool:
    return match.string.startswith(("(", "["), match.end())


def _plain_markdown(sentence: str) -> str:
    """A Markdown sentence as read: links become their text, but for those standing alone
    in parentheses or saying only where the source is (``[source](...)``); images, markers
    and emphasis go."""
    text = _INLINE.sub(_link_words, _PAREN_LINKS.sub("", _IMAGE.sub("", sentence)))
    text = _REFERENCE.sub(_link_words, text)
    text = _MARKER.sub("", _GROUP.sub("", without_author_year(text)))
    return _tidy(_EMPHASIS.sub("", text))


def _link_words(link: re.Match[str]) -> str:
    """A link's text as a claim's words: none when it only points at the source and ends
    the sentence (``Go is compiled [source](…).``); else they say something (``Go is a
    [reference](…) language.``)."""
    if _CITING_WORDS.fullmatch(link.group(1)) and _ENDS_SENTENCE.match(link.string, link.end()):
        return ""
    return link.group(1)


def _html_citations(html: str, base_url: str | None, cap: int) -> tuple[list[Citation], int]:
    """Sentences of the page's text holding an ``<a href>`` (a relative one read against
    ``base_url``) or a ``<cite>`` naming an address (offsets are the page's, as
    ``strip_tags`` keeps them). A note marker (a link in a ``<sup>`` or named as a note,
    ``[1]``) to a note further down cites the address in that note; the links of the list
    holding the notes cite nothing, nor does any other link to a place on the page (a note's
    way back to its marker, a table of contents). A note marker and a link's text naming
    only its source at the sentence's end are no words of the claim."""
    prose = page_text(html)
    ids: dict[str, int] = {}
    for match in _ID.finditer(html):
        ids.setdefault(match.group(1), match.start())
    lists = _Lists.of(html)
    sups = [m.span() for m in _SUP.finditer(html)]
    sup_starts = [start for start, _ in sups]
    notes: list[tuple[int, int]] = []
    marks: list[Mark] = []
    unsaid = _sup_markers(html, prose)
    unmarked = _blanked(prose, unsaid)  # what follows a link, read past its note markers
    joined: dict[str, str | None] = {}  # a page links to one address many times over
    shown: list[tuple[int, int]] = []  # the links' texts: what they say, they cite by link
    works = _cited_works(html, prose)
    work_starts = [start for start, _ in works]
    for match in _ANCHOR.finditer(html):
        found = _HREF.search(match.group(1))
        if found is None:
            continue
        href = htmllib.unescape(next(g for g in found.groups() if g is not None)).strip()
        closing = html.find("</a", match.end(), match.end() + LABEL_CHARS)
        label = prose[match.end() : closing if closing >= 0 else match.end()]
        shown.append((match.end(), match.end() + len(label)))
        target = ids.get(href[1:], -1) if href.startswith("#") else -1
        marker = _inside(sups, sup_starts, match.start()) or _names_a_note(label.strip())
        note = _note(html, target) if marker and target > match.end() else None
        if note is not None:  # a marker citing a note further down, not its way back
            notes.append(lists.holding(note, match.start()))
            unsaid.append((match.end(), match.end() + len(label)))  # a marker is no claim word
            url = _note_address(html, note, base_url)
        else:
            if href not in joined:
                joined[href] = _address(base_url, href)
            url = joined[href]
        if url is None:
            continue
        at = match.end()
        if _inside(works, work_starts, at):  # a title taken out cites from where it was
            at = _next_word(prose, works[bisect_right(work_starts, at) - 1][1])
        marks.append((at, url, _tidy(label) if label.strip() else ""))
        if closing >= 0:
            unsaid += _source_words(html, unmarked, match.start(), match.end(), closing)
    unsaid += works
    for match in _CITE.finditer(html):
        address = URL.search(strip_tags(match.group(1)))
        if address is not None and not _ANCHOR.search(match.group(1)):
            cited = written_url(address)  # the marker shown is the address, as cleaned
            if cited is not None:
                marks.append((match.start(), cited, cited))
                at = match.start(1)  # the address cites by its <cite>, not once more as text
                shown.append((at + address.start(), at + address_end(address)))
    written, numbered, apart = _text_marks(html, prose, shown, base_url, unsaid)
    apart = merged_spans(notes + apart)  # the notes and the reference list: no claims
    starts = [start for start, _ in apart]
    marks = sorted(marks + written, key=_position)
    kept = (
        m for m in heapq.merge(marks, numbered, key=_position) if not _inside(apart, starts, m[0])
    )
    said = _blanked(prose, merged_spans(unsaid))
    spans = sentence_spans(said)
    quoted = _quoted(html, spans, base_url)
    return _cited_sentences(said, spans, heapq.merge(kept, quoted, key=_position), _plain_html, cap)


def _quoted(html: str, spans: list[tuple[int, int]], base_url: str | None) -> list[Mark]:
    """(position, address, "") of each sentence of a quotation naming where it is quoted
    from (``<blockquote cite="...">``, ``<q cite="...">``), in position order."""
    marks: list[Mark] = []
    starts = [start for start, _ in spans]
    closings: dict[str, list[int]] = {"blockquote": [], "q": []}
    for end in _QUOTE_END.finditer(html):
        closings[end.group(1).lower()].append(end.start())
    for match in _QUOTED.finditer(html):
        href = htmllib.unescape(next(g for g in match.groups()[1:] if g is not None)).strip()
        url = _address(base_url, href)
        ends = closings[match.group(1).lower()]
        index = bisect_right(ends, match.end())
        closing = ends[index] if index < len(ends) else len(html)
        if (
            url is None
            or closing > match.end() + QUOTE_CHARS
            or (marks and match.start() < marks[-1][0])
        ):
            continue  # no source, no end within reach, or inside a quotation already read
        if match.group(1).lower() == "q":  # a quotation in a sentence: that sentence
            marks.append((match.end(), url, ""))
        first, last = bisect_right(starts, match.end()), bisect_right(starts, closing)
        marks += [(start, url, "") for start in starts[first:last]]
    return marks


def _text_marks(
    html: str,
    prose: str,
    shown: list[tuple[int, int]],
    base_url: str | None,
    unsaid: list[tuple[int, int]],
) -> tuple[list[Mark], Iterator[Mark], list[tuple[int, int]]]:
    """What a page's text (``prose``, its links' texts ``shown`` and its code left out)
    cites as a Markdown document's would: addresses written out, author–year citations
    and numbered markers (``[3]``) resolved through its reference list; the marks of groups
    of markers apart, given one at a time; and the spans of the reference list. The spans
    of the markers and brackets citing are added to ``unsaid``: they are no claim words."""
    scanned = _blanked(prose, merged_spans(code_spans(html) + sorted(shown)))
    sections = reference_sections(html)
    items = entries(html, sections)
    listed = [(e.start, e.end, _entry_address(html, scanned, e, base_url)) for e in items]
    author_year, lines = author_year_citations(scanned, listed)
    definitions = {
        e.number: url for e, (_, _, url) in zip(items, listed, strict=True) if e.number and url
    }
    notes = _Notes(definitions, set(definitions))
    marks, groups, numbered = _numbered_marks(scanned, notes)
    unsaid += groups + [(at, at + len(marker)) for at, _, marker in marks]
    unsaid += [(c.start, c.end) for c in author_year]
    marks += [(c.start, c.url, c.marker) for c in author_year]
    marks += _page_addresses(html, scanned, unsaid)
    return marks, numbered, sections + lines


def _page_addresses(html: str, scanned: str, unsaid: list[tuple[int, int]]) -> list[Mark]:
    """The addresses written out in a page's text (``scanned``): one holding an entity
    (``&amp;``, which the text shows as ``&`` padded with spaces) read whole from the page's
    source and unescaped, its span added to ``unsaid`` (no words of the claim)."""
    marks = []
    for at, url, _ in _written_out(scanned, []):
        whole = URL.match(html, at)
        if "&" in url and whole is not None and (written := written_url(whole)) is not None:
            url = web_url(htmllib.unescape(written))
            unsaid.append((at, address_end(whole)))
        marks.append((at, url, url))
    return marks


def _entry_address(html: str, scanned: str, entry: Entry, base_url: str | None) -> str:
    """The address a page's reference list entry links to or writes out; ``""`` for none."""
    linked = _note_address(html, (entry.start, entry.end), base_url)
    written = URL.search(scanned, entry.start, entry.end)
    return linked or (written_url(written) if written else None) or ""


@dataclass(frozen=True, slots=True)
class _Lists:
    """Where the lists (``<ol>``, ``<ul>``) of a page open and close, to find the list that
    holds a note: the page's notes, whose links are the sources the markers cite."""

    opens: list[int]
    closes: list[int]

    @classmethod
    def of(cls, html: str) -> _Lists:
        """The lists of ``html``."""
        opens = [m.start() for m in _LIST_OPEN.finditer(html)]
        return cls(opens, [m.end() for m in _LIST_CLOSE.finditer(html)])

    def holding(self, note: tuple[int, int], marker: int) -> tuple[int, int]:
        """The span of the list holding ``note`` when the ``marker`` citing it lies outside
        that list; else the note's own span."""
        opened = bisect_right(self.opens, note[0]) - 1
        closed = bisect_right(self.closes, note[0])
        if opened < 0 or closed == len(self.closes):
            return note
        start, end = self.opens[opened], self.closes[closed]
        if (closed > 0 and self.closes[closed - 1] > start) or start <= marker < end:
            return note
        return start, end


def _sup_markers(html: str, prose: str) -> list[tuple[int, int]]:
    """The spans of the note markers of a page: a ``<sup>`` holding only note numbers
    (``7``, ``[7]``, ``[a]``, ``[note 1]``) that holds a link, brackets them or stands
    after a sentence's punctuation (``2`` in ``mc<sup>2</sup>`` is a power)."""
    spans = []
    for match in _SUP.finditer(html):
        if not _note_words(strip_tags(match.group(1))):
            continue
        before = prose[max(match.start() - 40, 0) : match.start()].rstrip()
        if "<a" in match.group(1).lower() or "[" in match.group(1) or before[-1:] in _ENDS:
            spans.append(match.span())
    return spans


def _note_words(text: str) -> bool:
    """Whether ``text`` holds only the words of note markers (``7``, ``[7]``, ``[a]``,
    ``[note 1]``, ``1–3``), and no more of them than a range names."""
    words = [w for w in _SUP_SPLIT.split(text) if w]
    return 0 < len(words) <= MAX_RANGE and all(map(_SUP_WORD.fullmatch, words))


def _names_a_note(label: str) -> bool:
    """Whether a link's text is a note marker (``1``, ``[1]``, ``a``, ``[note 2]``): a link
    to a place on the page saying more (``Jump to history``) cites nothing."""
    return _NOTE_LABEL.fullmatch(label) is not None and _note_words(label)


def _source_words(
    html: str, prose: str, start: int, text_start: int, text_end: int
) -> list[tuple[int, int]]:
    """What of a link is no claim word: the link and its parentheses when it stands alone
    in them (``(<a>source</a>)``), else its text when it only points at its source and
    ends the sentence (``see <a>here</a>.``, not ``a <a>source</a> language``)."""
    opening = _OPEN_BEFORE.search(prose, max(start - 40, 0), start)
    after = html.find(">", text_end) + 1 or text_end
    closing = _CLOSE_AFTER.match(prose, after)
    if opening and closing:
        return [(opening.start(), closing.end())]
    if _CITING_WORDS.fullmatch(prose[text_start:text_end]) and _ENDS_SENTENCE.match(prose, after):
        return [(text_start, text_end)]
    return []


def _cited_works(html: str, prose: str) -> list[tuple[int, int]]:
    """What names the work a sentence cites, no word of its claim: a linked ``<cite>``
    title (``<cite><a href>Rust facts</a></cite>``, ``<a href><cite>…</cite></a>``) after
    words naming it (``according to``), with those words and a comma after the title. A
    title in the claim's own words (``the <cite>Times</cite> reported``) stays."""
    spans = []
    for match in _CITE.finditer(html):
        start, end = match.span()
        opening = _LINK_AROUND.search(html, max(start - LABEL_CHARS, 0), start)
        closing = _LINK_CLOSE_AFTER.match(html, end)
        if opening and closing:
            start, end = opening.start(), closing.end()
        elif not _ANCHOR.search(match.group(1)):
            continue
        phrase = _CITING_PHRASE.search(prose, max(start - 60, 0), start)
        if phrase is not None:
            comma = _COMMA_AFTER.match(prose, end)
            spans.append((phrase.start(), comma.end() if comma else end))
    return spans


def _next_word(text: str, at: int) -> int:
    """Where the first character of ``text`` from ``at`` that is no white space is."""
    spaces = _SPACES.match(text, at)
    return spaces.end() if spaces else at


def _plain_html(sentence: str) -> str:
    """An HTML sentence as read: note markers go, white space is collapsed."""
    return _tidy(_LEFTOVER.sub(_space_or_nothing, sentence))


def _cited_sentences(
    prose: str,
    spans: list[tuple[int, int]],
    marks: Iterable[Mark],
    plain: Callable[[str], str],
    cap: int,
) -> tuple[list[Citation], int]:
    """The first ``cap`` citations, one for each (sentence, address) the (position,
    address, marker) ``marks`` give in position order, with each owning sentence made
    ``plain`` once however many marks it holds; and how many more (sentence, address) pairs
    the marks give, counted only. An address written out where nothing else is said
    (``Source: https://...``, ``<https://...>`` on a line of its own) cites the sentence
    just before it, on its line or the line above, when that one says something; else
    nothing (an address in a list of sources cites no sentence)."""
    starts = [start for start, _ in spans]
    read: dict[tuple[int, int], tuple[str, bool]] = {}

    def said(span: tuple[int, int]) -> tuple[str, bool]:
        """The sentence as read, and whether it says anything."""
        if span not in read:
            text = plain(prose[span[0] : span[1]])
            read[span] = (text, not _SAYS_NOTHING.fullmatch(text))
        return read[span]

    def before(span: tuple[int, int]) -> tuple[int, int]:
        """The sentence an address alone in ``span`` cites (an empty span: none)."""
        index = bisect_right(starts, span[0]) - 1
        last = spans[index - 1] if index > 0 else span
        near = prose.count("\n", last[1], span[0]) <= 1
        return last if last != span and said(last)[1] and near else (0, 0)

    out: list[Citation] = []
    seen: set[tuple[int, str]] = set()  # (sentence start, address) of those found
    more, counting, counted = 0, -1, set[str]()  # past the cap: one sentence's addresses
    place, span = (-1, False), (0, 0)
    for at, url, marker in marks:
        key = (at, bool(_NOTE.fullmatch(marker)))
        if key != place:  # the marks of a group of references share one position
            place, span = key, _owning_sentence(prose, spans, starts, at, marker)
        if len(out) == cap:  # counted only: no sentence read, no citation made
            if span[0] != counting:
                counting, counted = span[0], set()
            if span[0] < span[1] and url not in counted and (span[0], url) not in seen:
                counted.add(url)
                more += 1
            continue
        cited = span
        if cited[0] < cited[1] and marker == url and not said(cited)[1]:
            cited = before(cited)
        if cited[0] == cited[1] or (cited[0], url) in seen:  # in no sentence: cites nothing
            continue
        text = said(cited)[0]
        if text:
            seen.add((cited[0], url))
            out.append(Citation(text, url, marker, *cited))
    return sorted(out, key=lambda c: c.start), more


def _inside(spans: list[tuple[int, int]], starts: list[int], position: int) -> bool:
    """Whether ``position`` lies in one of ``spans`` (sorted, ``starts`` their starts): a
    note ends at the first closing tag after its start, so a later note never ends sooner,
    and the last one starting at or before ``position`` is the one that may hold it."""
    index = bisect_right(starts, position) - 1
    return index >= 0 and spans[index][0] <= position < spans[index][1]


def _note(html: str, found: int) -> tuple[int, int]:
    """The span of the note whose ``id`` starts at ``found`` (a reference list entry), from
    the tag holding the ``id`` (an anchor in it may be the note's link)."""
    start = max(html.rfind("<", max(found - LABEL_CHARS, 0), found), 0)
    ending = _NOTE_END.search(html, found, found + NOTE_CHARS)
    return start, ending.start() if ending else min(len(html), found + NOTE_CHARS)


def _note_address(html: str, note: tuple[int, int], base_url: str | None) -> str | None:
    """The first address a note links to (a relative one read against ``base_url``)."""
    for anchor in _ANCHOR.finditer(html, note[0], note[1]):
        found = _HREF.search(anchor.group(1))
        href = htmllib.unescape(next(g for g in found.groups() if g)).strip() if found else ""
        url = _address(base_url, href)
        if url is not None:
            return url
    return None


def _space_or_nothing(match: re.Match[str]) -> str:
    return "" if match.group(0).startswith("[") else " "


def _owning_sentence(
    prose: str, spans: list[tuple[int, int]], starts: list[int], position: int, marker: str
) -> tuple[int, int]:
    """The sentence ``position`` lies in (``starts`` are the spans' starts); a note marker
    (``[1]``, ``1``) opening a sentence, after the full stop of the one before, belongs to
    the one before."""
    if not spans:
        return position, position
    index = max(bisect_right(starts, position) - 1, 0)
    start, end = spans[index]
    if index > 0 and _NOTE.fullmatch(marker) and _NOTES_ONLY.fullmatch(prose[start:position]):
        return spans[index - 1]
    return start, end


def _tidy(text: str) -> str:
    """White space collapsed, addresses written out in the text dropped, and no space left
    before punctuation where a marker was taken out."""
    text = _EMPTY_BRACKETS.sub("", " ".join(without_addresses(text).split()))
    return _BEFORE_STOP.sub(r"\1", text)
