"""blocks_to_markdown: each block kind as Markdown, tables grouped by their source rows."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token

from citesift.extract.html import html_to_blocks
from citesift.extract.markdown import blocks_to_markdown, escape, heading_level
from citesift.model import Block, BlockKind


def block(text: str, kind: BlockKind = "paragraph", section: tuple[str, ...] = ()) -> Block:
    return Block(text, kind, section, 0, len(text))


def spans(source: str, texts: list[str], kind: BlockKind = "table_cell") -> list[Block]:
    """Blocks for ``texts`` at their real spans between tags in ``source``, left to right."""
    blocks, at = [], 0
    for text in texts:
        start = source.index(f">{text}<", at) + 1
        at = start + len(text)
        blocks.append(Block(text, kind, (), start, at))
    return blocks


def test_headings_take_their_level_from_the_depth_of_their_section_path() -> None:
    blocks = [
        block("Treaty", "heading", ()),
        block("Background", "heading", ("Treaty",)),
        block("Signed in 1919.", "paragraph", ("Treaty", "Background")),
    ]
    assert blocks_to_markdown(blocks) == "# Treaty\n\n## Background\n\nSigned in 1919.\n"


def test_heading_levels_stop_at_six() -> None:
    deep = tuple(f"h{i}" for i in range(9))
    assert heading_level(block("h9", "heading", deep)) == 6


def test_list_items_make_one_tight_list_between_paragraphs() -> None:
    blocks = [block("Intro."), block("Item one", "list_item"), block("Item two", "list_item")]
    assert blocks_to_markdown(blocks) == "Intro.\n\n- Item one\n- Item two\n"


def test_table_cells_group_into_rows_by_the_markup_between_them() -> None:
    source = (
        "<table><tr><th>Plan</th><th>Price</th></tr>"
        "<tr><td>Basic</td><td>$20 per month</td></tr>"
        "<tr><td>Pro | team</td><td>$50</td></tr></table>"
    )
    cells = spans(source, ["Plan", "Price", "Basic", "$20 per month", "Pro | team", "$50"])
    assert blocks_to_markdown(cells, source) == (
        "| Plan | Price |\n| --- | --- |\n| Basic | $20 per month |\n| Pro \\| team | $50 |\n"
    )


def test_two_tables_in_a_row_stay_apart_and_short_rows_are_padded() -> None:
    source = (
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>"
        "<table><tr><td>d</td></tr></table>"
    )
    cells = spans(source, ["a", "b", "c", "d"])
    assert blocks_to_markdown(cells, source) == (
        "| a | b |\n| --- | --- |\n| c |  |\n\n| d |\n| --- |\n"
    )


def test_page_mode_blocks_render_with_their_table_rows_and_outline() -> None:
    html = (
        "<h2>Prices</h2><table><tr><th>Plan</th><th>Price</th></tr>"
        "<tr><td>Basic</td><td>$20 per month</td></tr></table>"
        "<h3>Terms</h3><ul><li>Cancel any time</li><li>No *fees*</li></ul><pre>a  `b`</pre>"
    )
    assert blocks_to_markdown(html_to_blocks(html, mode="page"), html) == (
        "# Prices\n\n| Plan | Price |\n| --- | --- |\n| Basic | $20 per month |\n\n"
        "## Terms\n\n- Cancel any time\n- No \\*fees\\*\n\n```\na `b`\n```\n"
    )


def test_without_the_source_each_cell_stands_on_a_row_of_its_own() -> None:
    cells = [block("Plan", "table_cell"), block("$20 per month", "table_cell")]
    assert blocks_to_markdown(cells) == "| Plan |\n| --- |\n| $20 per month |\n"


def test_code_is_fenced_longer_than_any_backtick_run_inside() -> None:
    assert blocks_to_markdown([block("x = 1", "code")]) == "```\nx = 1\n```\n"
    text = "use ```` to fence"
    assert blocks_to_markdown([block(text, "code")]) == f"`````\n{text}\n`````\n"


def test_quotes_captions_and_notes_have_their_own_marks() -> None:
    blocks = [
        block("To be or not.", "quote"),
        block("A map of Paris", "caption"),
        block("Prices include tax.", "note"),
    ]
    assert blocks_to_markdown(blocks) == (
        "> To be or not.\n\n*A map of Paris*\n\nPrices include tax.\n"
    )


def test_inline_markdown_characters_are_escaped() -> None:
    assert escape("2*3 and [link](x) `code` <b> a\\b ~~x~~") == (
        "2\\*3 and \\[link\\](x) \\`code\\` \\<b> a\\\\b \\~\\~x\\~\\~"
    )
    assert escape("&copy; & more") == "\\&copy; & more"


def test_underscores_inside_words_are_left_alone() -> None:
    assert escape("snake_case and _emph_") == "snake_case and \\_emph\\_"


def test_block_markers_are_escaped_only_at_the_start() -> None:
    assert escape("# not a heading") == "\\# not a heading"
    assert escape("#hashtag") == "#hashtag"
    assert escape("> not a quote") == "\\> not a quote"
    assert escape("- not an item") == "\\- not an item"
    assert escape("---") == "\\---"
    assert escape("-5 degrees") == "-5 degrees"
    assert escape("1919. A year") == "1919\\. A year"
    assert escape("1919 was a year. 2. b") == "1919 was a year. 2. b"


def test_heading_ending_in_hashes_keeps_them() -> None:
    assert blocks_to_markdown([block("C#", "heading")]) == "# C#\n"
    assert blocks_to_markdown([block("Issue #", "heading")]) == "# Issue \\#\n"
    assert blocks_to_markdown([block("#", "heading")]) == "# \\#\n"


def test_no_blocks_make_an_empty_document() -> None:
    assert blocks_to_markdown([]) == ""


_MARKDOWN = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_TEXT = st.text(alphabet="ab1 #>-+=*_`~[]()<>&;!|\\.:é", min_size=1, max_size=24).map(
    lambda text: " ".join(text.split())
)
_KINDS = st.sampled_from(
    ["paragraph", "heading", "list_item", "quote", "caption", "code", "table_cell", "note"]
)


@settings(max_examples=300)
@given(st.lists(st.tuples(_TEXT.filter(bool), _KINDS), min_size=1, max_size=8))
def test_a_commonmark_reader_gets_every_block_text_back(items: list[tuple[str, BlockKind]]) -> None:
    blocks = [block(text, kind) for text, kind in items]
    assert _leaf_texts(_MARKDOWN.parse(blocks_to_markdown(blocks))) == [t for t, _ in items]


def _leaf_texts(tokens: list[Token]) -> list[str]:
    """The text of each paragraph, heading, item, cell and code block a reader finds."""
    texts = []
    for token in tokens:
        if token.type == "inline":
            texts.append("".join(child.content for child in token.children or []))
        elif token.type == "fence":
            texts.append(token.content.removesuffix("\n"))
    return texts
