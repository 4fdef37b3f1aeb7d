"""Article mode on what pages say about themselves, and its fallback from implausibly small
selections: schema.org microdata and JSON-LD, pages laid out in tables, and blog markup
whose class names read as furniture.

The pages are written here after common publishing patterns (no page is copied)."""

from __future__ import annotations

import json

from citesift import blocks_to_markdown, html_to_blocks
from citesift.extract import source_text
from citesift.model import Block


def sentences(topic: str, count: int) -> list[str]:
    """``count`` distinct sentences of prose about ``topic``, each about 120 characters."""
    return [
        f"Sentence {n} about {topic} says what the reporters found on day {n}, who they asked, "
        f"and why it matters to the town."
        for n in range(count)
    ]


def paragraphs(lines: list[str]) -> str:
    return "".join(f"<p>{line}</p>" for line in lines)


def texts(blocks: list[Block]) -> str:
    return "\n".join(block.text for block in blocks)


def assert_spans_hold_their_text(html: str, blocks: list[Block]) -> None:
    for block in blocks:
        assert source_text(html, block.source_start, block.source_end) == block.text


ARTICLE = sentences("the ferry", 24)
BIO = sentences("the writer's career", 4)
COMMENTS = sentences("a reader's complaint", 10)
ABOUT = sentences("the blog's history", 16)


def test_microdata_article_body_is_taken_inside_a_wider_element() -> None:
    # A publishing template: the articleBody sits in a wrapper that also holds a long
    # unnamed author note; the wrapper outscores it, the microdata says where the story is.
    html = (
        "<html><body><div class='wrap'><div itemscope itemtype='https://schema.org/NewsArticle'>"
        f"<h1 itemprop='headline'>Ferry returns</h1><div itemprop='articleBody'>"
        f"{paragraphs(ARTICLE)}</div></div><div class='note'>{paragraphs(BIO)}</div></div>"
        "</body></html>"
    )
    blocks = html_to_blocks(html)
    assert ARTICLE[0] in texts(blocks) and ARTICLE[-1] in texts(blocks)
    assert BIO[0] not in texts(blocks)
    assert_spans_hold_their_text(html, blocks)


def test_a_declared_element_that_holds_little_of_the_prose_is_not_believed() -> None:
    # An <article> wrapping only the teaser while the story follows outside it.
    html = (
        f"<html><body><div class='page'><article><p>{ARTICLE[0]}</p></article>"
        f"{paragraphs(ARTICLE[1:])}</div></body></html>"
    )
    blocks = html_to_blocks(html)
    assert ARTICLE[0] in texts(blocks) and ARTICLE[-1] in texts(blocks)


def blog_page(note: str, stated: str | None = None) -> str:
    """A blog post page as TypePad-style templates write it: the entry's classes carry its
    author's name (``entry-author-…``), comments and an about box follow in named elements
    of the same column, and ``note`` sits between them."""
    jsonld = ""
    if stated is not None:
        data = {"@context": "https://schema.org", "@type": "BlogPosting", "articleBody": stated}
        jsonld = f'<script type="application/ld+json">{json.dumps(data)}</script>'
    return (
        f"<html><head><title>Ferry returns</title>{jsonld}</head><body>"
        "<div id='banner'><h1><a href='/'>Harbour Notes</a></h1></div>"
        "<ul class='nav-list'><li><a href='/'>Home</a></li><li><a href='/a'>About</a></li></ul>"
        "<div id='alpha'><h2 class='date-header'>October 30</h2>"
        "<div class='entry entry-type-post entry-author-jane_roe'>"
        f"<h3 class='entry-header'>Ferry returns</h3>"
        f"<div class='entry-content'>{paragraphs(ARTICLE)}</div></div>"
        f"{note}<div class='comments'><h3>Comments</h3>{paragraphs(COMMENTS)}</div>"
        f"<div class='sidebar-about'>{paragraphs(ABOUT)}</div></div></body></html>"
    )


def test_a_post_whose_classes_name_its_author_is_not_left_out() -> None:
    # The entry's class names read as furniture ("author") and it holds less than half the
    # column's prose: the first selection is empty, and the fallback keeps the column.
    html = blog_page("")
    blocks = html_to_blocks(html)
    page = texts(html_to_blocks(html, mode="page"))
    assert ARTICLE[0] in page
    assert all(line in texts(blocks) for line in ARTICLE)
    assert_spans_hold_their_text(html, blocks)


def test_a_selection_far_shorter_than_the_stated_article_body_is_doubted() -> None:
    note = f"<div class='editor-note'>{paragraphs(sentences('the timetable', 9))}</div>"
    alone = texts(html_to_blocks(blog_page(note)))
    assert ARTICLE[0] not in alone  # without the structured data the note alone is kept
    html = blog_page(note, stated=" ".join(ARTICLE))
    blocks = html_to_blocks(html)
    assert all(line in texts(blocks) for line in ARTICLE)
    assert "articleBody" not in texts(blocks)  # only text the page shows is kept
    assert_spans_hold_their_text(html, blocks)


def test_an_article_laid_out_in_table_cells_is_found() -> None:
    # Older sites lay the page out in a table: menus in narrow cells, the story in one
    # wide cell split by <br> rather than paragraphs, links to other stories below it.
    menu = "".join(f"<a href='/s{n}'>Section {n}</a><br>" for n in range(30))
    story = "<br><br>".join(ARTICLE)
    related = "".join(f"<a href='/r{n}'>Another story number {n}</a><br>" for n in range(40))
    html = (
        "<html><body><table><tr>"
        f"<td width='20%'>{menu}</td><td width='80%'><font>{story}</font><br>{related}"
        "</td></tr></table></body></html>"
    )
    blocks = html_to_blocks(html)
    assert all(line in texts(blocks) for line in ARTICLE)
    assert "Section 3" not in texts(blocks) and "Another story number 7" not in texts(blocks)
    assert_spans_hold_their_text(html, blocks)


def test_page_mode_shows_the_h1_and_markdown_nests_h2_under_it() -> None:
    html = (
        "<html><head><title>Ferry returns</title></head><body><h1>Ferry returns</h1>"
        f"<p>{ARTICLE[0]}</p><h2>Timetable</h2><p>{ARTICLE[1]}</p></body></html>"
    )
    blocks = html_to_blocks(html, mode="page")
    assert (blocks[0].kind, blocks[0].text) == ("heading", "Ferry returns")
    markdown = blocks_to_markdown(blocks, html)
    assert markdown.startswith("# Ferry returns\n") and "\n## Timetable\n" in markdown
    article = html_to_blocks(html)
    assert "Ferry returns" not in texts(article)  # the document's title says it
    titled = blocks_to_markdown(article, html, title="Ferry returns")
    assert titled.startswith("# Ferry returns\n") and "\n## Timetable\n" in titled
    assert blocks_to_markdown(blocks, html, title="Ferry returns").count("Ferry returns") == 1
