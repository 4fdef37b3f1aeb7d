"""Narrowing a page to what CSS selectors name before it is read.

The narrowed HTML is what extraction reads, so it is a snapshot of its own and every span
refers to it. It is kept in the store like the page, saying how it was made (``narrowing``:
the selectors) and from which snapshot, so a passage cited from it is traced to bytes kept
and the same selectors make it again from the page, byte for byte. The page's ``<head>``
stays, so its title, language and other statements about itself are read as before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from selectolax.lexbor import LexborHTMLParser, LexborNode

NARROWING_HEADER = "x-citesift-narrowing"
"""On a narrowed snapshot: the selectors it was narrowed by (``narrowing``)."""


def narrowed(html: str, include: Sequence[str], exclude: Sequence[str]) -> str:
    """``html`` without the elements ``exclude`` matches, then with only those ``include``
    matches in its body (in page order, an element inside another kept once)."""
    tree = LexborHTMLParser(html)
    for selector in exclude:
        for node in tree.css(selector):
            node.decompose()
    if not include:
        return tree.html or ""
    kept = _outermost([node for selector in include for node in tree.css(selector)])
    head = tree.head.html if tree.head is not None else "<head></head>"
    body = "\n".join(node.html or "" for node in kept)
    return f"<!DOCTYPE html><html>{head}<body>{body}</body></html>"


def narrowing(include: Sequence[str], exclude: Sequence[str]) -> str:
    """The selectors a page was narrowed by, as JSON, for the narrowed snapshot to record."""
    return json.dumps({"include_tags": list(include), "exclude_tags": list(exclude)})


def _outermost(nodes: list[LexborNode]) -> list[LexborNode]:
    """``nodes`` in page order, without any that sits inside another of them."""
    chosen = {node.mem_id: node for node in nodes}
    kept = []
    for node in chosen.values():
        parent, inside = node.parent, False
        while parent is not None and not inside:
            inside = parent.mem_id in chosen
            parent = parent.parent
        if not inside:
            kept.append(node)
    order = _page_order(nodes[0]) if nodes else {}
    return sorted(kept, key=lambda node: order.get(node.mem_id, 0))


def _page_order(node: LexborNode) -> dict[int, int]:
    """The place in page order of every element of the tree ``node`` belongs to."""
    root = node
    while root.parent is not None:
        root = root.parent
    return {each.mem_id: place for place, each in enumerate(root.traverse())}
