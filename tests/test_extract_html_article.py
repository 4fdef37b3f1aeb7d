"""Article mode on whole pages: main-content detection, and the Wikipedia rules on real pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citesift import html_to_blocks

STORY = [
    "The council voted on Tuesday to rebuild the old harbour wall, ending a debate that had "
    "run for more than a decade and divided the town's two largest parties.",
    "Engineers say the new wall will stand two metres higher than the one it replaces, "
    "which was damaged in the storms of 2014 and patched, badly, twice since then.",
    "Work begins in spring. The mayor said the town would hold a ceremony, although the "
    "date and the guest list have not yet been settled by the organising committee.",
]
COMMENT = (
    "I have lived here forty years and I can tell you this wall has been a disgrace for most "
    "of them, and nobody on the council ever listened until the water reached the square."
)


def news_page() -> str:
    story = "".join(f"<p>{p}</p>" for p in STORY)
    return f"""<!DOCTYPE html><html><head><title>Harbour wall to be rebuilt | Town Post</title>
<script>var x = "<p>not text</p>";</script></head><body>
<div id="cookie-notice"><p>We use cookies to improve your experience. Accept</p></div>
<header><a href="/">Town Post</a><p>Your local news since 1901</p></header>
<nav><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></nav>
<div class="layout"><div class="article-header modal-enabled">
<h1>Harbour wall to be rebuilt</h1>
<div class="share-bar"><a href="/s/fb">Facebook</a> <a href="/s/tw">Twitter</a></div>
<div class="body">{story[: len(story) // 2]}{story[len(story) // 2 :]}
<h2>Costs</h2><table><tr><th>Item</th><th>Cost</th></tr><tr><td>Wall</td><td>£2m</td></tr></table>
<div class="wp-caption"><p>The harbour at low tide. Photo: J. Smith</p></div>
</div></div>
<section id="comments"><h3>3 comments</h3><p>{COMMENT}</p></section>
<aside><h3>Related</h3><ul><li><a href="/a">Ferry fares rise again this winter</a></li>
<li><a href="/b">Lifeboat crew honoured for rescue at sea</a></li></ul></aside></div>
<footer><p>Copyright 2024 Town Post. All rights reserved.</p></footer></body></html>"""


def test_article_mode_keeps_the_story_and_its_table_and_nothing_around_it() -> None:
    blocks = html_to_blocks(news_page())
    assert [b.text for b in blocks] == [*STORY, "Costs", "Item", "Cost", "Wall", "£2m"]
    assert blocks[-1].section == ("Costs",)


def test_page_mode_keeps_everything_the_page_shows() -> None:
    shown = " ".join(b.text for b in html_to_blocks(news_page(), mode="page"))
    for text in ("cookies", "Sport", "Facebook", COMMENT, "Ferry fares", "Copyright", STORY[2]):
        assert text in shown
    assert "not text" not in shown and "Town Post" in shown


def test_a_page_without_furniture_keeps_all_its_prose() -> None:
    html = "<html><body><div class='main-header'>" + "".join(f"<p>{p}</p>" for p in STORY)
    assert [b.text for b in html_to_blocks(html)] == STORY


def wikipedia_pages(fixtures: Path) -> list[Path]:
    return sorted((fixtures / "pages").glob("*.html"))


@pytest.mark.parametrize(
    ("name", "lead"),
    [
        ("Rust_(programming_language)", "Rust is a general-purpose programming language."),
        ("Dog", "The domestic dog (Canis lupus familiaris"),
        ("Bill_Clinton", "William Jefferson Clinton (born William Jefferson Blythe III;"),
        ("December_1", "December 1 is the 335th day of the year"),
        ("MOSFET", "The metal–oxide–semiconductor field-effect transistor (MOSFET"),
    ],
)
def test_wikipedia_pages_read_as_clean_prose(
    wikipedia_fixtures: Path, name: str, lead: str
) -> None:
    html = (wikipedia_fixtures / "pages" / f"{name}.html").read_text(encoding="utf-8")
    blocks = html_to_blocks(html)
    prose = [b for b in blocks if b.kind == "paragraph"]
    assert any(b.text.startswith(lead) for b in prose[:2])
    title = name.replace("_", " ")
    assert all(b.text != title for b in blocks)
    for block in blocks:
        assert not re.search(
            r"\[(?:\d+|[a-z]|[ivx]+|edit|citation needed)\](?![a-z])", block.text
        ), block.text


def test_wikipedia_furniture_is_left_out(wikipedia_fixtures: Path) -> None:
    html = (wikipedia_fixtures / "pages" / "United_States.html").read_text(encoding="utf-8")
    text = "\n".join(b.text for b in html_to_blocks(html))
    assert "The United States of America (USA)" in text
    for furniture in ("excessive number of citations", "Historical population", "Coordinates:"):
        assert furniture not in text
    assert "Main article:" not in text and "See also:" not in text


def test_a_form_around_the_whole_page_is_not_furniture_but_a_small_one_is() -> None:
    story = "".join(f"<p>{p}</p>" for p in STORY)
    signup = "<form action='/subscribe'><p>Get our newsletter every morning in your inbox.</p>"
    html = f"<body><div><form method='post' action='page.aspx'>{story}</form>{signup}</form></div>"
    assert [b.text for b in html_to_blocks(html)] == STORY


def test_wikipedia_class_names_drop_nothing_on_other_pages() -> None:
    """A photo story marked ``class="post gallery"`` (a Parsoid class name) is the article."""
    story = "".join(f"<p>{p}</p>" for p in STORY)
    html = (
        "<body><nav><a href='/'>Home</a></nav><section role='main'>"
        f"<article class='post gallery page'><div class='toc body'>{story}</div></article>"
        "</section><aside><p>Related photos</p></aside></body>"
    )
    assert [b.text for b in html_to_blocks(html)] == STORY


def test_a_page_without_a_body_element_reads_as_one_body() -> None:
    """Paragraphs at the top level of a fragment (no ``<html>``/``<body>`` tags) are one
    article, as a browser wraps them in one body, not the longest paragraph alone."""
    paragraphs = [f"{a} {b}" for a, b in zip(STORY, STORY[1:] + STORY[:1], strict=True)]
    menu = "".join(f"<td><a href='/{n}'>Section {n}</a></td>" for n in range(8))
    html = f"<a name='top'></a><table><tr>{menu}</tr></table>" + "".join(
        f"<p>{p}</p>\n" for p in paragraphs
    )
    assert [b.text for b in html_to_blocks(html)] == paragraphs


NOTES = [
    f"Fixed a crash when {what} while a download was still running in another window, which "
    "had lost unsaved work for people who keep several profiles open at once."
    for what in (
        *("printing", "closing a tab", "importing logins", "resizing", "searching"),
        *("syncing", "zooming", "saving a page", "opening a file", "playing a video"),
    )
]


def test_an_article_written_as_a_list_is_read_whole() -> None:
    """Release notes are list items: read only as paragraphs, the page would be its
    author's note; counted as prose, the list holds far more and is the article."""
    items = "".join(f"<li>{note}</li>" for note in NOTES)
    note = " ".join(STORY[:2])
    html = (
        "<body><nav><a href='/'>Home</a> <a href='/blog'>Blog</a></nav><article>"
        f"<h2>Highlights</h2><ul>{items}</ul><div class='about'><p>{note}</p></div>"
        "</article><footer><p>Copyright 2024</p></footer></body>"
    )
    assert [b.text for b in html_to_blocks(html)] == ["Highlights", *NOTES, note]


def test_a_comment_thread_stays_out_even_when_it_holds_most_of_the_text() -> None:
    """A name is a hint that most prose overrules, but not a thread's: readers' replies
    outweighing a short story are still not the story."""
    story = "".join(f"<p>{p}</p>" for p in STORY)
    replies = "".join(f"<div class='item'><p>{COMMENT} ({n})</p></div>" for n in range(4))
    html = (
        "<body><div id='content'><div class='item'>"
        f"{story}</div><div class='comment_container'><div id='comments'><h4>Comments</h4>"
        f"{replies}</div></div></div><div id='footer'><p>About us</p></div></body>"
    )
    assert [b.text for b in html_to_blocks(html)] == STORY


def test_a_page_of_short_table_cells_still_reads_as_its_text() -> None:
    """No element stands out and every cell is short (a data table by its shape): article
    mode falls back to the text that is not navigation rather than return nothing."""
    menu = "".join(f"<td><a href='/{n}'>Tour {n}</a></td>" for n in range(6))
    notice = [
        "Sorry, the itinerary could not be found.",
        "You may receive more results if you broaden your search.",
        "Or call us to speak to a river cruise specialist.",
    ]
    rows = "".join(f"<tr><td>{line}</td></tr>" for line in notice)
    html = f"<body><table><tr>{menu}</tr>{rows}</table></body>"
    assert [b.text for b in html_to_blocks(html)] == notice


def test_a_comment_thread_is_never_the_article_even_when_one_reply_outweighs_it() -> None:
    """A thread beside a short story, one reply longer than the story and a list of links
    weighing on the page: the thread is not the article, the story is."""
    story = "".join(f"<p>{p}</p>" for p in STORY[:2])
    links = " ".join(
        f"<a href='/t{n}'>Another story about the town, part {n}</a>" for n in range(20)
    )
    long_reply = " ".join([COMMENT] * 3)
    html = (
        f"<body><div class='links'>{links}</div><div class='post'>{story}</div>"
        f"<div id='comments'><div class='c'><p>{long_reply}</p></div>"
        f"<div class='c'><p>{COMMENT}</p></div></div></body>"
    )
    assert [b.text for b in html_to_blocks(html)] == STORY[:2]


def test_paragraphs_without_an_element_of_their_own_are_read_with_their_siblings() -> None:
    """Old pages leave paragraphs unclosed in a layout cell beside a list of links, and
    poems set their lines with ``<br>``: the best element is then one paragraph, and the
    prose, short lines and headings beside it in its parent (from its first prose on) are the
    rest of the article."""
    verse = ["I wander often from the way,", "And sin afflicts me every day:"]
    related = "".join(
        f"<li><a href='/r{n}'>Another story about the town, part {n}</a></li>" for n in range(12)
    )
    lead = " ".join(STORY)
    html = (
        "<body><table><tr><td><a href='/'>Home</a></td><td>"
        f"<h1>Harbour wall</h1><p>{lead}<p>{STORY[0]}<h2>Verse</h2>"
        f"<p>{verse[0]}<br>{verse[1]}<br><ul>{related}</ul></td></tr></table></body>"
    )
    expected = [lead, STORY[0], "Verse", *verse]  # the title before the text is the page's own
    assert [b.text for b in html_to_blocks(html)] == expected
