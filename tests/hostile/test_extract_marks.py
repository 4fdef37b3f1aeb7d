"""Hostile text against the budget's cut: a character piled with combining marks (a
"Zalgo" word, or one letter and a million accents) is never cut between its marks, so the
text kept and the source its span names still agree."""

from __future__ import annotations

import pytest

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
