"""The polarity check stays linear in a sentence's length: a clause of thousands of words, a
negation repeated thousands of times (each once stemmed the rest of its clause and looked
back over it for a condition), a run of verbless clauses (each once copied all before it)
and an unclosed quotation mark repeated (each once scanned to the end) are read within
seconds (each took many seconds to minutes before; a loaded machine keeps its margin)."""

from __future__ import annotations

from itertools import count

import pytest
from timing import best_time

from citesift.verify.polarity import opposite

CLAIM = "The bridge was rebuilt in 1952."
SECONDS = 3.0
_fresh = count()


@pytest.mark.parametrize(
    "text",
    [
        "The bridge was not " + " ".join(f"word{i}" for i in range(20_000)),
        "it was not " * 4_000,
        "it is not true that " * 3_000,
        "it is not true of " * 3_000,
        "if it was not " * 4_000,
        "a, " * 10_000,
        "“a " * 20_000,
        "‘a " * 20_000,
        "«a " * 20_000,
    ],
    ids=[
        "long-clause",
        "negations",
        "truths",
        "truths-without-that",
        "conditions",
        "verbless",
        "quote",
        "single-quote",
        "guillemet",
    ],
)
def test_a_hostile_sentence_is_read_in_linear_time(text: str) -> None:
    # a new sentence each run: the statements of one read are remembered
    took = best_time(lambda: opposite(CLAIM, f"{text} {next(_fresh)}"))
    assert took < SECONDS, f"{took:.2f} s"
