"""Odd text and odd metadata through the embedded store: what is kept reads back as it went
in (NUL, bidi controls, zero-width characters, combining marks, CJK, a 5 MB word), and
metadata nested deeper than JSON can be written is refused clearly (it raised
``RecursionError`` out of ``ingest``)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from citesift import create_partitioned_rag, create_rag
from citesift.errors import InvalidArgument

ODD = {
    "nul": "alpha\x00beta gamma.",
    "bidi": "delta \u202eepsilon\u202c \u2066zeta\u2069 eta.",
    "zero-width": "theta\u200b\u200diota \ufeffkappa.",
    "marks": "lambda Z\u0316\u0301a\u0301l\u0327g\u030co mu.",
    "cjk": "中文没有空格的句子。次の文です。",
    "word": "nu " + "x" * 5_000_000,
}


@pytest.mark.timeout(120)
def test_odd_text_reads_back_as_it_was_kept(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with create_rag(store=path, retrieval="bm25", chunk_size=None) as rag:
        rag.ingest([{"id": key, "content": text, "metadata": {"m": text[:40]}}
                    for key, text in ODD.items()])  # fmt: skip
    with create_rag(store=path, retrieval="bm25", chunk_size=None) as rag:
        for query, key in [("beta", "nul"), ("epsilon", "bidi"), ("kappa", "zero-width"),
                           ("lambda", "marks"), ("句子", "cjk"), ("nu", "word")]:  # fmt: skip
            [hit] = [hit for hit in rag.search(query, top_k=10) if hit.id.startswith(key)]
            assert hit.content == ODD[key] and hit.metadata["m"] == ODD[key][:40]


@pytest.mark.parametrize("shape", ["lists", "mappings"])
def test_metadata_nested_past_what_json_writes_is_refused(shape: str) -> None:
    value: object = "leaf"
    for _ in range(5_000):
        value = [value] if shape == "lists" else {"a": value}
    rag = create_rag(store=":memory:", retrieval="bm25")
    with pytest.raises(InvalidArgument, match="metadata is nested too deep"):
        rag.ingest([{"id": "deep", "content": "Some text.", "metadata": {"deep": value}}])
    rag.ingest([{"id": "flat", "content": "Some text.", "metadata": {"deep": [[["leaf"]]]}}])
    [hit] = rag.search("text")
    assert hit.metadata["deep"] == [[["leaf"]]]


@pytest.mark.parametrize(
    ("metadata", "named"),
    [
        ({"n": float("nan")}, "metadata['n']"),
        ({"a": [1, {"b": float("-inf")}]}, "metadata['a'][1]['b']"),
        ({"t": ("x", float("inf"))}, "metadata['t'][1]"),
        ({float("nan"): "key"}, "metadata[nan]"),
    ],
)
def test_a_number_json_has_not_is_refused_by_its_key(
    tmp_path: Path, metadata: dict[object, object], named: str
) -> None:
    """NaN and the infinities have no JSON: kept, they made every later listing fail
    ("malformed JSON") and JSON output hold ``NaN``; each is refused naming where it is."""
    with create_rag(store=tmp_path / "index.db", retrieval="bm25") as rag:
        with pytest.raises(InvalidArgument, match=re.escape(f"{named} must be a finite number")):
            rag.ingest([{"id": "x", "content": "Tides rise.", "metadata": metadata}])
        rag.ingest([{"id": "y", "content": "Tides rise.", "metadata": {"n": 1e308}}])
        assert [(d.id, d.chunks) for d in rag.documents()] == [("y", 1)]
        assert rag.search("tides")[0].metadata == {"n": 1e308}


def test_metadata_that_holds_itself_is_refused() -> None:
    looped: dict[str, object] = {}
    looped["self"] = looped
    rag = create_rag(store=":memory:", retrieval="bm25")
    with pytest.raises(InvalidArgument, match="metadata holds itself"):
        rag.ingest([{"id": "x", "content": "Tides rise.", "metadata": looped}])


def test_a_nan_kept_before_it_was_refused_reads_as_null(tmp_path: Path) -> None:
    """A store written before NaN was refused still lists and searches: the number reads
    as None (SQLite's JSON reader refuses the row, so it lends no title)."""
    path = tmp_path / "index.db"
    with create_rag(store=path, retrieval="bm25") as rag:
        rag.ingest([{"id": "x", "content": "Tides rise.", "metadata": {"title": "T", "n": 1}}])
    with sqlite3.connect(path) as conn:
        conn.execute("""UPDATE chunks SET metadata = '{"title": "T", "n": NaN}'""")
    conn.close()
    with create_rag(store=path, retrieval="bm25") as rag:
        assert [(d.id, d.title, d.chunks) for d in rag.documents()] == [("x", None, 1)]
        assert rag.search("tides")[0].metadata == {"title": "T", "n": None}


def test_ids_and_partitions_holding_a_lone_surrogate_are_refused(tmp_path: Path) -> None:
    """Made valid text, ``doc\\ud800`` and ``doc\\udc00`` were both ``doc\\ufffd``: one
    overwrote the other, and deleting either raised ``UnicodeEncodeError``. Such a name is
    refused wherever it is given; a text holding one is kept (its surrogate made U+FFFD)."""
    with create_rag(store=tmp_path / "index.db", retrieval="bm25") as rag:
        rag.ingest([{"id": "doc", "content": "The Moon raises tides \ud800."}])
        for doc_id in ("doc\ud800", "doc\udc00"):
            with pytest.raises(InvalidArgument, match=re.escape(f"id {doc_id!r} holds a lone")):
                rag.ingest([{"id": doc_id, "content": "Tides rise twice a day."}])
            with pytest.raises(InvalidArgument, match="holds a lone surrogate"):
                rag.delete(doc_id)
        assert [(d.id, d.chunks) for d in rag.documents()] == [("doc", 1)]
        with pytest.raises(InvalidArgument, match=r"query '\\udfff ' holds a lone surrogate"):
            rag.search("\udfff ")  # not "nothing to look for"
        assert rag.search("tides \udfff")[0].content == "The Moon raises tides \ufffd."
    with pytest.raises(InvalidArgument, match=r"partition 'team\\ud800' holds a lone surrogate"):
        create_partitioned_rag("team\ud800", store=":memory:")
    with create_partitioned_rag("team", store=":memory:", retrieval="bm25") as team:
        for call in (lambda: team.ingest([{"id": "a\udc00", "content": "Tides."}]),
                     lambda: team.delete(["a\udc00"])):  # fmt: skip
            with pytest.raises(InvalidArgument, match=r"id 'a\\udc00' holds a lone surrogate"):
                call()
