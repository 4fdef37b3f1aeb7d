"""Hostile JSON-LD: objects and lists nested as deep as the JSON reader takes them, where a
page names its publisher, author, date or licence, give no value and never a crash (a
publisher of 500 nested lists raised ``RecursionError`` out of ``extract_metadata``)."""

from __future__ import annotations

import pytest

from citesift import extract_document, extract_metadata

DEPTHS = [2, 300, 500, 900, 990, 2000]


def nested(kind: str, depth: int) -> str:
    if kind == "lists":
        return "[" * depth + '"Deep"' + "]" * depth
    return '{"name":' * depth + '"Deep"' + "}" * depth


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("kind", ["lists", "names"])
@pytest.mark.parametrize("key", ["publisher", "author", "datePublished", "license", "name"])
def test_deeply_nested_json_ld_values_are_read_or_left_out(kind: str, depth: int, key: str) -> None:
    value = nested(kind, depth)
    script = f'{{"@type": ["NewsArticle", "Organization"], "{key}": {value}}}'
    page = (
        f'<html><head><script type="application/ld+json">{script}</script></head>'
        "<body><p>The text of the page.</p></body></html>"
    )
    metadata = extract_metadata(page, "https://example.org/a")
    document = extract_document(page, url="https://example.org/a")
    assert [block.text for block in document.blocks] == ["The text of the page."]
    if key in ("publisher", "name"):  # an organisation's name is a publisher too
        assert metadata.publisher == ("Deep" if depth == 2 else None)
