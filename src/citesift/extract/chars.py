"""What source text stands for, reference by reference: character references decoded as the
HTML tokenizer decodes them, and the format characters that no reader sees.

A named reference may lack its ``;`` only for the legacy names (``&copy``, ``&not``…): the
tokenizer takes the longest legacy name the letters start with, and the letters after it
stay text (``&copyX`` is "©X", ``&notit;`` is "¬it;"). ``decode_reference`` says how many
source characters the decoded text stands for, so the offset map stays exact. In an
attribute value a legacy name followed by a letter, digit or ``=`` is not decoded (so
``?a=1&copy=2`` stays a query string).
"""

from __future__ import annotations

import html as htmllib
import re
from html.entities import html5

REFERENCE = re.compile(r"&(?:#[0-9]+;?|#[xX][0-9a-fA-F]+;?|[A-Za-z][A-Za-z0-9]{0,31};?)")
_SHORTEST_NAME = 2  # "lt", "gt": no legacy name is shorter
# Unicode's format characters (category Cf) but the visible ones, the signs that stand
# before digits (Arabic number and year signs, end of ayah, Syriac and Kaithi marks): soft
# hyphen, zero-width space, joiners and non-joiners, bidi controls, word joiner, invisible
# operators, BOM, annotation marks, and the tag characters that can spell hidden text.
FORMAT = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\ufff9-\ufffb\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]+"
)


def decode_reference(ref: str) -> tuple[str, int]:
    """The text the reference ``ref`` (a ``REFERENCE`` match) stands for, and how many of
    its characters that text takes (0 when it is not a reference and stays as written)."""
    if ref[1] == "#":
        return htmllib.unescape(ref), len(ref)
    name = ref[1:]
    if name in html5:
        return html5[name], len(ref)
    for cut in range(len(name) - 1, _SHORTEST_NAME - 1, -1):
        if name[:cut] in html5:
            return html5[name[:cut]], cut + 1
    return ref, 0


def unescape_attribute(value: str) -> str:
    """An attribute value with its references decoded as the tokenizer does in attributes."""
    if "&" not in value:
        return value
    return REFERENCE.sub(_attribute_reference, value)


def _attribute_reference(found: re.Match[str]) -> str:
    ref = found.group()
    decoded, used = decode_reference(ref)
    if not used:
        return ref
    following = ref[used : used + 1] or found.string[found.end() : found.end() + 1]
    if ref[used - 1] != ";" and ref[1] != "#" and (following.isalnum() or following == "="):
        return ref  # a legacy name run on into a word or a value: the letters stay
    return decoded + ref[used:]


def without_format(text: str) -> str:
    """``text`` less its invisible format characters."""
    return text if text.isascii() else FORMAT.sub("", text)
