"""What a judge is: it reads a claim beside its candidate sentences and says how well they
support it, naming the sentences that do (none when nothing does)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from citesift.verify.candidates import Candidates

Label = Literal["supported", "partially_supported", "not_supported"]
LABELS: tuple[Label, ...] = ("supported", "partially_supported", "not_supported")


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """A claim's grade against a list of sentences: ``supporting`` are indices into that
    list (empty when ``not_supported``), ``score`` the 0–1 confidence that the claim is
    supported in full, ``reason`` one line saying why, for people. ``abstained`` when the
    judge gave no verdict (a model's answer that could not be read, a model that failed):
    the claim is then ``not_supported`` for want of a verdict, not for what the sentences say."""

    label: Label
    supporting: tuple[int, ...]
    score: float
    reason: str
    abstained: bool = False


@runtime_checkable
class Judge(Protocol):
    """Decides a claim from its candidate sentences (``candidates`` index ``sentences``)."""

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        """The grade of ``claim``."""
        ...
