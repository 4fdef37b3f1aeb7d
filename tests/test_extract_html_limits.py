"""html_to_blocks under a budget and on bad input: bounded, never a crash."""

from __future__ import annotations

import os
import time

import pytest

from citesift import html_to_blocks
from citesift.errors import InvalidArgument
from citesift.extract.html import MAX_SOURCE_CHARS


def test_budget_caps_kept_text_and_reports_the_cut() -> None:
    html = "<p>" + "a " * 400 + "</p><p>later</p>"
    blocks = html_to_blocks(html, budget=100)
    joined = "".join(b.text for b in blocks)
    assert 0 < len(joined) <= 100
    assert "later" not in joined
    assert blocks.truncated
    assert not html_to_blocks(html).truncated


def test_whole_blocks_are_kept_while_they_fit() -> None:
    blocks = html_to_blocks("<p>one two</p><p>three four</p><p>five</p>", budget=12)
    assert [b.text for b in blocks] == ["one two", "three"]
    assert blocks.truncated
    assert blocks[1].source_end - blocks[1].source_start == len("three")


def test_budget_counts_code_points_and_never_splits_an_astral_character() -> None:
    assert [b.text for b in html_to_blocks("<p>ab😀cd</p>", budget=3)] == ["ab😀"]
    assert [b.text for b in html_to_blocks("<p>ab😀cd</p>", budget=2)] == ["ab"]
    assert [b.text for b in html_to_blocks("<p>ab</p><p>😀</p>", budget=3)] == ["ab", "😀"]


def test_zero_budget_keeps_nothing_and_says_so() -> None:
    blocks = html_to_blocks("<p>text</p>", budget=0)
    assert list(blocks) == [] and blocks.truncated


@pytest.mark.timeout(20)
def test_page_mode_stops_reading_a_huge_page_at_the_budget() -> None:
    html = "<div><p>" + "word " * 2_000_000 + "</p></div>"  # 10 MB of one paragraph
    started = time.perf_counter()
    blocks = html_to_blocks(html, mode="page", budget=1000)
    assert time.perf_counter() - started < 5
    assert blocks.truncated and sum(len(b.text) for b in blocks) <= 1000


@pytest.mark.parametrize(
    ("html", "shown"),
    [
        ("<div><p>unclosed <b>bold <i>both", ["unclosed bold both"]),
        ("</div></p></b><p>stray end tags first</p></span>", ["stray end tags first"]),
        ('<p class="x>broken quote</p><p>next</p>', ["next"]),
        ("<!-- unclosed comment <p>hidden?</p>", []),
        ("<script>never closed <p>text</p>", []),
        (
            "<p>a < b and c > d & e &bogus; &#xZZ; &#99999999999;</p>",
            ["a < b and c > d & e &bogus; &#xZZ; \ufffd"],
        ),
        ("<<<>>><p/><br/></br></p><p>x</p>", ["<<<>>>", "x"]),
        (
            "<p>one <a href=x'y>link</a> two</p><p>three's here</p>",
            ["one link two", "three's here"],
        ),
        ('<p>one <img alt=5" tall> two</p><p>"q"</p>', ["one two", '"q"']),
        ('<p>see <a title="a > b" href="/x">the link</a> here</p>', ["see the link here"]),
    ],
)
def test_malformed_markup_reads_as_a_browser_shows_it(html: str, shown: list[str]) -> None:
    for mode in ("article", "page"):
        texts = [block.text for block in html_to_blocks(html, mode=mode)]  # type: ignore[arg-type]
        assert all(text and text == " ".join(text.split()) for text in texts)
        assert all(text in texts for text in shown) and len(texts) <= len(shown) + 1


def test_stray_end_tags_do_not_lose_text() -> None:
    assert [b.text for b in html_to_blocks("</div></span><p>kept</p>", mode="page")] == ["kept"]


@pytest.mark.timeout(30)
def test_hundred_thousand_deep_nesting_is_linear() -> None:
    depth = 100_000
    html = "<div>" * depth + "<p>deep text</p>" + "</div>" * depth
    started = time.perf_counter()
    assert [b.text for b in html_to_blocks(html, mode="page")] == ["deep text"]
    unclosed = "<span><b>" * depth + "tail"
    assert [b.text for b in html_to_blocks(unclosed, mode="page")] == ["tail"]
    assert time.perf_counter() - started < 10


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_fifty_megabyte_page_is_read_within_bounds() -> None:
    row = '<div class="row"><a href="/x">link</a> <span>some text here</span></div>\n'
    html = "<html><body>" + row * (50_000_000 // len(row)) + "</body></html>"
    started = time.perf_counter()
    blocks = html_to_blocks(html)
    assert time.perf_counter() - started < 45
    assert sum(len(b.text) for b in blocks) <= 300_000


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_fifty_megabytes_of_markup_without_text_is_read_within_bounds() -> None:
    html = '<div class="x"><span class="y"></span><a href="/z"></a></div>\n' * 800_000
    started = time.perf_counter()
    assert list(html_to_blocks(html)) == []
    assert time.perf_counter() - started < 45


def test_binary_garbage_gives_blocks_or_nothing() -> None:
    garbage = os.urandom(200_000).decode("latin-1")
    for mode in ("article", "page"):
        blocks = html_to_blocks(garbage, mode=mode)  # type: ignore[arg-type]
        assert all(b.source_start < b.source_end <= len(garbage) for b in blocks)


def test_nul_bytes_and_lone_surrogates_are_replaced_in_place() -> None:
    html = "<p>a\x00b \ud800c\udfff</p><p>\ud83d</p><p>nul\x00</p>"
    blocks = html_to_blocks(html, mode="page")
    assert [b.text for b in blocks] == ["a\ufffdb \ufffdc\ufffd", "\ufffd", "nul\ufffd"]
    assert blocks[0].source_start == html.index("a")
    for block in blocks:
        block.text.encode("utf-8")


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<div hidden><div>a</div>secret</div><p>shown</p>", ["shown"]),
        ('<div hidden><script>x = "</div>"</script>secret</div><p>shown</p>', ["shown"]),
        ("<div hidden><!-- </div> -->secret</div><p>shown</p>", ["shown"]),
        ("<section><div hidden><p>secret</section><p>shown</p>", ["shown"]),
        ("<p>a</p><svg><svg/><text>secret</text></svg><p>b</p>", ["a", "b"]),
        ("<html><head><title>T</title><body><p>shown</p>", ["shown"]),
        ("<div><p>kept</p><div hidden>never closed", ["kept"]),
    ],
)
def test_dropped_elements_end_where_a_browser_ends_them(html: str, expected: list[str]) -> None:
    assert [b.text for b in html_to_blocks(html, mode="page")] == expected


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"budget": -1}, "budget"), ({"budget": 1.5}, "budget"), ({"mode": "x"}, "mode")],
)
def test_a_bad_budget_or_mode_is_an_invalid_argument_naming_it(kwargs: dict, name: str) -> None:
    with pytest.raises(InvalidArgument, match=f"^{name} must be"):
        html_to_blocks("<p>x</p>", **kwargs)


def test_a_page_past_the_source_cap_is_read_to_the_cap_and_marked_truncated() -> None:
    page = "<p>start</p><!--" + " " * MAX_SOURCE_CHARS + "--><p>end</p>"
    blocks = html_to_blocks(page, "page")
    assert [block.text for block in blocks] == ["start"] and blocks.truncated
    assert not html_to_blocks("<p>start</p><!-- --><p>end</p>", "page").truncated


def test_a_page_of_tiny_blocks_stops_the_scan_by_their_number() -> None:
    page = "x<br>" * 100_000  # 100,000 one-letter blocks: more than the budget of 50,000 allows
    blocks = html_to_blocks(page, "page", budget=50_000)
    assert blocks.truncated and len(blocks) < 10_000
