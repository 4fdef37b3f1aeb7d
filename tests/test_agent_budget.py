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
    assert Budget(context_tokens=1000, output_cap=100).prompt_limits() == (850, 100)


def test_the_spend_says_which_bound_ran_out() -> None:
    budget = Budget(max_steps=2, max_pages=1, max_tokens_in=100, max_tokens_out=10, max_seconds=60)
    spend = Spend(budget)
    assert spend.exhausted() is None
    assert spend.line().startswith("step 1 of 2; pages read 0 of 1; ")
    assert spend.line().endswith("; tokens sent 0 of 100; tokens received 0 of 10")
    spend.tokens_out = 10
    assert spend.exhausted() == "the budget of tokens from the model (10) is spent"
    spend.tokens_in = 100
    assert spend.exhausted() == "the budget of tokens sent to the model (100) is spent"
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
        {"max_tokens_in": 0},
        {"context_tokens": 1.5},
        {"max_seconds": 0},
        {"max_seconds": float("nan")},
    ],
)
def test_a_budget_that_makes_no_sense_is_refused(bad: dict[str, object]) -> None:
    with pytest.raises(InvalidArgument, match=next(iter(bad))):
        Budget(**bad)  # type: ignore[arg-type]


def test_turns_are_paced_to_the_per_minute_token_limit() -> None:
    spend = Spend(Budget(per_minute_tokens=1000))
    assert spend.pause_for(900, now=100.0) == 0.0
    spend.spent(600, at=100.0)
    spend.spent(300, at=110.0)
    assert spend.pause_for(100, now=120.0) == 0.0  # 1000 in the minute: just fits
    assert spend.pause_for(200, now=120.0) == 40.0  # once the 600 of t=100 have aged out
    assert spend.pause_for(200, now=161.0) == 0.0  # they have
    assert spend.pause_for(5000, now=161.0) == 9.0  # more than a minute's worth: wait for all
    assert Spend(Budget()).pause_for(10**9) == 0.0  # no limit, no pause
