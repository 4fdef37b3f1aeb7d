"""The body of ``POST /v2/map`` (Firecrawl's map options) and the map bounds it means; what
citesift cannot honour is a 400 naming the field."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from citesift.api.fields import FirecrawlBody, Milliseconds
from citesift.api.replies import Unsupported
from citesift.index.query import MAX_QUERY_CHARS
from citesift.scrape.map import MAP_LIMIT, MAX_MAP_LIMIT, SitemapBounds

ONLY = {
    "include_subdomains": False,
    "ignore_query_parameters": False,
    "allow_subdomains": False,
    "crawl_entire_domain": False,
    "use_index": True,
    "ignore_cache": False,
    "filter_by_path": True,
}
"""Fields citesift honours at one value: a map keeps to the start's host and keeps query
strings as found (absent, Firecrawl's other defaults are not assumed)."""
ABSENT = ("include_paths", "exclude_paths", "headers", "location")
"""Fields a map cannot honour at all."""


class MapRequest(FirecrawlBody):
    """Firecrawl's map body (§5 of its v2 API): a site's URLs, ranked by ``search``."""

    url: str = Field(max_length=8192)
    search: str | None = Field(None, max_length=MAX_QUERY_CHARS)
    sitemap: Literal["include", "skip", "only"] = "include"
    include_subdomains: bool | None = None
    ignore_query_parameters: bool | None = None
    limit: int = Field(MAP_LIMIT, ge=1, le=MAX_MAP_LIMIT)
    timeout: Milliseconds | None = Field(None, ge=1)
    include_paths: list[str] | None = None
    exclude_paths: list[str] | None = None
    crawl_entire_domain: bool | None = None
    allow_subdomains: bool | None = None
    headers: dict[str, str] | None = None
    location: dict[str, Any] | None = None
    use_index: bool | None = None
    ignore_cache: bool | None = None
    filter_by_path: bool | None = None

    def bounds(self) -> SitemapBounds:
        """How much of the sitemaps to read; ``Unsupported`` names what cannot be honoured."""
        self.refuse(ONLY, ABSENT)
        if self.sitemap == "only":
            raise Unsupported(["sitemap"], "only", "a map always reads the start page's links")
        return SitemapBounds(max_sitemaps=0) if self.sitemap == "skip" else SitemapBounds()
