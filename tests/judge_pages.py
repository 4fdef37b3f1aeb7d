"""A small page written for the offline judge's tests, and the judge's grade of a claim
over it, shared by the tests of its rules and of its labels."""

from __future__ import annotations

from citesift import ClaimCheck, OfflineJudge
from citesift.verify import find_candidates

PAGE = [
    "Harbour news",
    "June 3, 1932",
    "The Harbour Bridge was designed by the engineer Ada Brooks.",
    "The bridge opened to traffic on Friday after four years of work.",
    "Crowds lined both shores to watch the first trams cross.",
    "The council said the bridge had nothing to do with the delays at the port.",
    "The city also plans a new museum beside the river, which will display old maps.",
    "Tickets for the ferry will cost less from next month.",
    "Brooks later taught at the technical college for many years.",
    "In 1933 the port handled more grain than in any year before, a record for the decade.",
]


def judged(claim: str, page: list[str] = PAGE) -> ClaimCheck:
    """``claim`` graded by the offline judge over the BM25 candidates of ``page``."""
    return OfflineJudge().judge(claim, page, find_candidates(claim, page))
