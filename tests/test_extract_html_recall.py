"""Article mode on page patterns that hide their text from main-content detection: anchors
that mark places rather than link, and the guards that keep furniture out beside them."""

from __future__ import annotations

from citesift import html_to_blocks

ESSAY = [
    "The library opened its doors in 1887 with four hundred books, most of them given by the "
    "families of the mill workers who had asked the town for a reading room for years.",
    "By the turn of the century it lent more than twelve thousand volumes a year and ran "
    "evening classes in arithmetic, drawing and the English language for newcomers.",
    "The building was enlarged twice, in 1912 and in 1958, and the old reading room with its "
    "iron galleries is the only part of the first library that still stands today.",
]
MENU = ["Home", "History of the town", "Churches and chapels", "Schools", "Contact us"]


def texts(html: str) -> list[str]:
    return [b.text for b in html_to_blocks(html)]


def anchored_page(menu_anchor: str) -> str:
    """An old hand-written page: sections each opened by an unclosed ``<a name>`` target that
    wraps the text after it (as browsers let it), then a menu of links to other pages."""
    menu = "".join(f"<p>{menu_anchor.format(i)}{m}</a></p>" for i, m in enumerate(MENU))
    sections = "".join(f'<a name="part{i}"><h2>Part {i}</h2><p>{p}' for i, p in enumerate(ESSAY))
    return f"<html><body><div>{sections}</a>{menu}</div></body></html>"


def test_an_anchor_that_marks_a_place_is_not_a_link() -> None:
    kept = texts(anchored_page('<a href="/page{}.html">'))
    assert [t for t in kept if t in ESSAY] == ESSAY
    assert not set(MENU) & set(kept)


def test_an_anchor_that_runs_a_script_is_still_a_link() -> None:
    kept = texts(anchored_page("<a onclick=\"show('{}')\">"))
    assert [t for t in kept if t in ESSAY] == ESSAY
    assert not set(MENU) & set(kept)


def test_a_heading_left_open_around_the_text_reads_as_paragraphs() -> None:
    lines = "<br>".join(ESSAY)
    html = f"<html><body><h1>Our town library</h1><h4><center>{lines}</center></body></html>"
    blocks = html_to_blocks(html)
    assert [(b.kind, b.text) for b in blocks if b.text in ESSAY] == [
        ("paragraph", p) for p in ESSAY
    ]


def test_headings_that_are_lines_stay_headings() -> None:
    title = "A history of the town library from its opening in 1887 to the present day, " * 2
    html = f"<html><body><h2>{title.strip()}</h2><p>{ESSAY[0]}</p><h3>Later years</h3>"
    html += f"<p>{ESSAY[1]}</p></body></html>"
    blocks = html_to_blocks(html, mode="page")
    assert [b.kind for b in blocks] == ["heading", "paragraph", "heading", "paragraph"]
