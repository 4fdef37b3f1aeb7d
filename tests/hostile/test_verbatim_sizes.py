"""Telling whether a claim quotes its source word for word stays linear in the source's
length: a claim repeating one short sentence thousands of times, then parting from it, is
read against a page of that sentence within seconds (it was matched again from each of the
page's sentences, which took over a minute)."""

from __future__ import annotations

import pytest
from timing import best_time

from citesift.verify.judges.verbatim import quoted_sentences

SECONDS = 3.0
SHORT = ["a."] * 50_000
TWO_WORDS = ["a a"] * 50_000


@pytest.mark.parametrize(
    ("page", "claim", "quoted"),
    [
        (SHORT, " ".join(["a."] * 4_999) + " b.", None),
        (TWO_WORDS, " ".join(["a"] * 9_999), None),  # found everywhere, never whole sentences
        (SHORT, " ".join(["a."] * 5_000), tuple(range(5_000))),
    ],
    ids=["parting-at-the-end", "halves-of-sentences", "quoted"],
)
def test_a_long_claim_against_a_long_page_is_read_in_linear_time(
    page: list[str], claim: str, quoted: tuple[int, ...] | None
) -> None:
    assert quoted_sentences(claim, page) == quoted
    took = best_time(lambda: quoted_sentences(claim, page))
    assert took < SECONDS, f"{took:.2f} s"
