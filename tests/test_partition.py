"""Partitions: namespaced ids, filtered searches that fail closed, diagnostics, persistence."""

from __future__ import annotations

import math
import sys
from typing import Any

import pytest

from citesift.errors import InvalidArgument
from citesift.index.partition import (
    MAX_PARTITION_CHARS,
    PartitionDiagnostics,
    create_partitioned_rag,
)
from citesift.store.chunks import IndexedDocument, IndexStats
from test_rag_helpers import HashEmbedder, ListStore


def split_bars(text: str) -> list[str]:
    return text.split("|")


def partitions(store: Any, **kwargs: Any) -> tuple[Any, Any, list[PartitionDiagnostics]]:
    seen: list[PartitionDiagnostics] = []
    options = {"embed": HashEmbedder(), "store": store, "split": split_bars, **kwargs}
    a = create_partitioned_rag("a", on_diagnostics=seen.append, **options)
    b = create_partitioned_rag("b", on_diagnostics=seen.append, **options)
    return a, b, seen


def contents(rag: Any, query: str = "A B old new") -> list[str]:
    return sorted(h.content for h in rag.search(query, top_k=5))


@pytest.mark.parametrize("honour", [True, False])
def test_same_document_id_never_collides(honour: bool) -> None:
    store = ListStore(honour_filter=honour, honour_top_k=honour)
    a, b, _ = partitions(store)
    a.ingest([{"id": "doc", "content": "A|old"}])
    b.ingest([{"id": "doc", "content": "B"}])
    assert contents(a) == ["A", "old"]
    assert contents(b) == ["B"]
    a.ingest([{"id": "doc", "content": "new"}])
    assert contents(a) == ["new"]
    a.ingest([{"id": "doc", "content": ""}])  # no text: the earlier version is kept
    assert contents(a) == ["new"]
    a.delete("doc")
    assert contents(a) == []
    assert contents(b) == ["B"]


def test_one_store_search_with_the_candidate_limit_and_the_partition_filter() -> None:
    store = ListStore()
    a, _, seen = partitions(store, retrieval="bm25")
    a.search("anything")
    [query] = store.searches
    assert query.top_k == 20
    assert query.filter == {"_partition": {"$eq": "a"}}
    assert seen[0] == PartitionDiagnostics("a", 5, 20, 0, 0, 0)


def test_foreign_candidates_crowding_out_return_nothing() -> None:
    store = ListStore(honour_filter=False)
    a, b, seen = partitions(store, retrieval="bm25", overfetch_factor=2)
    b.ingest([{"id": "x", "content": "B1|B2|B3"}])
    a.ingest([{"id": "y", "content": "A1"}])
    assert a.search("A1", top_k=1) == []
    assert seen[-1] == PartitionDiagnostics("a", 1, 2, 2, 2, 0, "potentially-reduced")


def test_store_ignoring_top_k_is_capped_at_the_candidate_limit() -> None:
    store = ListStore(honour_filter=False, honour_top_k=False)
    a, _, seen = partitions(store, retrieval="bm25", overfetch_factor=1)
    a.ingest([{"id": "y", "content": "A1|A2|A3|A4"}])
    assert [h.content for h in a.search("A", top_k=2)] == ["A1", "A2"]
    assert (seen[-1].examined, seen[-1].returned) == (2, 2)


def test_missing_or_foreign_metadata_fails_closed() -> None:
    store = ListStore(honour_filter=False)
    a, _, _ = partitions(store, retrieval="bm25")
    a.ingest([{"id": "own", "content": "A", "metadata": {"_partition": "b"}}])
    store.chunks.append(type(store.chunks[0])("raw", "raw", 0, 0, 1, "R", {}))
    hits = a.search("A R")
    assert [h.content for h in hits] == ["A"]
    assert hits[0].metadata["_partition"] == "a"
    assert hits[0].provenance.document_id == "own" and hits[0].id == "own_chunk_0"


def test_delete_maps_ids_into_the_partition() -> None:
    store = ListStore()
    a, b, _ = partitions(store)
    a.ingest([{"id": "doc", "content": "A"}])
    b.ingest([{"id": "doc", "content": "B"}])
    a.delete(["doc"])
    assert contents(a) == [] and contents(b) == ["B"]


@pytest.mark.parametrize("factor", [0, 17, 1.5, math.nan, math.inf, True, "4"])
def test_overfetch_factor_must_be_an_integer_from_1_to_16(factor: Any) -> None:
    with pytest.raises(InvalidArgument, match="overfetch_factor must be"):
        create_partitioned_rag("a", factor, lambda d: None, store=ListStore())


def test_partition_is_required_and_diagnostics_are_optional() -> None:
    for name in ("", "t" * (MAX_PARTITION_CHARS + 1)):
        with pytest.raises(InvalidArgument, match="partition must be a string of 1 to 256"):
            create_partitioned_rag(name, on_diagnostics=lambda d: None, store=ListStore())
    create_partitioned_rag("t" * MAX_PARTITION_CHARS, store=ListStore()).close()
    with pytest.raises(InvalidArgument, match="on_diagnostics must be"):
        create_partitioned_rag("a", on_diagnostics="print", store=ListStore())
    quiet = create_partitioned_rag("a", store=ListStore(), retrieval="bm25")
    quiet.ingest([{"id": "d", "content": "words"}])
    assert [h.id for h in quiet.search("words")] == ["d_chunk_0"]


@pytest.mark.parametrize("top_k", [sys.float_info.max, 250_001, 0, -1, 2.5])
def test_a_top_k_that_makes_no_sense_is_refused(top_k: float) -> None:
    a, _, _ = partitions(ListStore())
    with pytest.raises(InvalidArgument, match="top_k must be"):
        a.search("q", top_k=top_k)


def test_a_failing_diagnostics_listener_rejects_the_search() -> None:
    def broken(diagnostics: PartitionDiagnostics) -> None:
        raise RuntimeError("listener broke")

    rag = create_partitioned_rag("a", on_diagnostics=broken, store=ListStore(), retrieval="bm25")
    with pytest.raises(RuntimeError, match="listener broke"):
        rag.search("q")


def test_persistent_store_keeps_isolation_when_reopened(tmp_path) -> None:
    path = tmp_path / "s.db"
    a, b, _ = partitions(path)
    a.ingest([{"id": "doc", "content": "A|old"}])
    b.ingest([{"id": "doc", "content": "B"}])
    a2, b2, seen = partitions(path)
    assert contents(a2) == ["A", "old"]
    assert contents(b2) == ["B"]
    assert all(d.rejected == 0 for d in seen)


class CountingStore(ListStore):
    """A caller's store that counts and lists its documents but cannot read one row."""

    def documents(self) -> list[IndexedDocument]:
        ids = sorted({c.document_id for c in self.chunks})
        return [
            IndexedDocument(i, None, None, sum(c.document_id == i for c in self.chunks))
            for i in ids
        ]

    def stats(self) -> IndexStats:
        return IndexStats(len(self.documents()), len(self.chunks), {}, 1)


@pytest.mark.parametrize("kind", ["sqlite", "caller"])
def test_a_partition_says_whether_it_holds_documents(tmp_path: Any, kind: str) -> None:
    """Each partition answers for itself, on the embedded store (one row read) and on a
    caller's store without ``has_documents`` (its counts)."""
    store = tmp_path / "s.db" if kind == "sqlite" else CountingStore()
    a, b, _ = partitions(store)
    assert not a.has_documents() and not a.rag.has_documents()
    a.ingest([{"id": "doc", "content": "A|old"}])
    assert a.has_documents() and not b.has_documents() and b.rag.has_documents()
    a.delete("doc")
    assert not a.has_documents() and not a.rag.has_documents()


def test_threshold_still_applies_in_a_partition() -> None:
    store = ListStore(scores=[0.9, 0.1])
    a, _, seen = partitions(store, retrieval="bm25", threshold=0.5)
    a.ingest([{"id": "doc", "content": "A|old"}])
    assert [h.content for h in a.search("A")] == ["A"]
    assert seen[-1].returned == 1


@pytest.mark.parametrize("query", [None, b"A", 5, ["A"]])
def test_a_query_that_is_not_text_is_refused_not_searched_as_its_printed_form(
    query: Any,
) -> None:
    a, _, _ = partitions(ListStore())
    a.ingest([{"id": "doc", "content": "A|None|b'A'|5"}])
    for rag in (a, a.rag):
        with pytest.raises(InvalidArgument, match="query must be text"):
            rag.search(query)


def test_the_whole_store_lists_a_partition_s_documents_by_name(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``index ls`` and ``search`` over the whole store show the partition's name and the
    document's own id, never the JSON the store keeps them by."""
    from typer.testing import CliRunner

    from citesift.cli import app

    store = str(tmp_path / "s.db")
    with create_partitioned_rag("team-a", store=store, retrieval="bm25") as team:
        team.ingest([{"id": "gusts", "content": "Wind gusts over the ridge."}])
    listed = CliRunner().invoke(app, ["index", "ls", "--store", store])
    assert listed.exit_code == 0 and listed.stdout == "gusts (partition team-a)\t1\t\n"
    found = CliRunner().invoke(app, ["search", "wind", "--retrieval", "bm25", "--store", store])
    assert found.exit_code == 0 and "] gusts (partition team-a)\n" in found.stdout
    assert "citesift.rag.partition" not in listed.stdout + found.stdout


@pytest.mark.parametrize(
    ("partition", "own"),
    [("team-a", "gusts"), ("b (partition c)", "x (partition y)"), ("é", "notes (v2)")],
)
def test_a_partition_s_document_is_removed_by_the_name_index_ls_shows(
    tmp_path: Any, partition: str, own: str
) -> None:
    """``index ls`` then ``index rm`` of the line it shows: the document goes, its
    partition's other documents stay."""
    from typer.testing import CliRunner

    from citesift.cli import app

    store = str(tmp_path / "s.db")
    with create_partitioned_rag(partition, store=store, retrieval="bm25") as team:
        team.ingest([{"id": own, "content": "Wind gusts."}, {"id": "kept", "content": "Rain."}])
    listed = CliRunner().invoke(app, ["index", "ls", "--store", store])
    shown = [line.split("\t")[0] for line in listed.stdout.splitlines()]
    assert f"{own} (partition {partition})" in shown, shown
    removed = CliRunner().invoke(
        app, ["index", "rm", f"{own} (partition {partition})", "--store", store]
    )
    assert removed.exit_code == 0 and removed.stdout == "removed 1 chunk(s)\n", removed.output
    with create_partitioned_rag(partition, store=store, retrieval="bm25") as team:
        assert [document.id for document in team.documents()] == ["kept"]
