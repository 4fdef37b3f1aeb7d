"""The body of ``POST /v2/crawl`` (Firecrawl's crawl options) and the library's
``CrawlOptions`` it means; what citesift cannot honour is a 400 naming the field."""

from __future__ import annotations

import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field

from citesift.api.fields import FirecrawlBody
from citesift.api.replies import Unsupported
from citesift.api.scrape_request import ScrapeFields
from citesift.errors import invalid
from citesift.scrape.crawl import MAX_CRAWL_DEPTH, CrawlOptions
from citesift.scrape.map import start_url

MAX_JOB_PAGES = 1_000
"""Pages one crawl job reads at most (and its default ``limit``): above it, a 400."""
ONLY = {
    "ignore_query_parameters": False,
    "deduplicate_similar_urls": True,
    "regex_on_full_url": False,
    "allow_subdomains": False,
    "ignore_robots_txt": False,
    "zero_data_retention": False,
}
"""Fields citesift honours at one value only: query strings are kept, URLs are always
normalised, patterns match the path, only the start's host is crawled, robots.txt always
holds and a run log is kept."""
ABSENT = ("robots_user_agent", "webhook", "prompt", "delay")
"""Fields a crawl cannot honour at all (the pace is robots.txt's Crawl-delay and the
per-host limiter's, never a caller's)."""
MAX_PATTERNS = 50


class CrawlRequest(FirecrawlBody):
    """Firecrawl's crawl body (§4 of its v2 API): a site's pages from a start URL."""

    url: str = Field(max_length=8192)
    limit: int = Field(MAX_JOB_PAGES, ge=1)
    include_paths: list[str] = Field(default_factory=list, max_length=MAX_PATTERNS)
    exclude_paths: list[str] = Field(default_factory=list, max_length=MAX_PATTERNS)
    regex_on_full_url: bool | None = Field(None, alias="regexOnFullURL")
    max_discovery_depth: int | None = Field(None, ge=0, le=MAX_CRAWL_DEPTH)
    sitemap: Literal["skip", "include", "only"] | None = None
    crawl_entire_domain: bool = False
    allow_subdomains: bool | None = None
    allow_external_links: bool = False
    ignore_robots_txt: bool | None = None
    robots_user_agent: str | None = None
    ignore_query_parameters: bool | None = None
    deduplicate_similar_urls: bool | None = Field(None, alias="deduplicateSimilarURLs")
    delay: float | None = None
    max_concurrency: int | None = Field(None, ge=1, le=64)
    scrape_options: ScrapeFields | None = None
    webhook: str | dict[str, Any] | None = None
    prompt: str | None = None
    zero_data_retention: bool | None = None

    def crawl_options(self) -> tuple[str, CrawlOptions]:
        """The start URL and the library's options for this body; ``Unsupported`` names
        what cannot be honoured, ``InvalidArgument`` a value the library refuses."""
        self.refuse(ONLY, ABSENT)
        if self.sitemap not in (None, "skip"):
            raise Unsupported(["sitemap"], self.sitemap, "a crawl follows the pages' links only")
        if self.allow_external_links:
            raise Unsupported(["allowExternalLinks"], True, "a crawl keeps to the start's host")
        if self.limit > MAX_JOB_PAGES:
            raise Unsupported(["limit"], self.limit, f"a crawl reads at most {MAX_JOB_PAGES}")
        start = start_url(self.url)
        scraping = self.scrape_options or ScrapeFields.model_validate({})
        render, wait_for = scraping.crawl_render()
        chosen: dict[str, Any] = {
            "limit": self.limit,
            "max_depth": MAX_CRAWL_DEPTH
            if self.max_discovery_depth is None
            else self.max_discovery_depth,
            "include_paths": tuple(self._included(start)),
            "exclude_paths": tuple(self.exclude_paths),
            "formats": scraping.crawl_formats(),
            "render": render,
            "wait_for": wait_for,
        }
        if self.max_concurrency is not None:
            chosen["concurrency"] = self.max_concurrency
        return start, CrawlOptions(**chosen)

    def _included(self, start: str) -> list[str]:
        """The include patterns, held to the start's path unless ``crawlEntireDomain``
        (Firecrawl's rule: without it, only the pages under the start page are crawled)."""
        prefix = urlsplit(start).path
        if self.crawl_entire_domain or prefix in ("", "/"):
            return list(self.include_paths)
        under = f"^(?={re.escape(prefix)})"
        if not self.include_paths:
            return [under]
        for pattern in self.include_paths:
            try:
                re.compile(pattern)  # a bad pattern is named alone, not inside the joined one
            except re.error as error:
                raise invalid("includePaths", pattern, f"regular expressions ({error})") from None
        return [under + "[\\s\\S]*?(?:" + "|".join(self.include_paths) + ")"]
