"""The rules every judge's verdict is held to, whoever gave it (the offline judges' weights
or a chat model): a claim whose number or date is not found, whose polarity its support
does not share, or that names what the page never names, is never supported; a claim
judged not supported names no sentence, however close the least bad one is; and the score
is above one half exactly when the label is supported. They hold for any page, so they are
stated, not fitted."""

from __future__ import annotations

from collections.abc import Sequence

from citesift.verify.candidates import Candidates
from citesift.verify.facts import facts
from citesift.verify.judges.base import ClaimCheck, Label
from citesift.verify.judges.features import Measured, fact_keys
from citesift.verify.judges.quoting import quoted

BLOCKED_SCORE = 0.49
"""The highest score of a claim not supported in full (below one half, as the claim is
then more likely not supported in full than supported)."""
SUPPORTED_SCORE = 0.51
"""The lowest score of a supported claim."""
NO_FACT = "the claim states no checkable fact"
ABOUT_ONLY = "the claim states nothing beyond what it is about"


def blocked(measured: Measured) -> bool:
    """A number or date of the claim not found, a polarity not shared, or a name of the
    claim absent from the whole page (a name missing from the support but stated elsewhere
    on the page may be one the support calls *he* or *the company*)."""
    return (
        measured.negation
        or bool(measured.absent)
        or any(m.startswith(("n:", "m:")) for m in measured.missed)
    )


def held(label: Label, score: float, measured: Measured) -> tuple[Label, float]:
    """``label`` and ``score`` once a rule blocking support (``blocked``) has been applied
    and the score put in the label's band (``banded``)."""
    if label == "supported" and blocked(measured):
        label = "partially_supported"
    return label, banded(label, score)


def banded(label: Label, score: float) -> float:
    """``score`` moved into ``label``'s band: above one half for a supported claim, at most
    ``BLOCKED_SCORE`` for any other."""
    return max(score, SUPPORTED_SCORE) if label == "supported" else min(score, BLOCKED_SCORE)


def unmeasured(claim: str, candidates: Candidates) -> ClaimCheck:
    """The check of a claim with no fact to measure (``features.measure`` gave None): one
    whose words all name what it is ``about`` (``height: N/A``) says so, as a field's name
    alone supports no value."""
    about = bool(candidates.about) and bool(fact_keys(facts(claim)))
    return ClaimCheck("not_supported", (), 0.0, ABOUT_ONLY if about else NO_FACT)


def graded(label: Label, score: float, measured: Measured, sentences: Sequence[str]) -> ClaimCheck:
    """The check a judge's ``label`` and ``score`` give once the rules are applied (the
    ``sentences`` the claim was measured against are quoted in the reason)."""
    label, score = held("not_supported" if not measured.chosen else label, score, measured)
    supporting = () if label == "not_supported" else tuple(sorted(measured.chosen))
    return ClaimCheck(label, supporting, score, _reason(label, measured, sentences))


def lacking(measured: Measured) -> list[str]:
    """What the support lacks of the claim, in words: the facts not found, the names the
    page never states (each in the claim's own word, ``Measured.words``), a negation not
    shared."""
    words = dict(measured.words)
    parts = []
    if measured.missed:
        shown = (words.get(m, m.split(":", 1)[-1]) for m in measured.missed[:5])
        parts.append(f"not found: {', '.join(shown)}")
    if measured.absent:
        named = (words.get(m, m) for m in measured.absent[:5])
        parts.append(f"the page never names: {', '.join(named)}")
    if measured.negation:
        parts.append("the claim and its support differ in negation")
    return parts


def _reason(label: Label, measured: Measured, sentences: Sequence[str]) -> str:
    parts = [f"the sentences cover {round(100 * measured.coverage)}% of the claim's facts"]
    if measured.written < measured.coverage:
        as_written = round(100 * measured.written)
        parts.append(f"{as_written}% as written, the rest by words of like meaning")
    if measured.apart:
        where = quoted(sentences, measured.apart)
        parts.append(f"some in {where}, read but not named as far from the rest")
    parts.extend(lacking(measured))
    if label == "not_supported":
        parts.append("nothing in the source supports it")
    return "; ".join(parts)
