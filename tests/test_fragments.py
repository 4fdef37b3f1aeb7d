"""Text-fragment links: encoding, ranges for long sentences, prefix/suffix, old fragments."""

from __future__ import annotations

import string
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citesift.text import fragment_url
from citesift.text.fragments import has_word
from citesift.text.places import sentence_link

PAGE = "https://en.wikipedia.org/wiki/Treaty_of_Versailles"


def directive_terms(link: str) -> list[str]:
    """The raw terms of a link's text directive, split on the commas that are syntax."""
    fragment = link.split("#", 1)[1]
    assert fragment.startswith(":~:text=")
    return fragment.removeprefix(":~:text=").split(",")


def test_fragment_url_encodes_dash_comma_ampersand_and_spaces() -> None:
    link = fragment_url(PAGE, "Signed 28 June 1919, 3-4 p.m. & later.")
    assert link == (PAGE + "#:~:text=Signed%2028%20June%201919%2C%203%2D4%20p.m.%20%26%20later.")


def test_fragment_url_replaces_an_existing_fragment() -> None:
    link = fragment_url(PAGE + "#Background", "Peace.")
    assert link == PAGE + "#:~:text=Peace."


def test_fragment_url_collapses_white_space() -> None:
    assert fragment_url(PAGE, "  Peace \n was  signed. ") == PAGE + "#:~:text=Peace%20was%20signed."


def test_fragment_url_names_a_long_sentence_by_its_first_and_last_words() -> None:
    words = [f"w{i}" for i in range(80)]
    terms = directive_terms(fragment_url(PAGE, " ".join(words)))
    assert [unquote(term) for term in terms] == [" ".join(words[:5]), " ".join(words[-5:])]


def test_fragment_url_keeps_a_long_sentence_of_few_words_exact() -> None:
    text = "x" * 200 + " " + "y" * 200
    assert [unquote(t) for t in directive_terms(fragment_url(PAGE, text))] == [text]


def test_fragment_url_disambiguates_with_prefix_and_suffix() -> None:
    link = fragment_url(PAGE, "It failed.", ("The first plan of 1919", "A second, later-made one"))
    assert directive_terms(link) == [
        "plan%20of%201919-",
        "It%20failed.",
        "-A%20second%2C%20later%2Dmade",
    ]


def test_fragment_url_with_context_on_one_side_only() -> None:
    assert directive_terms(fragment_url(PAGE, "It failed.", ("", "Then more"))) == [
        "It%20failed.",
        "-Then%20more",
    ]


def test_fragment_url_encodes_non_ascii_as_utf8() -> None:
    assert fragment_url(PAGE, "Café 😀") == PAGE + "#:~:text=Caf%C3%A9%20%F0%9F%98%80"


@pytest.mark.parametrize("text", ["", "   ", "Half\ud800 here", "…", " … ", "•", "— ?!"])
def test_fragment_url_without_a_carriable_text_is_the_bare_url(text: str) -> None:
    """Nothing to find, an address cannot carry, or no word at all (an ellipsis, a bullet)."""
    assert fragment_url(PAGE + "#x", text) == PAGE


def test_a_passage_opening_on_an_ellipsis_is_linked_at_its_next_words() -> None:
    passage = "… You get what's coming to you. He was protecting himself."
    link, _ = sentence_link(PAGE, passage, ())
    assert link == fragment_url(PAGE, "You get what's coming to you.")
    held, _ = sentence_link(PAGE, passage, (), lambda piece: "protecting" in piece)
    assert held == fragment_url(PAGE, "He was protecting himself.")


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=200))
def test_fragment_url_terms_decode_back_to_the_text(text: str) -> None:
    link = fragment_url(PAGE, text)
    if not has_word(text):
        assert link == PAGE
        return
    terms = directive_terms(link)
    allowed = set(string.ascii_letters + string.digits + "%!~*'()_.")
    assert all(set(term) <= allowed for term in terms)
    decoded = [unquote(term) for term in terms]
    whole = " ".join(text.split())
    if len(decoded) == 2:  # a long text is linked as a range: its first and last words
        assert whole.startswith(decoded[0] + " ") and whole.endswith(" " + decoded[1])
    else:
        assert decoded == [whole]
