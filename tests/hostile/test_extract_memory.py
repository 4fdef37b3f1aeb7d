"""Hostile pages cannot make extraction hold memory out of proportion to the page.

Each page is read in a fresh interpreter under ``tracemalloc`` (article and page mode,
metadata included, as ``extract_document`` reads it), a few interpreters side by side; the
peak of what extraction allocates must stay within ``TIMES_INPUT`` times the page's size. A
page of one-letter blocks, of one-letter links, of references, of nested elements or a tag
with a flood of attributes peaked at 40 to 140 times its size before. The page is read with
a twelfth of the default text budget and is a twelfth of the size it would be at the default
(6 MB, twenty times the budget): what extraction keeps grows with the budget, so the
multiples are the same, and a copy growing with the page is as plain, in a twelfth of the
time. The scan's fixed allowance (``walk.MIN_COST``) is a larger share of a smaller budget,
so the multiples are if anything larger (one-letter links 17.9 at 25,000 against 17.1 at
100,000), and each page still runs past where the scan stops: twice as far for links, three
times for nested tables, ten times for lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from citesift.extract.html import DEFAULT_BUDGET

BUDGET = DEFAULT_BUDGET // 12
PAGE_CHARS = 20 * BUDGET
TIMES_INPUT = 20
AT_ONCE = min(os.cpu_count() or 1, 4)
"""Measures run side by side: one a core, at most four (each holds a few hundred MB)."""
PATTERNS = {
    "one-letter lines": "x<br>",
    "one-letter paragraphs": "<p>x</p>",
    "one-letter links": "<a>x</a>",
    "references": "&amp;",
    "cells": "<td>x",
    "nested tables": "<table><tr><td>x ",
    "nested blocks": "<div>",
    "class attributes": "<html " + "class=x " * 10,
    "distinct attributes": "<div a b c d e f g h i j k l m n o p q r s t u v w x y z",
}
SMALLER_PAGES = {PATTERNS["nested blocks"]: PAGE_CHARS // 10}
"""Nested blocks are read the slowest under ``tracemalloc`` (whose cost for each allocation
grows with how far into its function it is made, and the scan is one long loop: 20 s a
million characters traced, under a second untraced) and peak at a small fixed amount (44 KB,
0.9 times a page of 10,000 blocks, 19 times as deep as the scan's bound on depth): a smaller
page only makes a fixed peak a larger multiple of it, and a peak growing with the nesting the
same multiple."""
MEASURE = """
import json, sys, tracemalloc
from citesift import extract_document
unit, size, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
page = unit * (size // len(unit))
tracemalloc.start()
for mode in ("article", "page"):
    extract_document(page, mode=mode, budget=budget)
print(json.dumps({"peak": tracemalloc.get_traced_memory()[1], "size": len(page)}))
"""


def peak_over_size(unit: str, chars: int | None = None) -> float:
    """The peak of what extraction allocates reading a page of ``unit`` repeated to
    ``chars`` characters (``PAGE_CHARS`` unless ``SMALLER_PAGES`` names the unit) with a
    text budget of ``BUDGET``, as a multiple of the page's size (in a fresh interpreter)."""
    chars = chars or SMALLER_PAGES.get(unit, PAGE_CHARS)
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, unit, str(chars), str(BUDGET)],
        capture_output=True,
        timeout=600,
        check=True,
    )
    found = json.loads(done.stdout)
    return float(found["peak"]) / float(found["size"])


def measured(request: pytest.FixtureRequest, test: str) -> Iterator[dict[str, Future[float]]]:
    """``peak_over_size`` of the ``unit`` of each case of ``test`` (in the requesting module)
    the run selected, all started at once and ``AT_ONCE`` run at a time: each takes tens of
    seconds under ``tracemalloc``, and a case waits only for its own."""
    items = [i for i in request.session.items if i.module is request.module]
    callspecs = [getattr(i, "callspec", None) for i in items if i.originalname == test]
    units = dict.fromkeys(c.params["unit"] for c in callspecs if c is not None)
    with ThreadPoolExecutor(AT_ONCE) as pool:
        futures = {unit: pool.submit(peak_over_size, unit) for unit in units}
        try:
            yield futures
        finally:
            pool.shutdown(cancel_futures=True)


@pytest.fixture(scope="module")
def peaks(request: pytest.FixtureRequest) -> Iterator[dict[str, Future[float]]]:
    """The measure of each pattern the run selected, started together."""
    yield from measured(request, "test_peak_memory_stays_a_small_multiple_of_the_page")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("unit", PATTERNS.values(), ids=PATTERNS.keys())
def test_peak_memory_stays_a_small_multiple_of_the_page(
    unit: str, peaks: dict[str, Future[float]]
) -> None:
    assert peaks[unit].result() <= TIMES_INPUT
