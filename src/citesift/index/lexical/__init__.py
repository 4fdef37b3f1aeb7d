"""Lexical retrieval: one tokenizer (Unicode words, CJK bigrams, Snowball stems) and one BM25."""

from citesift.index.lexical.bm25 import BM25Index, bm25_score
from citesift.index.lexical.tokens import Tokenizer

__all__ = ["BM25Index", "Tokenizer", "bm25_score"]
