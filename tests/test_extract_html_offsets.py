"""Every block's offsets locate its text in the source: generated HTML and real pages."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citesift.encoding import decode_html
from citesift.extract import html_to_blocks, source_text
from citesift.model import Block
from conftest import ARTICLE_PAGES, WIKIPEDIA_FIXTURES

WIKI_PAGES = sorted((WIKIPEDIA_FIXTURES / "pages").glob("*.html"))
SPANS_PER_BLOCK = 4


def assert_located(html: str, block: Block, mode: str, start: int, end: int) -> None:
    span = block.source_span(start, end)
    assert block.source_start <= span[0] <= span[1] <= block.source_end <= len(html)
    shown = source_text(html, *span, mode)  # type: ignore[arg-type]
    assert block.text[start:end] in shown, (block.text[start:end], shown)


def check_page(html: str, seed: int) -> None:
    rng = random.Random(seed)
    for mode in ("article", "page"):
        for block in html_to_blocks(html, mode=mode):  # type: ignore[arg-type]
            size = len(block.text)
            assert_located(html, block, mode, 0, size)
            for _ in range(SPANS_PER_BLOCK):
                i, j = sorted((rng.randrange(size + 1), rng.randrange(size + 1)))
                assert_located(html, block, mode, i, j)


WORDS = st.sampled_from(
    [
        *("word", "Café", "Cafe\u0301", "😀", "a&amp;b", "&lt;", "&nbsp;", "&#x41;", "x", "1919."),
        *("&copyX", "&notit;", "&ltfoo", "&nbspx", "&eacutex", "&frac12x", "&sup2x", "&shy;"),
        *("zero\u200bwidth", "soft\u00adhy", "\u202eflip", "\u200d", "e\u200b\u0301"),
    ]
)
SPACE = st.sampled_from([" ", "", "\n\t ", "  ", "\xa0"])
INLINE = st.sampled_from(["b", "i", "a", "span", "em"])
BLOCK = st.sampled_from(["p", "div", "li", "h2", "td", "blockquote", "pre", "section"])
DROPPED = st.sampled_from(
    [
        '<sup class="reference">[1]</sup>',
        '<span class="mw-editsection">[edit]</span>',
        "<script>if (a < b) {}</script>",
        "<!-- note -->",
        '<span hidden="">secret</span>',
        '<span style="display:&#110;one">secret</span>',
        '<span style="d\\69splay:none">secret</span>',
        "<br>",
        "<img src=x>",
    ]
)


@st.composite
def fragments(draw: st.DrawFn, depth: int = 0) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        choice = draw(st.integers(0, 4 if depth < 3 else 1))
        if choice <= 1:
            parts.append(draw(WORDS) + draw(SPACE))
        elif choice == 2:
            parts.append(draw(DROPPED))
        else:
            tag = draw(INLINE if choice == 3 else BLOCK)
            inner = draw(fragments(depth + 1))
            parts.append(f"<{tag}>{inner}</{tag}>{draw(SPACE)}")
    return "".join(parts)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragments(), st.integers(0, 2**16))
def test_generated_html_offsets_locate_every_span(html: str, seed: int) -> None:
    check_page(html, seed)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", ARTICLE_PAGES + WIKI_PAGES, ids=lambda p: Path(p).stem[:16])
def test_real_page_offsets_locate_every_span(path: Path) -> None:
    html, _charset = decode_html(path.read_bytes())
    check_page(html, seed=len(html))
