"""Markup an HTML tokenizer reads in its own way: ``<plaintext>``, a DOCTYPE's internal
subset, and constructs the input ends inside."""

from __future__ import annotations

import pytest

from citesift.extract import html_to_blocks, source_text
from citesift.model import Block


def texts(page: str, mode: str = "page") -> list[str]:
    return [block.text for block in html_to_blocks(page, mode)]  # type: ignore[arg-type]


def assert_located(page: str, block: Block, mode: str) -> None:
    for i in range(len(block.text)):
        for j in range(i + 1, len(block.text) + 1):
            assert block.text[i:j] in source_text(page, *block.source_span(i, j), mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["article", "page"])
def test_everything_after_plaintext_is_text_not_markup(mode: str) -> None:
    page = (
        "<p>Before the raw text, a sentence long enough to read as prose in article mode.</p>"
        "<plaintext><b>bold</b> &amp; <script>x()</script></plaintext><p>after"
    )
    blocks = html_to_blocks(page, mode)  # type: ignore[arg-type]
    assert blocks[-1].text == "<b>bold</b> &amp; <script>x()</script></plaintext><p>after"
    assert blocks[-1].kind == "code"
    for block in blocks:
        assert_located(page, block, mode)


def test_plaintext_inside_a_dropped_element_swallows_the_rest() -> None:
    assert texts("<p>kept</p><template><plaintext>x</template><p>gone") == ["kept"]
    assert texts("<p>kept</p><div hidden><plaintext>x</div><p>gone") == ["kept"]


def test_a_doctype_internal_subset_is_not_text() -> None:
    page = '<!DOCTYPE html [ <!ENTITY a "b"> <!ATTLIST p x CDATA #IMPLIED> ]><p>hello</p>'
    assert texts(page) == ["hello"]
    assert texts("<!doctype html><p>plain</p>") == ["plain"]


@pytest.mark.parametrize(
    ("page", "shown"),
    [
        ("<p>text <b", ["text"]),
        ('<p>text <a href="x>y', ["text y"]),  # an unclosed quote is a plain character
        ('<p>text <a href="x', ["text"]),
        ("<p>text <!-- open", ["text"]),
        ("<p>text <!x", ["text"]),
        ("<p>text <!DOCTYPE x [ y", ["text"]),
        ("<p>a</p><!--><p>b</p>", ["a", "b"]),  # an empty comment closes at once
        ("<p>a</p><!---><p>b</p>", ["a", "b"]),
        ("<p>x<y then</p><p>z", ["x", "z"]),  # "<y then</p>" is a tag, as a tokenizer reads it
    ],
)
def test_a_construct_the_input_ends_inside_is_dropped_with_what_follows(
    page: str, shown: list[str]
) -> None:
    assert texts(page) == shown


@pytest.mark.parametrize("mode", ["article", "page"])
def test_body_content_ends_a_head_that_is_never_closed(mode: str) -> None:
    # Pages cut short in their head (a <meta> value running into the body) or that never
    # write <body>: a browser ends the head at the first tag of body content.
    story = (
        "The council voted on Tuesday to rebuild the old harbour wall after ten years of debate "
        "that divided the town's two largest parties and filled the letters page every week."
    )
    page = (
        "<HTML><HEAD><title>Harbour</title><meta name='keywords' content='harbour, wall'>"
        f"<table><tr><td><p>{story}</p><p>{story.replace('Tuesday', 'Monday')}</p>"
        "</td></tr></table></HTML>"
    )
    blocks = html_to_blocks(page, mode)  # type: ignore[arg-type]
    assert story in [block.text for block in blocks]
    for block in blocks:
        assert_located(page, block, mode)
    assert texts("<head><title>T</title></head><p>after</p>") == ["after"]
