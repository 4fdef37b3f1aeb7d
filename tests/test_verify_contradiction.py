"""FactContradiction: the offline NLI stand-in for CitationVerifier, built on the facts
verify_claim checks (numbers, dates, names, negation), with the bundled MiniLM."""

from __future__ import annotations

import time

import pytest

from citesift import CitationVerifier, Embedder, FactContradiction, MiniLMEmbedder, SQLiteStore
from citesift.errors import InvalidArgument
from citesift.index.embedders import CachedEmbedder
from citesift.verify.contradiction import OPPOSED_SCORE
from citesift.verify.verifier import CONTRADICTION_SCORE, NliResult
from test_rag_helpers import HashEmbedder

BORN = "He was born in 1950 in Ohio, the second of 3 children."
SOURCE = (
    "Mozilla officially sponsored the Rust project in 2009. "
    "The first stable release, Rust 1.0, was published on May 15, 2015. "
    "Graydon Hoare stepped down from Rust in 2013."
)
CONTRADICTED = [  # against SOURCE
    "Mozilla sponsored Rust in 2011.",
    "Mozilla never sponsored Rust.",
    "Rust 1.0 was published on May 15, 2019.",
    "Rust 1.0 was published on June 15, 2015.",
]


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        *((SOURCE, claim) for claim in CONTRADICTED),
        ("He was born in 1950 in Ohio and died in 2012.", "He was born in 1950 and died in 2010."),
        ("The bridge opened on 07 May 2015.", "The bridge opened on 6 May 2015."),
        ("The city has 2.5 million residents.", "The city has 1.5 million residents."),
        ("The city has twenty-two parks.", "The city has 21 parks."),
    ],
)
def test_a_number_date_or_negation_the_source_states_otherwise_contradicts(
    minilm: Embedder, premise: str, claim: str
) -> None:
    answer = FactContradiction(minilm)(premise, claim)
    assert answer == NliResult("contradiction", OPPOSED_SCORE)
    assert answer.score > CONTRADICTION_SCORE


def test_a_word_only_close_in_meaning_entails_nothing(minilm: Embedder) -> None:
    # husband and wife stand as close by MiniLM's word vectors as synonyms do
    answer = FactContradiction(minilm)("Her wife complained.", "Her husband complained.")
    assert answer.label != "entailment"
    same = FactContradiction(minilm)("Her husband complained.", "Her husband complained.")
    assert same.label == "entailment"


def test_a_claim_not_contradicted_scores_no_contradiction(minilm: Embedder) -> None:
    assert FactContradiction(minilm)(BORN, "He was born in 1950 and died in 2010.").score == 0.0


def test_many_claims_against_a_long_source_read_it_once() -> None:
    towns = ["Harbridge", "Millford", "Castleton", "Farmley", "Kingsbury"]
    sentences = [
        f"The mill of {towns[i % 5]} was rebuilt in {1700 + i % 300} by {i} workers."
        for i in range(10_000)
    ]
    embedder = CachedEmbedder(HashEmbedder(), SQLiteStore(":memory:"))
    check = FactContradiction(embedder)
    premise = " ".join(sentences)
    claims = [f"The mill of {towns[i % 5]} was rebuilt in 1650 by {i} workers." for i in range(200)]
    started = time.monotonic()
    answers = [check(premise, claim) for claim in claims]
    assert time.monotonic() - started < 60  # read anew for each claim: about 300 s
    assert "contradiction" in {a.label for a in answers}
    for i in (0, 199):  # the source read once answers as a source read anew
        assert FactContradiction(embedder)(premise, claims[i]) == answers[i]


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (SOURCE, "Mozilla sponsored Rust in 2009."),
        (SOURCE, "Rust 1.0 was published in May 2015."),
        ("Mozilla officially sponsored the Rust project.", "Mozilla sponsored Rust in 2011."),
        ("Rust 1.0 was published in May 2015.", "Rust 1.0 was published on May 15, 2015."),
        ("Honey bees live in colonies ruled by a queen.", "Mozilla sponsored Rust in 2011."),
        ("", "Mozilla sponsored Rust in 2011."),
        # a name the source never mentions keeps the claim from support, and no more
        (SOURCE, "Rust 1.0 was published on May 15, 2015 by Google."),
        (
            "Einstein won the Nobel Prize in Physics in 1921.",
            "Einstein won the Nobel Prize in 1921 while living in Berlin.",
        ),
        # another number of another kind, or backing another statement, is no other value
        (BORN, "He was born in 1950 and died in 2010."),
        (
            "He was born in 1950 in Ohio and married in 1975.",
            "He was born in 1950 and died in 2010.",
        ),
        # one date or number written two ways
        ("The bridge opened on 05/06/2015.", "The bridge opened on 6 May 2015."),
        ("The city has 1,500,000 residents.", "The city has 1.5 million residents."),
        ("The city has twenty-one parks.", "The city has 21 parks."),
    ],
)
def test_a_source_agreeing_silent_or_about_something_else_contradicts_nothing(
    minilm: Embedder, premise: str, claim: str
) -> None:
    assert FactContradiction(minilm)(premise, claim).label != "contradiction"


def test_the_verifier_with_it_finds_contradictions_the_cosine_calls_supported(
    minilm: Embedder,
) -> None:
    sources = [{"content": SOURCE, "url": "https://example.org/rust"}]
    claims = [*CONTRADICTED[:3], "Mozilla sponsored Rust in 2009."]
    seed = CitationVerifier(minilm).verify(claims, sources)
    assert [c.verdict for c in seed.claims] == ["supported"] * 4
    assert seed.overall_grounded
    checked = CitationVerifier(minilm, nli=FactContradiction(minilm)).verify(claims, sources)
    assert [c.verdict for c in checked.claims] == ["contradicted"] * 3 + ["supported"]
    assert (checked.contradicted_count, checked.overall_grounded) == (3, False)
    assert [c.confidence for c in checked.claims] == [c.confidence for c in seed.claims]


def test_grounded_means_no_claim_contradicted_as_the_seed_defines_it(minilm: Embedder) -> None:
    sources = [{"content": SOURCE}]
    claims = ["Mozilla sponsored Rust in 2009.", "Quarterly bond yields fell sharply in Oslo."]
    response = CitationVerifier(minilm, nli=FactContradiction(minilm)).verify(claims, sources)
    assert [c.verdict for c in response.claims] == ["supported", "unverifiable"]
    assert response.overall_grounded and response.supported_ratio == 0.5


def test_what_is_not_text_is_refused(minilm: Embedder) -> None:
    with pytest.raises(InvalidArgument, match="two strings"):
        FactContradiction(minilm)(SOURCE, None)  # type: ignore[arg-type]
