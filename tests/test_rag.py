"""The RAG facade: sanitising, ingest snapshots and replacement, search contract, sources."""

from __future__ import annotations

import json
import math
import warnings
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from citesift.errors import InvalidArgument
from citesift.index.rag import create_rag
from citesift.index.rerankers.bm25 import BM25Reranker
from citesift.model import Block, Licence, Passage, SourceDocument
from test_rag_helpers import HashEmbedder, ListStore


@pytest.mark.parametrize(
    "option",
    [{"top_k": 0}, {"top_k": 2.5}, {"chunk_size": -1}, {"chunk_size": -10}, {"chunk_size": 0},
     {"chunk_overlap": -3}, {"chunk_size": 100, "chunk_overlap": 100}, {"threshold": math.nan},
     {"rerank_weight": 1.5}, {"rerank_weight": math.nan}, {"retrieval": "fuzzy"},
     {"fusion": "average"}, {"top_k": 10**9}, {"min_similarity": 1.5},
     {"min_similarity": math.nan}, {"threshold": 0.05}],
)  # fmt: skip
def test_options_that_make_no_sense_are_refused_by_name(tmp_path, option: dict) -> None:
    name = next(reversed(option))
    with pytest.raises(InvalidArgument, match=f"{name} must be"):
        create_rag(HashEmbedder(), tmp_path / "s.db", **option)


def test_the_default_overlap_follows_a_small_size_and_none_means_no_limit() -> None:
    store = ListStore()
    small = create_rag(HashEmbedder(), store, chunk_size=20, retrieval="bm25")
    assert (small.chunk_size, small.chunk_overlap) == (20, 19)
    whole = create_rag(HashEmbedder(), store, chunk_size=None, retrieval="bm25")
    whole.ingest([{"id": "d", "content": "word " * 500}])
    assert len(store.chunks) == 1


def test_per_call_top_k_takes_the_default_or_refuses_nonsense() -> None:
    store = ListStore()
    rag = create_rag(HashEmbedder(), store, top_k=3, retrieval="bm25")
    rag.search("q")
    rag.search("q", top_k=7)
    assert [q.top_k for q in store.searches] == [3, 7]
    for bad in (-2, math.nan, 7.9, 0):
        with pytest.raises(InvalidArgument, match="top_k must be"):
            rag.search("q", top_k=bad)


def test_ingest_snapshots_content_and_metadata() -> None:
    store = ListStore()
    rag = create_rag(HashEmbedder(), store)
    doc = {"id": "stable", "content": "original words", "metadata": {"tags": ["a"]}}
    rag.ingest([doc])
    doc["content"] = "changed"
    doc["metadata"]["tags"].append("b")
    [chunk] = store.chunks
    assert chunk.id == "stable_chunk_0" and chunk.content == "original words"
    assert chunk.metadata["tags"] == ["a"]
    assert chunk.origin().document_id == "stable" and "document_id" not in chunk.metadata
    assert chunk.vector is not None and chunk.embedder == "test-hash/64"


@pytest.mark.parametrize("scores", [[1.0, None], [math.nan, 1.0], [1.0, math.inf]])
def test_mixed_or_non_finite_store_scores_raise(scores: list[float | None]) -> None:
    store = ListStore(scores=scores)
    rag = create_rag(HashEmbedder(), store, retrieval="bm25")
    rag.ingest([{"id": "a", "content": "one"}, {"id": "b", "content": "two"}])
    with pytest.raises(TypeError):
        rag.search("one")


def test_unscored_store_results_keep_their_order() -> None:
    store = ListStore()
    rag = create_rag(HashEmbedder(), store, retrieval="bm25")
    rag.ingest([{"id": "b", "content": "second"}, {"id": "a", "content": "first"}])
    assert [h.id for h in rag.search("x")] == ["b_chunk_0", "a_chunk_0"]


def test_empty_ingest_then_retrieve_is_empty(tmp_path) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db")
    assert rag.ingest([]) == 0
    assert rag.retrieve(query="anything") == []
    assert rag.retrieve(messages=[{"role": "user", "content": "anything"}]) == []


def test_reingest_replaces_and_a_version_with_no_text_keeps_the_earlier(tmp_path) -> None:
    """A version read empty (a page left with only scripts, a file emptied) is no reason to
    lose what was indexed: only ``delete`` removes a document."""
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", chunk_size=20, chunk_overlap=0)
    rag.ingest([{"id": "d", "content": "alpha beta gamma. delta epsilon zeta. eta theta."}])
    assert len(rag.search("alpha", top_k=10, filter={"document_id": "d"})) >= 2
    rag.ingest([{"id": "d", "content": "omega only"}])
    assert [h.content for h in rag.search("omega alpha", top_k=10)] == ["omega only"]
    kept: list[str] = []
    rag.kept = kept.append
    for blank in ("", "  \n\t", None):
        assert rag.ingest([{"id": "d", "content": blank}, {"id": "e", "content": "new words"}]) == 1
    assert kept == ["e"] * 3
    assert [h.content for h in rag.search("omega", filter={"document_id": "d"})] == ["omega only"]
    assert [(d.id, d.chunks) for d in rag.documents()] == [("d", 1), ("e", 1)]
    assert rag.delete("d") == 1 and [d.id for d in rag.documents()] == ["e"]


def test_embedder_failure_stores_nothing_of_its_batch(tmp_path) -> None:
    rag = create_rag(HashEmbedder(fail_after=0), tmp_path / "s.db")
    with pytest.raises(RuntimeError, match="embedder broke"):
        rag.ingest([{"id": "d", "content": "some words"}])
    assert rag.stats().chunks == 0


@pytest.mark.parametrize("retrieval", ["bm25", "dense", "hybrid"])
def test_each_retrieval_finds_the_matching_document(tmp_path, retrieval: str) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval=retrieval)
    rag.ingest(
        [
            {"id": "tower", "content": "The Eiffel tower stands in Paris."},
            {"id": "leaf", "content": "Leaves turn light into sugar."},
        ]
    )
    hits = rag.search("eiffel tower paris", top_k=1)
    assert [h.provenance.document_id for h in hits] == ["tower"]
    assert math.isfinite(hits[0].score)


class NoiseEmbedder:
    """Eight numbers a text seeds, unrelated to its words: a dense side that cannot help."""

    name, dim = "test-noise/8", 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        seeded = [np.random.default_rng(zlib.crc32(t.encode())).standard_normal(8) for t in texts]
        out = np.stack(seeded).astype(np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@pytest.mark.parametrize("fusion", ["zscore", "weighted"])
def test_hybrid_keeps_what_bm25_alone_finds_when_the_dense_side_cannot_help(
    tmp_path, fusion: str
) -> None:
    filler = [{"id": f"f{i}", "content": f"Kettles boil water for tea number {i}."}
              for i in range(40)]  # fmt: skip
    moon = {"id": "moon", "content": "The Moon raises two tides a day."}
    sea = {"id": "sea", "content": "Tides follow the pull of the moon on the sea."}
    for found in (["moon"], ["moon", "sea"]):
        rag = create_rag(NoiseEmbedder(), tmp_path / f"{len(found)}.db", fusion=fusion)
        rag.ingest([*filler, moon, *([sea] if len(found) > 1 else [])])
        hits = rag.search("tides", top_k=len(found))
        assert sorted(h.provenance.document_id for h in hits) == found


def test_store_reopens_with_its_chunks_and_vectors(tmp_path) -> None:
    path = tmp_path / "s.db"
    create_rag(HashEmbedder(), path).ingest([{"id": "a", "content": "saved words here"}])
    embedder = HashEmbedder()
    reopened = create_rag(embedder, path, retrieval="dense")
    assert [h.id for h in reopened.search("saved words")] == ["a_chunk_0"]
    assert embedder.calls == 1  # the query only: chunk vectors came from the store


def test_bm25_mode_never_loads_an_embedder(tmp_path) -> None:
    embedder = HashEmbedder(fail_after=0)
    rag = create_rag(embedder, tmp_path / "s.db", retrieval="bm25")
    rag.ingest([{"id": "a", "content": "plain keyword text"}])
    assert rag.search("keyword")[0].id == "a_chunk_0"
    assert embedder.calls == 0


def test_dense_search_embeds_chunks_ingested_without_vectors_and_says_so(tmp_path) -> None:
    path = tmp_path / "s.db"
    create_rag(HashEmbedder(), path, retrieval="bm25").ingest(
        [{"id": "a", "content": "late vectors"}]
    )
    rag = create_rag(HashEmbedder(), path, retrieval="dense")
    with pytest.warns(UserWarning, match="embedding 1 chunk"):
        assert rag.search("late vectors")[0].id == "a_chunk_0"
    assert rag.stats().embedded == {"test-hash/64": 1}


def test_a_backfill_listener_hears_the_embedding_instead_of_a_warning(tmp_path) -> None:
    path = tmp_path / "s.db"
    docs = [{"id": f"d{i}", "content": f"text {i}"} for i in range(3)]
    create_rag(HashEmbedder(), path, retrieval="bm25").ingest(docs)
    heard: list[tuple[int, int]] = []
    rag = create_rag(HashEmbedder(), path, retrieval="hybrid")
    rag.backfill = lambda done, total: heard.append((done, total))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rag.search("text")
        rag.search("text again")
    assert heard == [(0, 3), (3, 3)]


def test_stats_documents_and_delete_answer_from_the_rag(tmp_path) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", chunk_size=30, chunk_overlap=0)
    rag.ingest([source_document(), {"id": "note", "content": "a short note"}])
    stats = rag.stats()
    assert (stats.documents, stats.embedded) == (2, {"test-hash/64": stats.chunks})
    listed = rag.documents()
    tide = "https://en.wikipedia.org/wiki/Tide"
    assert [(d.id, d.title, d.url) for d in listed] == [(tide, "Tide", tide), ("note", None, None)]
    assert sum(d.chunks for d in listed) == stats.chunks
    assert rag.delete(tide) == listed[0].chunks
    assert rag.delete([tide]) == 0
    assert [d.id for d in rag.documents()] == ["note"] and rag.stats().chunks == 1


def test_filters_restrict_and_bad_operators_are_refused(tmp_path) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db")
    rag.ingest(
        [
            {"id": "a", "content": "shared words", "metadata": {"lang": "en"}},
            {"id": "b", "content": "shared words", "metadata": {"lang": "fr"}},
        ]
    )
    assert [h.id for h in rag.search("shared", filter={"lang": {"$eq": "fr"}})] == ["b_chunk_0"]
    assert [h.id for h in rag.search("shared", filter={"lang": {"$in": ["en"]}})] == ["a_chunk_0"]
    with pytest.raises(ValueError, match="unknown filter operator"):
        rag.search("shared", filter={"lang": {"$regex": "e"}})


# Dense alone ranks "a" first (its vector is the query's); BM25 ranks "b" first (five "solar").
DISAGREEING = [
    {"id": "a", "content": "solar"},
    {"id": "b", "content": "solar solar solar solar solar panels"},
    {"id": "c", "content": "wind"},
]


def test_rerank_true_reorders_by_bm25(tmp_path) -> None:
    dense = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="dense")
    dense.ingest(DISAGREEING)
    assert [h.id for h in dense.search("solar", top_k=2)] == ["a_chunk_0", "b_chunk_0"]
    reranked = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="dense", rerank=True)
    assert [h.id for h in reranked.search("solar", top_k=2)] == ["b_chunk_0", "a_chunk_0"]


def test_lone_surrogates_and_odd_metadata_are_stored(tmp_path) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db")
    rag.ingest([{"id": "s", "content": "bad \udfff text", "metadata": {"n": {1, 2}}}])
    [hit] = rag.search("bad text")
    assert hit.content == "bad \ufffd text"
    assert isinstance(hit.metadata["n"], str)


def test_unknown_retrieval_and_document_kinds_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="retrieval"):
        create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="fuzzy")
    rag = create_rag(HashEmbedder(), tmp_path / "s.db")
    with pytest.raises(TypeError, match="cannot ingest"):
        rag.ingest([42])


LICENCE = Licence("CC BY-SA 4.0", "https://creativecommons.org/licenses/by-sa/4.0/")


HTML = "<h1>Tides</h1><p>The Moon pulls the oceans.</p><p>Tides rise twice a day.</p>"


def source_document() -> SourceDocument:
    html = HTML
    blocks = (
        Block("Tides", "heading", (), 4, 9),
        Block("The Moon pulls the oceans.", "paragraph", ("Tides",), 17, 43),
        Block("Tides rise twice a day.", "paragraph", ("Tides",), 50, 73),
    )
    assert html[50:73] == blocks[2].text
    return SourceDocument(
        "wikipedia", "Tide", "Tide", "https://en.wikipedia.org/wiki/Tide", "123", 1, LICENCE,
        blocks, snapshot_id="ab12",
    )  # fmt: skip


def test_source_documents_carry_attribution_and_source_offsets(tmp_path) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", chunk_size=30, chunk_overlap=0)
    rag.ingest([source_document()])
    hits = rag.search("tides moon oceans twice day", top_k=10)
    assert len(hits) > 2
    for hit in hits:
        where = hit.provenance
        assert where is not None and where.document_id == "https://en.wikipedia.org/wiki/Tide"
        assert (where.title, where.licence, where.revision) == ("Tide", LICENCE, "123")
        assert (where.site, where.key, where.snapshot_id) == ("wikipedia", "Tide", "ab12")
        assert hit.metadata == {"publisher": None, "language": None}
        assert where.block is not None and where.source_start is not None
        source = HTML[where.source_start : where.source_end]
        if "\n" not in hit.content:
            assert source == hit.content
        assert hit.content.split()[0] in source and hit.content.split()[-1] in source


def test_passages_keep_their_fragment_links_and_snapshot(tmp_path) -> None:
    passage = Passage(
        "The Moon pulls the oceans.", "Tide", "https://en.wikipedia.org/wiki/Tide",
        "wikipedia", "Tide", "123", 1, LICENCE, 1, 0, 26, 17, 43,
        "https://en.wikipedia.org/wiki/Tide#:~:text=The%20Moon", "ab12",
    )  # fmt: skip
    rag = create_rag(HashEmbedder(), tmp_path / "s.db")
    rag.ingest([passage])
    [hit] = rag.search("moon oceans")
    where = hit.provenance
    assert where is not None and where.fragment_url == passage.fragment_url
    assert (where.source_start, where.source_end, where.block) == (17, 43, 1)
    assert (where.url, where.snapshot_id) == (passage.url, "ab12")
    assert hit.metadata == {}


def test_provenance_survives_a_reopened_store(tmp_path) -> None:
    create_rag(HashEmbedder(), tmp_path / "s.db").ingest([source_document()])
    [hit] = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="bm25").search("moon", top_k=1)
    assert hit.provenance is not None and hit.provenance.snapshot_id == "ab12"
    assert hit.provenance.licence == LICENCE and hit.provenance.read_at == 1
    again = create_rag(HashEmbedder(), tmp_path / "s.db")
    found = again.search("moon", filter={"site": "wikipedia"})
    assert found and all(h.provenance.snapshot_id == "ab12" for h in found)


@pytest.mark.timeout(120)
def test_create_rag_with_no_arguments_works_offline(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("CITESIFT_HOME", str(tmp_path / "home"))
    rag = create_rag()
    rag.ingest(
        [
            {"id": "tides", "content": "The Moon's gravity raises two ocean tides a day."},
            {"id": "bread", "content": "Yeast makes bread dough rise in a warm kitchen."},
        ]
    )
    hits = rag.search("why does the sea go up and down", top_k=1)
    assert hits[0].provenance.document_id == "tides"
    assert (tmp_path / "home" / "citesift.db").is_file()
    assert rag.stats().embedded == {rag.embedder.name: 2}


@pytest.mark.timeout(60)
def test_concurrent_ingest_and_search_from_threads(tmp_path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    rag = create_rag(HashEmbedder(), tmp_path / "s.db")

    def work(n: int) -> int:
        rag.ingest([{"id": f"d{n}", "content": f"thread document {n} about rivers"}])
        return len(rag.search("rivers thread", top_k=50))

    with ThreadPoolExecutor(8) as pool:
        counts = list(pool.map(work, range(40)))
    assert all(c >= 1 for c in counts)
    assert len(rag.search("rivers", top_k=100)) == 40


def test_ingest_streams_documents_and_keeps_finished_batches(tmp_path) -> None:
    def documents():
        for i in range(100):
            yield {"id": f"d{i}", "content": f"streamed text {i}"}
        raise RuntimeError("source dried up")

    seen: list[tuple[int, int]] = []
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="bm25")
    rag.progress = lambda done, total: seen.append((done, total))
    with pytest.raises(RuntimeError, match="dried up"):
        rag.ingest(documents())
    assert seen == [(64, 64)]
    assert rag.stats().documents == 64


@pytest.mark.parametrize("threshold,kept", [(0.5, ["a"]), (None, ["a", "b"])])
def test_threshold_drops_low_scores_and_none_means_none(
    threshold: float | None, kept: list[str]
) -> None:
    store = ListStore(scores=[0.9, 0.1])
    rag = create_rag(HashEmbedder(), store, retrieval="bm25", threshold=threshold)
    rag.ingest([{"id": "a", "content": "one"}, {"id": "b", "content": "two"}])
    assert [h.provenance.document_id for h in rag.search("x")] == kept


def test_a_hybrid_threshold_is_on_the_reciprocal_rank_scale(tmp_path) -> None:
    with pytest.raises(InvalidArgument, match=r"threshold must be at most 2/61 \(0\.0328\)"):
        create_rag(HashEmbedder(), tmp_path / "s.db", threshold=0.5)
    assert create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="dense", threshold=0.5)
    top = create_rag(HashEmbedder(), tmp_path / "s.db", threshold=2 / 61)
    top.ingest([{"id": "a", "content": "solar panels"}, {"id": "b", "content": "bread"}])
    assert [h.provenance.document_id for h in top.search("solar panels")] == ["a"]


def test_a_weighted_hybrid_threshold_is_on_the_min_max_scale(tmp_path) -> None:
    with pytest.raises(InvalidArgument, match=r"threshold must be at most 1 in hybrid mode"):
        create_rag(HashEmbedder(), tmp_path / "s.db", fusion="weighted", threshold=1.5)
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", fusion="weighted", threshold=0.5)
    rag.ingest([{"id": "a", "content": "solar panels"}, {"id": "b", "content": "bread"}])
    assert [h.provenance.document_id for h in rag.search("solar panels")] == ["a"]


@pytest.mark.parametrize(
    "min_similarity,kept", [(None, ["a", "b"]), (0.5, ["a"]), (-1, ["a", "b"])]
)
def test_min_similarity_leaves_out_unrelated_hybrid_hits_only_when_set(
    tmp_path, min_similarity: float | None, kept: list[str]
) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", min_similarity=min_similarity)
    rag.ingest([{"id": "a", "content": "solar panels power homes"},
                {"id": "b", "content": "bread is baked from flour"}])  # fmt: skip
    hits = rag.search("solar energy")
    assert [h.provenance.document_id for h in hits] == kept
    assert all(h.score is not None and h.score > 0 for h in hits)


def test_rerank_by_name_with_its_weight(tmp_path) -> None:
    rag = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="dense", rerank="bm25")
    rag.ingest(DISAGREEING)
    assert isinstance(rag.reranker, BM25Reranker) and rag.rerank_weight == 0.5
    alone = create_rag(HashEmbedder(), tmp_path / "s.db", retrieval="dense", rerank=" BM25 ",
                       rerank_weight=1)  # fmt: skip
    assert [h.id for h in alone.search("solar", top_k=2)] == ["b_chunk_0", "a_chunk_0"]
    with pytest.raises(ValueError, match="unknown reranker"):
        create_rag(HashEmbedder(), tmp_path / "s.db", rerank="magic")


def test_a_store_of_the_old_layout_moves_attribution_out_of_metadata(tmp_path) -> None:
    from citesift.store.chunks import MIGRATIONS, ChunkTable
    from citesift.store.sqlite import SQLiteStore

    legacy = {"document_id": "wikipedia:Tide", "chunk_index": 0, "start": 0, "end": 5,
              "title": "Tide", "url": "https://en.wikipedia.org/wiki/Tide", "site": "wikipedia",
              "licence": "CC BY-SA 4.0", "licence_url": LICENCE.url, "block": 1,
              "source_start": 17, "source_end": 43, "tags": ["mine"]}  # fmt: skip
    with SQLiteStore(tmp_path / "old.db") as store:
        store.migrate("chunks", MIGRATIONS[:1])
        with store.transaction() as conn:
            conn.execute(
                "INSERT INTO chunks (id, document_id, seq, start, stop, content, content_hash,"
                " metadata) VALUES ('c', 'wikipedia:Tide', 0, 0, 5, 'Tides', 'h', ?)",
                (json.dumps(legacy),),
            )
        [chunk] = ChunkTable(store).all()
    assert chunk.metadata == {"tags": ["mine"]}
    where = chunk.origin()
    assert (where.document_id, where.title, where.site, where.licence) == (
        "wikipedia:Tide",
        "Tide",
        "wikipedia",
        LICENCE,
    )
    assert (where.block, where.source_start, where.source_end) == (1, 17, 43)
