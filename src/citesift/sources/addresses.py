"""The address helpers the sources use, from ``citesift.text.addresses`` where they live."""

from citesift.text.addresses import (
    WIKIPEDIA_SITE,
    article_url,
    carriable,
    encode_component,
    history_url,
    wikipedia_history,
)

__all__ = [
    "WIKIPEDIA_SITE",
    "article_url",
    "carriable",
    "encode_component",
    "history_url",
    "wikipedia_history",
]
