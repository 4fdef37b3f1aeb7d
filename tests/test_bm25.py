"""BM25: one tokenizer (Unicode, CJK), the sparse index's scores and updates, and the same
scoring of a short list of matches."""

from __future__ import annotations

import math

import numpy as np
import pytest

from citesift.errors import InvalidArgument
from citesift.index.lexical import BM25Index, Tokenizer, bm25_score, tokens
from citesift.index.rerankers.bm25 import BM25Reranker
from citesift.model import Match

DOCS = [
    Match("cats", None, "Cats purr and cats sleep all day."),
    Match("dogs", None, "Dogs bark at the mail carrier."),
    Match("both", None, "Cats and dogs can live together in one house."),
]


def test_bm25_score_prefers_the_keyword_document() -> None:
    out = bm25_score("cats", DOCS)
    assert out[0].id == "cats"
    assert out[-1].id == "dogs" and out[-1].score == 0.0
    assert all(math.isfinite(h.score) for h in out)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "k1,b",
    [(math.nan, 0.75), (-1, 0.75), (math.inf, 0.75), (1.5, math.nan), (1.5, -0.1), (1.5, 2)],
)
def test_bm25_parameters_out_of_range_are_refused_by_name(k1: float, b: float) -> None:
    name = "k1" if k1 != 1.5 else "b"
    with pytest.raises(InvalidArgument, match=f"^{name} must be"):
        bm25_score("cats dogs house", DOCS, k1=k1, b=b)
    with pytest.raises(InvalidArgument, match=f"^{name} must be"):
        BM25Index(k1=k1, b=b)
    with pytest.raises(InvalidArgument, match=f"^{name} must be"):
        BM25Reranker(k1=k1, b=b)


def test_bm25_score_k1_and_b_zero_stay_finite() -> None:
    out = bm25_score("cats", DOCS, k1=0, b=0)
    assert all(math.isfinite(h.score) for h in out)  # type: ignore[arg-type]


def test_bm25_score_without_terms_or_docs_scores_zero_in_order() -> None:
    out = bm25_score("!!!", DOCS)
    assert [h.id for h in out] == ["cats", "dogs", "both"]
    assert all(h.score == 0.0 for h in out)
    assert out[0] is not DOCS[0]
    assert bm25_score("cats", []) == []


def test_a_repeated_query_term_counts_once() -> None:
    once = bm25_score("cats dogs", DOCS)
    twice = bm25_score("cats cats dogs", DOCS)
    assert [(h.id, h.score) for h in twice] == [(h.id, h.score) for h in once]


def test_tokenizer_keeps_unicode_letters_and_cuts_cjk_into_pairs() -> None:
    words = Tokenizer()("Ärzte in München 東京は日本の首都です 서울 x")
    assert words[:2] == ["ärzte", "münchen"]
    assert "東京" in words and "首都" in words and "日本" in words and "서울" in words
    assert Tokenizer()("東") == ["東"] and "x" not in words


def test_tokenizer_terms_stay_the_same_once_its_remembered_words_are_forgotten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "The running dogs of the village were running with the other dogs"
    expected = ["run", "dog", "villag", "were", "run", "other", "dog"]
    assert Tokenizer()(text) == expected
    monkeypatch.setattr(tokens, "_TERM_CACHE", 3)  # forgotten every few new words
    tokenizer = Tokenizer()
    assert [tokenizer(text) for _ in range(3)] == [expected] * 3
    assert len(tokenizer._terms) <= 3 + len(tokenizer.stopwords)
    assert Tokenizer(stem=False)(text)[:3] == ["running", "dogs", "village"]


def test_a_cjk_query_finds_its_words_inside_unspaced_text() -> None:
    index = BM25Index()
    index.add(["tokyo", "osaka"], ["東京は日本の首都です", "大阪は日本の都市です"])
    assert index.search("首都 東京", 5)[0] == ["tokyo"]
    assert bm25_score("Ärzte München", [Match("de", None, "Ärzte in München")])[0].score


def make_index() -> BM25Index:
    index = BM25Index()
    index.add([h.id for h in DOCS], [h.content for h in DOCS])
    return index


def test_index_ranks_matching_documents_and_skips_the_rest() -> None:
    ids, scores = make_index().search("purring cats", 10)
    assert ids == ["cats", "both"]
    assert scores[0] > scores[1] > 0


def test_bm25_matches_the_formula_worked_by_hand() -> None:
    # terms (stop words out, stems): cat purr cat sleep all day (6), dog bark mail carrier
    # (4), cat dog can live togeth one hous (7); average 17/3; idf = ln(1 + 1.5/2.5).
    # cats: 0.470004 * 2 * 2.5 / (2 + 1.5 * (0.25 + 0.75 * 6 / 5.6667)) = 0.658974
    # both: 0.470004 * 1 * 2.5 / (1 + 1.5 * (0.25 + 0.75 * 7 / 5.6667)) = 0.425004
    out = bm25_score("cats", DOCS)
    assert [h.id for h in out] == ["cats", "both", "dogs"]
    assert [h.score for h in out] == pytest.approx([0.658974, 0.425004, 0.0], abs=1e-6)
    ids, scores = make_index().search("cats", 10)
    assert ids == ["cats", "both"] and scores.tolist() == pytest.approx(
        [0.658974, 0.425004], abs=1e-6
    )


def test_index_updates_and_removes_documents() -> None:
    index = make_index()
    index.add(["dogs"], ["Parrots talk."])
    assert index.search("bark", 10)[0] == []
    assert index.search("parrot", 10)[0] == ["dogs"]
    index.remove(["cats", "unknown"])
    assert index.search("cats", 10)[0] == ["both"]
    assert len(index) == 2


def test_index_mask_restricts_candidates() -> None:
    index = make_index()
    allowed = np.array([i != "cats" for i in index.ids])
    assert index.search("cats", 10, allowed=allowed)[0] == ["both"]


@pytest.mark.parametrize("k1,b", [(0, 0), (1e6, 1), (0, 1)])
def test_index_scores_are_always_finite(k1: float, b: float) -> None:
    index = BM25Index(k1=k1, b=b)
    index.add(["e", "x"], ["", "cats " * 1000])
    scores = index.scores("cats")
    assert np.isfinite(scores).all()


def test_empty_index_and_empty_query_return_nothing() -> None:
    assert BM25Index().search("cats", 5)[0] == []
    assert make_index().search("", 5)[0] == []
    assert make_index().search("cats", 0)[0] == []


def test_scores_over_segments_with_removed_rows_equal_a_fresh_index() -> None:
    words = ["cats purr", "dogs bark", "cats and dogs", "birds sing", "cats sleep a lot"]
    index, fresh = BM25Index(), BM25Index()
    index.add([f"a{i}" for i in range(5)], words)
    index.seal()
    index.add([f"b{i}" for i in range(5)], words[::-1])  # a second segment, and pending rows
    index.seal()
    index.add(["c"], ["cats again"])
    index.remove(["a0", "b2"])  # sealed rows removed: their postings stay until a merge
    live = [("a1", 1), ("a2", 2), ("a3", 3), ("a4", 4), ("b0", 4), ("b1", 3), ("b3", 1), ("b4", 0)]
    fresh.add([i for i, _ in live] + ["c"], [words[w] for _, w in live] + ["cats again"])
    for query in ["cats", "dogs cats", "sing", "lot purr"]:
        mine = dict(zip(index.ids, index.scores(query).tolist(), strict=True))
        theirs = dict(zip(fresh.ids, fresh.scores(query).tolist(), strict=True))
        assert {i: s for i, s in mine.items() if i is not None} == theirs
