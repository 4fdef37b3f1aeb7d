"""The citation forms of real documents and model answers beyond links and notes: addresses
written out in a sentence or as autolinks, author–year citations resolved through their
reference list, and numbered references cited together (``[1, 3]``, ``[1-3]``)."""

from __future__ import annotations

import pytest

from citesift import find_citations

WIKI = "https://en.wikipedia.org/wiki/Rust_(programming_language)"


def cited(text: str) -> list[tuple[str, str, str]]:
    return [(c.sentence, c.url, c.marker) for c in find_citations(text)]


def test_an_address_written_out_ends_where_the_sentence_goes_on() -> None:
    """A model's answer giving its sources as plain addresses cited nothing, so its check
    passed with no source read; the punctuation after an address is the sentence's."""
    answer = (
        "Rust 1.0 was released on May 15, 2015 "
        "(https://blog.rust-lang.org/2015/05/15/Rust-1.0.html). "
        f"Its article is at {WIKI}, which names Graydon Hoare as its creator. "
        "The Book is published at <https://doc.rust-lang.org/book/>. "
        'Cargo is "https://doc.rust-lang.org/cargo/"; it builds crates. '
        "Crates are listed on **https://user:secret@crates.io/**! "
        "The survey is at https://blog.rust-lang.org/2024/02/19/2023-Rust-Annual-Survey-2023-results.html.\n"
    )  # fmt: skip
    assert cited(answer) == [
        ("Rust 1.0 was released on May 15, 2015.",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html"),
        ("Its article is at, which names Graydon Hoare as its creator.", WIKI, WIKI),
        ("The Book is published at.", "https://doc.rust-lang.org/book/",
         "https://doc.rust-lang.org/book/"),
        ("Crates are listed on!", "https://crates.io/", "https://crates.io/"),
        ("The survey is at.",
         "https://blog.rust-lang.org/2024/02/19/2023-Rust-Annual-Survey-2023-results.html",
         "https://blog.rust-lang.org/2024/02/19/2023-Rust-Annual-Survey-2023-results.html"),
    ]  # fmt: skip


def test_an_address_ends_before_typographic_quotes_dashes_and_emphasis() -> None:
    """Curly quotes, dashes and an underscore's emphasis close an address; an apostrophe
    inside one is part of its path, and only a closing one is left out."""
    text = (
        "It was said (https://f.org/g”). It is https://x.org/a—and so on. "
        "It is _https://x.org/b_ here. It is https://x.org/c–d here. "
        "It is https://en.wikipedia.org/wiki/Hitchhiker's_Guide here. "
        "It is at https://x.org/e', here."
    )
    assert [url for _, url, _ in cited(text)] == [
        "https://f.org/g",
        "https://x.org/a",
        "https://x.org/b",
        "https://x.org/c",
        "https://en.wikipedia.org/wiki/Hitchhiker's_Guide",
        "https://x.org/e",
    ]


def test_an_address_in_quotes_or_on_an_example_domain_is_shown_not_cited() -> None:
    """A page explaining a form of address (``such as "https://site.org/page"``) cites no
    source by it, nor by one on a domain reserved for examples."""
    text = (
        'Give an address such as "https://site.org/page" here. '
        "Or one such as “https://site.org/other” or 'https://site.org/third' there. "
        "It answers at https://example.com/api and https://www.example.org/x now. "
        "It is measured at https://example.community/y daily."
    )
    assert [url for _, url, _ in cited(text)] == ["https://example.community/y"]


def test_addresses_in_code_links_and_attributes_are_not_cited_again() -> None:
    text = (
        "Run `curl https://sh.rustup.rs` to install it. "
        "It is [documented](https://doc.rust-lang.org/) well. "
        'It has a logo <img src="https://www.rust-lang.org/logo.svg"> too.\n\n'
        "```sh\ncurl --proto '=https' https://sh.rustup.rs | sh\n```\n"
    )
    assert cited(text) == [
        ("It is documented well.", "https://doc.rust-lang.org/", "documented"),
    ]


def test_an_address_after_what_it_supports_cites_that_sentence() -> None:
    """``Source: https://...`` under a sentence supports it; a list of sources under a
    heading supports no one sentence, so it cites none."""
    answer = (
        "Rust was first released in 2015. Source: https://blog.rust-lang.org/2015/05/15/Rust-1.0.html\n"
        "Cargo is its package manager.\n"
        "See: https://doc.rust-lang.org/cargo/\n\n"
        "Further reading:\n\n"
        "- https://www.rust-lang.org/\n"
        "- <https://doc.rust-lang.org/book/>\n"
    )  # fmt: skip
    assert [(sentence, url) for sentence, url, _ in cited(answer)] == [
        ("Rust was first released in 2015.",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html"),
        ("Cargo is its package manager.", "https://doc.rust-lang.org/cargo/"),
    ]  # fmt: skip


PAPER = (
    "Ownership types make aliasing explicit [Clarke et al., 1998]. The borrow checker "
    "builds on them (Jung et al., 2018). Stacked Borrows refines the model (Jung, 2020a; "
    "Clarke & Potter, 1998). A later paper extends it [Jung 2020b].\n\n"
    "## References\n\n"
    "- Clarke, D. G., Potter, J. M., & Noble, J. (1998). Ownership types for flexible alias "
    "protection. https://doi.org/10.1145/286936.286947\n"
    "- Jung, R., Jourdan, J.-H., Krebbers, R., & Dreyer, D. (2018). RustBelt. "
    "https://doi.org/10.1145/3158154\n"
    "- Jung, R. (2020a). Understanding and evolving the Rust programming language. "
    "https://publikationen.sulb.uni-saarland.de/handle/20.500.11880/29647.\n"
    "- Jung, R., Dang, H.-H., Kang, J., & Dreyer, D. (2020b). Stacked Borrows. "
    "https://doi.org/10.1145/3371109\n"
)


def test_author_year_citations_cite_the_address_of_their_entry() -> None:
    """``[Smith 2020]`` and ``(Smith, 2020)`` cited nothing: a paper citing its sources so
    was passed by its check with no source read; the entries are no claims of their own."""
    assert cited(PAPER) == [
        ("Ownership types make aliasing explicit.", "https://doi.org/10.1145/286936.286947",
         "[Clarke et al., 1998]"),
        ("The borrow checker builds on them.", "https://doi.org/10.1145/3158154",
         "(Jung et al., 2018)"),
        ("Stacked Borrows refines the model.",
         "https://publikationen.sulb.uni-saarland.de/handle/20.500.11880/29647",
         "(Jung, 2020a)"),
        ("Stacked Borrows refines the model.", "https://doi.org/10.1145/286936.286947",
         "(Clarke & Potter, 1998)"),
        ("A later paper extends it.", "https://doi.org/10.1145/3371109", "[Jung 2020b]"),
    ]  # fmt: skip


def test_an_author_year_citation_no_entry_resolves_cites_nothing() -> None:
    """Like a footnote defined nowhere, a plain citation of a work the reference list lacks
    is a citation of nothing (it fails the check), never dropped without a word."""
    text = PAPER.replace("[Jung 2020b]", "[Jung et al. 2021]") + "It was fast (Matsakis, 2014).\n"
    found = cited(text)
    assert found[-2:] == [
        ("A later paper extends it.", "", "[Jung et al. 2021]"),
        ("It was fast.", "", "(Matsakis, 2014)"),
    ]


@pytest.mark.parametrize("bracket", ["[Windows 2000]", "[Updated March 2021]", "[Hoare 2006]"])
def test_a_name_and_a_year_in_brackets_no_entry_resolves_are_prose(bracket: str) -> None:
    """Prose holds names and years in brackets and parentheses (``[Windows 2000]``,
    ``(May 2015)``, ``(Mozilla, 2009)``): with no reference list entry to resolve them
    they cite nothing, nor fail the check of a document that has no reference list; in a
    document whose list resolves others, one not plainly a citation stays prose too."""
    text = f"Rust 1.0 came out (May 2015) after years of work. It ran {bracket}.\n"
    assert cited(text + "Mozilla backed it (Mozilla, 2009).\n") == []
    assert cited(PAPER + text)[-1][2] == "[Jung 2020b]"


def test_references_cited_together_each_cite_their_address() -> None:
    text = (
        "Rust began as a personal project [1, 3]. Mozilla sponsored it from 2009 [1-3]. "
        "It reached 1.0 in 2015 [2–3]. Scores lie in [0, 1] here. Or in [1-40].\n\n"
        "[1]: https://a.example/history\n"
        "[2] The announcement, https://b.example/1.0\n"
        "3. https://c.example/mozilla\n"
    )
    assert cited(text) == [
        ("Rust began as a personal project.", "https://a.example/history", "[1]"),
        ("Rust began as a personal project.", "https://c.example/mozilla", "[3]"),
        ("Mozilla sponsored it from 2009.", "https://a.example/history", "[1]"),
        ("Mozilla sponsored it from 2009.", "https://b.example/1.0", "[2]"),
        ("Mozilla sponsored it from 2009.", "https://c.example/mozilla", "[3]"),
        ("It reached 1.0 in 2015.", "https://b.example/1.0", "[2]"),
        ("It reached 1.0 in 2015.", "https://c.example/mozilla", "[3]"),
    ]


@pytest.mark.parametrize("marker", ["[1, 2]", "[1-2]", "[Smith 2020]", "(Smith, 2020)"])
def test_a_marker_after_the_full_stop_belongs_to_its_sentence(marker: str) -> None:
    text = (
        f"Rust is fast. It is safe.{marker} Cargo builds it.\n\n"
        "[1]: https://a.example/1\n[2]: https://a.example/2\n"
        "Smith, J. (2020). Safety. https://a.example/s\n"
    )
    assert {sentence for sentence, _, _ in cited(text)} == {"It is safe."}


def test_an_entry_labelled_as_it_is_cited_is_found_by_its_label() -> None:
    text = (
        "The borrow checker is sound [Jung 2018].\n\n"
        "[Jung 2018]: https://doi.org/10.1145/3158154\n"
        "[Lee 2019]: https://lee.example/borrowing\n"
    )
    assert cited(text) == [
        ("The borrow checker is sound.", "https://doi.org/10.1145/3158154", "[Jung 2018]"),
    ]


def test_a_numbered_list_no_marker_cites_is_prose_whose_addresses_cite() -> None:
    """``1. ...`` holding an address was read as the definition of ``[1]`` though nothing
    cited ``[1]``: a model's answer listing its facts with their sources cited nothing."""
    answer = (
        "Key facts about Rust:\n\n"
        "1. Rust 1.0 was released in May 2015 (https://blog.rust-lang.org/2015/05/15/Rust-1.0.html).\n"
        "2. Cargo is its package manager: https://doc.rust-lang.org/cargo/\n"
        "3. It is memory safe [4].\n\n"
        "Sources:\n\n1. https://www.rust-lang.org/\n2. <https://doc.rust-lang.org/book/>\n\n"
        "4. https://four.example/safety\n"
    )  # fmt: skip
    assert cited(answer) == [
        ("1. Rust 1.0 was released in May 2015.",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html",
         "https://blog.rust-lang.org/2015/05/15/Rust-1.0.html"),
        ("2. Cargo is its package manager:", "https://doc.rust-lang.org/cargo/",
         "https://doc.rust-lang.org/cargo/"),
        ("3. It is memory safe.", "https://four.example/safety", "[4]"),
    ]  # fmt: skip


@pytest.mark.parametrize("link", ["[2](https://x.org/two)", "[2][ref]"])
def test_a_numbered_link_makes_no_list_item_a_reference(link: str) -> None:
    """A link whose text is a number cites its own address, not a reference numbered so:
    the list's second item stays prose, and its address cites it."""
    text = (
        f"Rust is fast [1]. See {link} too.\n\n"
        "1. First https://a.org/one\n"
        "2. It ships a compiler, https://b.org/two\n\n"
        "[ref]: https://x.org/two\n"
    )
    assert [(sentence, url) for sentence, url, _ in cited(text)] == [
        ("Rust is fast.", "https://a.org/one"),
        ("See 2 too.", "https://x.org/two"),
        ("2. It ships a compiler,", "https://b.org/two"),
    ]


def test_prose_giving_an_address_is_no_reference_list_entry() -> None:
    """A line of prose holding an address is read as prose: it resolves no author–year
    citation (``(Q3 2020)``, ``(In 2020)``) and keeps its own citation; a line citing in
    brackets is never set apart as an entry."""
    text = (
        "Sales grew (Q3 2020).\n\nQ3 2020 figures are online: https://q.org/f\n\n"
        "In 2020 rates rose, per https://cdc.gov/x. Later it fell (In 2020).\n\n"
        "- Acme said sales grew (Acme, 2020), https://acme.org/r\n"
    )
    assert cited(text) == [
        ("Q3 2020 figures are online:", "https://q.org/f", "https://q.org/f"),
        ("In 2020 rates rose, per.", "https://cdc.gov/x", "https://cdc.gov/x"),
        ("- Acme said sales grew,", "https://acme.org/r", "(Acme, 2020)"),
    ]
