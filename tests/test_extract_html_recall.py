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
COMMENT = (
    "I grew up two streets from the old library and spent every wet Saturday of my childhood "
    "in that reading room; it is good to see its story written down at last."
)
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


SHOPS = [
    ("Harbour Books", "12 Quay Street", "Second-hand books, maps and charts of the coast."),
    ("The Net Loft", "3 Pier Road", "Fresh fish every morning from the town's own boats."),
    ("Mill Lane Bakery", "40 Mill Lane", "Bread, cakes and pies baked on the premises daily."),
    ("Quay Cycles", "7 Quay Street", "Bicycles for hire by the hour, the day or the week."),
]
NOTE = (
    "A fixture of the high street since the 1950s, the café is rightly famous for its "
    "breakfasts, served all day, and for the view of the harbour from its upstairs room, "
    "which regulars book weeks ahead for birthdays and anniversaries."
)


def directory_page(entries: int) -> str:
    """A business directory laid out in a table: each entry its name (a link), address and
    note, one entry with a note long enough to look like a paragraph."""
    rows = "".join(
        f'<tr><td><a href="/shop/{n}">{name} {n}</a></td><td>{street}</td><td>{note}</td></tr>'
        for n in range(entries)
        for name, street, note in SHOPS
    )
    rows += f"<tr><td><a href='/cafe'>Dean's Café</a></td><td>620 Main St.</td><td>{NOTE}</td></tr>"
    return f"<html><body><nav><a href='/'>Home</a></nav><table>{rows}</table></body></html>"


def test_a_directory_of_short_records_is_read_whole() -> None:
    kept = texts(directory_page(entries=12))
    assert NOTE in kept
    for name, street, note in SHOPS:
        assert {f"{name} 11", street, note} <= set(kept)
    assert "Home" not in kept


def test_an_article_beside_menus_and_comments_is_not_read_whole() -> None:
    menu = "".join(f'<li><a href="/{n}">Story number {n} of the week</a></li>' for n in range(60))
    comments = "".join(f"<li><p>{COMMENT} ({n})</p></li>" for n in range(12))
    html = (
        f"<html><body><div class='menu'><ul>{menu}</ul></div><div><p>{NOTE}</p></div>"
        f"<div id='comments'><ol>{comments}</ol></div></body></html>"
    )
    assert texts(html) == [NOTE]


def blog_entry(body: str) -> str:
    return (
        f'<div class="hentry"><h2>The library at 137</h2><div class="entry-content">{body}</div>'
        "<p>This entry was posted in Local history on 3 May and tagged library, mills, "
        "reading room. Bookmark the permalink.</p></div>"
    )


def test_a_microformats_entry_body_is_the_article() -> None:
    body = "".join(f"<p>{p}</p>" for p in ESSAY)
    assert texts(f"<html><body><div>{blog_entry(body)}</div></body></html>") == ESSAY


def test_entries_listed_on_a_page_are_all_kept() -> None:
    entries = "".join(blog_entry(f"<p>{p}</p>") for p in ESSAY)
    kept = texts(f"<html><body><div>{entries}</div></body></html>")
    assert [t for t in kept if t in ESSAY] == ESSAY


PROMO = (
    "Looking for a new home? Search thousands of listings in your area with our free tool, "
    "updated every hour."
)


def test_the_story_cell_of_a_table_layout_is_the_article() -> None:
    body = "".join(f"<p>{p}</p>" for p in ESSAY)
    html = (
        f"<html><body><table><tr><td>{body}</td>"
        f"<td><p>{PROMO}</p><p><a href='/homes'>More</a></p></td></tr></table></body></html>"
    )
    assert texts(html) == ESSAY


def test_a_story_over_two_cells_keeps_both() -> None:
    left = "".join(f"<p>{p}</p>" for p in ESSAY[:2])
    html = (
        f"<html><body><table><tr><td>{left}</td><td><p>{ESSAY[2]}</p><p>{PROMO}</p></td></tr>"
        "</table></body></html>"
    )
    assert texts(html) == [*ESSAY, PROMO]
