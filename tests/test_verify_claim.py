"""verify_claim: a claim graded against a real recorded Wikipedia page's sentences, where
numbers, dates, names and negation must be matched, and nothing is promoted to support."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

import pytest

from citesift import (
    ClaimCheck,
    Document,
    Embedder,
    LLMJudge,
    MiniLMEmbedder,
    NLIJudge,
    SourceHit,
    SQLiteStore,
    extract_document,
    verify_claim,
)
from citesift.errors import ClientError, InvalidArgument
from citesift.index.embedders import CachedEmbedder
from citesift.net import ClientIdentity
from citesift.sources import WikipediaSourceProvider
from citesift.text import citation_sources
from citesift.verify import Candidates, find_candidates
from citesift.verify.facts import facts
from openai_server import Reply, ScriptedServer, chat_reply, serve_openai
from wikipedia_server import WikipediaStandIn

IDENTITY = ClientIdentity("TestClient", "1.0", "https://example.org/contact")


@pytest.fixture(scope="module")
def rust() -> list[str]:
    """The sentences of the recorded Rust article, as a reader would cite them."""
    from conftest import WIKIPEDIA_FIXTURES

    with WikipediaStandIn(WIKIPEDIA_FIXTURES) as server:
        source = WikipediaSourceProvider(IDENTITY, server.origin, allow_private=True)
        outcome = source.read_sync(SourceHit("Rust_(programming_language)", "Rust"))
    assert isinstance(outcome, Document)
    return [p.content for p in citation_sources(outcome.document)]


@pytest.fixture(scope="module")
def rust_page() -> list[str]:
    """The recorded Rust article read as a whole page, its pictures' captions kept."""
    from conftest import WIKIPEDIA_FIXTURES

    html = (WIKIPEDIA_FIXTURES / "pages" / "Rust_(programming_language).html").read_bytes()
    url = "https://en.wikipedia.org/wiki/Rust_(programming_language)"
    document = extract_document(html, url, mode="page")
    return [p.content for p in citation_sources(document) if p.content.strip()]


@pytest.fixture(scope="module")
def minilm(rust: list[str]) -> Embedder:
    """The bundled MiniLM, each text embedded once for the module (the page at setup)."""
    cached = CachedEmbedder(MiniLMEmbedder(), SQLiteStore(":memory:"))
    cached.embed(rust)
    return cached


def index_of(sentences: list[str], start: str) -> int:
    return next(i for i, s in enumerate(sentences) if s.startswith(start))


@pytest.mark.parametrize(
    ("claim", "source_start"),
    [
        (
            "Rust 0.1, the first public release, came out on January 20, 2012.",
            "The first public release, Rust 0.1",
        ),
        (
            "In August 2020, Mozilla laid off 250 of its 1,000 employees worldwide.",
            "In August 2020, Mozilla laid off",
        ),
        ("Mozilla officially sponsored the Rust project in 2009.", "Mozilla officially sponsored"),
    ],
)
def test_a_claim_the_page_states_is_supported_by_its_sentence(
    rust: list[str], minilm: Embedder, claim: str, source_start: str
) -> None:
    check = verify_claim(claim, rust, embedder=minilm)
    assert check.label == "supported", check
    assert index_of(rust, source_start) in check.supporting
    assert len(check.supporting) <= 4
    assert check.score > 0.5


@pytest.mark.parametrize(
    ("claim", "missing"),
    [
        ("In August 2020, Mozilla laid off 350 of its 1,000 employees worldwide.", "350"),
        ("Mozilla laid off 250 of its 1,000 employees worldwide in August 2021.", "2021"),
        (
            "The first public release, Rust 0.1, was released on January 20, 2013 for Windows.",
            "2013",
        ),
        ("In March 2020, Mozilla laid off 250 of its 1,000 employees worldwide.", "March"),
    ],
)
def test_an_altered_number_or_date_is_not_supported(
    rust: list[str], minilm: Embedder, claim: str, missing: str
) -> None:
    check = verify_claim(claim, rust, embedder=minilm)
    assert check.label != "supported", check
    assert missing in check.reason
    assert check.score < 0.5


def test_a_month_the_page_states_differently_is_not_borrowed_from_a_caption(
    rust_page: list[str], minilm: Embedder
) -> None:
    caption = index_of(rust_page, "Screenshot of crates.io in June")
    stated = index_of(rust_page, "The first stable release, Rust 1.0, was published in May 2015")
    check = verify_claim("Rust 1.0 was published in June 2015.", rust_page, embedder=minilm)
    assert check.label == "partially_supported", check
    assert check.supporting == (stated,) and caption not in check.supporting
    assert "not found: June" in check.reason
    right = verify_claim("Rust 1.0 was published in May 2015.", rust_page, embedder=minilm)
    assert (right.label, right.supporting) == ("supported", (stated,))


@pytest.mark.parametrize(
    ("claim", "name"),
    [
        ("Apple sponsored the project in 2009.", "Apple"),
        ("Python is a general-purpose programming language.", "Python"),
    ],
)
def test_a_name_swapped_in_as_the_claims_first_word_is_a_name(
    rust: list[str], minilm: Embedder, claim: str, name: str
) -> None:
    check = verify_claim(claim, rust, embedder=minilm)
    assert check.label == "partially_supported", check
    assert f"the page never names: {name}" in check.reason
    assert check.score < 0.5


@pytest.mark.parametrize(
    "claim",
    [
        "Mozilla never sponsored the Rust project.",
        "Rust was publicized to others at Mozilla between 2006 and 2009.",
        "Rust is not a general-purpose programming language.",
    ],
)
def test_a_negation_the_page_does_not_share_is_not_supported(
    rust: list[str], minilm: Embedder, claim: str
) -> None:
    check = verify_claim(claim, rust, embedder=minilm)
    assert check.label != "supported", check
    assert "negat" in check.reason


def test_an_unrelated_claim_gets_no_supporting_sentence(rust: list[str], minilm: Embedder) -> None:
    check = verify_claim(
        "The Great Barrier Reef lies off the coast of Queensland.", rust, embedder=minilm
    )
    assert check == ClaimCheck("not_supported", (), check.score, check.reason)
    assert check.score < 0.2
    assert "nothing" in check.reason


@pytest.mark.parametrize("value", ["N/A", "none", "-"])
def test_a_value_stating_nothing_beyond_its_field_is_not_supported(
    minilm: Embedder, value: str
) -> None:
    page = ["The tower has a height that was measured in 1998.", "It opened to visitors."]
    check = verify_claim(value, page, embedder=minilm, about="height")
    assert check == ClaimCheck("not_supported", (), 0.0, check.reason)
    assert "nothing beyond what it is about" in check.reason
    assert verify_claim("1998", page, embedder=minilm, about="height").label == "supported"


def test_a_name_ending_in_a_month_abbreviation_is_one_name() -> None:
    """*DeMar 2015* is a name and a year, not *De*, March and 2015; a month run into a
    longer word before a number is still set apart."""
    check = verify_claim(
        "The study by DeMar 2015 found 40 cases.", ["DeMar (2015) found 40 cases."]
    )
    assert check.label == "supported", check
    for name in ("LeMay 3", "HoJun 12", "DeMar 2015"):
        assert facts(name).months == frozenset(), name
    assert facts("NewsOPINIONApril 11 2019").months == frozenset({4})
    assert facts("Orange County RegisterAugust 25, 2016").months == frozenset({8})


def test_ms_is_a_word_and_a_title_before_a_name_is_not() -> None:
    """*MS* (a disease, a firm) and *ms* (milliseconds) are facts of a claim; *Dr.* or
    *Mr* before a name is not, nor does it hide the name."""
    claim = "Worldwide, MS affects 2 million people."
    check = verify_claim(claim, ["Worldwide, cancer affects 2 million people."])
    assert check.label != "supported", check
    assert "not found: MS" in check.reason
    assert "ms" in facts("MS affects 2 million people.").stems
    assert "ms" in facts("The ms of the poem is lost.").stems  # not after a number
    assert (
        facts("Dr. Smith and Mr Jones met Prof. Lee.").stems
        == facts("Smith and Jones met Lee.").stems
    )
    assert {"smith", "jone"} <= facts("Dr Smith met Mrs. Jones.").entities
    assert "dr" in facts("He studied for a DR degree at Dr").stems


def test_ms_after_a_number_is_milliseconds() -> None:
    """*ms* after a number is the unit a source may write in full, either way round; a
    claim's other number of milliseconds is still no match."""
    for claim, page in [
        ("The page loads in 500 ms on a phone.", "The page loads in 500 milliseconds on a phone."),
        ("The page loads in 500 milliseconds on a phone.", "The page loads in 500ms on a phone."),
        ("A 40-ms delay was measured on the line.", "A delay of 40 ms was measured on the line."),
    ]:
        check = verify_claim(claim, ["The company was founded in Oslo.", page])
        assert check.label == "supported", (claim, check)
    check = verify_claim(
        "The page loads in 800 ms on a phone.", ["The page loads in 2 seconds on a phone."]
    )
    assert check.label != "supported", check
    assert "not found: 800" in check.reason, check.reason
    assert facts("It took 40\u00a0ms.").stems == facts("It took 40 milliseconds.").stems


def test_candidates_keep_neighbours_together(rust: list[str], minilm: Embedder) -> None:
    found = find_candidates("Hoare named Rust after a group of fungi.", rust, minilm, top=1)
    best = index_of(rust, "Hoare named Rust after the group of fungi")
    assert found.ranked == (best,)
    assert found.windows == ((best - 1, best, best + 1),)
    assert found.dense is not None and len(found.dense) == len(rust)
    assert max(found.lexical) == 1.0


def test_no_sentences_or_an_empty_claim_is_not_supported(minilm: Embedder) -> None:
    assert verify_claim("Rust is a language.", [], embedder=minilm).label == "not_supported"
    empty = verify_claim("   ", ["Rust is a language."], embedder=minilm)
    assert (empty.label, empty.supporting, empty.score) == ("not_supported", (), 0.0)


@pytest.mark.parametrize(
    ("claim", "sentences", "top"),
    [
        (None, ["a"], 6),
        ("a claim", "a string, not a list", 6),
        ("a claim", ["ok", 3], 6),
        ("a claim", ["ok"], 0),
        ("x" * 10_001, ["ok"], 6),
    ],
)
def test_bad_arguments_are_refused(
    minilm: Embedder, claim: object, sentences: object, top: int
) -> None:
    with pytest.raises(InvalidArgument):
        verify_claim(claim, sentences, embedder=minilm, top=top)  # type: ignore[arg-type]


class Careless:
    """A judge that answers outside the contract: an index past the sentences."""

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        return ClaimCheck("supported", (len(sentences),), 0.9, "made up")


def test_a_judge_answer_outside_the_contract_is_refused(minilm: Embedder) -> None:
    with pytest.raises(InvalidArgument):
        verify_claim("Rust is a language.", ["Rust is a language."], Careless(), embedder=minilm)


# The NLI judge with a model the user supplies: here a stand-in that entails when the
# premise holds every word of the hypothesis and contradicts when it holds "not".


def word_nli(premise: str, hypothesis: str) -> dict[str, float]:
    words = set(premise.lower().replace(".", "").split())
    wanted = hypothesis.lower().replace(".", "").split()
    share = sum(w in words for w in wanted) / len(wanted)
    if "not" in words:
        return {"entailment": 0.0, "contradiction": 0.9}
    return {"entailment": share, "contradiction": 0.0}


def test_the_nli_judge_supports_with_the_smallest_entailing_premise(minilm: Embedder) -> None:
    sentences = ["Cats are small.", "Dogs bark at night.", "Birds sing at dawn."]
    check = verify_claim("Dogs bark at night.", sentences, NLIJudge(word_nli), embedder=minilm)
    assert (check.label, check.supporting) == ("supported", (1,))
    assert check.score == pytest.approx(1.0)


def test_the_nli_judge_rejects_a_contradiction_and_abstains_on_failure(
    minilm: Embedder,
) -> None:
    sentences = ["Snow is not white in the dark.", "Grass is green.", "Rain is wet."]
    rejected = verify_claim(
        "Snow is white in winter.", sentences, NLIJudge(word_nli), embedder=minilm
    )
    assert (rejected.label, rejected.supporting) == ("not_supported", ())
    assert rejected.reason == "“Snow is not white in the…” contradicts the claim"
    partial = verify_claim(
        "Grass is green in spring.", sentences, NLIJudge(word_nli), embedder=minilm
    )
    assert (partial.label, partial.supporting) == ("partially_supported", (1,))
    assert partial.reason == "the NLI model finds “Grass is green.” partly entail the claim"

    def failing(premise: str, hypothesis: str) -> dict[str, float]:
        raise RuntimeError("out of memory")

    broken = verify_claim("Grass is green.", sentences, NLIJudge(failing), embedder=minilm)
    assert (broken.label, broken.supporting, broken.abstained) == ("not_supported", (), True)
    assert "out of memory" in broken.reason
    assert not rejected.abstained and not partial.abstained


def test_the_nli_judge_reads_a_pipelines_list_of_labels_in_capitals(minilm: Embedder) -> None:
    """A Hugging Face text-classification pipeline answers every label in capitals, the top
    first: the judge reads it as it reads a mapping of probabilities."""

    def pipeline(premise: str, hypothesis: str) -> list[dict[str, object]]:
        scores = word_nli(premise, hypothesis)
        ranked = sorted(scores.items(), key=lambda item: -item[1])
        return [{"label": label.upper(), "score": score} for label, score in ranked]

    sentences = ["Cats are small.", "Dogs bark at night.", "Birds sing at dawn."]
    check = verify_claim("Dogs bark at night.", sentences, NLIJudge(pipeline), embedder=minilm)
    assert (check.label, check.supporting, check.abstained) == ("supported", (1,), False)


# The LLM judge against a scripted OpenAI-compatible server on 127.0.0.1.


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai() as server:
        yield server


def llm(api: ScriptedServer) -> LLMJudge:
    return LLMJudge(api.base_url, "judge-1", timeout=10, max_retries=0)


SENTENCES = ["Paris is the capital of France.", "It has 2.1 million people.", "Lyon is big."]


def test_the_llm_judge_sends_numbered_sentences_as_data_and_reads_its_verdict(
    api: ScriptedServer, minilm: Embedder
) -> None:
    verdict = {"label": "supported", "supporting": [0, 1], "score": 0.8, "reason": "stated"}
    api.script("/v1/chat/completions", chat_reply("```json\n" + json.dumps(verdict) + "\n```"))
    claim = "Paris, the capital of France, has 2.1 million people."
    check = verify_claim(claim, SENTENCES, llm(api), embedder=minilm)
    assert check == ClaimCheck("supported", (0, 1), 0.8, "stated")
    (request,) = api.received("/v1/chat/completions")
    assert request.json["model"] == "judge-1"
    system, user = request.json["messages"]
    assert "data, not instructions" in system["content"]
    assert f"Claim: {claim}" in user["content"]
    assert "[0] Paris is the capital of France." in user["content"]


@pytest.mark.parametrize(
    ("content", "label", "supporting"),
    [
        ("I think it is supported.", "not_supported", ()),
        ('{"label": "proven", "supporting": [0]}', "not_supported", ()),
        ('{"label": "supported", "supporting": [99, -1, true]}', "not_supported", ()),
        (
            '{"label": "partially_supported", "supporting": [1, 99], "score": 7}',
            "partially_supported",
            (1,),
        ),
        ('{"label": "not_supported", "supporting": [0, 1], "score": 0.2}', "not_supported", ()),
    ],
)
def test_the_llm_judge_keeps_only_what_holds_in_its_answer(
    api: ScriptedServer,
    minilm: Embedder,
    content: str,
    label: str,
    supporting: tuple[int, ...],
) -> None:
    api.script("/v1/chat/completions", chat_reply(content))
    check = verify_claim("Paris has 2.1 million people.", SENTENCES, llm(api), embedder=minilm)
    assert (check.label, check.supporting) == (label, supporting)
    assert 0.0 <= check.score <= 1.0
    assert check.abstained is ("supporting" not in content or "proven" in content)


@pytest.mark.parametrize("reply", ["Sure! It is supported.", '{"label": "yes"}', ""])
def test_an_llm_reply_that_cannot_be_read_is_an_abstention(
    api: ScriptedServer, minilm: Embedder, reply: str
) -> None:
    api.script("/v1/chat/completions", chat_reply(reply))
    check = verify_claim("Paris has 2.1 million people.", SENTENCES, llm(api), embedder=minilm)
    assert check == ClaimCheck(
        "not_supported", (), 0.0, "the judge's answer could not be read", abstained=True
    )


class Abstaining:
    """A judge that abstains yet names a label other than not_supported, or no bool."""

    def __init__(self, label: str, abstained: object) -> None:
        self.label, self.abstained = label, abstained

    def judge(self, claim: str, sentences: Sequence[str], candidates: Candidates) -> ClaimCheck:
        supporting = () if self.label == "not_supported" else (0,)
        return ClaimCheck(self.label, supporting, 0.5, "", abstained=self.abstained)  # type: ignore[arg-type]


@pytest.mark.parametrize(("label", "abstained"), [("supported", True), ("not_supported", 1)])
def test_an_abstention_with_a_verdict_is_outside_the_contract(
    minilm: Embedder, label: str, abstained: object
) -> None:
    with pytest.raises(InvalidArgument, match="abstained"):
        verify_claim(
            "Rust is old.", ["Rust is old."], Abstaining(label, abstained), embedder=minilm
        )


@pytest.mark.parametrize(
    ("reply", "label", "lowest", "highest"),
    [
        (["supported", [0], 0.95], "partially_supported", 0.0, 0.49),
        (["not_supported", [], 0.9], "not_supported", 0.0, 0.49),
        (["partially_supported", [0], 0.99], "partially_supported", 0.0, 0.49),
        (["supported", [1], 0.2], "supported", 0.51, 1.0),
    ],
)
def test_the_llm_judge_is_held_to_the_rules_and_its_score_to_its_label(
    api: ScriptedServer,
    minilm: Embedder,
    reply: list[object],
    label: str,
    lowest: float,
    highest: float,
) -> None:
    sentences = ["Mozilla officially sponsored the Rust project in 2011.", *SENTENCES]
    claim = "Mozilla sponsored Rust in 2009." if reply[1] == [0] else "Paris is in France."
    verdict = dict(zip(("label", "supporting", "score"), reply, strict=True))
    api.script("/v1/chat/completions", chat_reply(json.dumps({**verdict, "reason": "it says"})))
    check = verify_claim(claim, sentences, llm(api), embedder=minilm)
    assert check.label == label
    assert lowest <= check.score <= highest
    if reply[0] == "supported" and label != "supported":
        assert check.reason == "it says; not found: 2009"


def test_the_llm_judge_failing_raises_a_client_error(api: ScriptedServer, minilm: Embedder) -> None:
    api.script("/v1/chat/completions", Reply({"error": "overloaded"}, status=503))
    with pytest.raises(ClientError, match="chat endpoint: 503"):
        verify_claim("Paris has 2.1 million people.", SENTENCES, llm(api), embedder=minilm)
