"""Hostile inline styles: a style is read in time linear in its length, whatever its value.

A zero written with thousands of digits and never closed (``scale(000…x``, an alpha of
``000…x``) made the test for a zero scale or a transparent colour try every split of the
run: 20 KB of style took 3 s, 200 KB minutes.
"""

from __future__ import annotations

import pytest
from timing import best_time

from citesift import html_to_blocks

TIMES_FOUR = 8  # four times the style takes ~4x; the quadratic test took 16x


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "style",
    ["transform:scale({})", "color:rgba(1,2,3,{})", "color:rgba(1 2 3/{})"],
    ids=["scale", "alpha", "slashed-alpha"],
)
@pytest.mark.parametrize("digits", ["0{}x", "0.{}x", ".{}x", "0{} 1"])
def test_a_long_zero_in_a_style_reads_in_linear_time(style: str, digits: str) -> None:
    def page(size: int) -> str:
        value = style.format(digits.format("0" * size))
        return f'<p style="{value}">shown</p><p>after</p>'

    small, large = page(5_000), page(20_000)
    for _ in range(2):
        small_s = best_time(lambda: html_to_blocks(small, "page"))
        large_s = best_time(lambda: html_to_blocks(large, "page"))
        if large_s <= TIMES_FOUR * max(small_s, 0.005):
            break
    else:
        raise AssertionError(f"{large_s:.2f} s against {small_s:.3f} s for a quarter")
    assert [block.text for block in html_to_blocks(large, "page")] == ["shown", "after"]


@pytest.mark.parametrize(
    ("style", "hidden"),
    [
        ("transform:scale(000.000)", True),
        ("transform:scale(.0, 1)", True),
        ("transform:scale(0.)", True),
        ("transform:scale(0.05)", False),
        ("color:rgba(1,2,3,0.0%)", True),
        ("color:rgba(1 2 3 / 0)", True),
        ("color:rgba(1,2,3,0.01)", False),
    ],
)
def test_a_zero_is_still_read_however_it_is_written(style: str, hidden: bool) -> None:
    texts = [block.text for block in html_to_blocks(f'<p style="{style}">x</p><p>y</p>', "page")]
    assert texts == (["y"] if hidden else ["x", "y"])
