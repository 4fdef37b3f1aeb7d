"""Hostile values against the public API: a sanitised answer or a clear error, quickly.

Every pure function exported from ``citesift`` (and ``decode_html``) is given lone
surrogates, NUL bytes, huge strings, NaN, infinities, negative and huge numbers, and the
wrong types a caller could plausibly pass (None, bytes for str). Each must answer a value
that holds its contract or raise ``ValueError`` / ``TypeError``: any other exception, or
a hang, fails the test. Nothing here touches the network.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citesift
from citesift import (
    Block,
    ClientIdentity,
    Match,
    Rag,
    SourceDocument,
    article_url,
    attribution,
    blocks_to_markdown,
    bm25_score,
    chunk_text,
    citation_sources,
    create_partitioned_rag,
    create_rag,
    extract_document,
    extract_metadata,
    fragment_url,
    html_to_blocks,
    reciprocal_rank_fusion,
    retry_after_ms,
    sentence_spans,
    strip_tags,
    weighted_fusion,
    zscore_fusion,
)
from citesift.encoding import decode_html

T = TypeVar("T")
CLEAR = (ValueError, TypeError)
MAX_RETRY_MS = 3_600_000
EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

HUGE = ["x" * 300_000, "\x00" * 200_000, "\ud800" * 100_000, "<p>" * 100_000, "a. " * 100_000]
WRONG = [None, b"bytes", 3, 2.5, ["a"], {"a": 1}]
CHARS = st.one_of(
    st.characters(), st.characters(categories=["Cs"]), st.sampled_from("\x00<>&;.!? \n")
)
SMALL = st.text(CHARS, max_size=200)
TEXT = st.one_of(SMALL, st.sampled_from(HUGE))
SMALL_OR_WRONG = st.one_of(SMALL, st.sampled_from(WRONG))
TEXT_OR_WRONG = st.one_of(TEXT, st.sampled_from(WRONG))
NUMBER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([True, None, "5", b"1", 0, -1, 2**63]),
)
HTML = st.one_of(
    TEXT.map(lambda text: f"<html><title>{text}</title><body><p>{text}</p>{text}</body>"),
    TEXT_OR_WRONG,
)


def clearly(call: Callable[[], T]) -> T | None:
    """``call()``'s answer, or None when it raised a clear ``ValueError``/``TypeError``."""
    try:
        return call()
    except CLEAR:
        return None


def utf8(text: object) -> bool:
    """Whether ``text`` is a str any consumer can encode (no lone surrogate)."""
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def hit(hit_id: object, score: object = None, content: object = "text") -> Match:
    return Match(hit_id, score, content, {})  # type: ignore[arg-type]


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG)
def test_sentence_spans_are_ordered_and_inside(text: Any) -> None:
    spans = clearly(lambda: sentence_spans(text))
    assert spans is not None or not isinstance(text, str)  # any text is cut, none refused
    if spans is None:
        return
    end = 0
    for start, stop in spans:
        assert end <= start < stop <= len(text)
        end = stop


@pytest.mark.timeout(30)
@EXAMPLES
@given(SMALL_OR_WRONG, NUMBER, NUMBER)
def test_chunk_text_terminates_with_true_offsets(text: Any, size: Any, overlap: Any) -> None:
    chunks = clearly(lambda: chunk_text(text, size, overlap))
    if chunks is None:
        return
    if not isinstance(text, str):
        assert chunks == [] and not text  # None and other empty values chunk to nothing
        return
    assert len(chunks) <= len(text) + 1
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, TEXT_OR_WRONG, st.one_of(st.none(), st.tuples(TEXT_OR_WRONG, TEXT_OR_WRONG)))
def test_fragment_url_is_an_address(url: Any, text: Any, context: Any) -> None:
    link = clearly(lambda: fragment_url(url, text, context))
    if link is not None:
        assert utf8(link) and link.count("#") <= url.count("#") + 1


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG)
def test_strip_tags_keeps_every_offset(html: Any) -> None:
    text = clearly(lambda: strip_tags(html))
    assert text is not None or not isinstance(html, str)  # any text is stripped, none refused
    if text is not None:
        assert isinstance(text, str) and len(text) == len(html)


@pytest.mark.timeout(30)
@EXAMPLES
@given(HTML, TEXT_OR_WRONG)
def test_extract_metadata_answers_clean_text(html: Any, url: Any) -> None:
    metadata = clearly(lambda: extract_metadata(html, url))
    if metadata is not None:
        fields = [metadata.title, metadata.description, metadata.publisher, metadata.page_date]
        assert all(field is None or utf8(field) for field in fields)


@pytest.mark.timeout(30)
@EXAMPLES
@given(HTML, NUMBER)
def test_html_to_blocks_answers_clean_blocks(html: Any, budget: Any) -> None:
    blocks = clearly(lambda: html_to_blocks(html, budget=budget))
    whole = isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0
    assert blocks is not None or not (isinstance(html, str) and whole)  # only bad input refused
    if blocks is not None:
        assert all(utf8(block.text) and block.text.strip() for block in blocks)


@pytest.mark.timeout(30)
@EXAMPLES
@given(
    st.lists(
        st.one_of(
            TEXT.map(lambda text: Block(text, "paragraph", (), 0, len(text))),
            st.sampled_from(WRONG),
        )
    )
)
def test_blocks_to_markdown_takes_blocks_only(blocks: list[Any]) -> None:
    markdown = clearly(lambda: blocks_to_markdown(blocks))
    if markdown is not None:
        assert isinstance(markdown, str)
        assert all(isinstance(block, Block) for block in blocks)


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, st.lists(TEXT_OR_WRONG, max_size=4), NUMBER, NUMBER)
def test_bm25_score_is_finite(query: Any, contents: list[Any], k1: Any, b: Any) -> None:
    hits = [hit(f"h{i}", content=content) for i, content in enumerate(contents)]
    scored = clearly(lambda: bm25_score(query, hits, k1=k1, b=b))
    scores = [h.score for h in scored or [] if h.score is not None]
    assert all(math.isfinite(score) for score in scores)
    assert scores == sorted(scores, reverse=True)


SCORES = st.lists(st.one_of(NUMBER, st.none()), max_size=5)


@pytest.mark.timeout(30)
@EXAMPLES
@given(SCORES, SCORES, NUMBER, NUMBER, NUMBER, NUMBER)
def test_fusion_scores_are_finite_and_sorted(
    left: list[Any], right: list[Any], k: Any, top_k: Any, wv: Any, wb: Any
) -> None:
    vector = [hit(f"v{i}", score) for i, score in enumerate(left)]
    bm25 = [hit(f"b{i}", score) for i, score in enumerate(right)]
    for fused in (
        clearly(lambda: reciprocal_rank_fusion([vector, bm25], k=k, top_k=top_k)),
        clearly(lambda: weighted_fusion(vector, bm25, wv, wb, top_k=top_k)),
        clearly(lambda: zscore_fusion(vector, bm25, wv, wb, top_k=top_k)),
    ):
        if fused is not None:
            scores = [h.score for h in fused]
            assert all(math.isfinite(s) for s in scores) and scores == sorted(scores, reverse=True)


@pytest.mark.timeout(30)
@EXAMPLES
@given(st.one_of(TEXT_OR_WRONG, NUMBER.map(str)), NUMBER)
def test_retry_after_ms_is_bounded(header: Any, now_ms: Any) -> None:
    wait = clearly(lambda: retry_after_ms(header, now_ms))
    if wait is not None:
        assert isinstance(wait, int) and 0 <= wait <= MAX_RETRY_MS


@pytest.mark.timeout(30)
@EXAMPLES
@given(st.one_of(st.binary(max_size=300), TEXT_OR_WRONG), TEXT_OR_WRONG)
def test_decode_html_answers_clean_text(body: Any, charset: Any) -> None:
    decoded = clearly(lambda: decode_html(body, charset))
    if decoded is not None:
        text, chosen = decoded
        assert utf8(text) and utf8(chosen)


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, TEXT_OR_WRONG)
def test_article_url_is_an_address(origin: Any, key: Any) -> None:
    url = clearly(lambda: article_url(origin, key))
    if url is not None:
        assert utf8(url)


@pytest.mark.timeout(30)
@EXAMPLES
@given(HTML, TEXT_OR_WRONG, NUMBER)
def test_citation_sources_hold_the_offset_invariant(html: Any, url: Any, budget: Any) -> None:
    document = clearly(lambda: extract_document(html, url=url, budget=budget))
    if document is None:
        return
    assert isinstance(document, SourceDocument)
    for passage in citation_sources(document):
        block = document.blocks[passage.block]
        assert block.text[passage.start : passage.end] == passage.content
        assert utf8(passage.fragment_url) and utf8(attribution(passage).notice)


@pytest.mark.timeout(30)
@EXAMPLES
@given(st.one_of(TEXT_OR_WRONG, st.sampled_from(WRONG)), st.sampled_from(WRONG[:2]))
def test_sentence_cutters_that_misbehave_are_refused(text: Any, cut_answer: Any) -> None:
    document = extract_document("<p>One sentence. Another one.</p>")
    assert clearly(lambda: citation_sources(document, lambda _: cut_answer)) is None


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rag]:
    """A BM25 index in a temporary store with two documents."""
    store = tmp_path_factory.mktemp("hostile") / "index.db"
    rag = create_rag(store=store, retrieval="bm25")
    rag.ingest([
        {"id": "tower", "content": "The Eiffel Tower opened in 1889.", "metadata": {"k": "a"}},
        {"id": "tides", "content": "The Moon raises two tides a day.", "metadata": {"k": "b"}},
    ])  # fmt: skip
    yield rag


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, NUMBER, st.one_of(st.none(), st.dictionaries(TEXT, TEXT_OR_WRONG)))
def test_search_answers_ranked_hits(rag: Rag, query: Any, top_k: Any, where: Any) -> None:
    hits = clearly(lambda: rag.search(query, top_k=top_k, filter=where))
    if hits is not None:
        assert all(math.isfinite(h.score) for h in hits if h.score is not None)
        assert len({h.id for h in hits}) == len(hits)


@pytest.mark.timeout(30)
@EXAMPLES
@given(SMALL_OR_WRONG, SMALL_OR_WRONG, st.one_of(SMALL_OR_WRONG, st.dictionaries(SMALL, SMALL)))
def test_ingest_takes_or_refuses_hostile_documents(
    rag: Rag, doc_id: Any, content: Any, metadata: Any
) -> None:
    added = clearly(lambda: rag.ingest([{"id": doc_id, "content": content, "metadata": metadata}]))
    if added is not None:
        assert added >= 0
        looked_for = utf8(content) and any(c.isprintable() and not c.isspace() for c in content)
        assert clearly(lambda: rag.retrieve(query=content)) is not None or not looked_for


@pytest.mark.timeout(60)
@settings(max_examples=15, deadline=None)
@given(NUMBER, NUMBER, NUMBER, NUMBER, NUMBER, st.one_of(TEXT_OR_WRONG, st.just("bm25")))
def test_create_rag_sanitises_absurd_options(
    size: Any, overlap: Any, top_k: Any, threshold: Any, weight: Any, mode: Any
) -> None:
    options = {"chunk_size": size, "chunk_overlap": overlap, "top_k": top_k,
               "threshold": threshold, "rerank_weight": weight, "mode": mode}  # fmt: skip
    rag = clearly(lambda: create_rag(store=":memory:", **options))
    if rag is not None:
        rag.ingest([{"id": "d", "content": "Absurd options still index. " * 40, "metadata": {}}])
        assert isinstance(rag.search("options"), list)


@pytest.mark.timeout(30)
@EXAMPLES
@given(st.one_of(TEXT_OR_WRONG, st.just("team-a")), NUMBER)
def test_create_partitioned_rag_refuses_absurd_partitions(partition: Any, factor: Any) -> None:
    made = clearly(
        lambda: create_partitioned_rag(partition, factor, lambda _: None, store=":memory:")
    )
    whole = isinstance(factor, int | float) and float(factor).is_integer()
    assert made is None or (whole and 1 <= factor <= 16)


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, TEXT_OR_WRONG)
def test_store_paths_that_cannot_be_opened_are_clear(tmp_path: Path, name: Any, _: Any) -> None:
    fresh = tmp_path / uuid.uuid4().hex  # examples share tmp_path: "" would make a file here
    store = name if not isinstance(name, str) else str(fresh / "missing" / name[:50])
    made = clearly(lambda: create_rag(store=store, retrieval="bm25"))
    plain = isinstance(name, str) and name[:50].isascii() and name[:50].isalnum()
    if name is None or plain:  # the default store (in the test's own home), or a plain name
        assert made is not None
    elif not isinstance(name, str):
        assert made is None  # bytes, numbers, lists and dicts name no store


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, TEXT_OR_WRONG, TEXT_OR_WRONG)
def test_identities_are_checked(name: Any, version: Any, contact: Any) -> None:
    identity = clearly(lambda: ClientIdentity(name, version, contact))
    if identity is not None:
        assert utf8(identity.user_agent())


@pytest.mark.timeout(30)
@EXAMPLES
@given(NUMBER, NUMBER, NUMBER)
def test_source_limits_are_sanitised(deadline: Any, body: Any, budget: Any) -> None:
    identity = ClientIdentity("citesift-test", "1.0", "https://example.org/contact")
    page = clearly(lambda: citesift.PageLimits(deadline, max_body_bytes=body, text_budget=budget))
    wiki = clearly(lambda: citesift.WikipediaLimits(deadline, page_max_bytes=body))
    # limits that make no sense are refused where they are made; made ones always serve
    source = page and citesift.WebPageSource(identity, limits=page)
    provider = wiki and citesift.WikipediaSourceProvider(identity, limits=wiki)
    for made in (source, provider):
        if made is not None:
            assert 0 < made.page_policy.deadline < math.inf and made.text_budget > 0


@pytest.mark.timeout(30)
@EXAMPLES
@given(TEXT_OR_WRONG, NUMBER)
def test_wikipedia_addresses_carry_or_refuse(phrase: Any, limit: Any) -> None:
    provider = citesift.WikipediaSourceProvider(
        ClientIdentity("citesift-test", "1.0", "https://example.org/contact")
    )
    for url in (clearly(lambda: provider.search_url(phrase, limit)),
                clearly(lambda: provider.page_url(phrase))):  # fmt: skip
        assert url is None or (url.isascii() and url.startswith(provider.origin))
