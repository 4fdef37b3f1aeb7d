"""JSON-LD read defensively: bad JSON, arrays, ``@graph`` and huge blocks give what they can.

A page's ``<script type="application/ld+json">`` blocks are untrusted text: each may be
invalid, nested absurdly deep or very large. ``jsonld_nodes`` parses the ones under a size
cap and yields their objects (flattening arrays and ``@graph``) with a bounded walk.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

MAX_SCRIPT_CHARS = 500_000
MAX_NODES = 500
MAX_DEPTH = 8


def jsonld_nodes(scripts: Iterable[str]) -> list[dict[str, Any]]:
    """The JSON-LD objects of the scripts, top-level and ``@graph`` ones first."""
    nodes: list[dict[str, Any]] = []
    for script in scripts:
        for node in _walk(_parse(script), 0):
            if len(nodes) >= MAX_NODES:
                return nodes
            nodes.append(node)
    return nodes


def types(node: dict[str, Any]) -> set[str]:
    """The node's ``@type`` values (a string or a list of them)."""
    value = node.get("@type")
    values = value if isinstance(value, list) else [value]
    return {item for item in values if isinstance(item, str)}


def first_text(value: Any, depth: int = 0) -> str | None:
    """The first non-empty string in ``value`` (a string, a list, or an object's name),
    looked for no deeper than ``MAX_DEPTH`` lists and objects."""
    if isinstance(value, str):
        return value.strip() or None
    if depth >= MAX_DEPTH:
        return None
    if isinstance(value, dict):
        return first_text(value.get("name"), depth + 1)
    if isinstance(value, list):
        found = (first_text(item, depth + 1) for item in value[:MAX_NODES])
        return next((text for text in found if text), None)
    return None


def _parse(script: str) -> Any:
    if len(script) > MAX_SCRIPT_CHARS:
        return None
    try:
        return json.loads(script.strip().removeprefix("<!--").removesuffix("-->"))
    except (ValueError, RecursionError):
        return None


def _walk(value: Any, depth: int) -> Iterator[dict[str, Any]]:
    """Objects of a parsed value: lists flattened, ``@graph`` members after their holder."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, list):
        for item in value[:MAX_NODES]:
            yield from _walk(item, depth + 1)
    elif isinstance(value, dict):
        yield value
        yield from _walk(value.get("@graph"), depth + 1)
