"""A claim that quotes its source word for word: the run of whole sentences it repeats, white
space aside. The offline judge holds such a claim supported however long it is: its measure
of support names the few sentences a claim of one statement takes, so the names and dates of
a quotation running over many sentences would otherwise count as missed."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from citesift.text.fragments import has_word
from citesift.verify.judges.base import ClaimCheck
from citesift.verify.judges.quoting import quoted

QUOTES_SOURCE = "the claim quotes its source word for word"


def quoted_sentences(claim: str, sentences: Sequence[str]) -> tuple[int, ...] | None:
    """The indices of the first run of consecutive whole ``sentences`` (blank ones passed
    over) that, white space collapsed, read exactly as ``claim``; None when there is none
    or the claim holds no letter or digit. The sentences are searched joined as one text for
    the claim starting and ending on their bounds, not matched again from each sentence (a
    claim repeating one sentence thousands of times took minutes against a page of it)."""
    wanted = " ".join(claim.split())
    if not has_word(wanted):
        return None
    kept = [(index, " ".join(s.split())) for index, s in enumerate(sentences)]
    kept = [(index, text) for index, text in kept if text]
    starts, at = [], 0
    for _, text in kept:
        starts.append(at)
        at += len(text) + 1
    ends = {start + len(text) for start, (_, text) in zip(starts, kept, strict=True)}
    firsts = [n for n, start in enumerate(starts) if start + len(wanted) in ends]
    aligned = [starts[n] for n in firsts]  # where a run spelling the claim would start
    joined = " ".join(text for _, text in kept)
    hit = joined.find(wanted)
    while hit >= 0:
        next_run = bisect_left(aligned, hit)
        if next_run == len(aligned):
            return None
        if aligned[next_run] == hit:
            first = firsts[next_run]
            last = bisect_left(starts, hit + len(wanted), lo=first)
            return tuple(index for index, _ in kept[first:last])
        hit = joined.find(wanted, aligned[next_run])
    return None


def verbatim_check(claim: str, sentences: Sequence[str]) -> ClaimCheck | None:
    """``supported`` in full, naming the sentences quoted, when ``claim`` quotes
    ``sentences`` word for word; None otherwise."""
    run = quoted_sentences(claim, sentences)
    if run is None:
        return None
    return ClaimCheck("supported", run, 1.0, f"{QUOTES_SOURCE}: {quoted(sentences, run)}")
