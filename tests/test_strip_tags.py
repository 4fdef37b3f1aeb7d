"""strip_tags: same length, text at its offsets, markup and raw-text bodies blanked."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citesift.extract.strip import ENTITIES, strip_tags


def test_strip_tags_keeps_title_and_body_and_drops_script_and_style() -> None:
    html = '<h1>Title</h1><script>alert("x")</script><style>b{}</style><p>Body text.</p>'
    out = strip_tags(html)
    assert len(out) == len(html)
    assert "Title" in out and "Body text." in out
    assert "alert" not in out and "b{}" not in out and "<" not in out
    assert out.index("Body text.") == html.index("Body text.")


def test_strip_tags_of_one_paragraph_trims_to_its_text() -> None:
    out = strip_tags("<p>hello</p>")
    assert len(out) == len("<p>hello</p>")
    assert out.strip() == "hello"


def test_escaped_markup_decodes_padded_and_never_forms_a_tag() -> None:
    html = "&lt;script&gt;alert(1)&lt;/script&gt;"
    out = strip_tags(html)
    assert out == "<   script>   alert(1)<   /script>   "
    assert "script" in out
    assert not re.search(r"<script", out)


def test_every_entity_of_the_fixed_set_is_padded_to_its_length() -> None:
    fixed = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'",
             "&apos;": "'", "&nbsp;": "\xa0"}  # fmt: skip
    assert fixed == ENTITIES
    for entity, char in fixed.items():
        out = strip_tags(f"a{entity}b")
        assert out == "a" + char + " " * (len(entity) - 1) + "b"


def test_other_entities_and_numeric_references_stay_as_text() -> None:
    html = "&eacute; &#233; &#x41; &AMP;"
    assert strip_tags(html) == html


@pytest.mark.parametrize(
    "end_tag", ["</script>", "</script foo>", "</script/>", "</SCRIPT\t>", "</script\n>"]
)
def test_script_body_ends_at_the_end_tag_a_tokenizer_uses(end_tag: str) -> None:
    html = f"<script>if (a<b) x();{end_tag}after"
    out = strip_tags(html)
    assert out.endswith("after")
    assert out[: -len("after")].strip() == ""


@pytest.mark.parametrize("end", ["</script\u00a0>", "</script\u2028>", "</scriptx>"])
def test_script_end_tag_lookalikes_do_not_close_the_body(end: str) -> None:
    html = f"<script>a{end}hidden<p>also hidden</p>"
    assert strip_tags(html).strip() == ""


def test_unclosed_script_or_style_blanks_to_the_end_of_the_input() -> None:
    html = "<p>kept</p><style>p { color: red }\n<p>swallowed</p>"
    out = strip_tags(html)
    assert out.split() == ["kept"]
    assert out.count("\n") == 1


def test_end_tag_cut_by_the_end_of_input_blanks_to_the_end() -> None:
    assert strip_tags("<script>x</script").strip() == ""
    assert strip_tags("<script>x</script foo").strip() == ""


def test_script_names_must_end_like_a_tag_name() -> None:
    out = strip_tags("<scripts>one</scripts><script-x>two</script-x>")
    assert out.split() == ["one", "two"]


def test_end_tag_closing_on_its_own_bracket_does_not_swallow_the_next_tag() -> None:
    out = strip_tags("<script>x</script><style>b{}</style><p>text</p>")
    assert out.split() == ["text"]


def test_blanked_regions_keep_their_newlines() -> None:
    html = "<p\nclass=x>a</p><!-- one\ntwo --><script>\n\nx</script>b"
    out = strip_tags(html)
    assert [i for i, c in enumerate(out) if c == "\n"] == [
        i for i, c in enumerate(html) if c == "\n"
    ]
    assert out.split() == ["a", "b"]


def test_comments_blank_to_the_first_close_and_an_unclosed_one_stays_text() -> None:
    assert strip_tags("<!-->x-->y").strip() == "y"
    assert strip_tags("a<!--b--->c").split() == ["a", "c"]
    assert strip_tags("a <!-- open").split() == ["a", "<!--", "open"]


def test_angle_brackets_with_no_closing_bracket_after_them_stay_text() -> None:
    assert strip_tags("3 > 2 but 1 < 2") == "3 > 2 but 1 < 2"
    assert strip_tags("a > b <c") == "a > b <c"


def test_lone_surrogates_and_nul_bytes_pass_through_at_their_offsets() -> None:
    html = "<b>\ud800x\x00</b>"
    out = strip_tags(html)
    assert out == "   \ud800x\x00    "


@pytest.mark.slow
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "page",
    [
        "<" * 50_000_000,
        "<!--" * 12_500_000,
        "<a" * 25_000_000 + ">",
        "<script>" + "</script\u00a0" * 5_000_000,
        "&amp" * 12_500_000,
        ("<p>hi <b>there</b> &amp; more</p>\n<script>x=1</script><!-- c -->" * 800_000),
    ],
    ids=["lt", "comment-opens", "one-long-tag", "false-end-tags", "entity-prefixes", "markup"],
)
def test_a_50_mb_page_strips_in_bounded_time(page: str) -> None:
    started = time.perf_counter()
    out = strip_tags(page)
    assert len(out) == len(page)
    assert time.perf_counter() - started < 15


# -- the invariant, over generated HTML -------------------------------------------------

_TEXT = st.text(
    alphabet=st.characters(blacklist_characters="<>&", blacklist_categories=("Cs",)),
    min_size=1,
    max_size=20,
)
_NAME = st.sampled_from(["p", "div", "a", "b", "h2", "li", "td", "img", "br"])
_ATTRS = st.text(alphabet="abc =\"'\n/-", max_size=12)
_MARKUP = st.one_of(
    st.builds(lambda n, a: f"<{n} {a}>", _NAME, _ATTRS),
    st.builds(lambda n: f"</{n}>", _NAME),
    st.builds(lambda t: f"<!--{t.replace('-', '')}-->", _TEXT),
    st.builds(lambda n, t: f"<{n}>{t}</{n}>", st.sampled_from(["script", "style"]), _TEXT),
    st.sampled_from(sorted(ENTITIES)),
)
_PIECES = st.lists(st.tuples(st.booleans(), _TEXT, _MARKUP), max_size=30)


@given(_PIECES)
def test_text_outside_markup_keeps_its_offsets(pieces: list[tuple[bool, str, str]]) -> None:
    html, texts = "", []
    for text_first, text, markup in pieces:
        for part, is_text in (
            ((text, True), (markup, False))
            if text_first
            else (
                (markup, False),
                (text, True),
            )
        ):
            if is_text:
                texts.append((len(html), part))
            html += part
    out = strip_tags(html)
    assert len(out) == len(html)
    for at, text in texts:
        assert out[at : at + len(text)] == text


@given(st.text(max_size=200))
def test_any_input_keeps_its_length_and_newlines(html: str) -> None:
    out = strip_tags(html)
    assert len(out) == len(html)
    decoded = set(ENTITIES.values())
    for original, kept in zip(html, out, strict=True):
        assert kept in (original, " ") or kept in decoded
        assert (original == "\n") == (kept == "\n")
