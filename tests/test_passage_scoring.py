"""Passages scored in their document: title and section path reach the score, the whole
document's match is fused with the passage's own, and equal scores have a stable order."""

from __future__ import annotations

import numpy as np

from citesift.index.fusion import reciprocal_rank_fusion, weighted_fusion, zscore_fusion
from citesift.index.lexical.bm25 import top_rows
from citesift.index.lexical.passages import PassageIndex, document_text
from citesift.index.rag import create_rag
from citesift.model import Block, Match, SourceDocument
from citesift.store.sqlite import SQLiteStore
from test_rag_helpers import HashEmbedder

FILLER = "Nothing in this sentence names the subject at all. " * 6


def test_a_query_matching_only_a_title_finds_the_documents_passages(tmp_path) -> None:
    rag = create_rag(store=tmp_path / "s.db", retrieval="bm25", chunk_size=120, chunk_overlap=0)
    rag.ingest([
        {"id": "a", "content": FILLER, "metadata": {"title": "Photosynthesis"}},
        {"id": "b", "content": FILLER + "Plants grow.", "metadata": {"title": "Geology"}},
    ])  # fmt: skip
    hits = rag.search("photosynthesis", top_k=10)
    assert len(hits) > 1 and {h.provenance.document_id for h in hits} == {"a"}  # type: ignore[union-attr]
    assert all("Photosynthesis" not in h.content for h in hits)
    reopened = create_rag(store=tmp_path / "s.db", retrieval="bm25")  # the context is stored
    assert [h.id for h in reopened.search("photosynthesis", top_k=10)] == [h.id for h in hits]


def test_a_section_heading_reaches_the_passages_under_it(tmp_path) -> None:
    text = "The first part says little of note here."
    blocks = (
        Block("Guide", "heading", (), 0, 5),
        Block("Glaciers", "heading", ("Guide",), 6, 14),
        Block(text, "paragraph", ("Guide", "Glaciers"), 15, 15 + len(text)),
        Block("Deserts", "heading", ("Guide",), 60, 67),
        Block(text, "paragraph", ("Guide", "Deserts"), 68, 68 + len(text)),
    )
    doc = SourceDocument("web", "g", "Guide", "https://example.org/g", None, 1, None, blocks)
    rag = create_rag(store=tmp_path / "s.db", retrieval="bm25", chunk_size=45, chunk_overlap=0)
    rag.ingest([doc])
    hits = [h for h in rag.search("deserts", top_k=10) if h.content == text]
    # The same text under Glaciers holds no word of the query: no hit.
    assert [h.provenance.block for h in hits] == [4]  # type: ignore[union-attr]


def test_the_whole_document_lifts_its_passages_over_an_equal_passage_elsewhere() -> None:
    rag = create_rag(
        store=SQLiteStore(":memory:"), retrieval="bm25", chunk_size=80, chunk_overlap=0
    )
    same = "Comets carry ice from the outer edge of the solar system."
    rag.ingest([
        {"id": "about", "content": same + " " + "Their dust tails point away from the Sun."},
        {"id": "other", "content": same + " " + "Bread rises when yeast ferments sugar."},
    ])  # fmt: skip
    hits = rag.search("comets ice dust tails", top_k=4)
    firsts = [h for h in hits if h.content == same]
    assert [h.provenance.document_id for h in firsts] == ["about", "other"]  # type: ignore[union-attr]
    assert firsts[0].score > firsts[1].score  # type: ignore[operator]


def test_hits_keep_exact_offsets_in_the_document() -> None:
    content = FILLER + "Whales sing. " + FILLER
    rag = create_rag(store=SQLiteStore(":memory:"), retrieval="bm25", chunk_overlap=0)
    rag.ingest([{"id": "w", "content": content, "metadata": {"title": "Sea"}}])
    for hit in rag.search("whales sea", top_k=5):
        where = hit.provenance
        assert where is not None and content[where.start : where.end] == hit.content
        assert not hit.content.startswith("Sea")  # the title is scored, never shown as text


def test_equal_fused_scores_fall_back_to_the_passages_own_score_then_row() -> None:
    index = PassageIndex()
    index.add(["p1", "p2", "p3"], ["apple pie", "apple", "pear"], ["d1", "d2", "d2"])
    index.set_documents(["d1", "d2"], ["apple pie", "apple pear"])
    ids, scores = index.search("apple", 3)
    assert ids == ["p2", "p1"] or scores[0] > scores[1]
    tied = top_rows(np.array([1.0, 2.0, 2.0, 2.0]), 2, np.array([0.0, 1.0, 3.0, 1.0]))
    assert tied.tolist() == [2, 1]


def test_weighted_fusion_orders_ties_by_agreement_then_rank() -> None:
    dense = [Match("x", 0.9, ""), Match("y", 0.9, "")]  # equal scores: both 1 after min-max
    lexical = [Match("z", 3.0, ""), Match("y", 3.0, "")]
    out = weighted_fusion(dense, lexical)
    assert [h.id for h in out] == ["y", "x", "z"]  # y is in both; x and z tie, x ranks first
    fused = reciprocal_rank_fusion([[Match("b", 1, "")], [Match("a", 1, "")]])
    assert [h.id for h in fused] == ["a", "b"]  # equal reciprocal ranks: by id


def test_a_document_text_is_its_passages_once_with_their_headings() -> None:
    contents = [(0, 10, "One. Two."), (5, 15, "Two. Three.")]
    assert document_text(["T\nA", "T"], contents) == "T\nA\nOne. Two.\nThree."


def test_dense_search_embeds_the_passage_with_its_title(tmp_path) -> None:
    embedder = HashEmbedder()
    rag = create_rag(embedder, SQLiteStore(":memory:"), "dense", chunk_size=60)
    rag.ingest([{"id": "t", "content": FILLER, "metadata": {"title": "Volcanoes"}}])
    assert rag.search("volcanoes", top_k=1)[0].score > 0.1  # type: ignore[operator]


def test_hybrid_search_fuses_both_sides_by_standard_scores_by_default() -> None:
    """A user's hybrid search is the z-score fusion of the BM25 and dense rankings, each
    taken deeper than asked (BM25 as deep as it was asked: what it did not match scores its
    0), cut to the top k."""
    store = SQLiteStore(":memory:")
    embedder = HashEmbedder()
    modes = {m: create_rag(embedder, store, m, chunk_size=80) for m in ("hybrid", "bm25", "dense")}
    modes["hybrid"].ingest([
        {"id": "tides", "content": "The moon pulls the oceans. Tides rise twice a day. " * 3},
        {"id": "bees", "content": "Worker bees gather nectar. The queen lays eggs. " * 3},
        {"id": "moon", "content": "The moon has no air. Its dust is fine and grey. " * 3},
    ])  # fmt: skip
    query = "the moon and the oceans"
    got = modes["hybrid"].search(query, top_k=3)
    want = zscore_fusion(
        modes["dense"].search(query, 300), modes["bm25"].search(query, 300), bm25_depth=300
    )
    assert [(h.id, h.score) for h in got] == [(h.id, h.score) for h in want[:3]]
    assert got[0].provenance.document_id == "tides"  # type: ignore[union-attr]


def test_only_passages_that_can_rank_are_fused_and_the_result_is_the_exhaustive_one() -> None:
    # A few words, so scores tie often: the search that fuses only the passages able to
    # rank answers exactly what fusing every passage (a mask allowing all) answers.
    rng = np.random.default_rng(7)
    words = ["ash", "bay", "cod", "dew", "elm", "fig", "gum", "hay"]
    index = PassageIndex()
    for doc in range(60):
        texts = [" ".join(rng.choice(words, rng.integers(1, 6))) for _ in range(rng.integers(1, 5))]
        ids = [f"d{doc}p{i}" for i in range(len(texts))]
        index.add(ids, texts, [f"d{doc}"] * len(ids))
        index.set_documents([f"d{doc}"], [" ".join(texts)])
    index.remove(["d3p0", "d8p1"])  # removed passages keep their document
    index.remove_documents(["d5"])  # and passages whose document has no whole text left
    everything = np.ones(len(index.ids), dtype=bool)
    for query in ["ash", "bay cod", "dew elm fig", "gum hay ash bay", "elm elm", "zebra"]:
        for k in (1, 2, 3, 5, 10, 40, 500):
            ids, scores = index.search(query, k)
            every_ids, every_scores = index.search(query, k, everything)
            assert (ids, scores.tolist()) == (every_ids, every_scores.tolist()), (query, k)


def test_a_passage_holding_no_query_word_is_no_bm25_hit(store_location: str) -> None:
    rag = create_rag(store=store_location, retrieval="bm25", chunk_size=60, chunk_overlap=0)
    held = "Audited in May by the regional office."
    rag.ingest([
        {"id": "sales", "content": f"{held} {FILLER}", "metadata": {"title": "Sales"}},
        {"id": "other", "content": FILLER, "metadata": {"title": "Other"}},
    ])  # fmt: skip
    with rag:
        hits = rag.search("audited", top_k=10)
        filtered = rag.search("audited", top_k=10, filter={"document_id": "sales"})
    assert [h.content for h in hits] == [held]  # its document's match finds no other passage
    assert [h.content for h in filtered] == [held]
    assert hits[0].score == 2.0  # the best passage of the best document


def test_hybrid_still_brings_passages_of_no_query_word_on_its_dense_side(tmp_path) -> None:
    held = "Audited in May by the regional office."
    with create_rag(HashEmbedder(), tmp_path / "s.db", chunk_size=60, chunk_overlap=0) as rag:
        rag.ingest([{"id": "sales", "content": f"{held} {FILLER}"}])
        hits = rag.search("audited", top_k=10)
    assert hits[0].content == held and len(hits) > 1
    assert all("Audited" not in h.content for h in hits[1:])  # the dense side's, fused
