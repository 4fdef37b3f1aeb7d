"""Hostile pages cannot make extraction hold memory out of proportion to the page.

Each page is read in a fresh interpreter under ``tracemalloc`` (article and page mode,
metadata included, as ``extract_document`` reads it); the peak of what extraction allocates
must stay within ``TIMES_INPUT`` times the page's size. A page of one-letter blocks, of
one-letter links, of references, of nested elements or a tag with a flood of attributes
peaked at 40 to 140 times its size before.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PAGE_CHARS = 6_000_000
TIMES_INPUT = 20
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
MEASURE = """
import json, sys, tracemalloc
from citesift import extract_document
unit, size = sys.argv[1], int(sys.argv[2])
page = unit * (size // len(unit))
tracemalloc.start()
for mode in ("article", "page"):
    extract_document(page, mode=mode)
print(json.dumps({"peak": tracemalloc.get_traced_memory()[1], "size": len(page)}))
"""


def peak_over_size(unit: str, chars: int = PAGE_CHARS) -> float:
    """The peak of what extraction allocates reading a page of ``unit`` repeated to
    ``chars`` characters, as a multiple of the page's size (in a fresh interpreter)."""
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, unit, str(chars)],
        capture_output=True,
        timeout=600,
        check=True,
    )
    found = json.loads(done.stdout)
    return float(found["peak"]) / float(found["size"])


@pytest.mark.timeout(600)
@pytest.mark.parametrize("unit", PATTERNS.values(), ids=PATTERNS.keys())
def test_peak_memory_stays_a_small_multiple_of_the_page(unit: str) -> None:
    assert peak_over_size(unit) <= TIMES_INPUT
