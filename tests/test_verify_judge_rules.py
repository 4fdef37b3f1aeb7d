"""The offline judge's rules on small pages written for these tests: a claim's statements
are graded each, a date may come from the page's dateline, a negation speaks only of the
words it governs, a name the page never states keeps a claim from support, and the
supporting indices are the sentences that cover the claim."""

from __future__ import annotations

import pytest

from citesift.verify.facts import facts
from citesift.verify.judges.quoting import QUOTED_CHARS, quote
from citesift.verify.judges.subclaims import split_claim
from judge_pages import PAGE, judged


def test_a_claim_spread_over_two_sentences_names_both_and_no_other() -> None:
    check = judged("The Harbour Bridge, designed by Ada Brooks, opened to traffic in 1932.")
    assert check.label == "supported", check
    assert set(check.supporting) == {1, 2, 3}
    assert check.score > 0.5


def test_a_date_is_taken_from_the_dateline_but_not_from_an_unrelated_sentence() -> None:
    dated = judged("The Harbour Bridge opened to traffic in June 1932.")
    assert dated.label == "supported", dated
    assert 1 in dated.supporting
    undated = judged("The Harbour Bridge opened to traffic in 1933.")
    assert undated.label != "supported", undated
    assert 9 not in undated.supporting
    assert "1933" in undated.reason
    assert undated.score < 0.5


def test_a_claim_with_one_statement_backed_is_partly_supported() -> None:
    check = judged(
        "The Harbour Bridge was designed by Ada Brooks, who also built the lighthouse "
        "on the northern cape and the railway station at Westfield."
    )
    assert check.label == "partially_supported", check
    assert 2 in check.supporting


def test_a_name_the_page_never_states_keeps_the_claim_from_support() -> None:
    check = judged("The Harbour Bridge was designed by the engineer Carl Jensen.")
    assert check.label != "supported", check
    assert "never names" in check.reason
    assert "Jensen" in check.reason
    assert check.score < 0.5


def test_a_name_opening_the_claim_is_told_from_a_common_word_by_the_page() -> None:
    page = [
        "The old mill by the river was built in 1850.",
        "Visitors can walk to the mill from the station.",
        "The village has a school for local children.",
    ]
    swapped = judged("Carlsen built the old mill by the river in 1850.", page)
    assert swapped.label == "partially_supported", swapped
    assert "the page never names: Carlsen" in swapped.reason
    common = judged("Locals built the old mill by the river in 1850.", page)
    assert "never names" not in common.reason, common
    named = [*page, "A painting by Carlsen hangs in the school."]
    assert "never names" not in judged("Carlsen built the old mill in 1850.", named).reason


def test_a_negation_counts_only_for_the_words_it_governs() -> None:
    assert judged("The Harbour Bridge opened to traffic in 1932.").label == "supported"
    page = [*PAGE[:3], "The bridge did not open to traffic in 1932.", *PAGE[4:]]
    denied = judged("The Harbour Bridge opened to traffic in 1932.", page)
    assert denied.label != "supported", denied
    assert "negation" in denied.reason
    song = ["The band toured Europe.", "The song reached No. 1 in Australia in its first week."]
    assert judged("The song reached number one in Australia.", song).label == "supported"


def test_a_family_word_the_stemmer_leaves_apart_still_matches() -> None:
    page = ["Reporters covered the war for years.", "He was killed in Misrata, Libya, in 2011."]
    check = judged("He was killed in the Libyan city of Misrata in 2011.", page)
    assert check.label == "supported", check
    assert check.supporting == (1,)
    page = ["The season opens in May.", "She was picked for the Canadian team in 2017."]
    check = judged("In 2017 she was picked for the team of Canada.", [*page, "Her coach agreed."])
    assert check.label == "supported", check  # Canada's family drops its final vowel
    assert check.supporting == (1,)


def test_nothing_behind_a_claim_is_not_supported_and_names_no_sentence() -> None:
    check = judged("Volcanic soils in Iceland grow large potatoes every summer.")
    assert check.label == "not_supported"
    assert check.supporting == ()


@pytest.mark.parametrize(
    ("claim", "statements"),
    [
        (
            "Brian Pendleton (13 April 1944 – 16 May 2001) was a British guitarist and a "
            "founder member of the pop group The Pretty Things.",
            [
                "Brian Pendleton",
                "13 April 1944",
                "16 May 2001",
                "was a British guitarist",
                "and a founder member of the pop group The Pretty Things.",
            ],
        ),
        (
            "The library holds over 260,000 volumes, including the first book it acquired.",
            ["The library holds over 260,000 volumes", "including the first book it acquired."],
        ),
        (
            "A keen tennis player, he lives in Leeds.",
            ["A keen tennis player", "he lives in Leeds."],
        ),
        ("In 2018, it won.", ["In 2018 it won."]),
    ],
)
def test_a_claim_is_cut_into_the_statements_it_makes(claim: str, statements: list[str]) -> None:
    assert split_claim(claim) == statements


def test_a_span_of_years_written_short_matches_it_written_in_full() -> None:
    page = ["The school was renamed.", "The new name takes effect over the 2018-2019 year."]
    check = judged("The new name takes effect during the 2018–19 year.", page)
    assert check.label == "supported", check


@pytest.mark.parametrize(
    ("written", "years"),
    [
        ("the 2018–19 season", {"2018", "2019"}),
        ("the 2019-20 season", {"2019", "2020"}),
        ("the 2019/20 season", {"2019", "2020"}),
        ("the 1999–00 season", {"1999", "2000"}),  # into the next century
        ("the 1999/00 season", {"1999", "2000"}),
        ("the 1999-00 season", {"1999", "2000"}),
        ("the 1995–06 term", {"1995", "2006"}),  # an en dash joins a span only
        ("filed 1995-06", {"1995"}),  # a hyphen and a month's number: no decade-long span
        ("the 2009-12 term", {"2009", "2012"}),  # alone: a span, as prose writes one
        ("posted 2009-12-05", {"2009", "5"}),  # a day follows: 5 December 2009
        ("posted 2009-12-05T10:30", {"2009", "5"}),  # an ISO timestamp: its date
        ("see /2009/12/notes", {"2009", "12"}),  # a path: its year and month
        ("the 2019-12 budget", {"2019", "12"}),  # ends before it starts: a year, a number
    ],
)
def test_a_span_of_years_is_read_in_full_and_a_date_is_not_a_span(
    written: str, years: set[str]
) -> None:
    assert {n for n in facts(written).numbers if len(n) == 4 or n in years} == years


def test_a_season_across_a_century_matches_it_written_in_full() -> None:
    page = ["The club was founded in Leeds.", "It won the league in the 1999-2000 season."]
    assert judged("It won the league in the 1999–00 season.", page).label == "supported"
    assert judged("It won the league in the 2019/20 season.", page).label != "supported"
    dated = judged("The archive was opened on 2009-12-05.", ["It opened on 5 December 2009."])
    assert dated.label == "supported", dated


def test_a_date_followed_by_its_time_is_no_span_of_years() -> None:
    assert facts("Posted Dec 5, 2019 - 12:00AM").numbers == {"5", "2019", "12", "00"}
    assert facts("the 2019-12 budget").numbers == {"2019", "12"}  # a span ends after it starts
    page = ["Posted Dec 5, 2019 - 12:00AM", "The old paper mill on the river closed its gates."]
    check = judged("The old paper mill on the river closed its gates in 2012.", page)
    assert check.label != "supported", check
    assert "2012" in check.reason


def test_a_month_the_support_states_differently_is_a_conflict_no_other_line_fills() -> None:
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    story = "The ferry service to the island began in March 1921."
    page = [story, *filler, "Posted on June 2, 1921", "The quay in June 1950"]
    moved = judged("The ferry service to the island began in June 1921.", page)
    assert moved.label == "partially_supported", moved
    assert moved.supporting == (0,)
    assert "June" in moved.reason
    assert judged("The ferry service to the island began in March 1921.", page).label == (
        "supported"
    )
    # a sentence dating the claim's event less finely, or backing only part of it, leaves
    # the date to another line
    less = ["The ferry service to the island began in 1921.", *filler, "Posted on June 2, 1921"]
    assert judged("The ferry service to the island began in June 1921.", less).label == (
        "supported"
    )


def test_a_dateline_far_from_the_candidates_completes_a_date() -> None:
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    page = ["Last modified on Mon 27 Nov 2017", *filler, "Rivers became the podcast's host."]
    check = judged("Rivers became the podcast's host in 2017.", page)
    assert check.label == "supported", check
    assert check.supporting == (0, 31)


def test_a_quoted_sentence_is_short_and_printable() -> None:
    assert quote("Mozilla officially sponsored the Rust project in 2009.") == (
        "“Mozilla officially sponsored the Rust project…”"
    )
    assert quote("Paid\u202e\u200b to \x1b[31mus\tnow") == "“Paid to [31mus now”"
    long = quote("Donaudampfschifffahrtsgesellschaftskapitän" * 5 + " was here")
    assert len(long) == QUOTED_CHARS + 2 and long.endswith("…”")
