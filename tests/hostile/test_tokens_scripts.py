"""Text of many scripts through the BM25 tokenizer and the embedded store: a word is never cut
at its marks (Devanagari lost every word to its vowel signs, vocalised Arabic came out in
pieces), Thai is found inside unspaced text, and the tokenizer stays linear on a letter
piled with a million marks or a word of megabytes."""

from __future__ import annotations

import sqlite3
import unicodedata
from pathlib import Path

import pytest
from timing import best_time

from citesift import create_rag
from citesift.index.lexical import Tokenizer

HINDI = "हिन्दी विकिपीडिया एक मुक्त ज्ञानकोश है"
ARABIC_VOCALISED = "السَّلَامُ عَلَيْكُمْ"
ARABIC_PLAIN = "السلام عليكم"
THAI = "ภาษาไทยเป็นภาษาราชการของประเทศไทย"


def test_a_word_keeps_its_marks() -> None:
    words = Tokenizer(stem=False)
    assert words(HINDI) == ["हिन्दी", "विकिपीडिया", "एक", "मुक्त", "ज्ञानकोश", "है"]
    assert words("x\u0301yz") == ["x\u0301yz"]


def test_composed_and_decomposed_spellings_are_one_term() -> None:
    words = Tokenizer()
    assert words("Café résumé") == words(unicodedata.normalize("NFD", "Café résumé"))
    assert words("Café") == ["café"]


def test_vocalised_and_plain_arabic_are_the_same_terms() -> None:
    assert Tokenizer()(ARABIC_VOCALISED) == Tokenizer()(ARABIC_PLAIN) == ["السلام", "عليكم"]


@pytest.mark.parametrize(
    ("content", "query"),
    [
        (HINDI, "हिन्दी"),
        (ARABIC_PLAIN + " في كل مكان", ARABIC_VOCALISED),
        (ARABIC_VOCALISED + " في كل مكان", ARABIC_PLAIN),
        (THAI, "ประเทศไทย"),
    ],
    ids=["hindi", "vocalised-query", "vocalised-text", "thai"],
)
def test_a_search_in_a_script_with_marks_finds_its_text(content: str, query: str) -> None:
    rag = create_rag(store=":memory:", retrieval="bm25")
    rag.ingest([
        {"id": "wanted", "content": content, "metadata": {}},
        {"id": "other", "content": "Some English text about nothing much.", "metadata": {}},
    ])  # fmt: skip
    assert [hit.id.split("_chunk_")[0] for hit in rag.search(query)] == ["wanted"]


def test_a_store_indexed_with_the_old_terms_is_indexed_again(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with create_rag(store=path, retrieval="bm25") as rag:
        rag.ingest([{"id": "wanted", "content": HINDI, "metadata": {}}])
    with sqlite3.connect(path) as conn:  # as an earlier tokenizer kept it: no Hindi term
        conn.execute("UPDATE bm25_terms SET term = 'old-' || term")
        conn.execute("DELETE FROM schema_steps WHERE component = 'bm25' AND step > 0")
    conn.close()
    with create_rag(store=path, retrieval="bm25") as rag:
        assert [hit.id.split("_chunk_")[0] for hit in rag.search("ज्ञानकोश")] == ["wanted"]


TIMES_FOUR = 8  # four times the text takes ~4x


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "text",
    [
        lambda n: "a" + "\u0301" * n,
        lambda n: "x" * n,
        lambda n: "हिन्दी " * (n // 7),
        lambda n: THAI * (n // len(THAI)),
        lambda n: "a\u0301中" * (n // 3),
        lambda n: "𑀅𑀲𑁄𑀓 😀 " * (n // 8),
        lambda n: "ب" + "\u064e" * n,
    ],
    ids=["marks", "word", "hindi", "thai", "mixed", "astral", "harakat"],
)
def test_the_tokenizer_stays_linear_on_hostile_text(text: object) -> None:
    words = Tokenizer()
    small, large = text(250_000), text(1_000_000)  # type: ignore[operator]
    for _ in range(2):
        small_s, large_s = best_time(lambda: words(small)), best_time(lambda: words(large))
        if large_s <= TIMES_FOUR * max(small_s, 0.005):
            return
    raise AssertionError(f"{large_s:.2f} s against {small_s:.3f} s for a quarter of the text")
