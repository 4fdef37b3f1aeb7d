"""Block text from source runs: entities decoded, white space collapsed, NFC, with a run map.

The run map is a sorted tuple of ``(text_pos, source_pos)`` anchors (see ``Block``): a text
run copied verbatim needs one anchor, and each collapsed white-space run, decoded entity or
recomposed character adds one more. Only kept blocks pay for this.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array

from citesift.checks import encodable
from citesift.extract.chars import FORMAT, REFERENCE, decode_reference

_UNSAFE = re.compile("[\x00\ud800-\udfff]")  # replaced one for one, so offsets hold
_WS_RUN = re.compile(r"\s{2,}")
_WS = re.compile(r"\s")
_MOST_COMPOSED = 4  # characters NFC composes into one at most (U+1F82 is four in NFD)


def _spaced(text: str) -> str:
    """``text`` with each white-space character (tab, newline, no-break space…) as a space."""
    return text if text.isprintable() else _WS.sub(" ", text)


class _Builder:
    """Accumulates collapsed text and anchors for one block."""

    __slots__ = ("anchors", "end", "limit", "parts", "pending", "pos", "start")

    def __init__(self, limit: int) -> None:
        self.limit = limit  # stop taking text past this many characters
        self.parts: list[str] = []
        self.anchors: list[tuple[int, int]] = []
        self.pos = 0
        self.pending = False
        self.start = -1
        self.end = -1

    def space(self) -> None:
        """White space seen: one space if more text follows."""
        self.pending = self.pos > 0

    def word(self, text: str, src: int, src_end: int) -> None:
        """Append ``text`` (no leading or trailing white space) that stands for src..src_end."""
        if self.pending:
            self.parts.append(" ")
            self.pos += 1
            self.pending = False
        if self.start < 0:
            self.start = src
        if not self.anchors or self.anchors[-1] != (self.pos, src):  # else a reference's end
            self.anchors.append((self.pos, src))
        self.parts.append(text)
        self.pos += len(text)
        self.end = src_end
        if src_end - src != len(text):
            self.anchors.append((self.pos, src_end))

    def without_format(self, raw: str, src: int, found: re.Match[str]) -> None:
        """Append a run of source text that holds no reference, less its format characters
        (``found`` is the first run of them)."""
        cut = 0
        while found is not None:
            self.literal(raw[cut : found.start()], src + cut)
            cut = found.end()
            found = FORMAT.search(raw, cut)  # type: ignore[assignment]
        self.literal(raw[cut:], src + cut)

    def literal(self, raw: str, src: int) -> None:
        """Append a run of source text that holds no reference (format characters left out)."""
        body = raw.strip()
        if not body:
            if raw:
                self.space()
            return
        printable = body.isprintable()  # then it holds no format character either
        if not printable and not body.isascii() and (found := FORMAT.search(raw)) is not None:
            self.without_format(raw, src, found)
            return
        lead = raw.find(body[0])
        if lead:
            self.space()
        src += lead
        if printable and "  " not in body:  # most prose: nothing to collapse
            self.word(body, src, src + len(body))
        elif _WS_RUN.search(body) is None:
            self.word(_WS.sub(" ", body), src, src + len(body))
        else:
            cut = 0
            for run in _WS_RUN.finditer(body):
                self.word(_spaced(body[cut : run.start()]), src + cut, src + run.start())
                self.space()
                cut = run.end()
            self.word(_spaced(body[cut:]), src + cut, src + len(body))
        if len(body) + lead < len(raw):
            self.space()

    def run(self, raw: str, src: int) -> None:
        """Append a run of source text, decoding the references in it.

        A reference stands for the source characters it takes (``&copy`` of ``&copyX``):
        the letters after it are text, each at its own offset.
        """
        if "&" not in raw:
            self.literal(raw, src)
            return
        cut = 0
        for ref in REFERENCE.finditer(raw):
            if self.pos > self.limit:
                return
            decoded, used = decode_reference(ref.group())
            if not used:
                continue
            start, end = ref.start(), ref.start() + used
            self.literal(raw[cut:start], src + cut)
            decoded = FORMAT.sub("", decoded)
            if decoded.isspace():
                self.space()
            elif decoded:
                self.word(decoded, src + start, src + end)
            cut = end
        self.literal(raw[cut:], src + cut)


def _compact(anchors: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Drop anchors that continue the run before them."""
    kept: list[tuple[int, int]] = []
    for text_pos, src in anchors:
        if kept and kept[-1][1] + (text_pos - kept[-1][0]) == src:
            continue
        kept.append((text_pos, src))
    return tuple(kept)


def starts_cluster(char: str) -> bool:
    """Whether NFC cannot merge ``char`` into the character before it."""
    return unicodedata.combining(char) == 0 and not "\u1160" <= char <= "\u11ff"


def _recompose(
    text: str, anchors: tuple[tuple[int, int], ...], end: int
) -> tuple[str, list[tuple[int, int]]]:
    """NFC the text cluster by cluster, anchoring each character where the run breaks. The
    characters after the first of a cluster are anchored to the last ones of its source:
    NFC merges marks into the first character, so the marks it leaves are those (a cluster
    it lengthens maps its extra characters to its start)."""
    src = _expand(anchors, len(text), end)
    parts: list[str] = []
    new: list[tuple[int, int]] = []
    pos = i = copied = 0  # text[copied:i] is unchanged and not yet in parts
    while i < len(text):
        j = i + 1
        while j < len(text) and not starts_cluster(text[j]):
            j += 1
        cluster = unicodedata.normalize("NFC", text[i:j])
        merged = j - i - len(cluster)
        for k in range(len(cluster)):
            at = src[max(i, i + merged + k) if k else i]
            if not new or new[-1][1] + (pos + k - new[-1][0]) != at:
                new.append((pos + k, at))
        if merged or cluster != text[i:j]:
            parts += (text[copied:i], cluster)
            copied = j
        pos += len(cluster)
        i = j
    parts.append(text[copied:])
    return "".join(parts), new


def _expand(anchors: tuple[tuple[int, int], ...], length: int, end: int) -> array[int]:
    """The source position of every text position (the slow path's per-character map, kept
    as machine integers: a tenth of the memory a list of them takes)."""
    out = array("q")
    bounds = [*anchors[1:], (length, end)]
    for (text_pos, src), (next_pos, _) in zip(anchors, bounds, strict=True):
        out.extend(range(src, src + next_pos - text_pos))
    return out


def build(
    html: str, pieces: list[tuple[int, int]], plaintext: int = -1, limit: int = sys.maxsize
) -> tuple[str, tuple[tuple[int, int], ...], int, int]:
    """Text, run map, source start and source end of the block made of ``pieces``.

    Source from ``plaintext`` on (when it is not -1) is raw text: its references stay as
    written. The text stops soon after ``limit`` characters (the rest could not be kept).
    """
    builder = _Builder(limit)
    for start, end in pieces:
        if builder.pos > limit:
            break
        if 0 <= plaintext <= start:
            builder.literal(html[start:end], start)
        else:
            builder.run(html[start:end], start)
    text = "".join(builder.parts)
    keep = _MOST_COMPOSED * (limit + 1)
    if len(text) > keep:  # more than the limit even once composed: the rest cannot be kept
        text = text[:keep]
    anchors = _compact([a for a in builder.anchors if a[0] < len(text)])
    if "\x00" in text or not encodable(text):
        text = _UNSAFE.sub("\ufffd", text)
    if not text.isascii() and not unicodedata.is_normalized("NFC", text):
        text, recomposed = _recompose(text, anchors, builder.end)
        anchors = _compact(recomposed)
        if text != unicodedata.normalize("NFC", text):
            text = unicodedata.normalize("NFC", text)
    return text, anchors, builder.start, builder.end
