"""Whether an inline ``style`` keeps its element's text from the eye, read as CSS reads it.

The attribute is decoded first (character references as in any attribute value), then CSS
comments are removed and CSS escapes decoded, so ``display:&#110;one``, ``display&colon;none``,
``display:/**/none`` and ``d\\69splay:none`` all read as ``display:none``. Hidden means: not
displayed or invisible; transparent (opacity, colour) or type too small to read; scaled or
clipped to nothing; a box of no height or width whose overflow is hidden; or moved a
thousand or more units off the page. Text a page hides from readers is no evidence, and a
place to hide instructions meant for a model.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citesift.extract.chars import unescape_attribute

_COMMENT = re.compile(r"/\*.*?(?:\*/|\Z)", re.DOTALL)
_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|(.))", re.DOTALL)
_NUMBER = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*([a-z%]*)")
_IMPORTANT = re.compile(r"\s*!\s*important\s*$")
_NOUGHT = r"(?:0++(?:\.0*+)?|\.0++)"  # zero written any way: possessive, so a run is read once
_SCALED_AWAY = re.compile(rf"\bscale(?:x|y|3d)?\(\s*[+-]?{_NOUGHT}\s*[,)]")
_ZERO = rf"\s*{_NOUGHT}%?\s*"
_TRANSPARENT = re.compile(
    rf"^(?:transparent|#[0-9a-f]{{3}}0|#[0-9a-f]{{6}}00"
    rf"|(?:rgb|hsl)a?\((?:[^,/()]*,){{3}}{_ZERO}\)|(?:rgb|hsl)a?\([^,/()]*/{_ZERO}\))$"
)
_PAINTED_OTHERWISE = ("background-clip", "-webkit-background-clip", "-webkit-text-fill-color")
_PAINTED_ALSO = ("text-shadow", "-webkit-text-stroke")
_OFF_PAGE = ("left", "top", "right", "text-indent", "margin-left", "margin-top")
_OFF_PAGE_UNITS = -1000  # this far off the page is off it, in any unit
_CLIPPED_AWAY_PERCENT = 50  # an inset this deep from each side leaves nothing
_BOX_SIDES = ("height", "max-height", "width", "max-width")
_OVERFLOW = ("overflow", "overflow-x", "overflow-y")
_TINY_TYPE = {"": 0.0, "px": 1.0, "pt": 0.75, "em": 0.1, "rem": 0.1, "ex": 0.2, "ch": 0.2, "%": 10}
_FAINT = 0.01  # an opacity at or below this shows nothing
_NO_BOX_PX = 1.0  # a box this small shows nothing when its overflow is hidden
_CACHED_CHARS = 256  # styles up to this long are judged once per process


def declarations(style: str) -> dict[str, str]:
    """The declarations of an inline style, decoded: property to value, both lower-cased,
    ``!important`` dropped, the last one of a property winning (as in CSS)."""
    text = _COMMENT.sub("", unescape_attribute(style))
    if "\\" in text:
        text = _ESCAPE.sub(_unescaped, text)
    found: dict[str, str] = {}
    for part in text.lower().split(";"):
        name, colon, value = part.partition(":")
        if colon:
            value = " ".join(value.split())
            found[name.strip()] = _IMPORTANT.sub("", value) if "!" in value else value
    return found


def _unescaped(match: re.Match[str]) -> str:
    code, char = match.groups()
    if char is not None:
        return char
    value = int(code, 16)
    return chr(value) if 0 < value <= 0x10FFFF and not 0xD800 <= value <= 0xDFFF else "\ufffd"


def hides(style: str) -> bool:
    """Whether the inline ``style`` keeps its element's text from the eye."""
    return _hides_short(style) if len(style) <= _CACHED_CHARS else _hides(style)


@lru_cache(maxsize=4096)
def _hides_short(style: str) -> bool:
    """``_hides`` for the short styles pages repeat (a long one is not kept)."""
    return _hides(style)


def _hides(style: str) -> bool:
    found = declarations(style)
    return (
        found.get("display") == "none"
        or found.get("visibility") in {"hidden", "collapse"}
        or _at_most(found.get("opacity"), {"": _FAINT, "%": _FAINT * 100})
        or _at_most(found.get("font-size"), _TINY_TYPE)
        or _transparent(found)
        or _SCALED_AWAY.search(found.get("transform", "")) is not None
        or _at_most(found.get("scale", "").split(" ")[0] or None, {"": 0.0, "%": 0.0})
        or _clipped_away(found)
        or _no_box(found)
        or any(_number(found.get(name))[0] <= _OFF_PAGE_UNITS for name in _OFF_PAGE)
    )


def _number(value: str | None) -> tuple[float, str]:
    """The leading number of a CSS value and its unit (``inf`` when there is none)."""
    found = _NUMBER.match(value) if value else None
    if found is None:
        return float("inf"), ""
    return float(found.group(1)), found.group(2)


def _at_most(value: str | None, limits: dict[str, float]) -> bool:
    """Whether ``value`` is a number at or below the limit for its unit (0 for any unit)."""
    number, unit = _number(value)
    return number <= limits.get(unit, 0.0)


def _transparent(found: dict[str, str]) -> bool:
    """Transparent type, unless something else paints the text (a background clipped to
    it, a fill colour, a shadow or a stroke)."""
    if not _TRANSPARENT.match(found.get("color", "")):
        return False
    return not any(name in found for name in _PAINTED_OTHERWISE + _PAINTED_ALSO)


def _clipped_away(found: dict[str, str]) -> bool:
    """Clipped to nothing: ``clip-path: inset()`` half or more from each side, a circle or
    ellipse of no radius, or a ``clip: rect()`` with no height or no width."""
    path = found.get("clip-path", "")
    if path.startswith("inset("):
        number, unit = _number(path[len("inset(") :])
        if unit == "%" and number >= _CLIPPED_AWAY_PERCENT:
            return True
    if path.startswith(("circle(", "ellipse(")):
        number, _ = _number(path[path.index("(") + 1 :])
        if number <= 0:
            return True
    clip = found.get("clip", "")
    if not clip.startswith("rect(") or not clip.endswith(")"):
        return False
    sides = clip[len("rect(") : -1].replace(",", " ").split()
    if len(sides) != 4:
        return False
    top, right, bottom, left = (_number(side)[0] for side in sides)
    return _auto(bottom, sides[2]) - _auto(top, sides[0], 0) <= _NO_BOX_PX or (
        _auto(right, sides[1]) - _auto(left, sides[3], 0) <= _NO_BOX_PX
    )


def _auto(number: float, side: str, auto: float = float("inf")) -> float:
    return auto if side == "auto" else number


def _no_box(found: dict[str, str]) -> bool:
    """A box of (almost) no height or width whose overflow is hidden."""
    if not any(found.get(name, "").startswith(("hidden", "clip")) for name in _OVERFLOW):
        return False
    return any(_at_most(found.get(name), {"px": _NO_BOX_PX}) for name in _BOX_SIDES)
