"""How the offline judge labels a claim, on small pages written for these tests: the words
a source rewords or drops at will count for nothing, a negation is weighed against the
sentence that backs the claim, a claim none of whose statements is backed is not supported
at all unless a sentence says one of them in other words, a name the support leaves out
(even one the page states elsewhere) leaves the claim partly supported, a common word the
page never writes is matched by a near-synonym (never a number, a name, the other end of
a scale or a word a prefix of direction apart) toward partial support only, and the score
agrees with the label."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from citesift import Embedder, MiniLMEmbedder, OfflineJudge, SQLiteStore, verify_claim
from citesift.index.embedders import CachedEmbedder
from citesift.verify import find_candidates
from citesift.verify.facts import facts, number_kinds
from citesift.verify.judges.features import measure
from citesift.verify.judges.words_by_meaning import close_words
from judge_pages import judged


def test_connectives_and_discourse_words_need_not_be_repeated() -> None:
    plain = judged("The Harbour Bridge opened to traffic in 1932.")
    worded = judged("However, the Harbour Bridge still opened to traffic during 1932, as planned.")
    assert plain.label == worded.label == "supported", worded
    assert {1, 2, 3} <= set(worded.supporting)
    assert facts("however still during several").stems == frozenset()
    assert facts("before after against until only").stems == {
        "befor",
        "after",
        "against",
        "until",
        "onli",
    }


def test_a_title_before_a_name_need_not_be_repeated() -> None:
    assert facts("Dr. Ada Brooks and Mrs Lee").stems == facts("Ada Brooks and Lee").stems
    check = judged("Dr. Ada Brooks designed the Harbour Bridge.")
    assert check.label == "supported", check
    assert check.supporting == (2,)


def test_a_negation_denies_what_is_done_not_the_names_around_it() -> None:
    assert facts("He did not want to leave Savatage.").denied == {"want", "leav"}
    assert facts("She was not born in Paris in 1901.").denied == {"born"}
    stopped = "He would not start the Cheez-It 355 at The Glen a day after the crash."
    assert facts(stopped).denied == {"start"}


def test_a_denial_is_weighed_against_the_sentence_that_backs_the_claim() -> None:
    page = [
        "House rules",
        "Tobacco and alcohol are forbidden.",
        "Guests are allowed to use the garden.",
        "Breakfast is served at eight.",
    ]
    check = judged("Tobacco and alcohol are not allowed.", page)
    assert check.label == "supported", check
    assert 1 in check.supporting
    stated = judged("Tobacco and alcohol are allowed.", [*page[:1], "Tobacco is not allowed."])
    assert stated.label != "supported", stated
    assert "negation" in stated.reason


def test_a_claim_none_of_whose_statements_is_backed_is_not_supported() -> None:
    check = judged("The museum beside the river sells tickets for night tours of the lighthouse.")
    assert check.label == "not_supported", check
    assert check.supporting == ()
    assert check.score < 0.5
    backed = judged(
        "The Harbour Bridge was designed by Ada Brooks, who later built the lighthouse "
        "on the northern cape and the railway station at Westfield."
    )
    assert backed.label == "partially_supported", backed
    assert 2 in backed.supporting


def test_a_date_in_digits_matches_it_written_out() -> None:
    assert facts("Updated 2016-08-25 10:02").months == {8}
    assert {"2016", "25"} <= facts("Updated 2016-08-25 10:02").numbers
    assert facts("posted 25/08/2016").months == facts("posted 08/25/2016").months == {8}
    assert facts("posted 03/04/2016").months == frozenset()  # March 4 or 3 April: not sure
    page = [
        "Portola news",
        "Published 2016-08-25 07:00",
        "The new high school opened its doors to 400 freshmen this week.",
        "Classes for the other grades will be added one year at a time.",
    ]
    check = judged("The high school opened in August 2016 with 400 freshmen.", page)
    assert check.label == "supported", check
    assert set(check.supporting) == {1, 2}


def test_the_score_is_above_one_half_exactly_when_the_claim_is_supported() -> None:
    claims = [
        "The Harbour Bridge opened to traffic in 1932.",
        "The Harbour Bridge was designed by the engineer Ada Brooks.",
        "The Harbour Bridge was designed by Ada Brooks and opened in 1935.",
        "The Harbour Bridge was designed by Ada Brooks, who later built the lighthouse.",
        "The museum beside the river sells tickets for night tours of the lighthouse.",
        "Crowds lined both shores to watch the first trams cross in 1932.",
    ]
    checks = [judged(claim) for claim in claims]
    assert {c.label for c in checks} == {"supported", "partially_supported", "not_supported"}
    for check in checks:
        assert (check.score > 0.5) == (check.label == "supported"), check
    full, missed = judged(claims[0]), judged(claims[2])
    assert full.score > 0.5 > missed.score


def test_a_name_the_support_leaves_out_keeps_the_claim_partly_supported() -> None:
    page = [
        "Emotive is the third album by the band.",
        "Emotive was released in the autumn.",
        "Critics praised Emotive for its quiet songs.",
        "The band recorded the album in a barn near the coast over three weeks of winter.",
        "A tour followed Emotive in spring.",
        "Sales of Emotive were modest.",
        "The singer later moved to the city.",
        "The drummer left the group after the tour.",
    ]
    plain = judged("The band recorded the album in a barn near the coast over three weeks.", page)
    assert plain.label == "supported", plain
    named = judged("The band recorded Emotive in a barn near the coast over three weeks.", page)
    assert named.label == "partially_supported", named
    assert named.supporting == (3,)
    assert "Emotive" in named.reason


def test_numbers_in_words_and_scaled_read_as_their_digits() -> None:
    assert facts("1.5 million people").numbers == facts("1,500,000 people").numbers
    assert facts("1.5 million people").numbers == {"1500000"}
    assert facts("two billion").numbers == {"2000000000"}
    assert facts("3 thousand").numbers != facts("3 million").numbers
    assert facts("thirteen ships and forty sailors").numbers == {"13", "40"}
    assert facts("twenty-one pilots").numbers == {"21"}
    assert facts("ninety-nine").numbers == facts("99").numbers


def test_a_number_is_read_with_its_kind_and_without_leading_zeros() -> None:
    assert number_kinds("Born 6 May 2015, the second of 3.") == {
        ("day", "6"),
        ("year", "2015"),
        ("count", "3"),
    }
    assert number_kinds("on May 05, 2015") == {("day", "5"), ("year", "2015")}
    assert number_kinds("05/06/2015") == {("count", "5"), ("count", "6"), ("year", "2015")}
    assert number_kinds("agent 007") == {("count", "7")}


def test_one_of_a_group_counts_nothing() -> None:
    assert facts("one of the highest proportions").numbers == frozenset()
    assert facts("It took one year to paint.").numbers == {"1"}
    page = [
        "Harbour news",
        "The Harbour Bridge is among the longest arch bridges in the world.",
        "It opened in 1932.",
    ]
    check = judged("The Harbour Bridge is one of the longest arch bridges in the world.", page)
    assert check.label == "supported", check
    assert check.supporting == (1,)


TOWN = [  # a town's bulletin: many sentences, each of its own topic
    "Millbrook weekly bulletin",
    "Rain is expected on most days of the coming week.",
    "The farmers' market moves to the church car park in spring.",
    "Our under-twelve football team won the county cup on Saturday.",
    "The library will stay open late on Thursdays.",
    "A new bakery has opened on the high street.",
    "Road works on the bypass will last until the end of the month.",
    "The primary school choir sang at the care home.",
    "Tickets for the summer fair go on sale next week.",
    "The swimming pool is closed for repairs.",
    "A lost dog was found near the river and returned to its owner.",
    "Volunteers planted two hundred trees in the park.",
    "The bus timetable changes from Monday.",
    "Local artists will show their paintings in the town hall gallery.",
    "The cricket club is looking for new members.",
    "Parking charges in the centre will rise in April.",
    "The post office will move into the pharmacy.",
    "A charity run raised money for the hospice.",
    "The council met on Tuesday to discuss the scandal.",
    "Residents complained about noise from the quarry.",
    "The recycling centre has new opening hours.",
    "A film club meets in the community centre every Friday.",
    "The fire brigade held an open day for families.",
    "Broadband upgrades reach the villages this year.",
    "The vicar retires after thirty years in the parish.",
    "A farm shop now sells local cheese and honey.",
    "The railway station gets a new footbridge.",
    "Scouts camped in the woods over the holiday.",
    "A jazz band plays on the green on Sunday afternoons.",
    "The garden centre is hiring seasonal staff.",
    "Potholes on Mill Lane have been filled.",
    "The allotment society holds its show in August.",
]


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    """The bundled MiniLM, each text embedded once for the module."""
    return CachedEmbedder(MiniLMEmbedder(), SQLiteStore(":memory:"))


def test_a_statement_said_in_other_words_by_a_standout_sentence_is_partly_supported(
    minilm: Embedder,
) -> None:
    claim = "The mayor resigned in disgrace over a bribery scandal."
    said = [*TOWN, "Caught taking bribes, the town's leader quit in shame."]
    check = OfflineJudge(minilm).judge(claim, said, find_candidates(claim, said, minilm))
    assert check.label == "partially_supported", check
    assert len(said) - 1 in check.supporting
    assert "other words" in check.reason
    assert check.score < 0.5
    unsaid = [*TOWN, "Bribery is a crime in every country."]
    check = OfflineJudge(minilm).judge(claim, unsaid, find_candidates(claim, unsaid, minilm))
    assert check.label == "not_supported", check
    assert check.supporting == ()


class Counting:
    """An embedder that passes texts on to another and counts each text it is asked for."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.asked: Counter[str] = Counter()

    def embed(self, texts: Sequence[str]) -> Any:
        self.asked.update(texts)
        return self.inner.embed(texts)


def test_a_page_measured_again_by_meaning_is_embedded_once(minilm: Embedder) -> None:
    claim = "The mayor resigned in disgrace over a bribery scandal."
    said = [*TOWN, "Caught taking bribes, the town's leader quit in shame."]
    counting = Counting(minilm)
    check = verify_claim(claim, said, embedder=counting)
    assert "other words" in check.reason  # the page was measured by meaning
    assert all(counting.asked[sentence] == 1 for sentence in said), counting.asked
    found = dataclasses.replace(find_candidates(claim, said, minilm), vectors=None)
    again = Counting(minilm)  # a judge given candidates without the page's vectors
    check = OfflineJudge(again).judge(claim, said, found)
    assert "other words" in check.reason
    assert all(again.asked[sentence] == 1 for sentence in said), again.asked


def test_a_common_word_the_page_never_writes_is_matched_by_a_near_synonym(
    minilm: Embedder,
) -> None:
    claim = "The ferry company purchased bicycles for its crew."
    page = [*TOWN, "The ferry company bought bikes for its crew."]
    found = find_candidates(claim, page, minilm)
    check = OfflineJudge(minilm).judge(claim, page, found)
    assert check.label == "partially_supported", check  # full support needs the words
    assert check.supporting == (len(page) - 1,)
    assert "as written, the rest by words of like meaning" in check.reason
    as_written = measure(claim, page, found)
    assert as_written is not None and as_written.coverage < 0.6
    assert close_words({"bicycl": "bicycles"}, {"bike": "bikes"}, minilm) == {"bicycl": {"bike"}}


def test_words_are_matched_by_the_bundled_minilm_whatever_the_judges_embedder(
    minilm: Embedder,
) -> None:
    other = Counting(minilm)
    other.name = "another-scale"  # an embedder of its own name: its vectors are not MiniLM's
    claim = "The ferry company purchased scooters for its crew."
    page = [*TOWN, "The ferry company bought scooters for its crew."]
    check = OfflineJudge(other).judge(claim, page, find_candidates(claim, page, other))
    assert check.supporting == (len(page) - 1,)
    assert not {"purchased", "bought"} & other.asked.keys(), other.asked  # no single word


OPPOSITES = [  # MiniLM word cosines 0.81 to 0.89, as close as synonyms
    ("husband", "wife", True),
    ("landlord", "tenant", True),
    ("democrats", "republicans", True),
    ("monday", "tuesday", True),
    ("legal", "illegal", False),  # a prefix apart: never matched
    ("upstream", "downstream", False),
    ("inbound", "outbound", False),
    ("overestimate", "underestimate", False),
    ("ascending", "descending", False),
    ("quarterfinal", "semifinal", False),
]


@pytest.mark.parametrize(("word", "other", "matched"), OPPOSITES)
def test_a_word_of_opposite_meaning_never_makes_a_claim_supported(
    minilm: Embedder, word: str, other: str, matched: bool
) -> None:
    town = [line for line in TOWN if word not in line.lower() and other not in line.lower()]
    for said, written in [(word, other), (other, word)]:
        claim, page = f"The {said} complained.", [*town, f"The {written} complained."]
        near = close_words({said: said}, {written: written}, minilm)
        assert near == ({said: {written}} if matched else {})
        check = OfflineJudge(minilm).judge(claim, page, find_candidates(claim, page, minilm))
        assert check.label == "partially_supported", check
        assert check.supporting == (len(page) - 1,)


def test_numbers_names_and_the_ends_of_a_scale_are_not_matched_by_meaning(
    minilm: Embedder,
) -> None:
    def near(wanted: Mapping[str, str], offered: Mapping[str, str]) -> dict[str, frozenset[str]]:
        return close_words(wanted, offered, minilm)

    for claim, line in [
        ("The ferry crew bought eleven bikes.", "The ferry crew bought twelve bikes."),
        ("The ferry crew bought bikes from Raleigh.", "The ferry crew bought bikes from Peugeot."),
    ]:
        page = [*TOWN, line]
        found = find_candidates(claim, page, minilm)
        exact, by_meaning = measure(claim, page, found), measure(claim, page, found, near)
        assert exact is not None and by_meaning is not None
        assert by_meaning.coverage == exact.coverage < 1.0
        assert OfflineJudge(minilm).judge(claim, page, found).label == "partially_supported"
    claim = "The ferry crew bought bikes for art-making."  # make: no part of art
    page = [*TOWN, "The ferry crew bought bikes for art."]
    found = find_candidates(claim, page, minilm)
    compound = measure(claim, page, found, near)
    assert compound is not None and compound.coverage < 1.0
    assert close_words({"larger": "larger"}, {"smaller": "smaller"}, minilm) == {}
    assert close_words({"older": "older"}, {"younger": "younger"}, minilm) == {}
    assert close_words({"keeper": "keeper"}, {"goalkeep": "goalkeeper"}, minilm) == {
        "keeper": {"goalkeep"}
    }


def test_a_word_matched_by_meaning_is_embedded_once_for_many_claims(minilm: Embedder) -> None:
    counting = Counting(minilm)
    wanted, offered = {"zygot": "zygotes"}, {"embryo": "embryos", "ferri": "ferries"}
    assert close_words(wanted, offered, counting) == close_words(wanted, offered, counting)
    assert counting.asked == {"zygotes": 1, "embryos": 1, "ferries": 1}
