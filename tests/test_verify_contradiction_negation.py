"""FactContradiction against a negation worded apart from the source: sentences of the
recorded Bill Clinton article, altered by a negation the page does not state, are
contradicted; as written, or with a negation of something else, a quoted one, two that
cancel, or a hedge, they are not."""

from __future__ import annotations

import pytest

from citesift import CitationVerifier, FactContradiction, MiniLMEmbedder, SQLiteStore
from citesift.extract import html_to_blocks
from citesift.index.embedders import CachedEmbedder
from citesift.verify.contradiction import OPPOSED_SCORE
from citesift.verify.verifier import CONTRADICTION_SCORE, NliResult
from conftest import WIKIPEDIA_FIXTURES

WON = "In 1964 and 1965, Clinton won elections for class president."
PAID = "Clinton later agreed to an out-of-court settlement and paid Jones $850,000."
FREEMASON = (
    "Clinton was also a member of the Order of DeMolay, a youth group affiliated with "
    "Freemasonry, but he never became a Freemason."
)
STUDIES = (
    "He is an Honorary Fellow of University College, Oxford, which he attended as a Rhodes "
    "Scholar, although he did not complete his studies there."
)


@pytest.fixture(scope="module")
def page() -> str:
    """The recorded article's paragraphs, as one source."""
    html = (WIKIPEDIA_FIXTURES / "pages" / "Bill_Clinton.html").read_text(encoding="utf-8")
    text = " ".join(b.text for b in html_to_blocks(html) if b.kind == "paragraph")
    assert all(s in text for s in (WON, PAID, FREEMASON, STUDIES))
    return text


@pytest.fixture(scope="module")
def check(page: str) -> FactContradiction:
    """One check for the module, so the page is split and embedded once."""
    return FactContradiction(CachedEmbedder(MiniLMEmbedder(), SQLiteStore(":memory:")))


@pytest.mark.parametrize(
    "claim",
    [
        # the page states it; the claim denies it, in the verb's other tense forms
        "In 1964 and 1965, Clinton did not win elections for class president.",
        "Clinton never won elections for class president.",
        "Clinton did not pay Jones $850,000.",
        "Clinton refused to pay Jones $850,000.",
        "Clinton failed to pay Jones $850,000.",
        "Clinton later agreed to an out-of-court settlement and never paid Jones $850,000.",
        "It is not true that Clinton won elections for class president.",
        # the page denies it; the claim states it
        "Clinton became a Freemason.",
        "Clinton was a member of the Order of DeMolay and became a Freemason in 1968.",
        "He completed his studies at University College, Oxford.",
    ],
)
def test_a_negation_worded_apart_from_the_page_contradicts(
    page: str, check: FactContradiction, claim: str
) -> None:
    answer = check(page, claim)
    assert answer == NliResult("contradiction", OPPOSED_SCORE)
    assert answer.score > CONTRADICTION_SCORE


@pytest.mark.parametrize(
    "claim",
    [
        # as the page writes them, its own negations shared
        WON,
        PAID,
        FREEMASON,
        "Clinton never became a Freemason.",
        "He did not complete his studies at Oxford.",
        # a negation of something the page does not state
        "Clinton paid Jones $850,000, not Broaddrick.",
        "In 1964 and 1965, Clinton won elections for class president but not for mayor.",
        # not only … but: both stated
        "Clinton not only won elections for class president but also became a Rhodes Scholar.",
        # someone else's words quoted
        'Jones said "Clinton never paid me $850,000."',
        # two negations cancelling
        "It is not true that Clinton never won elections for class president.",
        "Clinton did not fail to pay Jones $850,000.",
        # not … until says when
        "Clinton did not pay Jones $850,000 until he agreed to an out-of-court settlement.",
        # a hedge alone
        "Clinton probably paid Jones $850,000.",
        "Clinton reportedly won elections for class president in 1964 and 1965.",
    ],
)
def test_the_page_as_written_or_a_negation_not_of_its_statement_contradicts_nothing(
    page: str, check: FactContradiction, claim: str
) -> None:
    assert check(page, claim).label != "contradiction"


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        ("The bridge was rebuilt in 1952.", "The bridge was never rebuilt.", "contradiction"),
        ("The bridge was never rebuilt.", "The bridge was rebuilt in 1952.", "contradiction"),
        ("X won the award in 2001.", "X did not win the award.", "contradiction"),
        ("The museum opened in 1990.", "The museum was not opened.", "contradiction"),
        # no longer, never … again, not … anymore: it held once
        ("The museum opened in 1990.", "The museum is no longer open.", "other"),
        ("The museum is no longer open.", "The museum opened in 1990.", "other"),
        ("X won the award in 2001.", "X never won the award again.", "other"),
        ("The museum opened in 1990.", "The museum is not open anymore.", "other"),
        # a hedged or modal negation says what may be or is to come, not what was
        ("Smith won the race in 1990.", "Smith may not have won the race.", "other"),
        ("Smith won the race in 1990.", "Smith probably did not win the race.", "other"),
        ("Smith won the race in 1990.", "Smith might not win the race.", "other"),
        ("Smith ran the marathon in 1990.", "Smith will not run the marathon.", "other"),
        ("Smith ran the marathon in 1990.", "Smith won't run the marathon.", "other"),
        ("Smith may not have won the race.", "Smith won the race in 1990.", "other"),
        # but a plain denial in a sentence naming a month still denies
        (
            "Smith won the race in 1990.",
            "In May 1990, Smith did not win the race.",
            "contradiction",
        ),
        # a denial naming nothing but its verb denies no statement of that verb
        ("He never won.", "Smith won the Diamond Sculls in 1990.", "other"),
        ("Smith won the Diamond Sculls in 1990.", "He did not win.", "other"),
        # a denial of the more specific statement does not deny the general one
        ("The bridge was not rebuilt by the army.", "The bridge was rebuilt.", "other"),
        ("The bridge was rebuilt in 1952.", "The bridge was rebuilt, not repainted.", "other"),
        ("The bridge was rebuilt in 1952.", "The bridge may have been rebuilt.", "other"),
        ("If the bridge is not rebuilt, the ferry runs.", "The bridge was rebuilt.", "other"),
    ],
)
def test_short_sources_and_claims(
    check: FactContradiction, premise: str, claim: str, label: str
) -> None:
    answer = check(premise, claim)
    assert (answer.label if answer.label == "contradiction" else "other") == label


def test_a_page_stating_the_claim_is_not_turned_against_it_by_a_denial_elsewhere(
    check: FactContradiction,
) -> None:
    page = "Smith won the Diamond Sculls in 1990 at Henley. He never won it again."
    claim = "Smith won the Diamond Sculls in 1990."
    assert check(page, claim).label == "entailment"
    # a bare denial sharing the subject and verb, read only when the claim is not stated
    assert check(page.replace("He never won it again", "Smith did not win"), claim) == (
        check(page, claim)
    )
    assert check("Smith did not win.", claim).label == "contradiction"
    denied = "Smith won the Diamond Sculls in 1990 at Henley. Jones did not win the Diamond Sculls."
    assert check(denied, "Jones won the Diamond Sculls.").label == "contradiction"


def test_the_verifier_with_it_turns_a_negated_sentence_of_the_page_to_contradicted(
    check: FactContradiction,
) -> None:
    embedder = check.embedder
    assert embedder is not None
    sources = [{"content": PAID, "url": "https://en.wikipedia.org/wiki/Bill_Clinton"}]
    claims = ["Clinton did not pay Jones $850,000.", "Clinton paid Jones $850,000."]
    seed = CitationVerifier(embedder).verify(claims, sources)
    assert [c.verdict for c in seed.claims] == ["supported", "supported"]
    checked = CitationVerifier(embedder, nli=check).verify(claims, sources)
    assert [c.verdict for c in checked.claims] == ["contradicted", "supported"]
    assert not checked.overall_grounded


@pytest.mark.parametrize(
    ("premise", "claim", "label"),
    [
        # the other pole of a pair of antonyms, the same said besides, in one tense
        ("The bridge is closed.", "The bridge is open.", "contradiction"),
        ("The patient is dead.", "The patient is alive.", "contradiction"),
        ("The statement is false.", "The statement is true.", "contradiction"),
        ("Smoking in the park is illegal.", "Smoking in the park is legal.", "contradiction"),
        ("He won the election in 2010.", "He lost the election in 2010.", "contradiction"),
        ("Sales increased in 2020.", "Sales decreased in 2020.", "contradiction"),
        ("The attempt failed.", "The attempt succeeded.", "contradiction"),
        ("The council rejected the plan.", "The council approved the plan.", "contradiction"),
        # other times, other things, a denied, hedged, modal or conditional pole: no clash
        ("The bridge was open in 1990.", "The bridge is closed.", "other"),
        ("The bridge was open.", "The bridge is closed.", "other"),
        ("The bridge is closed to lorries.", "The bridge is open to cyclists.", "other"),
        ("The museum opened in 1990.", "The museum closed in 1990.", "other"),
        ("Smith won the race in 1990.", "Smith lost the race in 1991.", "other"),
        ("The bridge is not closed.", "The bridge is open.", "other"),
        ("The museum is no longer open.", "The museum is closed.", "other"),
        ("The bridge may be closed.", "The bridge is open.", "other"),
        ("If the bridge is closed, the ferry runs.", "The bridge is open.", "other"),
        ("The proposal was reportedly rejected.", "The proposal was accepted.", "other"),
        ("The probe failed to reach orbit.", "The probe succeeded.", "other"),
        ("He was alive in 1980. He died in 1990.", "He is dead.", "other"),
        # a yes-or-no question answered by a bare No denies all it asks
        ("Was he elected? No.", "He was elected.", "contradiction"),
        ("Was Smith elected mayor? No, he lost.", "Smith was elected mayor.", "contradiction"),
        ("Was Smith elected mayor? No.", "Smith was elected mayor in 1990.", "contradiction"),
        ("Is the bridge open? No. It shut in May.", "The bridge is open.", "contradiction"),
        # answered Yes, unanswered, denying in agreement, or a No that answers nothing
        ("Was Smith elected mayor? Yes.", "Smith was elected mayor.", "other"),
        ("Was Smith elected mayor in 1990? No.", "Smith was elected mayor.", "other"),
        ("Was Smith elected mayor? No.", "Smith was not elected mayor.", "other"),
        ("Was Smith elected mayor?", "Smith was not elected mayor.", "other"),
        ("Did Smith not win the race? No.", "Smith won the race.", "other"),
        ("No one was elected mayor in 1990.", "Smith was elected mayor in 1990.", "other"),
        # a No followed by a number is no answer: *No. 1*, *No, 1 in 3*
        ("Is it safe? No. 1 reason to worry is the dose.", "It is safe.", "other"),
        ("Was Smith elected? No. 1 on the list was Jones.", "Smith was elected.", "other"),
        ("Was Smith elected? No, 1 in 3 say.", "Smith was elected.", "other"),
        # a question of what may or can be, answered No, denies nothing that is
        ("Can cats eat grapes? No.", "Cats eat grapes.", "other"),
        ("Could the bridge open? No.", "The bridge is open.", "other"),
        # another subject, said in other words (he, she; this, that; the other)
        ("He was not elected.", "She was elected.", "other"),
        ("He never married.", "She married.", "other"),
        ("He is present.", "She is absent.", "other"),
        ("She won.", "He lost.", "other"),
        ("This is true.", "That is false.", "other"),
        ("His answer was correct.", "Her answer was incorrect.", "other"),
        ("The other statement is false.", "The statement is true.", "other"),
        # the same subject still clashes
        ("He was not elected.", "He was elected.", "contradiction"),
        ("He is present.", "He is absent.", "contradiction"),
        ("Her answer was correct.", "Her answer was incorrect.", "contradiction"),
        # two denials of one act agree
        ("It is not true that Clinton won the vote.", "Clinton never won the vote.", "other"),
    ],
)
def test_antonyms_and_a_bare_no_answering_a_question(
    check: FactContradiction, premise: str, claim: str, label: str
) -> None:
    answer = check(premise, claim)
    assert (answer.label if answer.label == "contradiction" else "other") == label
