"""Hostile text with combining marks: a character piled with them (a "Zalgo" word, or one
letter and a million accents) is never cut between its marks by the budget, every span of
a letter NFC composes still finds its text in the source, and a page of such letters is
read in bounded memory and time (only as much of a block as the budget can keep is
composed: a 6 MB page took 10 s and a hundred times its size in memory)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future

import pytest
from test_extract_memory import measured

from citesift import html_to_blocks
from citesift.extract import source_text

ZALGO = "Z\u0316\u0301\u0330a\u0301\u0316\u0301l\u0327\u0301g\u030c\u0323o\u0308\u0304"


def assert_located(html: str, budget: int) -> None:
    for mode in ("article", "page"):
        blocks = html_to_blocks(html, mode, budget)  # type: ignore[arg-type]
        assert sum(len(block.text) for block in blocks) <= budget
        for block in blocks:
            shown = source_text(html, block.source_start, block.source_end, mode)  # type: ignore[arg-type]
            assert block.text in shown, (budget, block.text[-8:], shown[-8:])


@pytest.mark.parametrize("budget", range(1, 40))
def test_a_budget_ending_inside_a_zalgo_word_keeps_text_its_span_shows(budget: int) -> None:
    assert_located(f"<p>{ZALGO * 4}</p><p>after</p>", budget)


@pytest.mark.timeout(30)
def test_one_letter_with_a_million_accents_is_kept_whole_or_not_at_all() -> None:
    page = "<p>before a" + "\u0301" * 1_000_000 + " after</p>"
    assert_located(page, 300_000)
    blocks = html_to_blocks(page, "page", 300_000)
    assert [block.text for block in blocks] == ["before"] and blocks.truncated
    whole = html_to_blocks(page, "page", 2_000_000)
    assert whole[0].text.endswith("\u0301 after") and not whole.truncated


@pytest.mark.parametrize(
    "text",
    [
        "a\u0301\u0301\u0301 b\u0301\u0301 word.",  # NFC merges the first mark only
        "a&#x301;\u0301&#769; b\u0301&#x301;\u0301 word.",  # marks written as references
        "Tie\u0302\u0301ng Vie\u0323\u0302t o\u0323\u0302 x\u0323\u0302\u0301 y.",
    ],
    ids=["stacked", "references", "vietnamese"],
)
def test_every_span_inside_a_letter_with_marks_finds_its_text(text: str) -> None:
    page = f"<p>{text}</p>"
    for mode in ("article", "page"):
        [block] = html_to_blocks(page, mode)  # type: ignore[arg-type]
        for i in range(len(block.text) + 1):
            for j in range(i, len(block.text) + 1):
                shown = source_text(page, *block.source_span(i, j), mode)  # type: ignore[arg-type]
                assert block.text[i:j] in shown, (i, j, shown)


MARKED = {
    "stacked marks": "a\u0301\u0301\u0308 ",
    "composing": "e\u0301",
    "jamo": "\u1100\u1161\u11a8",
}
TIMES_INPUT = 25  # the map of a text NFC composes holds a place per character; it held 100x


@pytest.fixture(scope="module")
def peaks(request: pytest.FixtureRequest) -> Iterator[dict[str, Future[float]]]:
    """The measure of each page of letters the run selected, started together."""
    yield from measured(request, "test_a_page_of_letters_nfc_composes_reads_within_memory_bounds")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("unit", MARKED.values(), ids=MARKED.keys())
def test_a_page_of_letters_nfc_composes_reads_within_memory_bounds(
    unit: str, peaks: dict[str, Future[float]]
) -> None:
    assert peaks[unit].result() <= TIMES_INPUT


@pytest.mark.parametrize("unit", MARKED.values(), ids=MARKED.keys())
def test_a_block_nfc_composes_is_cut_at_the_budget_and_says_so(unit: str) -> None:
    page = f"<p>{unit * 200_000}</p>"
    for mode in ("article", "page"):
        blocks = html_to_blocks(page, mode, 10_000)  # type: ignore[arg-type]
        assert blocks.truncated and 9_000 < sum(len(block.text) for block in blocks) <= 10_000
        assert_located(page, 10_000)
