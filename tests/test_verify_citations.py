"""CitationVerifier: claims graded by their nearest source, as the seed's tests describe."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pytest

from citesift import Document, SourceHit
from citesift.errors import InvalidArgument
from citesift.index import MiniLMEmbedder
from citesift.net import ClientIdentity
from citesift.sources import WikipediaSourceProvider
from citesift.text import citation_sources
from citesift.verify import (
    CitationSource,
    CitationVerifier,
    NliResult,
    VerifiedResponse,
    cosine_similarity,
    extract_claims,
    format_verified_response,
)
from wikipedia_server import WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")
WORD = re.compile(r"\w+")


class WordCounts:
    """Word-count vectors over the words seen so far: equal texts give equal vectors."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        words = [WORD.findall(t.lower()) for t in texts]
        for w in (w for ws in words for w in ws):
            self.vocabulary.setdefault(w, len(self.vocabulary))
        rows = np.zeros((len(texts), max(len(self.vocabulary), 1)))
        for row, ws in enumerate(words):
            for w in ws:
                rows[row, self.vocabulary[w]] += 1
        return rows.tolist()


def test_cosine_similarity_cases() -> None:
    assert cosine_similarity([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert cosine_similarity([1, 0], [0, 1]) == 0
    assert cosine_similarity([1, 2, 3], [4, 5, 6]) == pytest.approx(0.9746, abs=1e-4)
    assert cosine_similarity([0, 0, 0], [1, 2, 3]) == 0
    assert cosine_similarity([3], [5]) == pytest.approx(1.0)
    with pytest.raises(InvalidArgument):
        cosine_similarity([1, 2], [1, 2, 3])


def test_empty_text_has_no_claims_and_is_grounded() -> None:
    embed = WordCounts()
    response = CitationVerifier(embed).verify("", [CitationSource("Anything at all here.")])
    assert response == VerifiedResponse((), True, 1.0, 0, 0, 0, 0, 0)
    assert embed.calls == []
    assert format_verified_response(response) == "No verifiable claims found."


def test_a_custom_extractor_gets_the_raw_text() -> None:
    seen: list[str] = []

    def split(text: str) -> list[str]:
        seen.append(text)
        return ["the sky is blue today"]

    verifier = CitationVerifier(WordCounts(), extract_claims=split)
    response = verifier.verify("raw  text\n```code```", [CitationSource("the sky is blue today")])
    assert seen == ["raw  text\n```code```"]
    assert [v.text for v in response.claims] == ["the sky is blue today"]


def test_nli_contradiction_overturns_a_supported_claim() -> None:
    def nli(premise: str, hypothesis: str) -> NliResult:
        assert (premise, hypothesis) == ("The river flows north.", "The river flows south.")
        return NliResult("contradiction", 0.9)

    verifier = CitationVerifier(WordCounts(), support_threshold=0.01, nli=nli)
    response = verifier.verify(["The river flows south."], [{"content": "The river flows north."}])
    assert response.claims[0].verdict == "contradicted"
    assert response.overall_grounded is False
    assert response.contradicted_count == 1


@pytest.mark.parametrize(
    "answer",
    [
        NliResult("contradiction", 0.7),  # not above the bar
        {"label": "entailment", "score": 0.99},
        {"label": "contradiction", "score": float("nan")},
        ("CONTRADICTION", 0.5),
        [{"label": "entailment", "score": 0.8}, {"label": "contradiction", "score": 0.2}],
    ],
)
def test_nli_that_does_not_clearly_contradict_leaves_supported(answer: object) -> None:
    verifier = CitationVerifier(WordCounts(), support_threshold=0.01, nli=lambda p, h: answer)
    response = verifier.verify(["The river flows south."], [{"content": "The river flows north."}])
    assert response.claims[0].verdict == "supported"


@pytest.mark.parametrize(
    "answer",
    [
        ("contradiction", 0.95),
        ["contradiction", 0.95],
        [{"label": "contradiction", "score": 0.95}],  # a pipeline's top item
        [{"label": "entailment", "score": 0.03}, {"label": "CONTRADICTION", "score": 0.95}],
        {"label": "CONTRADICTION", "score": 0.95},
        NliResult(" Contradiction", 0.95),
    ],
)
def test_nli_answers_in_common_shapes_are_read(answer: object) -> None:
    verifier = CitationVerifier(WordCounts(), support_threshold=0.01, nli=lambda p, h: answer)
    response = verifier.verify(["The river flows south."], [{"content": "The river flows north."}])
    assert response.claims[0].verdict == "contradicted"


@pytest.mark.parametrize(
    "answer",
    ["garbage", None, [], ("contradiction",), {"label": "contradiction"}, (0.95, "contradiction")],
)
def test_nli_answer_of_no_known_shape_is_the_callers_bug(answer: object) -> None:
    verifier = CitationVerifier(WordCounts(), support_threshold=0.01, nli=lambda p, h: answer)
    with pytest.raises(InvalidArgument, match="nli's answer"):
        verifier.verify(["The river flows south."], [{"content": "The river flows north."}])


def test_nli_errors_are_ignored_and_only_supported_claims_are_asked() -> None:
    asked: list[str] = []

    def failing(premise: str, hypothesis: str) -> NliResult:
        asked.append(hypothesis)
        raise RuntimeError("model crashed")

    verifier = CitationVerifier(WordCounts(), nli=failing)
    response = verifier.verify(
        ["red green blue", "red green blue yellow pink orange grey brown black white", "cats"],
        [CitationSource("red green blue")],
    )
    assert [v.verdict for v in response.claims] == ["supported", "weak", "unverifiable"]
    assert asked == ["red green blue"]


def test_a_list_skips_the_extractor_and_keeps_order() -> None:
    def split(text: str) -> list[str]:
        raise AssertionError("not called for a list")

    verifier = CitationVerifier(WordCounts(), extract_claims=split)
    response = verifier.verify(["b?", "a"], [CitationSource("a")])
    assert [v.text for v in response.claims] == ["b?", "a"]


def test_one_embedding_call_covers_claims_and_sources() -> None:
    embed = WordCounts()
    CitationVerifier(embed).verify(["one two", "three"], [CitationSource("x y"), {"content": "z"}])
    assert embed.calls == [["one two", "three", "x y", "z"]]


def test_two_sentence_text_gives_two_claims() -> None:
    text = "Paris is the capital of France. Berlin is the capital of Germany."
    response = CitationVerifier(WordCounts()).verify(text, [CitationSource("Paris is in France")])
    assert response.total_claims == 2


def test_thresholds_decide_the_verdict_and_all_nonpositive_means_no_source() -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        table = {
            "c1": [1, 0],
            "c2": [0.6, 0.8],  # cosine 0.6 with s: supported at the bar
            "c3": [0.31, 0.95],  # just above 0.3: weak
            "c4": [0.29, 0.957],  # below 0.3: unverifiable, yet a source
            "c5": [0, 1],  # cosine 0: no source at all
            "c6": [-1, 0],  # negative: no source
            "s": [1, 0],
        }
        return [table[t] for t in texts]

    response = CitationVerifier(embed).verify(
        ["c1", "c2", "c3", "c4", "c5", "c6"], [CitationSource("s", "S", "https://s.example/")]
    )
    got = [(v.verdict, v.source_index) for v in response.claims]
    assert got == [
        ("supported", 0),
        ("supported", 0),
        ("weak", 0),
        ("unverifiable", 0),
        ("unverifiable", None),
        ("unverifiable", None),
    ]
    assert response.claims[4].confidence == 0 and response.claims[5].confidence == 0
    assert response.claims[5].source_ref is None and response.claims[5].source_snippet is None
    assert (response.supported_count, response.weak_count, response.unverifiable_count) == (
        2,
        1,
        3,
    )
    assert response.supported_ratio == pytest.approx(2 / 6)
    assert format_verified_response(response) == "2/6 claims verified (33%)"


def test_ties_keep_the_first_source_and_the_snippet_is_cut() -> None:
    long = "alpha " * 60
    response = CitationVerifier(WordCounts()).verify(
        ["alpha"],
        [CitationSource(long, url="https://a/"), CitationSource("alpha", url="https://b/")],
    )
    verdict = response.claims[0]
    assert verdict.source_index == 0 and verdict.source_ref == "https://a/"
    assert verdict.source_snippet == long[:200]


def test_format_rounds_half_up() -> None:
    half = VerifiedResponse((), True, 0.125, 8, 1, 0, 0, 7)
    assert format_verified_response(half) == "1/8 claims verified (13%)"
    assert format_verified_response(VerifiedResponse((), True, 0.5, 2, 1, 0, 1, 0)) == (
        "1/2 claims verified (50%)"
    )


def test_extract_claims_rule() -> None:
    text = (
        "Short one. The tower is 330 metres tall!  I think it is lovely.\n"
        "```\nThe code block says nothing at all.\n```\n"
        "Is it the tallest structure? Maybe not quite. It opened in 1889 for the fair. "
        "Feel free to ask more questions. Let me know anything."
    )
    assert extract_claims(text) == [
        "The tower is 330 metres tall!",
        "It opened in 1889 for the fair.",
    ]
    assert extract_claims("") == []
    with pytest.raises(InvalidArgument):
        extract_claims(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("claims", "sources"),
    [
        (["ok claim"], "not a list"),
        (["ok claim"], [42]),
        (["ok claim"], [{"content": 3}]),
        ([1, 2], [CitationSource("x")]),
        ("text", None),
    ],
)
def test_bad_arguments_are_refused(claims: object, sources: object) -> None:
    with pytest.raises(InvalidArgument):
        CitationVerifier(WordCounts()).verify(claims, sources)  # type: ignore[arg-type]


def test_an_embedder_answering_the_wrong_count_is_refused() -> None:
    with pytest.raises(InvalidArgument):
        CitationVerifier(lambda texts: [[1.0]]).verify(["a", "b"], [CitationSource("c")])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        CitationVerifier(WordCounts(), support_threshold=float("nan"))
    with pytest.raises(InvalidArgument):
        CitationVerifier("not a function")  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def stand_in() -> Iterator[WikipediaStandIn]:
    from conftest import WIKIPEDIA_FIXTURES

    with WikipediaStandIn(WIKIPEDIA_FIXTURES) as server:
        yield server


@pytest.mark.timeout(60)
def test_a_wikipedia_lead_sentence_supports_itself(stand_in: WikipediaStandIn) -> None:
    source = WikipediaSourceProvider(IDENTITY, stand_in.origin, allow_private=True)
    outcome = source.read_sync(SourceHit("Rust_(programming_language)", "Rust"))
    assert isinstance(outcome, Document)
    passages = citation_sources(outcome.document)
    claim = passages[0].content
    response = CitationVerifier(WordCounts()).verify([claim], passages)
    verdict = response.claims[0]
    assert verdict.verdict == "supported" and verdict.source_index == 0
    assert verdict.source_ref == f"{stand_in.origin}/wiki/Rust_(programming_language)"
    assert verdict.source_snippet == claim
    assert verdict.confidence == pytest.approx(1.0)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=1)


def test_the_offline_embedder_grades_a_paraphrase_above_an_unrelated_claim(
    minilm: MiniLMEmbedder,
) -> None:
    sources = [
        CitationSource("The Eiffel Tower in Paris was finished in 1889.", url="https://e/"),
        CitationSource("Honey bees live in colonies ruled by a queen.", url="https://b/"),
    ]
    response = CitationVerifier(minilm).verify(
        ["The Eiffel Tower was completed in 1889.", "Quarterly bond yields fell sharply."],
        sources,
    )
    paraphrase, unrelated = response.claims
    assert paraphrase.verdict == "supported" and paraphrase.source_ref == "https://e/"
    assert unrelated.verdict == "unverifiable"
    assert response.supported_ratio == 0.5
