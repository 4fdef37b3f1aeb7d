"""Text: the sentence rule, passages with attribution, and text-fragment links."""

from citesift.text.sentences import sentence_spans

__all__ = ["sentence_spans"]
