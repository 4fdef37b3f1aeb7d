"""Text: the sentence rule, passages with attribution, and text-fragment links."""

from citesift.text.fragments import fragment_url
from citesift.text.sentences import sentence_spans

__all__ = ["fragment_url", "sentence_spans"]
