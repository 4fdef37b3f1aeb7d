"""Hostile inputs against claim verification: a judge, embedder, NLI model or claim splitter
that answers garbage gets a clear error or an abstention (never a crash, never a support),
odd text is graded quickly, and a cosine of huge vectors does not overflow."""

from __future__ import annotations

import time
import warnings
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citesift import (
    CitationVerifier,
    ClaimCheck,
    NLIJudge,
    cosine_similarity,
    verify_claim,
)
from citesift.errors import InvalidArgument
from citesift.verify import Candidates
from citesift.verify.claim_check import MAX_REASON_CHARS
from citesift.verify.judges.llm import read_verdict
from citesift.verify.verifier import MAX_TEXTS
from test_rag_helpers import HashEmbedder

BRIDGE = [
    "The bridge opened in 1932.",
    "It carries six lanes of traffic.",
    "Its main span is 503 metres long.",
]
CLAIM = "The bridge opened in 1932."


class Answering:
    """A judge that answers what it is given, whatever the claim."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> Any:
        return self.answer


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (ClaimCheck("supported", (True,), 0.5, "x"), "a tuple of indices below 3"),
        (ClaimCheck("supported", [0], 0.5, "x"), "a tuple of indices below 3"),  # type: ignore[arg-type]
        (ClaimCheck("not_supported", (0,), 0.1, "x"), "empty for a claim not supported"),
        (ClaimCheck("supported", (0,), "0.5", "x"), "score must be a number from 0 to 1"),  # type: ignore[arg-type]
        (ClaimCheck("supported", (0,), True, "x"), "score must be a number from 0 to 1"),
        (ClaimCheck("supported", (0,), 0.5, None), "reason must be a string"),  # type: ignore[arg-type]
    ],
)
def test_a_judge_breaking_the_contract_is_a_clear_error(answer: ClaimCheck, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        verify_claim(CLAIM, BRIDGE, Answering(answer), embedder=HashEmbedder())


def test_a_judge_s_endless_reason_is_cut() -> None:
    answer = ClaimCheck("supported", (0,), 0.9, "because " * 1_000_000)
    check = verify_claim(CLAIM, BRIDGE, Answering(answer), embedder=HashEmbedder())
    assert (check.label, check.supporting, check.score) == ("supported", (0,), 0.9)
    assert len(check.reason) == MAX_REASON_CHARS and check.reason.endswith("…")


class Vectors:
    """An embedder answering ``make(texts)``, whatever that is."""

    name, dim = "test-vectors", 4

    def __init__(self, make: Callable[[Sequence[str]], object]) -> None:
        self.make = make

    def embed(self, texts: Sequence[str]) -> Any:
        return self.make(texts)


GARBAGE_VECTORS: list[Callable[[Sequence[str]], object]] = [
    lambda texts: np.full((len(texts), 4), np.nan),
    lambda texts: np.full((len(texts), 4), np.inf),
    lambda texts: np.ones((1, 4)),
    lambda texts: np.ones(len(texts)),
    lambda texts: [["a"]] * len(texts),
]


@pytest.mark.parametrize("make", GARBAGE_VECTORS)
def test_an_embedder_answering_garbage_is_a_clear_error(
    make: Callable[[Sequence[str]], object],
) -> None:
    with pytest.raises(InvalidArgument, match="embedder's answer"):
        verify_claim(CLAIM, BRIDGE, embedder=Vectors(make))
    with pytest.raises(InvalidArgument, match="embed's answer"):
        CitationVerifier(Vectors(make)).verify([CLAIM], [{"content": s} for s in BRIDGE])


def test_huge_and_tiny_vectors_give_their_cosine_without_overflow() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cosine_similarity([1e300, 1e300], [1.0, 1.0]) == pytest.approx(1.0)
        assert cosine_similarity([1e-300, 0.0], [1.0, 0.0]) == pytest.approx(1.0)
        assert cosine_similarity([np.inf, 0.0], [1.0, 0.0]) == 0.0
        huge = Vectors(lambda texts: np.full((len(texts), 4), 1e300))
        response = CitationVerifier(huge).verify([CLAIM], [{"content": BRIDGE[0]}])
        assert response.claims[0].verdict == "supported"
        assert response.claims[0].confidence == pytest.approx(1.0)
        check = verify_claim(CLAIM, BRIDGE, embedder=huge)
    assert 0.0 <= check.score <= 1.0


def counted(texts: Sequence[str], dim: int = 16) -> np.ndarray:
    """Each text's words counted into ``dim`` hashed slots: vectors of any length."""
    out = np.zeros((len(texts), dim))
    for n, text in enumerate(texts):
        for word in text.lower().split():
            out[n, zlib.crc32(word.strip(".,").encode()) % dim] += 1
    return out


def test_an_embedder_s_vectors_are_read_as_directions_whatever_their_lengths() -> None:
    claim = "Marie Curie won two Nobel prizes."
    slots = {zlib.crc32(w.strip(".").encode()) % 16 for w in claim.lower().split()}
    words = [f"w{i}" for i in range(5000) if zlib.crc32(f"w{i}".encode()) % 16 not in slots]
    page = [" ".join(words[4 * i : 4 * i + 4]) + "." for i in range(25)]
    noise = next(f"zq{i}" for i in range(1000) if zlib.crc32(f"zq{i}".encode()) % 16 in slots)
    page[12:12] = [" ".join([noise] * 200) + ".", "Curie lived in Paris."]  # long, and near
    lengths = Vectors(counted)
    directions = Vectors(
        lambda texts: counted(texts) / np.linalg.norm(counted(texts), axis=1)[:, None]
    )
    assert verify_claim(claim, page, embedder=lengths) == verify_claim(
        claim, page, embedder=directions
    )


@pytest.mark.parametrize("answer", [None, "one claim", 3])
def test_a_claim_splitter_answering_garbage_is_a_clear_error(answer: object) -> None:
    verifier = CitationVerifier(HashEmbedder(), extract_claims=lambda text: answer)  # type: ignore[arg-type,return-value]
    with pytest.raises(InvalidArgument, match="extract_claims' answer"):
        verifier.verify("The bridge opened in 1932 and carries six lanes.", BRIDGE)


@pytest.mark.parametrize(
    ("support", "unverifiable", "message"),
    [
        (0.0, 0.0, "support_threshold must be a cosine above 0"),
        (-0.5, 0.3, "support_threshold must be a cosine above 0"),
        (5.0, 0.3, "support_threshold must be a cosine above 0, at most 1"),
        (0.6, -2, "unverifiable_threshold must be a cosine from 0 to 1"),
    ],
)
def test_absurd_thresholds_are_refused(support: float, unverifiable: float, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        CitationVerifier(HashEmbedder(), support, unverifiable)


def test_a_claim_near_no_source_is_never_supported() -> None:
    """Before the bar was held above 0, ``support_threshold=0`` called it supported."""
    far = Vectors(lambda texts: [[1.0, 0.0]] + [[0.0, 1.0]] * (len(texts) - 1))
    with pytest.raises(InvalidArgument):
        CitationVerifier(far, support_threshold=0.0)
    response = CitationVerifier(far, support_threshold=1e-9).verify([CLAIM], [{"content": "x"}])
    assert (response.claims[0].verdict, response.claims[0].source_index) == ("unverifiable", None)


def test_more_texts_than_one_batch_holds_are_refused_before_embedding() -> None:
    embedder = HashEmbedder()
    with pytest.raises(InvalidArgument, match=f"{MAX_TEXTS:,} at most"):
        CitationVerifier(embedder).verify(["a claim"] * MAX_TEXTS, [{"content": "a source"}])
    assert embedder.calls == 0


@pytest.mark.parametrize(
    "reply",
    [
        '{"label": "supported", "supporting": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "{" * 5_000_000,
        "{" * 2_000_000 + "}",
    ],
)
def test_a_model_reply_nested_deep_or_all_braces_is_unreadable_quickly(reply: str) -> None:
    started = time.perf_counter()
    check = read_verdict(reply, frozenset({0, 1}))
    assert time.perf_counter() - started < 2
    assert check == ClaimCheck(
        "not_supported", (), 0.0, "the judge's answer could not be read", abstained=True
    )


@pytest.mark.parametrize(
    "answer",
    [{"entailment": 5.0, "contradiction": 0.0}, {"entailment": 0.9, "contradiction": -3.0}],
)
def test_an_nli_model_answering_no_probability_abstains(answer: dict[str, float]) -> None:
    check = verify_claim(CLAIM, BRIDGE, NLIJudge(lambda p, h: answer), embedder=HashEmbedder())
    assert (check.label, check.supporting, check.score) == ("not_supported", (), 0.0)
    assert "unreadable answer" in check.reason


ODD = st.sampled_from(
    [
        "\ud800",
        "\udfff",
        "\x00",
        "\u200b",
        "\u200f",
        "\u202e",
        "\ufeff",
        "1e308",
        "9" * 1000,
        "10^1000",
        "the",
        "not",
        "1932",
        "bridge",
        " ",
        ".",
    ]
)
TEXT = st.lists(ODD, max_size=40).map(" ".join)


@settings(max_examples=60, deadline=None)
@given(TEXT, st.lists(TEXT, max_size=6))
def test_odd_text_is_graded_quickly_and_within_the_contract(
    claim: str, sentences: list[str]
) -> None:
    started = time.perf_counter()
    check = verify_claim(claim, [*sentences, *BRIDGE], embedder=HashEmbedder())
    assert time.perf_counter() - started < 2
    assert 0.0 <= check.score <= 1.0
    assert all(0 <= i < len(sentences) + len(BRIDGE) for i in check.supporting)
    assert check.label != "not_supported" or not check.supporting


def test_a_claim_of_one_token_repeated_and_a_claim_of_stopwords_are_graded_quickly() -> None:
    started = time.perf_counter()
    repeated = verify_claim("bridge " * 1_400, [CLAIM * 100] * 1_000, embedder=HashEmbedder())
    stopwords = verify_claim("the of and a to in is it that", BRIDGE, embedder=HashEmbedder())
    assert time.perf_counter() - started < 10
    assert 0.0 <= repeated.score <= 1.0
    assert (stopwords.label, stopwords.supporting) == ("not_supported", ())
