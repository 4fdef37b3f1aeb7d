"""A claim that quotes its source word for word: the run of whole sentences it repeats, white
space aside. The offline judge holds such a claim supported however long it is: its measure
of support names the few sentences a claim of one statement takes, so the names and dates of
a quotation running over many sentences would otherwise count as missed."""

from __future__ import annotations

from collections.abc import Sequence

from citesift.text.fragments import has_word
from citesift.verify.judges.base import ClaimCheck
from citesift.verify.judges.quoting import quoted

QUOTES_SOURCE = "the claim quotes its source word for word"


def quoted_sentences(claim: str, sentences: Sequence[str]) -> tuple[int, ...] | None:
    """The indices of the first run of consecutive whole ``sentences`` (blank ones passed
    over) that, white space collapsed, read exactly as ``claim``; None when there is none
    or the claim holds no letter or digit."""
    wanted = " ".join(claim.split())
    if not has_word(wanted):
        return None
    said = [" ".join(s.split()) for s in sentences]
    for first, text in enumerate(said):
        if text and wanted.startswith(text):
            run = _run(wanted, said, first)
            if run is not None:
                return run
    return None


def verbatim_check(claim: str, sentences: Sequence[str]) -> ClaimCheck | None:
    """``supported`` in full, naming the sentences quoted, when ``claim`` quotes
    ``sentences`` word for word; None otherwise."""
    run = quoted_sentences(claim, sentences)
    if run is None:
        return None
    return ClaimCheck("supported", run, 1.0, f"{QUOTES_SOURCE}: {quoted(sentences, run)}")


def _run(wanted: str, said: Sequence[str], first: int) -> tuple[int, ...] | None:
    """The sentences from ``first`` on that spell ``wanted`` whole, one space between each."""
    at, run = 0, []
    for index in range(first, len(said)):
        text = said[index]
        if not text:
            continue
        if not wanted.startswith(text, at):
            return None
        run.append(index)
        at += len(text)
        if at == len(wanted):
            return tuple(run)
        if wanted[at] != " ":
            return None
        at += 1
    return None
