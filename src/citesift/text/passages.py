"""Passages a reader can cite: one per cut of each block, with attribution and place.

``citation_sources`` holds no sentence rule of its own: ``cut(text) -> [(start, end)]`` is
passed in (``sentence_spans`` by default). ``attribution`` says what must be shown with a
passage taken from a licensed source: the sentence, its article, its licence, and that
the text was modified (and, for Wikipedia, its contributors through the page history).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urldefrag

from citesift.model import Block, Licence, Passage, Place, SourceDocument
from citesift.text.addresses import wikipedia_history, wikipedia_revision
from citesift.text.fragments import fragment_url, text_terms
from citesift.text.occurrences import WordIndex
from citesift.text.sentences import sentence_spans

Cut = Callable[[str], Sequence[tuple[int, int]]]
"""A rule that cuts a block's text into ``(start, end)`` spans."""

MODIFIED_NOTICE = "Modified: reference markers and markup removed, white space collapsed."
NO_LICENCE = "licence not stated"
CONTRIBUTORS = "Wikipedia contributors"
REVISION_READ = "revision read"
"""How the permanent address of the revision a passage was read from is labelled."""
CONTEXT_CHARS = 500
"""Characters read on each side of a passage for the words that tell its repeats apart."""


def citation_sources(document: SourceDocument, cut: Cut = sentence_spans) -> list[Passage]:
    """One passage per span ``cut`` finds in each block, in reading order.

    ``content`` is ``block.text[start:end]`` as cut (untrimmed); spans out of range are
    clamped and empty ones dropped. A passage of a block read from a PDF or Office file
    carries the block's ``place``, and its link points at the page (``#page=N``, which PDF
    viewers open at) or at the file, as a text fragment means nothing there.
    """
    page = WordIndex("\n".join(block.text for block in document.blocks))
    return [
        _passage(document, index, start, end, page)
        for index, block in enumerate(document.blocks)
        for start, end in _clamped(cut(block.text), len(block.text))
    ]


def place_link(url: str, place: Place) -> str:
    """A link to a place in a PDF or Office file: its page (``#page=N``, which PDF viewers
    open at) or the file itself, as a text fragment means nothing there."""
    address = urldefrag(url).url
    return f"{address}#page={place.page}" if place.page is not None else address


def _clamped(spans: Sequence[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """The spans kept within ``[0, size]``, empty ones dropped."""
    kept = ((max(0, min(start, size)), max(0, min(end, size))) for start, end in spans)
    return [(start, end) for start, end in kept if start < end]


def _passage(
    document: SourceDocument, index: int, start: int, end: int, page: WordIndex
) -> Passage:
    """The passage ``document.blocks[index].text[start:end]`` with its attribution."""
    block = document.blocks[index]
    content = block.text[start:end]
    source_start, source_end = block.source_span(start, end)
    return Passage(
        content=content,
        title=document.title,
        url=document.url,
        site=document.site,
        key=document.key,
        revision=document.revision,
        read_at=document.read_at,
        licence=document.licence,
        block=index,
        start=start,
        end=end,
        source_start=source_start,
        source_end=source_end,
        fragment_url=_link(document, index, start, end, page),
        snapshot_id=document.snapshot_id,
        place=block.place,
    )


def _link(document: SourceDocument, index: int, start: int, end: int, page: WordIndex) -> str:
    """A text-fragment link to the span, with context when the text it starts at recurs;
    for a block of a file, its page (or the file)."""
    place = document.blocks[index].place
    if place is not None:
        return place_link(document.url, place)
    sentence = document.blocks[index].text[start:end]
    if not page.repeats(text_terms(sentence)[0]):
        return fragment_url(document.url, sentence)
    return fragment_url(document.url, sentence, _context(document.blocks, index, start, end))


def _context(blocks: Sequence[Block], index: int, start: int, end: int) -> tuple[str, str]:
    """The words just before and after a span, reaching into the neighbouring block at an
    edge; at most ``CONTEXT_CHARS`` of each side are read, so a block of many sentences
    costs time linear in its length, not in its length times its sentences."""
    text = blocks[index].text
    before, after = _words_before(text, start), _words_after(text, end)
    if not before.strip() and index > 0:
        before = _words_before(blocks[index - 1].text, len(blocks[index - 1].text))
    if not after.strip() and index + 1 < len(blocks):
        after = _words_after(blocks[index + 1].text, 0)
    return before, after


def _words_before(text: str, end: int) -> str:
    """The whole words among the last ``CONTEXT_CHARS`` characters of ``text[:end]``."""
    start = max(0, end - CONTEXT_CHARS)
    words = text[start:end].split()
    cut = start > 0 and not text[start - 1].isspace() and not text[start].isspace()
    return " ".join(words[1:] if cut else words)


def _words_after(text: str, start: int) -> str:
    """The whole words among the first ``CONTEXT_CHARS`` characters of ``text[start:]``."""
    end = min(len(text), start + CONTEXT_CHARS)
    words = text[start:end].split()
    cut = end < len(text) and not text[end].isspace() and not text[end - 1].isspace()
    return " ".join(words[:-1] if cut else words)


@dataclass(frozen=True, slots=True)
class Attribution:
    """What must be shown with a passage: sentence, linked title, linked licence, notice,
    and for Wikipedia the page history crediting the contributors (``history``) and the
    permanent address of the revision read (``revision_url``)."""

    sentence: str
    title: str
    url: str
    site: str
    licence: Licence | None
    notice: str = MODIFIED_NOTICE
    history: str | None = None
    revision_url: str | None = None
    place: str | None = None
    """Where in a PDF or Office file the sentence is (``page 3``), named after the title."""

    def text(self) -> str:
        """Plain text: the quoted sentence, then title, site, addresses and the notice."""
        return f'"{self.sentence}" — {self.source_text()}, {self.licence_text()}. {self.notice}'

    def source_text(self) -> str:
        """Plain text naming the source: title, site and address, and the contributors'
        page history when there is one."""
        credit = f", {CONTRIBUTORS} <{self.history}>" if self.history else ""
        pinned = f" ({REVISION_READ} <{self.revision_url}>)" if self.revision_url else ""
        return f"{self.title}{self._where()}, {self.site} <{self.url}>{pinned}{credit}"

    def _where(self) -> str:
        return f", {self.place}" if self.place else ""

    def licence_text(self) -> str:
        """Plain text naming the licence and the address of its terms."""
        return f"{self.licence.name} <{self.licence.url}>" if self.licence else NO_LICENCE

    def html(self) -> str:
        """HTML: the sentence quoted; the title, contributors and licence name as links."""
        e = html.escape
        licence = _html_licence(self.licence)
        credit = f', <a href="{e(self.history)}">{CONTRIBUTORS}</a>' if self.history else ""
        pinned = self.revision_url and f' (<a href="{e(self.revision_url)}">{REVISION_READ}</a>)'
        return (
            f'<q cite="{e(self.url)}">{e(self.sentence)}</q> — '
            f'<a href="{e(self.url)}">{e(self.title)}</a>{e(self._where())}{pinned or ""}, '
            f"{e(self.site)}{credit}, "
            f"{licence}. {e(self.notice)}"
        )

    def markdown(self) -> str:
        """Markdown: the sentence quoted; the title, contributors and licence name as links."""
        licence = (
            f"[{_md(self.licence.name)}]({_md_url(self.licence.url)})"
            if self.licence
            else NO_LICENCE
        )
        title = f"[{_md(self.title)}]({_md_url(self.url)}){_md(self._where())}"
        if self.revision_url:
            title += f" ([{REVISION_READ}]({_md_url(self.revision_url)}))"
        credit = f", [{CONTRIBUTORS}]({_md_url(self.history)})" if self.history else ""
        return (
            f"> {_md(self.sentence)}\n\n— {title}, {_md(self.site)}{credit}, {licence}. "
            f"{self.notice}"
        )


def attribution(passage: Passage) -> Attribution:
    """What must be shown with ``passage`` (its sentence with white space collapsed); a
    Wikipedia passage also links its page history, naming the contributors, and the revision
    it was read from; a passage of a PDF or Office file names its place (``page 3``)."""
    sentence = " ".join(passage.content.split())
    p = passage
    return Attribution(
        sentence, p.title, p.url, p.site, p.licence,
        history=wikipedia_history(p.site, p.url, p.key),
        revision_url=wikipedia_revision(p.site, p.url, p.key, p.revision),
        place=p.place.label() if p.place else None,
    )  # fmt: skip


def _html_licence(licence: Licence | None) -> str:
    """The licence name linked to its terms, escaped for HTML."""
    if licence is None:
        return NO_LICENCE
    return f'<a href="{html.escape(licence.url)}" rel="license">{html.escape(licence.name)}</a>'


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|"})


def _md(text: str) -> str:
    """``text`` with Markdown's inline syntax escaped."""
    return text.translate(_MD_SPECIAL)


def _md_url(url: str) -> str:
    """A link destination in angle brackets, so brackets and spaces in it are safe."""
    return "<" + url.replace("<", "%3C").replace(">", "%3E").replace(" ", "%20") + ">"
