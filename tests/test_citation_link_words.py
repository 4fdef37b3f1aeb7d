"""Links to a place on the page, and link words that point at a source.

Any HTML link to a place on the page was read as a note marker: a "see the list below" link
hid every claim of that list, and a table of contents link cited the first link of its
section and hid that section's first claim. Only a link in a ``<sup>`` or one whose text is
a note's number or letter is a marker now, and its text is no word of the claim. A link's
text naming a source (``reference``, ``more``) was dropped wherever the link stood, cutting
words out of a claim: it goes only when the link ends its sentence and says only
``source``, ``here`` or ``link``."""

from __future__ import annotations

import pytest

from citesift import find_citations

LIST = (
    '<p>See the facts below (<a href="#f">list</a>).</p><ul id="f">'
    '<li>Rust began in 2006 <a href="https://a.example/x">at Mozilla Research</a>.</li>'
    '<li>Mozilla sponsored Rust in 2009 <a href="https://a.example/y">officially</a>.</li></ul>'
)
CONTENTS = (
    '<p><a href="#s2">Jump to history</a></p><h2 id="s2">History</h2>'
    '<p>Rust began in 2006 <a href="https://a.example/x">at Mozilla Research</a>.</p>'
    '<p>It is fast <a href="https://a.example/z">in benchmarks</a>.</p>'
)


def _found(text: str, kind: str) -> list[tuple[str, str, str]]:
    return [(c.sentence, c.url, c.marker) for c in find_citations(text, kind)]


def test_a_link_to_a_list_on_the_page_hides_none_of_its_claims() -> None:
    assert _found(LIST, "html") == [
        ("Rust began in 2006 at Mozilla Research.", "https://a.example/x", "at Mozilla Research"),
        ("Mozilla sponsored Rust in 2009 officially.", "https://a.example/y", "officially"),
    ]  # "See the facts below (list)." cites nothing


def test_a_table_of_contents_link_cites_nothing_and_hides_no_claim() -> None:
    assert _found(CONTENTS, "html") == [
        ("Rust began in 2006 at Mozilla Research.", "https://a.example/x", "at Mozilla Research"),
        ("It is fast in benchmarks.", "https://a.example/z", "in benchmarks"),
    ]


@pytest.mark.parametrize(
    "marker",
    [
        '<a href="#n1">1</a>',
        '<a href="#n1">[1]</a>',
        '<a href="#n1">a</a>',
        '<a href="#n1">[note 1]</a>',
        '<sup><a href="#n1">see note</a></sup>',
    ],
)
def test_a_link_named_as_a_note_or_in_a_sup_still_cites_its_note(marker: str) -> None:
    html = (
        f"<p>Rust began in 2006.{marker} It is fast.</p>"
        '<ol><li id="n1"><a href="https://a.example/history">Rust history</a></li></ol>'
    )
    assert [(c.sentence, c.url) for c in find_citations(html, "html")] == [
        ("Rust began in 2006.", "https://a.example/history")
    ]  # the note's own link is no claim


@pytest.mark.parametrize(
    ("text", "kind", "said"),
    [
        (
            "Go is a [reference](https://a.example/g) language.",
            "markdown",
            "Go is a reference language.",
        ),
        ("See [more](https://a.example/g) details.", "markdown", "See more details."),
        ("Go is a [source](https://a.example/g) of joy.", "markdown", "Go is a source of joy."),
        ("It is in the [reference](https://a.example/g).", "markdown", "It is in the reference."),
        (
            '<p>Go is a <a href="https://a.example/g">reference</a> language.</p>',
            "html",
            "Go is a reference language.",
        ),
        (
            '<p>Go is a <a href="https://a.example/g">source</a> of joy.</p>',
            "html",
            "Go is a source of joy.",
        ),
    ],
)
def test_a_links_words_inside_a_claim_stay_in_it(text: str, kind: str, said: str) -> None:
    assert [c.sentence for c in find_citations(text, kind)] == [said]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Go is compiled [source](https://a.example/g).", "markdown"),
        ("Go is compiled [here](https://a.example/g)\nIt is fast.", "markdown"),
        ("Go is compiled [Link](https://a.example/g) [1].\n\n[1]: https://b.example/", "markdown"),
        ("Go is compiled (see [here](https://a.example/g)).", "markdown"),
        ('<p>Go is compiled <a href="https://a.example/g">sources</a>.</p>', "html"),
        ('<p>Go is compiled <a href="https://a.example/g">here</a><br>It is fast.</p>', "html"),
        (
            '<p>Go is compiled <a href="https://a.example/g">source</a><sup><a href="#n1">1</a>'
            '</sup>.</p><ol><li id="n1"><a href="https://b.example/">B</a></li></ol>',
            "html",
        ),
    ],
)
def test_a_link_ending_its_sentence_and_naming_only_its_source_is_no_claim_word(
    text: str, kind: str
) -> None:
    assert {c.sentence.rstrip(".") for c in find_citations(text, kind)} == {"Go is compiled"}


R = "https://a.example/rust"


@pytest.mark.parametrize(
    ("html", "said"),
    [
        (
            f'<p>Mozilla sponsored Rust in 2011, according to <cite><a href="{R}">Rust facts'
            "</a></cite>.</p>",
            "Mozilla sponsored Rust in 2011.",
        ),
        (
            f'<p>Rust is old. According to <a href="{R}"><cite>Rust facts</cite></a>, Mozilla'
            " sponsored Rust in 2011.</p>",
            "Mozilla sponsored Rust in 2011.",
        ),
        (
            f'<p>Rust, as reported in <cite><a href="{R}">Rust facts</a></cite>, was sponsored'
            " in 2011.</p>",
            "Rust was sponsored in 2011.",
        ),
        (
            f'<p>Mozilla sponsored Rust in 2011; see also <cite><a href="{R}">Rust facts</a>'
            "</cite>.</p>",
            "Mozilla sponsored Rust in 2011.",
        ),
        (  # the title is the claim's own word: it stays
            f'<p>The <cite><a href="{R}">Rust Times</a></cite> reported a sponsor.</p>',
            "The Rust Times reported a sponsor.",
        ),
        (  # a "see" that is the claim's verb points at nothing: the title stays
            f'<p>Rust is the language we see <a href="{R}"><cite>Rust facts</cite></a> name.</p>',
            "Rust is the language we see Rust facts name.",
        ),
        (
            f'<p>Mozilla sponsored Rust in 2011, cf. <cite><a href="{R}">Rust facts</a></cite>'
            ".</p>",
            "Mozilla sponsored Rust in 2011.",
        ),
    ],
)
def test_the_title_of_a_cited_work_is_no_claim_word(html: str, said: str) -> None:
    """A ``<cite>`` title after "according to" stayed in the claim, and the cited page's
    heading, its own title, came out as the claim's best evidence."""
    (found,) = _found(html, "html")
    assert found[:2] == (said, R)
