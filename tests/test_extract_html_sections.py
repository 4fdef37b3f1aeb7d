"""Sections: empty headings in article mode, landmark scopes in page mode, collapsed sections."""

from __future__ import annotations

from importlib.resources import files
from itertools import pairwise
from pathlib import Path

import pytest

from citesift import html_to_blocks
from citesift.model import Block

PROSE = (
    "The tool library opened in a former bakery and now lends more than nine hundred tools "
    "to members who pay a small yearly fee, with most loans lasting a single weekend."
)
REFERENCES = "<h2>References</h2><ol class='references'><li>Annual ledger, 2024.</li></ol>"


def texts(blocks: list[Block], kind: str | None = None) -> list[str]:
    return [b.text for b in blocks if kind is None or b.kind == kind]


def test_article_mode_drops_a_heading_whose_content_was_dropped() -> None:
    html = f"<article><h2>History</h2><p>{PROSE}</p>{REFERENCES}</article>"
    assert texts(html_to_blocks(html)) == ["History", PROSE]
    assert "References" in texts(html_to_blocks(html, mode="page"), "heading")


def test_a_heading_counts_the_content_of_its_subsections() -> None:
    html = (
        f"<article><p>{PROSE}</p><h2>Empty</h2><h3>Also empty</h3><h2>Usage</h2>"
        f"<h3>Loans</h3><p>{PROSE}</p><h3>Nothing here</h3><h2>Last</h2></article>"
    )
    blocks = html_to_blocks(html)
    assert texts(blocks, "heading") == ["Usage", "Loans"]
    assert blocks[-1].section == ("Usage", "Loans")


def test_real_wikipedia_articles_end_no_section_empty(wikipedia_fixtures: Path) -> None:
    for page in sorted((wikipedia_fixtures / "pages").glob("*.html")):
        blocks = html_to_blocks(page.read_text(encoding="utf-8"))
        levels = [len(b.section) if b.kind == "heading" else None for b in blocks]
        assert levels and levels[-1] is None, page.name
        for here, after in pairwise(levels):
            assert here is None or (after is None or after > here), page.name


def test_page_mode_scopes_sections_to_landmarks() -> None:
    html = files("citesift").joinpath("samples/article.html").read_text(encoding="utf-8")
    blocks = html_to_blocks(html, mode="page")
    by_text = {b.text: b for b in blocks}
    title = "How a neighbourhood tool library lends 4,000 items a year"
    assert by_text[title].kind == "heading" and by_text[title].section == ()  # the page's <h1>
    assert by_text["We started one in our village after reading about this place."].section == (
        title,
        "Comments (3)",
    )
    assert by_text["Seed swap returns to the market hall"].section == ("Related stories",)
    assert by_text["Privacy"].section == ()
    assert by_text["Related stories"].section == ()
    note = next(b for b in blocks if b.text.startswith("Correction:"))
    assert note.section == (title, "Keeping the tools working")  # a note aside in the article


def test_content_after_a_landmark_resumes_its_section() -> None:
    html = (
        f"<main><h2>Costs</h2><p>{PROSE}</p><nav><h2>Menu</h2><ul><li>Home</li></ul></nav>"
        f"<p>Fees went up in 2024.</p></main><footer><p>Contact us</p></footer>"
    )
    blocks = {b.text: b.section for b in html_to_blocks(html, mode="page")}
    assert blocks["Home"] == ("Menu",)
    assert blocks["Fees went up in 2024."] == ("Costs",)
    assert blocks["Contact us"] == ()


def test_a_header_inside_an_article_is_not_a_page_landmark() -> None:
    html = f"<article><header><h1>Tools for all</h1></header><p>{PROSE}</p></article>"
    (heading, para) = html_to_blocks(html, mode="page")
    assert (heading.text, para.section) == ("Tools for all", ("Tools for all",))


def mosfet(wikipedia_fixtures: Path, parsoid: bool) -> str:
    html = (wikipedia_fixtures / "pages" / "MOSFET.html").read_text(encoding="utf-8")
    if parsoid:
        return html
    # The same mobile copy without Parsoid's marks: main-content detection reads it.
    return html.replace("mediawiki.org/rdf/", "example.org/").replace('typeof="mw:', 'typeof="x-')


@pytest.mark.parametrize("parsoid", [True, False])
def test_collapsed_sections_of_a_mobile_page_are_article_prose(
    wikipedia_fixtures: Path, parsoid: bool
) -> None:
    html = mosfet(wikipedia_fixtures, parsoid)
    assert html.count('<section data-mw-section-id="1" style="display: none;">') == 1
    blocks = html_to_blocks(html)
    sections = {b.section[0] for b in blocks if b.section}
    assert {"Origins", "Applications"} <= sections
    assert sum(len(b.text) for b in blocks) > 50_000
    text = "\n".join(texts(blocks))
    assert "displaystyle" not in text and "{\\" not in text  # the <math> is still dropped


def test_page_mode_still_drops_what_inline_style_hides() -> None:
    html = f"<section style='display: none'><p>{PROSE}</p></section><p>Shown.</p>"
    assert texts(html_to_blocks(html, mode="page")) == ["Shown."]
    assert texts(html_to_blocks(html)) == [PROSE, "Shown."]
