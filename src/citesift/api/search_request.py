"""The body of ``POST /v2/search`` (Firecrawl's search options), answered by the search
source the server is configured with; what citesift cannot honour is a 400 naming it."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from citesift.api.fields import FirecrawlBody, Milliseconds
from citesift.api.replies import Unsupported
from citesift.api.scrape_request import ScrapeFields
from citesift.index.query import MAX_QUERY_CHARS

MAX_RESULTS = 100
ABSENT = (
    "include_domains",
    "exclude_domains",
    "categories",
    "tbs",
    "filter",
    "country",
    "location",
    "highlights",
    "enterprise",
    "threat_protection",
    "async_scraping",
)
"""Fields a search source cannot honour (it is asked the query alone)."""


class SearchRequest(FirecrawlBody):
    """Firecrawl's search body (§7 of its v2 API): a query, how many results, and the
    scrape options that make each result a page read."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    limit: int = Field(5, ge=1, le=MAX_RESULTS)
    sources: list[str | dict[str, Any]] | None = Field(None, max_length=3)
    lang: str | None = None
    timeout: Milliseconds | None = Field(None, ge=1)
    ignore_invalid_urls: bool | None = Field(None, alias="ignoreInvalidURLs")
    scrape_options: ScrapeFields | None = None
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    categories: list[Any] | None = None
    tbs: str | None = None
    filter: str | None = None
    country: str | None = None
    location: str | None = None
    highlights: Any = None
    enterprise: Any = None
    threat_protection: dict[str, Any] | None = None
    async_scraping: bool | None = None

    def scraping(self) -> ScrapeFields | None:
        """The scrape options each result is read with (None: results are not read);
        ``Unsupported`` names what cannot be honoured, headers among them: the hosts read
        are the search's choice, so a caller's credentials would go wherever it points."""
        self.refuse({"ignore_invalid_urls": True, "lang": "en"}, ABSENT)
        for index, item in enumerate(self.sources or ()):
            kind = item if isinstance(item, str) else item.get("type")
            if kind != "web" or (isinstance(item, dict) and set(item) != {"type"}):
                raise Unsupported(["sources", index], item, "only 'web' is")
        options = self.scrape_options
        if options is not None and options.headers:  # names only: the values are secrets
            why = "the results' hosts are the search's choice, so none is sent a caller's headers"
            raise Unsupported(["scrapeOptions", "headers"], sorted(options.headers), why)
        if options is None or not options.formats:
            return None
        options.options()
        return options
