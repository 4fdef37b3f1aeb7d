"""A note's YAML front matter split from its body, never raising: YAML that cannot be read
gives an empty mapping and says why, dates stay the strings they were written as, and a
float JSON cannot write (``.nan``, ``.inf``) is null."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

MAX_FRONTMATTER_CHARS = 16 * 1024
"""The most front matter read; a note with more keeps its body and reports the rest unread."""
_OPEN = re.compile(r"\ufeff?---[ \t]*(?:\r\n|\r|\n)")
_CLOSE = re.compile(r"^---[ \t]*(?:\r\n|\r|\n|$)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """Front matter and body: ``frontmatter`` the YAML mapping (empty when there is none or
    it is not a mapping), ``body`` the text after it and ``body_start`` where that begins in
    the raw text, ``error`` why the YAML could not be read (None when it could)."""

    frontmatter: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    body_start: int = 0
    error: str | None = None


class _Loader(yaml.SafeLoader):
    """The safe loader without timestamps (a date stays its text) and without aliases (a
    chain of them can grow a mapping past any bound once it is copied)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases (*name) are not read in front matter")
        return super().compose_node(parent, index)


def _finite_float(loader: _Loader, node: Any) -> float | None:
    """A YAML float, or None (JSON's null) for ``.nan`` and ``.inf``, which JSON cannot
    write: the note is kept, and its front matter stays strict JSON wherever it goes."""
    number = loader.construct_yaml_float(node)
    return number if math.isfinite(number) else None


_Loader.add_constructor("tag:yaml.org,2002:float", _finite_float)
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def split_frontmatter(raw: str) -> Frontmatter:
    """``raw`` parted into front matter and body. Front matter is a ``---`` line at the very
    start (after a byte order mark), YAML, and a closing ``---`` line (or the end of the
    text); CRLF and trailing spaces after the markers are fine. Without it the body is the
    text after any byte order mark."""
    if not isinstance(raw, str):
        raise TypeError(f"raw must be a str, not {type(raw).__name__}")
    opened = _OPEN.match(raw)
    if opened is None:
        start = 1 if raw.startswith("\ufeff") else 0
        return Frontmatter(body=raw[start:], body_start=start)
    closed = _CLOSE.search(raw, opened.end())
    yaml_end, body_start = (closed.start(), closed.end()) if closed else (len(raw), len(raw))
    text = raw[opened.end() : yaml_end]
    mapping, error = _read_yaml(text)
    return Frontmatter(mapping, raw[body_start:], body_start, error)


def _read_yaml(text: str) -> tuple[dict[str, Any], str | None]:
    """The YAML mapping in ``text``, or an empty one and why it could not be read."""
    if len(text) > MAX_FRONTMATTER_CHARS:
        return {}, f"front matter longer than {MAX_FRONTMATTER_CHARS} characters: not read"
    try:
        value = yaml.load(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as error:
        return {}, f"invalid YAML front matter: {_first_line(error)}"
    if not isinstance(value, dict):
        return {}, None
    return {str(key): item for key, item in value.items()}, None


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return " ".join(text.split())[:200]
