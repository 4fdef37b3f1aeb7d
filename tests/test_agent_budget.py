"""Budgets: effort sets the page cap, the context the token limits; the spend and its line."""

from __future__ import annotations

import pytest

from citesift.agent.budget import Budget, Spend, token_limits
from citesift.errors import InvalidArgument


def test_effort_sets_the_page_cap_medium_four_times_low_high_sixteen() -> None:
    assert Budget(effort="low").pages == 5
    assert Budget(effort="medium").pages == 20
    assert Budget(effort="high").pages == 80
    assert Budget(effort="high", max_pages=3).pages == 3


def test_token_limits_split_95_percent_of_the_smaller_limit_in_half() -> None:
    assert token_limits() == (3891, 3891)  # unknown context: 8192 × 0.95 = 7782
    assert token_limits(context=128_000) == (60_800, 60_800)
    assert token_limits(context=128_000, per_minute=30_000) == (14_250, 14_250)
    assert token_limits(context=128_000, output_cap=4_096) == (117_504, 4_096)
    assert Budget(input_tokens=900).prompt_limits() == (900, 3891)


def test_the_spend_says_which_bound_ran_out() -> None:
    spend = Spend(Budget(max_steps=2, max_pages=1, total_tokens=100, max_seconds=60))
    assert spend.exhausted() is None
    assert spend.line().startswith("step 1 of 2; pages read 0 of 1; ")
    assert "tokens used 0 of 100" in spend.line()
    spend.tokens_in = 100
    assert spend.exhausted() == "the token budget (100) is spent"
    spend.pages = 1
    assert spend.exhausted() == "the page budget (1) is spent"
    spend.steps = 2
    assert spend.exhausted() == "the step budget (2) is spent"
    late = Spend(Budget(max_seconds=1), started=0.0)
    assert late.exhausted() == "the time budget (1 s) is spent"


@pytest.mark.parametrize(
    "bad",
    [
        {"effort": "extreme"},
        {"max_steps": 0},
        {"max_steps": 2.5},
        {"max_pages": -1},
        {"input_tokens": 0},
        {"max_seconds": 0},
        {"max_seconds": float("nan")},
    ],
)
def test_a_budget_that_makes_no_sense_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidArgument, match=next(iter(bad))):
        Budget(**bad)  # type: ignore[arg-type]
