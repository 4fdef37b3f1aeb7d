"""Text: the sentence rule, chunking, passages with attribution, and text-fragment links."""

from citesift.text.chunking import Chunk, chunk_text
from citesift.text.fragments import fragment_url, match_link
from citesift.text.passages import Attribution, Cut, attribution, citation_sources
from citesift.text.sentences import sentence_spans

__all__ = [
    "Attribution",
    "Chunk",
    "Cut",
    "attribution",
    "chunk_text",
    "citation_sources",
    "fragment_url",
    "match_link",
    "sentence_spans",
]
