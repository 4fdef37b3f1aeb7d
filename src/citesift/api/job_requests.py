"""The bodies of Firecrawl's batch scrape, agent and extract routes; what citesift cannot
honour is a 400 naming the field."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from citesift.agent.answers import schema_validator
from citesift.api.fields import FirecrawlBody
from citesift.api.replies import Unsupported
from citesift.api.scrape_request import ScrapeFields
from citesift.sources.web import is_web_url

MAX_BATCH_URLS = 1_000
"""Pages one batch scrape names at most."""
MAX_AGENT_URLS = 50
MAX_EXTRACT_URLS = 10
MAX_PROMPT_CHARS = 10_000
SCHEMA_TASK = "Extract from the pages given the data the JSON Schema describes."
"""The task of an extract given a schema and no prompt."""


class BatchScrapeRequest(ScrapeFields):
    """Firecrawl's batch scrape body: pages to scrape, with the scrape options at the top
    level."""

    urls: list[str] = Field(min_length=1, max_length=MAX_BATCH_URLS)
    ignore_invalid_urls: bool = Field(False, alias="ignoreInvalidURLs")
    max_concurrency: int | None = None
    webhook: str | dict[str, Any] | None = None
    append_to_id: str | None = None
    audit_metadata: dict[str, Any] | None = None

    def pages(self) -> tuple[list[str], list[str]]:
        """The pages to scrape and the addresses that are not web pages (a 400 naming the
        first, unless ``ignoreInvalidURLs``); ``Unsupported`` names what cannot be honoured."""
        self.refuse({}, ("max_concurrency", "webhook", "append_to_id", "audit_metadata"))
        self.options()
        given = [url.strip() if "://" in url else f"http://{url.strip()}" for url in self.urls]
        invalid = [url for url in given if not is_web_url(url)]
        if invalid and not self.ignore_invalid_urls:
            index = given.index(invalid[0])
            raise Unsupported(["urls", index], self.urls[index], "an http(s) URL with a host is")
        return [url for url in given if url not in invalid], invalid


class AgentRequest(FirecrawlBody):
    """Firecrawl's agent body, answered by citesift's research run: a prompt, the pages to
    start from, and the JSON Schema the answer must match."""

    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    urls: list[str] | None = Field(None, max_length=MAX_AGENT_URLS)
    schema_: dict[str, Any] | None = Field(None, alias="schema")
    effort: Literal["low", "medium", "high"] = "medium"
    strict_constrain_to_urls: bool | None = Field(None, alias="strictConstrainToURLs")
    max_credits: int | None = None
    model: str | None = None
    webhook: str | dict[str, Any] | None = None
    thread_id: str | None = None
    mode: str | None = None
    exchange: dict[str, Any] | None = None
    location: dict[str, Any] | None = None
    threat_protection: dict[str, Any] | None = None
    audit_metadata: dict[str, Any] | None = None
    zero_data_retention: bool | None = None

    def research(self) -> dict[str, Any]:
        """The research run's task, pages, schema and effort; ``Unsupported`` names what
        cannot be honoured (the model is the server's; a run always keeps to its ``urls``
        and the pages they link to)."""
        self.refuse(
            {"strict_constrain_to_urls": True, "zero_data_retention": False, "mode": "extract"},
            (
                "max_credits",
                "model",
                "webhook",
                "thread_id",
                "exchange",
                "location",
                "threat_protection",
                "audit_metadata",
            ),
        )
        for index, url in enumerate(self.urls or ()):
            if not is_web_url(url):
                raise Unsupported(["urls", index], url, "an http(s) URL with a host is")
        schema_validator(self.schema_)  # a schema that cannot be one is a 400, not a failed job
        return {
            "task": self.prompt,
            "urls": tuple(self.urls or ()),
            "schema": self.schema_,
            "effort": self.effort,
        }


class ExtractRequest(FirecrawlBody):
    """Firecrawl's extract body, answered by citesift's research run kept to the pages
    given: a prompt and/or the JSON Schema the answer must match."""

    urls: list[str] = Field(min_length=1, max_length=MAX_EXTRACT_URLS)
    prompt: str | None = Field(None, min_length=1, max_length=MAX_PROMPT_CHARS)
    schema_: dict[str, Any] | None = Field(None, alias="schema")
    show_sources: bool = False
    system_prompt: str | None = None
    allow_external_links: bool | None = None
    enable_web_search: bool | None = None
    ignore_invalid_urls: bool | None = Field(None, alias="ignoreInvalidURLs")
    scrape_options: dict[str, Any] | None = None
    agent: dict[str, Any] | None = None
    threat_protection: dict[str, Any] | None = None

    def research(self) -> dict[str, Any]:
        """The research run's task, pages and schema; ``Unsupported`` names what cannot be
        honoured (the run reads the pages given alone, as citesift reads any page, with the
        server's model and its own instructions)."""
        self.refuse(
            {
                "allow_external_links": False,
                "enable_web_search": False,
                "ignore_invalid_urls": False,
            },
            ("system_prompt", "scrape_options", "agent", "threat_protection"),
        )
        if self.prompt is None and self.schema_ is None:
            raise Unsupported(["prompt"], None, "an extract needs a prompt, a schema or both")
        for index, url in enumerate(self.urls):
            if "*" in url or not is_web_url(url):
                raise Unsupported(["urls", index], url, "an http(s) URL with a host, no '*', is")
        schema_validator(self.schema_)
        return {
            "task": self.prompt or SCHEMA_TASK,
            "urls": tuple(self.urls),
            "schema": self.schema_,
        }
