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
TOKEN_BOUNDS = (
    "max_tokens_in",
    "max_tokens_out",
    "context_tokens",
    "per_minute_tokens",
    "output_cap",
)
MINUTE = 60.0


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
    """The bounds of one run: model turns (``max_steps``), pages read (``max_pages``, None
    takes the ``effort``'s cap; only a page whose content came back counts, never a search,
    a map or a fetch that was refused or failed), wall time, and the tokens sent to and
    received from the model over the whole run (``max_tokens_in``, ``max_tokens_out``,
    None: no bound).
    One turn's prompt and reply limits come from the model's ``context_tokens`` (None: 8192
    assumed), its ``per_minute_tokens`` limit (turns are paced to it) and its own
    ``output_cap`` (``token_limits``)."""

    max_steps: int = DEFAULT_STEPS
    max_pages: int | None = None
    effort: Effort = "medium"
    max_seconds: float = DEFAULT_SECONDS
    max_tokens_in: int | None = None
    max_tokens_out: int | None = None
    context_tokens: int | None = None
    per_minute_tokens: int | None = None
    output_cap: int | None = None

    def __post_init__(self) -> None:
        if self.effort not in EFFORT_PAGES:
            raise invalid("effort", self.effort, "low, medium or high")
        number_in("max_steps", self.max_steps, 1, 1000, whole=True)
        if self.max_pages is not None:
            number_in("max_pages", self.max_pages, 0, 10_000, whole=True)
        for name in TOKEN_BOUNDS:
            if getattr(self, name) is not None:
                number_in(name, getattr(self, name), 1, 10_000_000, whole=True)
        number_in("max_seconds", self.max_seconds, 0, 86_400, above=True)

    @property
    def pages(self) -> int:
        """The page cap."""
        return EFFORT_PAGES[self.effort] if self.max_pages is None else self.max_pages

    def prompt_limits(self) -> tuple[int, int]:
        """The prompt and reply token limits of one turn."""
        return token_limits(self.context_tokens, self.per_minute_tokens, self.output_cap)


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
    recent: list[tuple[float, int]] = field(default_factory=list)

    def seconds_left(self) -> float:
        return self.budget.max_seconds - (time.monotonic() - self.started)

    def exhausted(self) -> str | None:
        """Which bound has run out, in words, or None."""
        budget = self.budget
        if self.steps >= budget.max_steps:
            return f"the step budget ({budget.max_steps}) is spent"
        if self.pages >= budget.pages:
            return f"the page budget ({budget.pages}) is spent"
        if budget.max_tokens_in is not None and self.tokens_in >= budget.max_tokens_in:
            return f"the budget of tokens sent to the model ({budget.max_tokens_in}) is spent"
        if budget.max_tokens_out is not None and self.tokens_out >= budget.max_tokens_out:
            return f"the budget of tokens from the model ({budget.max_tokens_out}) is spent"
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
        if budget.max_tokens_in is not None:
            text += f"; tokens sent {self.tokens_in} of {budget.max_tokens_in}"
        if budget.max_tokens_out is not None:
            text += f"; tokens received {self.tokens_out} of {budget.max_tokens_out}"
        return text

    def spent(self, tokens: int, at: float | None = None) -> None:
        """Note ``tokens`` used by a turn (for pacing to the per-minute limit)."""
        self.recent.append((time.monotonic() if at is None else at, tokens))

    def pause_for(self, tokens: int, now: float | None = None) -> float:
        """Seconds to wait before a turn of about ``tokens`` so that the last minute's use
        stays within ``per_minute_tokens`` (0 when there is no such limit or room now)."""
        limit = self.budget.per_minute_tokens
        if limit is None:
            return 0.0
        now = time.monotonic() if now is None else now
        self.recent = [(at, used) for at, used in self.recent if now - at < MINUTE]
        used = sum(u for _, u in self.recent)
        if used + tokens <= limit:
            return 0.0
        for at, old in self.recent:  # oldest first: wait until enough has aged out
            used -= old
            if used + tokens <= limit:
                return max(at + MINUTE - now, 0.0)
        return max(self.recent[-1][0] + MINUTE - now, 0.0) if self.recent else 0.0
