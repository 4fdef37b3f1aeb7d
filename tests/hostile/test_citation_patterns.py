"""Hostile documents against the citation finder: time linear in the document, a clear error
past its bound, and no address but a web one cited.

Each pattern is a fragment repeated to a document's size (brackets opened and never closed,
links that never end, ``<a`` tags that never close, unclosed ``<cite>``, thousands of
citations in one sentence…). Finding the citations may cost a few times what a normal
document of the same size costs, never the hundreds of times a quadratic scan costs (the
patterns here took from seconds to hours before). The bound is relative, measured in the
same test, so a busy machine slows both.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from timing import assert_at_most, best_time

from citesift import find_citations
from citesift.errors import InvalidArgument
from citesift.verify.citations import (
    MAX_CITATIONS,
    MAX_DOCUMENT_CHARS,
    UNPARSEABLE,
    Kind,
    find_citations_capped,
    unreadable,
)
from measure import traced

DOCUMENT_CHARS = 200_000
TIMES_NORMAL = 20  # the linear patterns stay under ~8x; the quadratic ones were 100x and more
NORMAL = {
    "markdown": (
        "Rust began at Mozilla in 2006 [1]. It was [named](https://a.example/n) after a "
        "group of fungi.[^2] The first release came out in 2012, and more followed.\n",
        "\n[1]: https://b.example/r\n[^2]: The story, https://c.example/f\n",
    ),
    "html": (
        "<p>Rust began at Mozilla in 2006.<sup><a href='#n1'>[1]</a></sup> It was "
        "<a href='https://a.example/n'>named</a> after a group of fungi.</p>\n",
        "<ol><li id=n1><a href='https://b.example/r'>The story</a></li></ol>",
    ),
}
FRAGMENTS: list[tuple[Kind, str]] = [
    ("markdown", "["),
    ("markdown", "[["),
    ("markdown", "[a]("),
    ("markdown", "[x](https://a"),
    ("markdown", "[x](https://a("),
    ("markdown", "[x](<"),
    ("markdown", "[x](<https://a"),
    ("markdown", "[x](<https://a b> "),
    ("markdown", "[x][1"),
    ("markdown", "[a]["),
    ("markdown", "[[[[[[x](https://a.example/)]]]]] "),
    ("markdown", "fact [x](https://a.example/) "),
    ("markdown", "claim [1] "),
    ("markdown", "`"),
    ("markdown", "`` ` "),
    ("markdown", "```\n"),
    ("markdown", "\n    [^a] "),
    ("markdown", "> - 1. [^a]:\n  "),
    ("markdown", "[^a]:"),
    ("markdown", "https://a.example/("),
    ("markdown", "https://a.example/(x)"),
    ("markdown", "(https://a.example/). "),
    ("markdown", "<https://a.example/x>"),
    ("markdown", "- https://a.example/x\n"),
    ("markdown", "Source: https://a.example/\n"),
    ("markdown", "(Smith, 2020) "),
    ("markdown", "[Smith et al., 2020] "),
    ("markdown", "(Smith, 2020; "),
    ("markdown", "Smith, J. (2020). https://a.example/ "),
    ("markdown", "Smith, J. (2020). https://a.example/\n"),
    ("markdown", "[1, 2, "),
    ("markdown", "[1-2] "),
    ("html", "<a href=x "),
    ("html", "<a href='https://a.example/'"),
    ("html", "<a href='https://a.example/'>"),
    ("html", "<a href='https://a.example/'>x</a> fact "),
    ("html", "<a href='#n'>1</a>"),
    ("html", "<cite>"),
    ("html", "<cite "),
    ("html", "<cite>https://a.example/ "),
    ("html", "<li id=n>"),
    ("html", "<code>x"),
    ("html", "<pre>x"),
    ("html", "<h2>References"),
    ("html", "<p>Sources:</p><ul>"),
    ("html", "<ol><li>Smith, J. (2020). https://a.example/ "),
    ("html", "Smith ("),
    ("markdown", "Smith (\n"),
    ("markdown", "Smith et al. ("),
    ("markdown", "(2020)"),
    ("markdown", "## References\n"),
    ("markdown", "Sources:\nx\n"),
    ("markdown", "and\n"),
]


def normal_document(kind: Kind, size: int) -> str:
    unit, notes = NORMAL[kind]
    return unit * (size // len(unit)) + notes


def assert_linear(text: str, kind: Kind) -> None:
    """Finding the citations of ``text`` costs at most ``TIMES_NORMAL`` normal documents of
    its size; a slow first try is measured again, beside a new measure of the normal one."""
    normal = normal_document(kind, len(text))
    for _ in range(2):
        hostile_s = best_time(lambda: find_citations(text, kind, "https://page.example/"))
        normal_s = best_time(lambda: find_citations(normal, kind, "https://page.example/"))
        if hostile_s <= TIMES_NORMAL * normal_s:
            return
    raise AssertionError(f"{hostile_s:.2f} s against {normal_s:.3f} s for a normal document")


def repeated(fragment: str, size: int = DOCUMENT_CHARS) -> str:
    return fragment * max(1, size // len(fragment))


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("kind", "fragment"), FRAGMENTS)
def test_a_document_of_one_repeated_fragment_is_read_in_linear_time(
    kind: Kind, fragment: str
) -> None:
    assert_linear(repeated(fragment), kind)


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("claim", "sources"),
    [
        ("It holds [1-10]. ", "".join(f"\n[{n}]: https://a.example/{n}" for n in range(1, 11))),
        ("It holds (Smith, 2020; Lee, 2019). ", "\nSmith, J. (2020). https://a.example/s"),
        ("It holds. Source: https://a.example/\n", ""),
    ],
)
def test_claims_citing_together_or_by_author_are_read_in_linear_time(
    claim: str, sources: str
) -> None:
    """Each number of a range, each author of a bracket and each address written out is a
    citation of its own: a document of nothing else is still read in linear time."""
    assert_linear(repeated(claim) + sources, "markdown")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("tag", ["a href=x", "cite"])
def test_tags_closed_once_at_the_very_end_are_read_in_linear_time(tag: str) -> None:
    assert_linear(repeated(f"<{tag} ") + ">", "html")


@pytest.mark.timeout(300)
@pytest.mark.parametrize("tag", ["code", "pre", "kbd", "samp"])
def test_a_megabyte_of_code_elements_left_open_is_read_in_linear_time(tag: str) -> None:
    """Each ``<code>`` left open was read to the page's end for its closing: 40 KB of them
    took 6 s, a megabyte never ended."""
    assert_linear(repeated(f"<{tag}>x", 1_000_000), "html")


def test_code_is_read_to_its_closing_or_the_next_opening_of_its_kind() -> None:
    html = (
        "<p>Run <code>curl https://a.example/shown</code> now. <code>left open "
        "<p>Rust is safe, said https://a.org/safe. <pre>https://a.org/code</pre></p>"
    )
    assert [c.url for c in find_citations(html, "html")] == ["https://a.org/safe"]


@pytest.mark.timeout(300)
def test_citations_past_the_cap_are_counted_without_being_read() -> None:
    """A megabyte of ranges cites some 600,000 times: past the first ``MAX_CITATIONS`` the
    pairs are only counted, so the cost in time and memory stays near a normal document's."""
    sources = "".join(f"\n[{n}]: https://a.example/{n}" for n in range(1, 11))
    hostile = repeated("It holds [1-10]. ", 1_000_000) + sources
    normal = normal_document("markdown", len(hostile))
    (found, more), hostile_s, hostile_peak = traced(lambda: find_citations_capped(hostile))
    _, normal_s, normal_peak = traced(lambda: find_citations_capped(normal))
    assert len(found) == MAX_CITATIONS and more == 58_823 * 10 - MAX_CITATIONS
    assert hostile_s < TIMES_NORMAL * normal_s
    assert hostile_peak < 4 * normal_peak, (hostile_peak, normal_peak)


def test_brackets_nested_a_hundred_thousand_deep_are_read_quickly() -> None:
    started = time.perf_counter()
    found = find_citations("[" * 100_000 + "x](https://a.example/)" + "]" * 100_000)
    assert time.perf_counter() - started < 5
    assert [(c.marker, c.url) for c in found] == [("x", "https://a.example/")]


def test_thousands_of_citations_in_one_sentence_share_its_text() -> None:
    text = "".join(f"fact {i} [source](https://e{i}.example/) " for i in range(10_000))
    started = time.perf_counter()
    found = find_citations(text)
    assert time.perf_counter() - started < 5
    assert len(found) == MAX_CITATIONS
    assert len({id(c.sentence) for c in found}) == 1  # one sentence, held once


ATOMS = st.sampled_from(
    [
        *("[", "]", "(", ")", "^", ":", "1", "x", " ", ".", "\n", "https://a.example/"),
        *("<a ", "href=", "'#n'", ">", "</a>", "<cite>", "</cite>", "<li id=n>", "<p>", "#"),
    ]
)


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(max_examples=25, deadline=None)
@given(st.lists(ATOMS, min_size=1, max_size=8).map("".join), st.sampled_from(["markdown", "html"]))
def test_generated_repetitions_are_read_in_linear_time(fragment: str, kind: Kind) -> None:
    assert_linear(repeated(fragment, 100_000), kind)


def test_a_document_past_the_bound_is_refused_clearly() -> None:
    with pytest.raises(InvalidArgument, match="text must be a string of at most"):
        find_citations("a" * (MAX_DOCUMENT_CHARS + 1))


@pytest.mark.parametrize(
    ("kind", "base_url", "message"),
    [("rst", None, "kind must be"), ("markdown", b"https://a.example/", "base_url must be")],
)
def test_absurd_options_are_refused_clearly(kind: str, base_url: object, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        find_citations("A claim [x](https://a.example/).", kind, base_url)  # type: ignore[arg-type]


def test_links_to_scripts_data_and_files_cite_nothing() -> None:
    html = (
        "<p><a href='javascript:alert(1)'>One</a> claim here. <a href=' JavaScript:x'>Two</a>"
        " claim here. <a href='data:text/html,x'>Three</a> claim here. <a href='file:///etc/"
        "passwd'>Four</a> claim here. <a href='java&#x73;cript:alert(1)'>Five</a> claim here."
        " <a href='//b.example/s'>Six</a> claim here.</p>"
    )
    found = find_citations(html, "html", "https://page.example/doc")
    assert [(c.sentence, c.url) for c in found] == [("Six claim here.", "https://b.example/s")]
    markdown = "A claim [here](javascript:alert(1)). Another [there](file:///etc/passwd)."
    assert find_citations(markdown) == []


def test_an_escaped_ampersand_in_a_link_is_the_address_meant() -> None:
    html = "<p>A claim here.<a href='https://a.example/q?a=1&amp;b=2'>x</a></p>"
    assert [c.url for c in find_citations(html, "html")] == ["https://a.example/q?a=1&b=2"]


def test_self_referring_and_duplicate_notes_cite_their_first_definition() -> None:
    text = (
        "A first claim here.[^1] A second claim there [2].\n\n"
        "[^1]: See [^1] and https://a.example/one\n"
        "[2] https://b.example/first\n[2] https://c.example/second\n"
    )
    assert [(c.sentence, c.url) for c in find_citations(text)] == [
        ("A first claim here.", "https://a.example/one"),
        ("A second claim there.", "https://b.example/first"),
    ]


@pytest.mark.parametrize("href", ["http://[::1", "//[zz]/x", "https://["])
def test_a_link_that_cannot_be_parsed_is_kept_to_be_reported_and_the_others_count(
    href: str,
) -> None:
    """One such link in a page ended the whole search with a ValueError before, and then
    was dropped without a word: it is kept as written, for the check to say it cannot be
    parsed."""
    html = (
        f"<p><a href='{href}'>One</a> claim here. "
        "<a href='https://b.example/s'>Two</a> claim here.</p>"
    )
    found = find_citations(html, "html", "https://page.example/doc")
    assert [(c.sentence, c.url) for c in found] == [
        ("One claim here.", href),
        ("Two claim here.", "https://b.example/s"),
    ]
    assert unreadable(found[0].url) == UNPARSEABLE
    assert unreadable(found[1].url) is None


def test_a_base_address_that_cannot_be_parsed_is_refused_clearly() -> None:
    with pytest.raises(InvalidArgument, match="base_url must be a web address"):
        find_citations("<p><a href='/x'>A</a> claim.</p>", "html", "http://[")


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\u2028", "\x85", "\x0b", "\x0c"])
def test_definitions_after_any_line_break_are_found(newline: str) -> None:
    """A document with lone CR line endings had none of its notes defined: no citation was
    found, and a check of it passed without reading a source."""
    text = newline.join(
        ["\ufeff[0]: https://z.example/0", "First claim here [1].", "Second claim here [^2].", "",
         "[1]: https://a.example/1", "[^2]: The story, https://b.example/2", "Last claim [0]."]
    )  # fmt: skip
    found = [(c.sentence, c.url, text[c.start : c.end]) for c in find_citations(text)]
    assert found == [
        ("First claim here.", "https://a.example/1", "First claim here [1]."),
        ("Second claim here.", "https://b.example/2", "Second claim here [^2]."),
        ("Last claim.", "https://z.example/0", "Last claim [0]."),
    ]


def test_an_address_whose_scheme_is_in_capitals_is_cited() -> None:
    """``HTTPS://`` is ``https://``: such links cited nothing before, so a document citing
    only through them passed its check without a source read."""
    markdown = (
        "One claim [here](HTTPS://a.example/1). Two claims [1]. Three claims [x][2].\n\n"
        "[1]: Http://b.example/2\n[2]: hTTps://c.example/3\n"
    )
    assert [c.url for c in find_citations(markdown)] == [
        "https://a.example/1", "http://b.example/2", "https://c.example/3",
    ]  # fmt: skip
    html = (
        "<p>One claim <a href='HTTP://a.example/1'>here</a>. Two claims "
        "<cite>HTTPS://b.example/2</cite>.</p>"
    )
    assert [c.url for c in find_citations(html, "html", "https://page.example/")] == [
        "http://a.example/1", "https://b.example/2",
    ]  # fmt: skip


def test_a_user_name_and_password_in_a_cited_address_are_not_kept() -> None:
    markdown = (
        "One claim [here](https://user:secret@a.example/1?to=x@y). Two claims [1].\n\n"
        "[1]: https://a:b@c@b.example/2#at@\n"
    )
    html = "<p>One claim <a href='http://user:secret@a.example/1'>here</a>.</p>"
    found = find_citations(markdown) + find_citations(html, "html")
    assert [c.url for c in found] == [
        "https://a.example/1?to=x@y", "https://b.example/2#at@", "http://a.example/1",
    ]  # fmt: skip


def test_a_cite_holding_a_user_name_and_password_shows_neither_in_its_marker() -> None:
    """The marker of a ``<cite>`` is printed (``--format json``): it showed the password
    its address held though the address cited was cleaned of it."""
    html = "<p>One claim here. <cite>See https://user:secret@a.example/1</cite></p>"
    assert [(c.url, c.marker) for c in find_citations(html, "html")] == [
        ("https://a.example/1", "https://a.example/1"),
    ]


def test_links_in_angle_brackets_and_labels_in_any_case_are_cited() -> None:
    """A link's address in angle brackets, and a label written in another case than its
    definition's, cited nothing: a document citing only so passed its check unread."""
    text = (
        'One claim [here](<https://a.example/a b> "T"). Two claims [two][REF]. '
        "Three claims.[^Note]\n\n[ref]: https://c.example/r\n[^note]: https://d.example/n\n"
    )
    assert [(c.sentence, c.url) for c in find_citations(text)] == [
        ("One claim.", "https://a.example/a%20b"),
        ("Two claims two.", "https://c.example/r"),
        ("Three claims.", "https://d.example/n"),
    ]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("anchor", ["<a href=/x>", "<a href=x>"])
def test_links_that_cite_nothing_said_cost_no_more_than_a_normal_page(anchor: str) -> None:
    """A page of nothing but links took 3.4 times a normal page of its size (30 s for 10
    MB): each link was resolved and cleaned however often its address repeated, and each
    made a citation of no sentence, dropped only at the end."""
    text = repeated(anchor)
    normal = normal_document("html", len(text))
    assert_at_most(
        lambda: find_citations(text, "html", "https://page.example/"),
        lambda: find_citations(normal, "html", "https://page.example/"),
        2,
        "for a normal page",
    )


def test_markers_and_links_in_code_are_no_citations() -> None:
    """``[^a-z]`` in a code span was a footnote defined nowhere, failing the check of a
    document that only shows a regular expression; code blocks, fenced or indented, hold
    no citation either, and the offsets of what follows hold."""
    text = (
        "Use the regex `[^a-z]` to match non-letters. Or ``[^0-9]`` for digits.\n\n"
        "```python\nre.compile('[^a-z]')  # [^1] [x](https://a.example/code)\n[2]: https://a.example/2\n```\n\n"
        "    [^b] [x](https://a.example/indented)\n\n"
        "A `[^c]` claim [here](https://b.example/1).[^1] Another claim [2].\n\n"
        "[^1]: https://c.example/1\n"
    )
    found = [(c.sentence, c.url, c.marker, text[c.start : c.end]) for c in find_citations(text)]
    assert found == [
        ("A claim.", "https://b.example/1", "here",
         "A `[^c]` claim [here](https://b.example/1)."),
        ("A claim.", "https://c.example/1", "[^1]",
         "A `[^c]` claim [here](https://b.example/1)."),
    ]  # fmt: skip


@pytest.mark.parametrize("label", ["a-z", "A-Za-z0-9_", "0-9", ".", "-", "_"])
def test_a_character_class_is_no_footnote(label: str) -> None:
    """A label such as ``^a-z`` names no note a writer gives (GFM shows an undefined one
    as it is written): it cites nothing, where a plausible note name defined nowhere is a
    citation of nothing."""
    text = f"Letters match [^{label}] here. A claim.[^note-1] Another.[^Two]\n"
    assert [(c.url, c.marker) for c in find_citations(text)] == [
        ("", "[^note-1]"), ("", "[^Two]"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "definition",
    [
        "[^1]:\n    https://a.example/1",
        "[^1]: The story,\n    https://a.example/1",
        "[^1]:https://a.example/1",
        "> [^1]: https://a.example/1",
        "- [^1]: https://a.example/1",
        "1. [^1]: See https://a.example/1",
        "- > * [^1]: https://a.example/1",
    ],
)
def test_footnotes_defined_in_every_form_cite_their_address(definition: str) -> None:
    """A note defined with its text on the next indented line, with no space after ``]:``,
    in a quote or in a list was taken for a note defined nowhere, and its definition for a
    second citation of nothing: the check failed a document citing a page it could read."""
    text = f"A claim here.[^1] Another claim.\n\n{definition}\n"
    assert [(c.sentence, c.url, c.marker) for c in find_citations(text)] == [
        ("A claim here.", "https://a.example/1", "[^1]"),
    ]


def test_a_footnote_defined_without_an_address_and_its_definition_cite_nothing() -> None:
    text = "A claim here.[^b] Another.\n\n> [^b]:\n>     Smith, A Book, 2020.\n[^c]:Jones\n"
    assert find_citations(text + "Later.[^c]\n") == []


def test_a_footnote_marker_followed_by_a_colon_is_no_citation() -> None:
    """Only the marker citing the note defined nowhere fails, not each line naming it."""
    text = "A claim here.[^1] Another.\n\nAs in [^1]: the note is missing.\n"
    assert [(c.sentence, c.url) for c in find_citations(text)] == [("A claim here.", "")]
