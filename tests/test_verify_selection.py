"""Which sentences the offline judge names as a claim's support, on small pages written for
these tests: a sentence close in meaning to the claim joins for a smaller share of it, and
a statement of the claim the support leaves mostly unbacked gets a sentence of its own."""

from __future__ import annotations

import dataclasses

from citesift.verify import Candidates, OfflineJudge, find_candidates
from citesift.verify.facts import facts
from citesift.verify.judges.features import measure

PAGE = [
    "Harbour news",
    "The steel Harbour Bridge was designed by the engineer Ada Brooks and opened to traffic "
    "in 1932 after four years of work by fourteen hundred men.",
    "Crowds lined both shores to watch the first trams cross the new bridge.",
    "Its great arch was built by Dorman Long of Middlesbrough.",
    "The council said the ferries would keep running for some years.",
    "Tickets for the ferry will cost less from next month.",
    "Brooks lectured at the technical college.",
    "Fishing boats moored below the pylons every night.",
]
BUILT = "The steel Harbour Bridge designed by the engineer Ada Brooks opened to traffic in 1932"
ARCH = f"{BUILT} with an arch of granite."
"""One statement, its arch a small share of it, stated only by sentence 3."""


def chosen(claim: str, page: list[str], candidates: Candidates | None = None) -> tuple[int, ...]:
    """The sentences of ``page`` named as ``claim``'s support (BM25 candidates by default)."""
    measured = measure(claim, page, candidates or find_candidates(claim, page))
    assert measured is not None
    return measured.chosen


def closeness(candidates: Candidates, cosines: dict[int, float]) -> Candidates:
    """``candidates`` with the cosines an embedder would give (0.1 for the other sentences)."""
    dense = tuple(cosines.get(i, 0.1) for i in range(len(candidates.lexical)))
    return dataclasses.replace(candidates, dense=dense)


def test_a_sentence_close_in_meaning_joins_for_a_small_share_of_the_claim() -> None:
    found = find_candidates(ARCH, PAGE)
    assert chosen(ARCH, PAGE, found) == (1,)
    assert chosen(ARCH, PAGE, closeness(found, {1: 0.7, 3: 0.6})) == (1, 3)
    assert chosen(ARCH, PAGE, closeness(found, {1: 0.7, 3: 0.3})) == (1,)


def test_a_statement_left_unbacked_gets_the_sentence_that_backs_it() -> None:
    claim = (
        f"{BUILT} after four years of work by fourteen hundred men; Brooks lectured at a college."
    )
    assert chosen(claim, PAGE) == (1, 6)
    vaguer = [*PAGE[:6], "Brooks lectured often.", *PAGE[7:]]
    assert chosen(claim, vaguer) == (1,)


def test_a_published_time_in_digits_completes_a_claims_year() -> None:
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    page = ["PUBLISHED: 2016-08-25 09:30", *filler, "Rivers became the podcast's host."]
    assert chosen("Rivers became the podcast's host in 2016.", page) == (31, 0)
    undated = ["Page 2016 of 3000", *filler, "Rivers became the podcast's host."]
    assert chosen("Rivers became the podcast's host in 2016.", undated) == (31,)


def test_a_timestamp_or_a_year_first_date_is_read_as_its_date_and_dates_the_page() -> None:
    assert facts("PUBLISHED DATETIME: 2019-04-17T09:00:00Z").months == {4}
    assert facts("2009-12-05T10:00").numbers == {"5", "2009"}
    assert facts("2014-03-18T13:03:00PDT").numbers == {"18", "2014"}
    assert facts("Filed 2018-09-06T02:35:38-04:00").numbers == {"6", "2018"}
    assert facts("2019-13-40T10:00").months == frozenset()
    assert facts("Posted 2013/10/22 20:01:01").months == {10}
    assert facts("tzdata 2019.12.01").months == frozenset()  # a version, not a date
    assert facts("http://example.org/2013/10/22/story").months == frozenset()  # a path
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    claim = "Rivers became the podcast's host in April 2019."
    story = "Rivers became the podcast's host."
    stamp = "(meta data) PUBLISHED DATETIME: 2019-04-17T09:00:00+00:00"
    assert chosen(claim, [stamp, *filler, story]) == (31, 0)


def ranked_first(candidates: Candidates, first: tuple[int, ...]) -> Candidates:
    """``candidates`` with the sentences ``first`` put at the top of the ranking."""
    rest = tuple(i for i in candidates.ranked if i not in first)
    return dataclasses.replace(candidates, ranked=(*first, *rest))


def test_a_byline_marked_up_as_a_heading_is_a_dateline_completing_a_claims_date() -> None:
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    claim = "Rivers became the podcast's host in May 2019."
    story = "Rivers became the podcast's host."
    marked = ["###### By Jo Ames | May 24, 2019 2:44 pm", *filler, story]
    assert chosen(claim, marked) == (31, 0)
    wordy = ["Filed by Jo Ames of the harbour desk May 24, 2019 2:44 pm", *filler, story]
    assert chosen(claim, wordy) == (31,)


def test_a_published_and_an_updated_time_side_by_side_make_a_dateline() -> None:
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    claim = "Rivers became the podcast's host in May 2019."
    story = "Rivers became the podcast's host."
    bar = "Published 9:30 a.m. ET May 24, 2019 | Updated 2:44 p.m. ET May 25, 2019"
    assert chosen(claim, [bar, *filler, story]) == (31, 0)
    prose = "Filed on May 24, 2019 by the harbour desk | Read again by the editors of the paper"
    assert chosen(claim, [prose, *filler, story]) == (31,)


def test_a_caption_naming_a_month_of_a_year_is_no_dateline() -> None:
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    claim = "Rivers became the podcast's host in May 2019."
    story = "Rivers became the podcast's host."
    caption = "The studio on the quay, May 2019"
    assert chosen(claim, [caption, *filler, story]) == (31,)
    assert chosen(claim, ["The studio on the quay, May 24, 2019", *filler, story]) == (31, 0)


def test_a_month_run_into_the_word_before_it_is_read_as_a_month() -> None:
    assert facts("HomeNewsOPINIONMay 24 2019 - 12:00AM").months == {5}
    assert facts("Orange County RegisterAugust 25, 2016").months == {8}
    assert facts("Mayday 24").months == facts("RegisterAugust").months == frozenset()
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(30)]
    page = ["HomeNewsOPINIONMay 24 2019 - 12:00AM", *filler, "Rivers became the podcast's host."]
    assert chosen("Rivers became the podcast's host in May 2019.", page) == (31, 0)


def test_of_two_sentences_covering_nearly_as_much_the_better_ranked_is_named() -> None:
    opened = "The steel Harbour Bridge designed by Ada Brooks opened"
    page = [
        "Harbour news",
        f"{opened} to traffic in 1932 after four years of work.",
        f"{opened} in 1932 after four years of work.",
        "The steel Harbour Bridge opened after four years of work.",
        "Fishing boats moored below the pylons every night.",
    ]
    claim = f"{opened} to traffic in 1932 after four years of work."
    found = find_candidates(claim, page)
    assert chosen(claim, page, ranked_first(found, (1, 2))) == (1,)
    assert chosen(claim, page, ranked_first(found, (2, 1))) == (2,)
    assert chosen(claim, page, ranked_first(found, (3, 1))) == (1,)


def test_a_heading_close_in_meaning_does_not_join_for_a_small_share_of_the_claim() -> None:
    page = [*PAGE[:3], "Its great arch", *PAGE[4:]]
    found = closeness(find_candidates(ARCH, page), {1: 0.7, 3: 0.6})
    assert 3 in found.short
    assert chosen(ARCH, page, found) == (1,)
    assert chosen(ARCH, PAGE, closeness(find_candidates(ARCH, PAGE), {1: 0.7, 3: 0.6})) == (1, 3)


def test_a_sentence_less_close_to_the_claim_than_the_page_is_does_not_join() -> None:
    claim = f"{BUILT} with an arch built by Dorman Long of Middlesbrough."
    found = find_candidates(claim, PAGE)
    assert chosen(claim, PAGE, found) == (1, 3)
    assert chosen(claim, PAGE, closeness(found, {1: 0.7, 3: 0.5})) == (1, 3)
    assert chosen(claim, PAGE, closeness(found, {1: 0.7, 3: 0.0})) == (1,)


def test_a_sentence_beside_the_support_standing_out_by_meaning_adds_a_single_fact() -> None:
    filler = [f"Ledger {n} of the harbour trust lists the tolls of the year." for n in range(20)]
    page = [*PAGE, *filler]
    claim = f"{BUILT} before crowds."
    found = find_candidates(claim, page)
    assert chosen(claim, page, found) == (1,)
    assert chosen(claim, page, closeness(found, {1: 0.7, 2: 0.45})) == (1, 2)
    assert chosen(claim, page, closeness(found, {1: 0.7, 2: 0.2})) == (1,)


def test_a_sentence_far_from_the_support_adding_one_word_is_read_but_not_named() -> None:
    claim = "Ada Brooks designed the harbour bridge for the ferries."
    filler = [f"Ledger {n} of the trust lists the tolls of the year." for n in range(6)]
    ferries = "Ferries crossed the bay every hour."
    near = ["Harbour news", "Ada Brooks designed the harbour bridge.", ferries, *filler]
    far = ["Harbour news", "Ada Brooks designed the harbour bridge.", *filler, ferries]
    assert chosen(claim, near) == (1, 2)
    assert chosen(claim, far) == (1,)
    read = [measure(claim, page, find_candidates(claim, page)) for page in (near, far)]
    assert [m.coverage for m in read if m is not None] == [1.0, 1.0]
    assert [m.apart for m in read if m is not None] == [(), (8,)]
    reason = OfflineJudge().judge(claim, far, find_candidates(claim, far)).reason
    assert "some in “Ferries crossed the bay every hour.”, read but not named" in reason
    dated = ["Harbour news", "Ada Brooks designed the harbour bridge.", *filler, "May 2, 1932"]
    assert chosen(f"{claim[:-1]} in 1932.", dated) == (1, 8)


def test_a_sentence_joining_for_its_closeness_is_named_only_beside_the_support() -> None:
    claim = f"{BUILT} with a great arch of granite."
    filler = [f"Ledger {n} of the great harbour trust lists the year's tolls." for n in range(6)]
    arch = "Its great arch of Middlesbrough steel was built by Dorman Long."
    near, far = [*PAGE[:3], arch, *filler], [*PAGE[:3], *filler, arch]
    found = closeness(find_candidates(claim, near), {1: 0.7, 3: 0.6})
    assert chosen(claim, near, found) == (1, 3)
    found = closeness(find_candidates(claim, far), {1: 0.7, 9: 0.6})
    measured = measure(claim, far, found)
    assert measured is not None and measured.chosen == (1,)
    unclose = measure(claim, far, closeness(find_candidates(claim, far), {1: 0.7}))
    assert unclose is not None and measured.coverage > unclose.coverage


def test_the_first_sentence_named_is_one_stating_several_of_the_claims_statements() -> None:
    claim = (
        "The engineer Ada Brooks of Leeds designed the steel Harbour Bridge for the city "
        "council, which opened it to traffic in 1932."
    )
    page = [
        "Harbour news",
        "The city council chose a steel Harbour Bridge designed by the engineer Ada Brooks "
        "of Leeds.",
        "Crowds lined both shores to watch the first trams cross.",
        "The ferries kept running for some years.",
        "The engineer Ada Brooks saw her steel Harbour Bridge opened to traffic in 1932.",
        "Fishing boats moored below the pylons every night.",
    ]
    assert chosen(claim, page) == (4, 1)
    page[4] = "Brooks saw the bridge opened to traffic in 1932."
    assert chosen(claim, page) == (1, 4)


def test_a_heading_tied_with_a_full_sentence_stating_its_words_gives_way_to_it() -> None:
    claim = "Ada Brooks was named chief engineer of the Harbour Trust in 1930."
    page = [
        "Harbour news",
        "## Harbour Trust names Ada Brooks chief engineer",
        "The trust met on Monday in the old customs house.",
        "The board named Ada Brooks chief engineer of the Harbour Trust.",
        "Fishing boats moored below the pylons every night.",
        "Harbour Trust names Ada Brooks chief engineer; see the minutes",
        "Published 4 May 1930",
    ]
    found = find_candidates(claim, page)
    assert found.ranked[0] == 1  # the heading ranks first, for being short
    assert chosen(claim, page, found) == (3, 6)  # the sentence states what it names
    unsaid = [*page[:3], "The board met again in June.", *page[4:]]
    assert chosen(claim, unsaid) == (1, 6)
    # a longer line that is no sentence (a link's text, a page's title) keeps its place
    assert chosen(claim, page, ranked_first(found, (5, 3))) == (5, 6)
    # a sentence ended by a footnote mark or an ellipsis is a full one too
    for ending in (".[3]", "…"):
        marked = [*page[:3], page[3].removesuffix(".") + ending, *page[4:]]
        assert chosen(claim, marked, find_candidates(claim, marked)) == (3, 6)


def test_of_datelines_tied_for_a_claims_date_the_one_heading_its_passage_is_named() -> None:
    claim = "Rivers became the podcast's host in 2019."
    filler = [f"Item {n} of the archive lists a ledger of the harbour trust." for n in range(4)]
    page = [
        "March 3, 2019 Harbour news",  # the page's first item
        *filler,
        "May 24, 2019 Harbour news",  # heads the story
        "The studio stands on the harbour front.",
        "Its windows look over the pier.",
        "Rivers became the podcast's host.",
        "The ferry timetable is below.",
        "June 2, 2019 Harbour news",  # heads the next item, nearer the story
        *filler,
    ]
    assert chosen(claim, page) == (8, 5)
    unheaded = [*page[:5], "Harbour news", *page[6:]]
    assert chosen(claim, unheaded) == (8, 0)  # a line after the story heads another item
