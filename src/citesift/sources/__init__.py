"""Public sources with ``search`` and ``read``: Wikipedia and any web page."""

from citesift.net.limiter import OnSend
from citesift.sources.base import Aborted, PublicSourceProvider, Signal
from citesift.sources.web import PageLimits, WebPageSource
from citesift.sources.wikipedia import (
    CORE_PAGE_PATH,
    DEFAULT_ORIGIN,
    PAGE_PATH,
    SEARCH_PATH,
    WikipediaLimits,
    WikipediaSourceProvider,
    revision_of,
)
from citesift.text.addresses import article_url

__all__ = [
    "Aborted",
    "CORE_PAGE_PATH",
    "DEFAULT_ORIGIN",
    "OnSend",
    "PAGE_PATH",
    "PageLimits",
    "PublicSourceProvider",
    "SEARCH_PATH",
    "Signal",
    "WebPageSource",
    "WikipediaLimits",
    "WikipediaSourceProvider",
    "article_url",
    "revision_of",
]
