"""Hostile pages against the links of citable passages: time linear in the page.

A page whose sentences repeat, or share every word but the last, makes each passage's link
look for its context and its other occurrences. Linking a page four times as long may take
about four times as long, never the sixteen times of a scan of the block or of the page per
passage (the patterns here took from 20 seconds to a minute for 200 KB before).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import unquote

import pytest
from timing import assert_at_most

from citesift import citation_sources, extract_document
from citesift.model import SourceDocument

UNIT_CHARS = 40_000
TIMES_FOUR = 8  # four times the page takes ~4x; a scan per passage took 16x


def page(sentences: Callable[[int], str], count: int) -> SourceDocument:
    """A document of one paragraph holding ``count`` sentences."""
    text = "".join(sentences(i) for i in range(count))
    return extract_document(f"<p>{text}</p>", url="https://example.org/a", mode="page")


def assert_linear(sentences: Callable[[int], str]) -> None:
    """Linking four times the sentences costs at most ``TIMES_FOUR`` times as much."""
    count = UNIT_CHARS // len(sentences(0))
    small, large = page(sentences, count), page(sentences, 4 * count)
    assert_at_most(
        lambda: citation_sources(large),
        lambda: citation_sources(small),
        TIMES_FOUR,
        "for a quarter of the page",
    )


def directive(link: str) -> list[str]:
    return [unquote(term) for term in link.split("#:~:text=", 1)[1].split(",")]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "sentence",
    ["السَّلَامُ عَلَيْكُمْ. ", "这是同一句话。", "Same words here. "],
    ids=["arabic", "chinese", "latin"],
)
def test_a_block_of_one_repeated_sentence_is_linked_in_linear_time(sentence: str) -> None:
    assert_linear(lambda _: sentence)


def test_a_repeated_sentence_is_linked_with_the_words_around_it() -> None:
    sentence = "السَّلَامُ عَلَيْكُمْ. "
    first, second = citation_sources(page(lambda _: sentence, 3))[:2]
    assert len(directive(first.fragment_url)) == 2  # the first has only words after it
    prefix, text, suffix = directive(second.fragment_url)
    assert prefix == sentence.strip() + "-" and suffix == "-" + sentence.strip()
    assert text == sentence.strip()


@pytest.mark.timeout(120)
def test_sentences_that_differ_only_in_their_last_word_are_linked_in_linear_time() -> None:
    assert_linear(lambda i: f"Item of the list {i}. ")
    passages = citation_sources(page(lambda i: f"Item of the list {i}. ", 100))
    assert all(directive(p.fragment_url)[-2 if i < 99 else -1] == p.content.strip()
               for i, p in enumerate(passages))  # fmt: skip


def test_the_context_of_a_link_is_whole_words_next_to_the_passage() -> None:
    words = [letter.upper() + letter * 199 for letter in "abcdef"]  # longer than what is read
    filler = " ".join(words) + "."
    passages = citation_sources(page(lambda _: f"One here. {filler} ", 2))
    prefix, text, suffix = directive(passages[2].fragment_url)
    assert text == "One here." and prefix == f"{words[-2]} {words[-1]}.-"
    assert suffix == "-" + " ".join(words[:2])
