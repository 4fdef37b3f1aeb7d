"""Odd text and odd metadata through the embedded store: what is kept reads back as it went
in (NUL, bidi controls, zero-width characters, combining marks, CJK, a 5 MB word), and
metadata nested deeper than JSON can be written is refused clearly (it raised
``RecursionError`` out of ``ingest``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citesift import create_rag
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
