"""Passages with attribution: one per cut, offsets into the block and the source, links."""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citesift import WIKIPEDIA_LICENCE, Block, SourceDocument
from citesift.text import attribution, citation_sources, sentence_spans
from citesift.text.occurrences import WordIndex

LEAD = (
    "The Treaty of Versailles was a peace treaty signed on 28 June 1919. "
    "As the most important treaty of World War I, it ended the state of war."
)
SOURCE = (
    "<p>The Treaty of Versailles was a peace treaty signed on 28 June 1919.<sup>[1]</sup> "
    "As the most important treaty of World War I, it ended the state of war.</p>"
)


def lead_block() -> Block:
    """The lead as an extractor would give it: the marker skipped, offsets anchored."""
    first = LEAD.index("As")
    return Block(
        text=LEAD,
        kind="paragraph",
        section=(),
        source_start=3,
        source_end=len(SOURCE) - 4,
        offsets=((0, 3), (first - 1, SOURCE.index("</sup>") + 6)),
    )


def document(*blocks: Block) -> SourceDocument:
    return SourceDocument(
        site="Wikipedia",
        key="Treaty_of_Versailles",
        title="Treaty of Versailles",
        url="https://en.wikipedia.org/wiki/Treaty_of_Versailles",
        revision="1378834026",
        read_at=1_700_000_000_000,
        licence=WIKIPEDIA_LICENCE,
        blocks=blocks,
    )


def plain(*texts: str) -> tuple[Block, ...]:
    return tuple(Block(t, "paragraph", (), 0, len(t)) for t in texts)


def test_citation_sources_follow_the_cut_untrimmed_with_all_fields() -> None:
    passages = citation_sources(
        document(lead_block()), lambda t: [m.span() for m in re.finditer(r"[^.]+\.", t)]
    )
    first, second = passages
    assert first.content == "The Treaty of Versailles was a peace treaty signed on 28 June 1919."
    assert (first.block, first.start, first.revision) == (0, 0, "1378834026")
    assert second.content.startswith(" As the most")
    assert (second.site, second.key, second.title) == (
        "Wikipedia",
        "Treaty_of_Versailles",
        "Treaty of Versailles",
    )
    assert second.licence == WIKIPEDIA_LICENCE and second.read_at == 1_700_000_000_000
    assert second.url == "https://en.wikipedia.org/wiki/Treaty_of_Versailles"


def test_citation_sources_carry_the_snapshot_they_were_read_from() -> None:
    doc = replace(document(lead_block()), snapshot_id="5e" * 32)
    assert {p.snapshot_id for p in citation_sources(doc)} == {"5e" * 32}
    assert {p.snapshot_id for p in citation_sources(document(lead_block()))} == {None}


def test_citation_sources_hold_the_offset_invariant_in_block_and_source() -> None:
    block = lead_block()
    for passage in citation_sources(document(block)):
        assert block.text[passage.start : passage.end] == passage.content
        markup = SOURCE[passage.source_start : passage.source_end]
        visible = " ".join(re.sub(r"<sup>.*?</sup>|<[^>]+>", "", markup).split())
        assert passage.content in visible


def test_citation_sources_default_cut_is_the_sentence_rule() -> None:
    passages = citation_sources(document(*plain("Dr. Who came. He left.", "Then no one.")))
    assert [(p.block, p.content) for p in passages] == [
        (0, "Dr. Who came."),
        (0, "He left."),
        (1, "Then no one."),
    ]
    assert [(p.start, p.end) for p in passages] == [(0, 13), (14, 22), (0, 12)]


def test_citation_sources_link_each_sentence_with_a_text_fragment() -> None:
    (passage, _) = citation_sources(document(lead_block()))
    assert passage.fragment_url == (
        "https://en.wikipedia.org/wiki/Treaty_of_Versailles#:~:text="
        "The%20Treaty%20of%20Versailles%20was%20a%20peace%20treaty%20signed%20on%2028%20June%201919."
    )


def test_citation_sources_disambiguate_a_repeated_sentence() -> None:
    passages = citation_sources(document(*plain("It failed. Peace came.", "War came. It failed.")))
    links = {p.block: p.fragment_url for p in passages if p.content == "It failed."}
    assert links[0].endswith(":~:text=It%20failed.,-Peace%20came.")
    assert links[1].endswith(":~:text=War%20came.-,It%20failed.")


def test_citation_sources_clamp_a_wild_cut_and_drop_empty_spans() -> None:
    doc = document(*plain("abc"))
    passages = citation_sources(doc, lambda t: [(-5, 2), (2, 2), (1, 99), (3, 1)])
    assert [(p.start, p.end, p.content) for p in passages] == [(0, 2, "ab"), (1, 3, "bc")]


def test_citation_sources_of_an_empty_document_is_empty() -> None:
    assert citation_sources(document()) == []


def test_attribution_shows_sentence_title_link_licence_and_notice() -> None:
    passage = citation_sources(
        document(*plain("  Peace \n came [x] <b>.")), lambda t: [(0, len(t))]
    )[0]
    shown = attribution(passage)
    assert shown.sentence == "Peace came [x] <b>."
    text = shown.text()
    assert (
        "Treaty of Versailles" in text and "https://creativecommons.org/licenses/by-sa/4.0/" in text
    )
    assert "CC BY-SA 4.0" in text and "Modified" in text
    assert (
        '<a href="https://en.wikipedia.org/wiki/Treaty_of_Versailles">Treaty of Versailles</a>'
        in shown.html()
    )
    assert (
        '<a href="https://creativecommons.org/licenses/by-sa/4.0/" rel="license">CC BY-SA 4.0</a>'
        in shown.html()
    )
    assert "&lt;b&gt;" in shown.html()
    markdown = shown.markdown()
    assert (
        "[Treaty of Versailles](<https://en.wikipedia.org/wiki/Treaty_of_Versailles>)" in markdown
    )
    assert "[CC BY-SA 4.0](<https://creativecommons.org/licenses/by-sa/4.0/>)" in markdown
    assert "Peace came \\[x\\] \\<b\\>." in markdown


HISTORY = "https://en.wikipedia.org/w/index.php?title=Treaty_of_Versailles&action=history"


def test_wikipedia_attribution_links_the_page_history_naming_the_contributors() -> None:
    shown = attribution(citation_sources(document(*plain("Peace came.")))[0])
    assert shown.history == HISTORY
    assert f"Wikipedia contributors <{HISTORY}>" in shown.text()
    assert f'<a href="{HISTORY.replace("&", "&amp;")}">Wikipedia contributors</a>' in shown.html()
    assert f"[Wikipedia contributors](<{HISTORY}>)" in shown.markdown()


REVISION = "https://en.wikipedia.org/w/index.php?title=Treaty_of_Versailles&oldid=1378834026"


def test_wikipedia_attribution_links_the_revision_it_was_read_from() -> None:
    shown = attribution(citation_sources(document(*plain("Peace came.")))[0])
    assert shown.revision_url == REVISION
    article = "https://en.wikipedia.org/wiki/Treaty_of_Versailles"
    assert f"Wikipedia <{article}> (revision read <{REVISION}>)" in shown.text()
    assert (
        f'Versailles</a> (<a href="{REVISION.replace("&", "&amp;")}">revision read</a>)'
        in shown.html()
    )
    assert f"Versailles>) ([revision read](<{REVISION}>))" in shown.markdown()


@pytest.mark.parametrize("revision", [None, "", 'W/"1378834026/abc"', "12a", "\u0661\u0662"])
def test_no_revision_link_without_a_revision_number(revision: str | None) -> None:
    passage = citation_sources(replace(document(*plain("Peace came.")), revision=revision))[0]
    shown = attribution(passage)
    assert shown.revision_url is None and "revision read" not in shown.markdown()


def test_history_link_encodes_the_key_and_keeps_the_origin() -> None:
    doc = SourceDocument(
        "Wikipedia", "AT&T_(company)", "AT&T", "http://127.0.0.1:8080/wiki/AT%26T_(company)",
        "1", 0, WIKIPEDIA_LICENCE, plain("Hi."),
    )  # fmt: skip
    shown = attribution(citation_sources(doc)[0])
    assert (
        shown.history == "http://127.0.0.1:8080/w/index.php?title=AT%26T_(company)&action=history"
    )


def test_other_sites_have_no_history_link() -> None:
    doc = SourceDocument(
        "example.org", "k", "T", "https://example.org/t", None, 0, None, plain("Hi.")
    )
    shown = attribution(citation_sources(doc)[0])
    assert shown.history is None and "contributors" not in shown.text()


def test_attribution_without_a_licence_says_so() -> None:
    doc = SourceDocument(
        "example.org", "k", "T", "https://example.org/t", None, 0, None, plain("Hi.")
    )
    assert "licence not stated" in attribution(citation_sources(doc)[0]).text()


def test_fragment_urls_decode_back_to_the_sentence() -> None:
    doc = document(*plain(LEAD))
    for passage in citation_sources(doc, sentence_spans):
        assert unquote(passage.fragment_url.split(":~:text=")[1]) == passage.content


def test_citation_sources_disambiguate_a_long_sentence_whose_start_recurs() -> None:
    long = "The treaty was signed in " + "a hall of mirrors and " * 20 + "ended the war."
    passages = citation_sources(document(*plain("The treaty was signed in Paris.", long)))
    link = passages[1].fragment_url
    assert ":~:text=signed%20in%20Paris.-,The%20treaty%20was%20signed%20in," in link
    assert link.endswith(",mirrors%20and%20ended%20the%20war.")
    assert passages[0].fragment_url.endswith(":~:text=The%20treaty%20was%20signed%20in%20Paris.")


@given(
    st.lists(st.text(max_size=80), min_size=1, max_size=4),
    st.lists(st.tuples(st.integers(-5, 90), st.integers(-5, 90)), max_size=6),
)
def test_citation_sources_keep_the_block_invariant_for_any_cut(
    texts: list[str], spans: list[tuple[int, int]]
) -> None:
    doc = document(*plain(*texts))
    for passage in citation_sources(doc, lambda _: spans):
        block = doc.blocks[passage.block]
        assert 0 <= passage.start < passage.end <= len(block.text)
        assert block.text[passage.start : passage.end] == passage.content
        assert passage.fragment_url.startswith(doc.url)


def test_word_index_counts_by_words_ignoring_case_and_white_space() -> None:
    index = WordIndex("It failed.\nPeace came.  it   FAILED. They won the war; won the warfare.")
    assert index.repeats("It failed.") and index.repeats("it\nfailed")
    assert not index.repeats("Peace came.") and not index.repeats("") and not index.repeats("x")
    assert index.repeats("won the war")  # "war;" and the start of "warfare."
    assert index.repeats("won") and not index.repeats("war")
    assert not index.repeats("ailed.")  # not at the start of a word


@pytest.mark.timeout(12)
def test_many_distinct_sentences_are_linked_in_near_linear_time() -> None:
    # about 0.7 s here; a scan of the page per passage took over 8 s
    sentences = [f"W{i} w{i % 997} w{i % 1009}." for i in range(30_000)]
    blocks = [" ".join(sentences[i : i + 10]) for i in range(0, 30_000, 10)]
    passages = citation_sources(document(*plain(*blocks)))
    assert len(passages) == 30_000
    assert all("-," not in p.fragment_url and ",-" not in p.fragment_url for p in passages)
