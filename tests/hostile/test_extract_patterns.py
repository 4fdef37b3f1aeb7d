"""Hostile pages against every reader of HTML: extraction time stays linear in the input.

Each pattern is a fragment repeated to a page's size (unclosed tag openers, attribute quote
runs, deep nesting of every block element, unclosed comments, raw-text openers, reference
runs…). Reading it through ``html_to_blocks`` in both modes, ``strip_tags`` and
``extract_metadata`` may cost a few times what a normal page of the same size costs, never
the hundreds of times a quadratic scan costs (the patterns here took seconds to minutes
before). The bound is relative, measured in the same test, so a busy machine slows both.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from timing import assert_at_most

from citesift import extract_metadata, html_to_blocks, strip_tags
from citesift.extract import skip

PAGE_CHARS = 200_000
TIMES_NORMAL = 20  # linear patterns stay under ~7x; the quadratic ones were 50x to 1000x
NORMAL_UNIT = (
    '<div class="post"><h2>Heading</h2><p>Some prose with <a href="/x">a link</a> and '
    "<b>bold</b> text &amp; an entity, running on for a while.</p>"
    "<ul><li>item one</li><li>item two</li></ul></div>\n"
)
BLOCK_TAGS = [
    *("p", "div", "li", "ul", "ol", "dl", "dt", "dd", "table", "tr", "td", "th", "blockquote"),
    *("section", "article", "aside", "nav", "header", "footer", "main", "h1", "h2", "pre"),
    *("figure", "form", "details", "summary", "address", "center", "fieldset"),
]
FRAGMENTS = [
    # tag openers the input never closes, and attribute quote runs
    *("<p", "<div class='x'", '<div class="x', "<a", "<a ", "<p x='", '<p x="', "<p x="),
    *("<p x='a'", "<h1", "</p", "</", "<", "<meta", "<meta ", "<link", "<time", "<html"),
    *("<body", "<p style=", "<a href='", "<a rel=license", "<svg><svg", "<nav><svg"),
    # the look-ahead for licence links, titles, declarations, comments, raw text
    *("<a rel=license>", "<a rel=license href=x>x</a>", "<title>", "<title>x</title>"),
    *("<!--", "<!-- x", "<p>x</p><!--", "<!", "<?", "<![CDATA[", "<!DOCTYPE", "<!DOCTYPE x ["),
    *("<script", "<script>", "<style>", "<textarea>", "<noscript>", "<iframe>", "<plaintext>"),
    *("<nav><script", "<nav><!--", "<nav><div", "<div><nav></nav>", "<div><p><nav>x</nav>"),
    # nesting and closing of every kind
    *(f"<{tag}>" for tag in BLOCK_TAGS),
    *(f"<{tag}>x " for tag in BLOCK_TAGS),
    *("<table><tr><td>x ", "<td><p>", "<p><p>", "<li><p>", "<h2>x</h2>", "<a>x</a>", "</a>"),
    *("<div><span><b><i>", "</div>", "</td>", "<b></i>", "<a><div>", "x<br>", "<br>"),
    *("<div hidden>", "<div style='display:none'>", "<p style='display:none'>x</p>"),
    *("<p style='d\\69splay:none'>x", "<p style='/*", "<p style='\\", "<p style='&#"),
    *("<sup class=reference>x</sup>", "<div class=nav>", "<div role=navigation>"),
    *("<meta name=description content='", "<script type='application/ld+json'>{"),
    # references and characters
    *("&#", "&#x", "&", "&amp", "&amp;", "&#1234567890", "&#x110000;", "&nbsp", "&copyX"),
    *("\u200b", "x\u200b", "x\u00ad", "e\u0301", "\u0301", "é "),
]


def normal_page(size: int) -> str:
    return "<html><head><title>t</title></head><body>" + NORMAL_UNIT * (size // len(NORMAL_UNIT))


def read_all(html: str) -> None:
    html_to_blocks(html, "article")
    html_to_blocks(html, "page")
    strip_tags(html)
    extract_metadata(html)


def assert_linear(html: str) -> None:
    """Reading ``html`` costs at most ``TIMES_NORMAL`` normal pages of its size; a slow
    first try is measured again, beside a new measure of the normal page."""
    normal = normal_page(len(html))
    assert_at_most(
        lambda: read_all(html), lambda: read_all(normal), TIMES_NORMAL, "for a normal page"
    )


def repeated(fragment: str, size: int = PAGE_CHARS) -> str:
    return fragment * max(1, size // len(fragment))


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("fragment", FRAGMENTS)
def test_a_page_of_one_repeated_fragment_reads_in_linear_time(fragment: str) -> None:
    assert_linear(repeated(fragment))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("tag", ["p", "div", "a", "title", "script", "table"])
def test_openers_closed_once_at_the_very_end_read_in_linear_time(tag: str) -> None:
    assert_linear(repeated(f"<{tag}", PAGE_CHARS) + ">")


ATOMS = st.sampled_from(
    [
        *("<", ">", "</", "<!--", "-->", "'", '"', "=", "&", "#", ";", "[", "]", "/", " "),
        *("p", "a", "div", "td", "table", "script", "title", "style", "li", "x", "DOCTYPE"),
        *("<p>", "<a ", "<div ", "<table>", "<!", "<?", "&amp", "&#", "rel=license", "\u200b"),
    ]
)


@pytest.mark.slow
@pytest.mark.timeout(600)
@settings(max_examples=25, deadline=None)
@given(st.lists(ATOMS, min_size=1, max_size=8).map("".join))
def test_generated_repetitions_read_in_linear_time(fragment: str) -> None:
    assert_linear(repeated(fragment))


CLI = [sys.executable, "-c", "from citesift.cli import main; main()"]
CLI_PATTERNS = ["<p", "<div class='x'", "<a", "<table><tr><td>x ", "<title>", "<!--", "&copyX"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("fragment", CLI_PATTERNS)
def test_the_extract_command_reads_a_hostile_page_in_bounded_time(
    fragment: str, tmp_path: Path
) -> None:
    page = tmp_path / "hostile.html"
    page.write_text(repeated(fragment) + "<p>end of page</p>", encoding="utf-8")
    for mode in ("article", "page"):
        started = time.perf_counter()
        done = subprocess.run(
            [*CLI, "extract", "--mode", mode, str(page)],
            capture_output=True,
            timeout=120,
            check=False,
        )
        took = time.perf_counter() - started
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert b"Traceback" not in done.stderr
        assert took < 60, took  # start-up included; the quadratic read took minutes


def ever_new_open_sets(count: int) -> str:
    """A page whose dropped elements each sit in a new set of open elements (a Gray code
    over sixteen block tags), and whose hidden inline elements each have a new name."""
    tags = "div section article ul ol dl table blockquote center details fieldset figure"
    names = [*tags.split(), "form", "header", "footer", "main"]
    parts = []
    for i in range(1, count):
        flipped = ((i ^ (i >> 1)) ^ ((i - 1) ^ ((i - 1) >> 1))).bit_length() - 1
        opening = (i ^ (i >> 1)) >> flipped & 1
        parts.append(f"<{'' if opening else '/'}{names[flipped]}>")
        parts.append(f"<nav>n<div>x</div></nav><x{i} hidden>h</x{i}><p>text {i}</p>")
    return "".join(parts)


@pytest.mark.timeout(300)
def test_ever_new_sets_of_open_elements_read_in_linear_time() -> None:
    assert_linear(ever_new_open_sets(PAGE_CHARS // 70))


@pytest.mark.timeout(300)
@pytest.mark.parametrize("unit", ["<n", "</n<", "<a<b/"])
def test_unclosed_tag_names_after_the_named_searches_are_used_up_read_in_linear_time(
    unit: str,
) -> None:
    # the named searches of a page run out first; then a dropped element holds tag names
    # that never end (40 KB of "<n" took 7 s, read again from every "<")
    used_up = ever_new_open_sets(200) + "<p>kept</p><div hidden>"
    assert_linear(used_up + repeated(unit, 40_000))


@pytest.mark.parametrize("mode", ["article", "page"])
def test_the_search_for_any_tag_finds_what_the_named_searches_find(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = ever_new_open_sets(3_000)
    named = html_to_blocks(page, mode)  # type: ignore[arg-type]
    monkeypatch.setattr(skip, "PATTERNS_PER_PAGE", 0)
    assert html_to_blocks(page, mode) == named  # type: ignore[arg-type]
