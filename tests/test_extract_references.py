"""Character references as the HTML tokenizer reads them, with every offset exact."""

from __future__ import annotations

import html as htmllib

import pytest

from citesift.extract import extract_metadata, html_to_blocks, source_text
from citesift.extract.chars import REFERENCE, decode_reference, unescape_attribute


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("pre &copyX post", "pre ©X post"),
        ("a &notit; b", "a ¬it; b"),
        ("x &ltfoo y", "x <foo y"),
        ("x &nbspx y", "x x y"),  # the no-break space is white space, collapsed
        ("caf&eacutex", "caféx"),
        ("&frac12x cup", "½x cup"),
        ("m&sup2x", "m²x"),
        ("&notin; &notin &amp &amp; &AMP", "∉ ¬in & & &"),
        ("&zzz; &#x41;&#66 &#0; &#x110000;", "&zzz; AB \ufffd \ufffd"),
    ],
)
def test_references_decode_as_the_html_tokenizer_does(source: str, text: str) -> None:
    page = f"<p>{source}</p>"
    [block] = html_to_blocks(page, "page")
    assert block.text == text == " ".join(htmllib.unescape(source).split())


@pytest.mark.parametrize("source", ["pre &copyX post", "a &notit; b", "&ltfoo &nbspx &sup2x"])
def test_each_character_after_a_reference_without_semicolon_maps_to_itself(source: str) -> None:
    page = f"<p>{source}</p>"
    [block] = html_to_blocks(page, "page")
    for i, char in enumerate(block.text):
        start, end = block.source_span(i, i + 1)
        if char.isascii() and char.isalnum():  # a space stands for a collapsed run
            assert page[start:end] == char, (i, char, page[start:end])
        assert char in source_text(page, start, end, "page")


def test_a_reference_takes_only_the_characters_of_its_longest_legacy_name() -> None:
    for ref, taken in [("&copyX", 5), ("&notit;", 4), ("&frac12x", 7), ("&amp;", 5), ("&#65", 4)]:
        found = REFERENCE.match(ref)
        assert found is not None and decode_reference(found.group())[1] == taken
    assert decode_reference("&zzz;") == ("&zzz;", 0)


def test_attribute_values_keep_a_legacy_name_run_on_into_letters_or_equals() -> None:
    assert unescape_attribute("?a=1&copy=2&notx=3&lt;b") == "?a=1&copy=2&notx=3<b"
    assert unescape_attribute("&copy 2020 &amp &not") == "© 2020 & ¬"
    page = '<link rel="canonical" href="https://example.org/p?a=1&copy=2&amp;b=3">'
    assert extract_metadata(page).canonical_url == "https://example.org/p?a=1&copy=2&b=3"
