"""FactContradiction: the offline NLI stand-in for CitationVerifier, built on the facts
verify_claim checks (numbers, dates, names, negation), with the bundled MiniLM."""

from __future__ import annotations

import pytest

from citesift import CitationVerifier, Embedder, FactContradiction, MiniLMEmbedder
from citesift.errors import InvalidArgument
from citesift.verify.verifier import CONTRADICTION_SCORE

SOURCE = (
    "Mozilla officially sponsored the Rust project in 2009. "
    "The first stable release, Rust 1.0, was published on May 15, 2015. "
    "Graydon Hoare stepped down from Rust in 2013."
)
CONTRADICTED = [
    "Mozilla sponsored Rust in 2011.",
    "Mozilla never sponsored Rust.",
    "Rust 1.0 was published on May 15, 2019.",
    "Rust 1.0 was published on June 15, 2015.",
    "Rust 1.0 was published on May 15, 2015 by Google.",
]


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize("claim", CONTRADICTED)
def test_a_number_date_name_or_negation_the_source_states_otherwise_contradicts(
    minilm: Embedder, claim: str
) -> None:
    answer = FactContradiction(minilm)(SOURCE, claim)
    assert answer.label == "contradiction"
    assert answer.score > CONTRADICTION_SCORE


@pytest.mark.parametrize(
    ("premise", "claim"),
    [
        (SOURCE, "Mozilla sponsored Rust in 2009."),
        (SOURCE, "Rust 1.0 was published in May 2015."),
        ("Mozilla officially sponsored the Rust project.", "Mozilla sponsored Rust in 2011."),
        ("Rust 1.0 was published in May 2015.", "Rust 1.0 was published on May 15, 2015."),
        ("Honey bees live in colonies ruled by a queen.", "Mozilla sponsored Rust in 2011."),
        ("", "Mozilla sponsored Rust in 2011."),
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
