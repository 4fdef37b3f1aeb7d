"""What a run may spend: steps, pages read, tokens in and out, wall time; effort sets the
page cap, the model's context its token limits; the spend so far and the line the model is
shown about it."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Literal

from citesift.errors import invalid
from citesift.numbers import number_in

Effort = Literal["low", "medium", "high"]
LOW_PAGES = 5
"""The page cap of low effort; medium reads four times as many, high sixteen times."""
EFFORT_PAGES: dict[str, int] = {"low": LOW_PAGES, "medium": 4 * LOW_PAGES, "high": 16 * LOW_PAGES}
UNKNOWN_CONTEXT = 8192
"""The context assumed for a model whose context is not known."""
HEADROOM = 0.95
DEFAULT_STEPS = 12
DEFAULT_SECONDS = 300.0


def token_limits(
    context: int | None = None, per_minute: int | None = None, output_cap: int | None = None
) -> tuple[int, int]:
    """Prompt and output token limits: 95 % of the smaller of the context and the
    per-minute limit, split in half; a smaller output cap of the model wins and the rest
    goes to the prompt."""
    total = math.floor(min(context or UNKNOWN_CONTEXT, per_minute or math.inf) * HEADROOM)
    output = total // 2
    if output_cap is not None:
        output = min(output, output_cap)
    return total - output, output


@dataclass(frozen=True, slots=True)
class Budget:
    """The bounds of one run. ``max_pages`` None takes the ``effort``'s page cap; token
    limits None take ``token_limits()`` of an unknown context."""

    max_steps: int = DEFAULT_STEPS
    max_pages: int | None = None
    effort: Effort = "medium"
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    max_seconds: float = DEFAULT_SECONDS

    def __post_init__(self) -> None:
        if self.effort not in EFFORT_PAGES:
            raise invalid("effort", self.effort, "low, medium or high")
        number_in("max_steps", self.max_steps, 1, 1000, whole=True)
        if self.max_pages is not None:
            number_in("max_pages", self.max_pages, 0, 10_000, whole=True)
        for name in ("input_tokens", "output_tokens", "total_tokens"):
            if getattr(self, name) is not None:
                number_in(name, getattr(self, name), 1, 10_000_000, whole=True)
        number_in("max_seconds", self.max_seconds, 0, 86_400, above=True)

    @property
    def pages(self) -> int:
        """The page cap."""
        return EFFORT_PAGES[self.effort] if self.max_pages is None else self.max_pages

    def prompt_limits(self) -> tuple[int, int]:
        """The prompt and output token limits of one turn."""
        prompt, output = token_limits()
        return self.input_tokens or prompt, self.output_tokens or output


@dataclass
class Spend:
    """What a run has spent so far against its ``budget``."""

    budget: Budget
    steps: int = 0
    pages: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False
    started: float = field(default_factory=time.monotonic)

    def seconds_left(self) -> float:
        return self.budget.max_seconds - (time.monotonic() - self.started)

    def exhausted(self) -> str | None:
        """Which bound has run out, in words, or None."""
        budget = self.budget
        if self.steps >= budget.max_steps:
            return f"the step budget ({budget.max_steps}) is spent"
        if self.pages >= budget.pages:
            return f"the page budget ({budget.pages}) is spent"
        used = self.tokens_in + self.tokens_out
        if budget.total_tokens is not None and used >= budget.total_tokens:
            return f"the token budget ({budget.total_tokens}) is spent"
        if self.seconds_left() <= 0:
            return f"the time budget ({budget.max_seconds:g} s) is spent"
        return None

    def line(self) -> str:
        """The budget as the model is shown it."""
        budget = self.budget
        text = (
            f"step {self.steps + 1} of {budget.max_steps}; pages read {self.pages} of "
            f"{budget.pages}; {max(self.seconds_left(), 0):.0f} s left"
        )
        if budget.total_tokens is not None:
            text += f"; tokens used {self.tokens_in + self.tokens_out} of {budget.total_tokens}"
        return text
