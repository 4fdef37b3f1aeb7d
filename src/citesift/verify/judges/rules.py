"""The rules every offline judge obeys over whatever its weights say: a claim whose number
or date is not found, whose polarity its support does not share, or that names what the
page never names, is never supported; a
claim judged not supported names no sentence, however close the least bad one is. They hold
for any page, so they are stated, not fitted."""

from __future__ import annotations

from citesift.verify.judges.base import ClaimCheck, Label
from citesift.verify.judges.features import Measured

BLOCKED_SCORE = 0.49
"""The highest score of a claim a rule keeps from being supported (below one half, as the
claim is more likely not supported in full than supported)."""
NO_FACT = "the claim states no checkable fact"


def blocked(measured: Measured) -> bool:
    """A number or date of the claim not found, a polarity not shared, or a name of the
    claim absent from the whole page (a name missing from the support but stated elsewhere
    on the page may be one the support calls *he* or *the company*)."""
    return (
        measured.negation
        or bool(measured.absent)
        or any(m.startswith(("n:", "m:")) for m in measured.missed)
    )


def graded(label: Label, score: float, measured: Measured | None) -> ClaimCheck:
    """The check a judge's ``label`` and ``score`` give once the rules are applied."""
    if measured is None:
        return ClaimCheck("not_supported", (), 0.0, NO_FACT)
    if blocked(measured):
        score = min(score, BLOCKED_SCORE)
        if label == "supported":
            label = "partially_supported"
    if not measured.chosen:
        label = "not_supported"
    supporting = () if label == "not_supported" else tuple(sorted(measured.chosen))
    return ClaimCheck(label, supporting, score, _reason(label, measured))


def _reason(label: Label, measured: Measured) -> str:
    parts = [f"the sentences cover {round(100 * measured.coverage)}% of the claim's facts"]
    if measured.apart:
        shown = ", ".join(str(i) for i in measured.apart[:5])
        parts.append(f"some in sentences {shown}, read but not named as they stand apart")
    if measured.missed:
        shown = ", ".join(m.split(":", 1)[-1] for m in measured.missed[:5])
        parts.append(f"not found: {shown}")
    if measured.absent:
        parts.append(f"the page never names: {', '.join(measured.absent[:5])}")
    if measured.negation:
        parts.append("the claim and its support differ in negation")
    if label == "not_supported":
        parts.append("nothing in the source supports it")
    return "; ".join(parts)
