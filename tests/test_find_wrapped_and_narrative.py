"""Citation forms of real papers the first reading missed: narrative author–year citations
(``Smith (2020) found``) and reference list entries, footnotes and numbered references
wrapped over several lines."""

from __future__ import annotations

import pytest

from citesift import find_citations

REFERENCES = (
    "## References\n\n"
    "- Smith, J. (2020). Safety of\n  Rust programs. https://a.org/smith\n"
    "- Smith, J., & Jones, K. (2019). Speed.\n  https://a.org/sj\n"
    "- Lee, A., Park, B., & Kim, C. (2018). Measuring\n  things, in a wrapped entry\n"
    "  https://a.org/lee\n"
)


def cited(text: str) -> list[tuple[str, str, str]]:
    return [(c.sentence, c.url, c.marker) for c in find_citations(text)]


def test_narrative_citations_cite_the_entry_of_their_author_and_year() -> None:
    """``Smith (2020) found`` cited nothing though ``(Smith, 2020)`` did: a paper citing
    its sources in the sentence passed its check with no source read."""
    text = (
        "Smith (2020) found that Rust is safe. Smith and Jones (2019) show that it is fast. "
        "In turn, Lee et al. (2018, p. 4) measured it.\n\n"
    )
    assert cited(text + REFERENCES) == [
        ("Smith found that Rust is safe.", "https://a.org/smith", "Smith (2020)"),
        ("Smith and Jones show that it is fast.", "https://a.org/sj", "Smith and Jones (2019)"),
        ("In turn, Lee et al. measured it.", "https://a.org/lee", "Lee et al. (2018, p. 4)"),
    ]


@pytest.mark.parametrize(
    "sentence", ["Obama (2009) spoke.", "Obama (2009–2017) served.", "Smith (2021) disagreed."]
)
def test_a_name_and_a_year_no_entry_resolves_are_prose(sentence: str) -> None:
    """A year in parentheses after a name is common prose (``Obama (2009–2017)``): with no
    entry of that author and year it cites nothing, not even a citation of nothing."""
    assert cited(f"{sentence}\n\n{REFERENCES}") == []
    assert cited(f"{sentence}\n") == []


def test_wrapped_entries_footnotes_and_numbered_references_are_one_each() -> None:
    """An entry whose text runs on (soft-wrapped, its address on the next line) was read
    as its first line alone: its address was lost and the citation failed."""
    text = (
        "Rust began at Mozilla [1]. Its borrow checker is sound [^proof]. "
        "It is fast (Smith et al., 2019).\n\n"
        "1. Hoare, G. Rust history, a long title\n   https://a.org/one\n\n"
        "[^proof]: A footnote that\nruns over lines https://a.org/proof\n\n"
        "Smith, J., Jones, K., & Lee, A. (2019).\nSpeed of Rust. https://a.org/speed\n"
    )
    assert cited(text) == [
        ("Rust began at Mozilla.", "https://a.org/one", "[1]"),
        ("Its borrow checker is sound.", "https://a.org/proof", "[^proof]"),
        ("It is fast.", "https://a.org/speed", "(Smith et al., 2019)"),
    ]


def test_a_sentence_soft_wrapped_over_lines_is_one_sentence() -> None:
    """Markdown wrapped at a fixed width broke each sentence at its line ends: the claim
    checked was its last line alone (``that is fast.``). A line saying one thing without
    its full stop, as an answer writes it, stays a sentence of its own."""
    text = (
        "Rust is a systems programming language\nthat is fast [1]. It was designed by\n"
        "Graydon Hoare, who began it in 2006 [2].\n"
        "Cargo builds it [2]\nIt is fast.\n\n"
        "[1]: https://a.org/one\n[2]: https://a.org/two\n"
    )
    assert cited(text) == [
        ("Rust is a systems programming language that is fast.", "https://a.org/one", "[1]"),
        ("It was designed by Graydon Hoare, who began it in 2006.", "https://a.org/two", "[2]"),
        ("Cargo builds it", "https://a.org/two", "[2]"),
    ]


def test_lines_of_an_answer_without_full_stops_are_sentences_apart() -> None:
    """An answer written a claim a line without full stops had each line ending on a word
    in lower case joined to the next: the marker of one claim cited the line before it
    too (``It has no garbage collector Go has one``)."""
    text = (
        "Rust is memory safe [1]\nIt has no garbage collector\nGo has one [2]\n\n"
        "[1]: https://a.org/one\n[2]: https://a.org/two\n"
    )
    assert cited(text) == [
        ("Rust is memory safe", "https://a.org/one", "[1]"),
        ("Go has one", "https://a.org/two", "[2]"),
    ]


@pytest.mark.parametrize(
    "wrapped",
    [
        "Go has a garbage collector and\nRust has none",
        "Go has a garbage collector,\nRust has none",
        "Go has a garbage collector in each of\nThe programs it builds",
        "Go has a garbage\ncollector that Rust has none of",
    ],
)
def test_a_line_ending_on_a_comma_or_joining_word_goes_on(wrapped: str) -> None:
    """A line ending where no sentence ends (a comma, ``and``, ``of``) or followed by one
    starting in lower case is one sentence with the next line."""
    found = cited(f"{wrapped} [1]\n\n[1]: https://a.org/one\n")
    assert found == [(" ".join(wrapped.split("\n")), "https://a.org/one", "[1]")]


def test_a_reference_list_written_as_a_table_resolves_its_markers() -> None:
    """A table of sources (``| 1 | Smith, J. (2020). ... |``) resolved no marker: the
    citations of a document listing its references so cited nothing."""
    text = (
        "Rust is safe [1]. It is fast [2]. Smith (2020) agrees.\n\n"
        "| # | Source |\n|---|--------|\n"
        "| 1 | Smith, J. (2020). Safety. https://a.org/s |\n"
        "|[2]| https://a.org/fast |\n"
    )
    assert cited(text) == [
        ("Rust is safe.", "https://a.org/s", "[1]"),
        ("It is fast.", "https://a.org/fast", "[2]"),
        ("Smith agrees.", "https://a.org/s", "Smith (2020)"),
    ]


def test_the_lines_under_a_references_heading_are_entries_whatever_their_shape() -> None:
    """``Mozilla Foundation. Rust 1.0. 2015. https://...`` under ``## References`` was read
    as a claim citing its own address, and resolved no citation of it."""
    text = (
        "Rust 1.0 shipped in 2015 (Mozilla Foundation, 2015). Hoare (2006) began it.\n\n"
        "**Sources:**\n- The Rust book https://a.org/book\n\nIt is safe, see https://a.org/safe.\n\n"
        "## References\n\n"
        "Mozilla Foundation. Rust 1.0. 2015. https://a.org/one\n\n"
        "Hoare. Rust, a language. 2006.\nhttps://a.org/hoare\n\n"
        "It was fast (Matsakis, 2014).\n"
    )
    assert cited(text) == [
        ("Rust 1.0 shipped in 2015.", "https://a.org/one", "(Mozilla Foundation, 2015)"),
        ("Hoare began it.", "https://a.org/hoare", "Hoare (2006)"),
        ("It is safe.", "https://a.org/safe", "https://a.org/safe"),
        ("It was fast.", "", "(Matsakis, 2014)"),
    ]
