"""The body of ``POST /v2/scrape`` (Firecrawl's scrape options) and the ``ScrapeOptions`` it
means; what citesift cannot honour is a 400 naming the field."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from citesift.api.fields import FirecrawlBody, Milliseconds
from citesift.api.replies import UNSHOWN, Unsupported
from citesift.scrape.options import MAX_TIMEOUT, MAX_WAIT_MS, ScrapeOptions

FORMAT_NAMES = {
    "markdown": "markdown",
    "html": "html",
    "rawHtml": "raw_html",
    "links": "links",
    "screenshot": "screenshot",
    "metadata": "metadata",
}
"""Firecrawl's format names and the library's; any other is refused by name."""
PROVENANCE = ("blocks", "passages")
"""Formats always computed: they travel in ``metadata.citesift``."""
SCREENSHOT_KEYS = {"fullPage": "full_page", "viewport": "viewport"}
ONLY = {
    "mobile": False,
    "skip_tls_verification": False,
    "fast_mode": False,
    "lockdown": False,
    "zero_data_retention": False,
}
"""Fields citesift honours at one value only (TLS is always verified; no mobile emulation)."""
ABSENT = ("location", "min_age")
"""Fields citesift cannot honour at all: nothing is emulated or held back from a fresh
fetch."""
WAIT_KEYS = {"type", "milliseconds", "selector"}
"""Keys of the one action citesift honours, ``wait``: nothing is clicked or typed."""
PROXIES = ("basic", "auto")
CRAWL_FORMATS = ("markdown", "links")
CRAWL_NAMES = "markdown, links"
CRAWL_DEFAULTS: dict[str, object] = {
    "only_main_content": True,
    "include_tags": None,
    "exclude_tags": None,
    "headers": None,
    "timeout": None,
    "parsers": None,
    "store_in_cache": True,
}
"""Options a crawl honours only at Firecrawl's default: each page is read as an article,
whole, as it is served (or rendered, when a wait asks for a browser)."""
IN_CRAWLS = "a crawl reads each page's main content as served"
SECRET_FIELDS = ("headers",)
"""Crawl options whose value a refusal never shows: a header's value is often a key."""


class ScrapeFields(FirecrawlBody):
    """Firecrawl's scrape options (§3 of its v2 API): the formats and how; a crawl's
    ``scrapeOptions``, and a batch's options at its top level."""

    formats: list[str | dict[str, Any]] | None = Field(None, max_length=20)
    only_main_content: bool = True
    include_tags: list[str] | None = Field(None, max_length=100)
    exclude_tags: list[str] | None = Field(None, max_length=100)
    headers: dict[str, str] | None = None
    wait_for: int = Field(0, ge=0, le=MAX_WAIT_MS)
    timeout: Milliseconds | None = Field(None, ge=1000)
    mobile: bool | None = None
    parsers: list[str | dict[str, Any]] | None = Field(None, max_length=10)
    actions: list[Any] | None = None
    location: dict[str, Any] | None = None
    skip_tls_verification: bool | None = None
    remove_base64_images: bool = True  # markdown never carries images' data
    fast_mode: bool | None = None
    block_ads: bool = True  # the static fetch loads no ads; a render keeps what the page has
    proxy: Literal["basic", "stealth", "enhanced", "auto"] | None = None
    max_age: Milliseconds | None = Field(None, ge=0)
    min_age: int | None = None
    lockdown: bool | None = None
    store_in_cache: bool = True  # False: nothing of this scrape is kept in the store
    zero_data_retention: bool | None = None

    def options(self) -> ScrapeOptions:
        """The library's options for this body; ``Unsupported`` names what cannot be
        honoured, ``InvalidArgument`` a value the library refuses."""
        self.refuse(ONLY, ABSENT)
        if self.proxy is not None and self.proxy not in PROXIES:
            raise Unsupported(["proxy"], self.proxy, "pages are fetched directly")
        _check_parsers(self.parsers)
        chosen: dict[str, Any] = {
            "formats": (*_formats(self.formats), *PROVENANCE),
            "only_main_content": self.only_main_content,
            "include_tags": tuple(self.include_tags or ()),
            "exclude_tags": tuple(self.exclude_tags or ()),
            "wait_for": self.waited(),
            "headers": dict(self.headers or {}),
        }
        chosen.update(_screenshot(self.formats))
        if self.timeout is not None:
            chosen["timeout"] = min(self.timeout / 1000, MAX_TIMEOUT)
        if self.max_age is not None:
            chosen["max_age"] = self.max_age / 1000
        return ScrapeOptions(**chosen)

    def crawl_formats(self) -> tuple[str, ...]:
        """The library's crawl formats for these options, as a crawl's page reader gives
        them (markdown, links, metadata); ``Unsupported`` names any other option set."""
        self.options()
        for name in CRAWL_DEFAULTS:
            if name in self.model_fields_set and getattr(self, name) != CRAWL_DEFAULTS[name]:
                value = UNSHOWN if name in SECRET_FIELDS else getattr(self, name)
                raise Unsupported([self._alias(name)], value, IN_CRAWLS)
        for index, name in enumerate(_formats(self.formats)):
            if name not in CRAWL_FORMATS:
                raise Unsupported(["formats", index], name, f"a crawl's formats are {CRAWL_NAMES}")
        return (*dict.fromkeys(_formats(self.formats)), "metadata")

    def crawl_render(self) -> tuple[str, int | str]:
        """A crawl's render choice and wait for these options: a wait (``waitFor`` or
        ``wait`` actions, even of 0 ms) asks for a browser, so the pages that need
        JavaScript are rendered (``auto``) and waited for; without one, ``never``."""
        waited = self.waited()
        return ("auto" if waited or self.actions else "never"), waited

    def waited(self) -> int | str:
        """What a rendered page is waited for after its load: ``waitFor``'s milliseconds
        and those of the ``wait`` actions, or one action's selector; ``Unsupported`` names
        any other action (nothing is clicked or typed) or a mix a wait cannot be."""
        total: int = self.wait_for
        selector: str | None = None
        for index, action in enumerate(self.actions or ()):
            if not isinstance(action, dict) or action.get("type") != "wait":
                raise Unsupported(["actions", index], action, "only 'wait' actions are")
            extra = set(action) - WAIT_KEYS
            if extra:
                raise Unsupported(["actions", index, sorted(extra)[0]], action)
            wait = action.get("milliseconds")
            named = action.get("selector")
            if isinstance(named, str) and named.strip() and wait is None:
                if selector is not None or total:
                    raise Unsupported(["actions", index], action, "a selector waited alone is")
                selector = named
            elif isinstance(wait, int) and not isinstance(wait, bool) and wait >= 0:
                if selector is not None:
                    raise Unsupported(["actions", index], action, "a selector waited alone is")
                total += wait
            else:
                why = "a wait of milliseconds (0 or more) or of a CSS selector is"
                raise Unsupported(["actions", index], action, why)
        if total > MAX_WAIT_MS:
            raise Unsupported(["actions"], total, f"waits of {MAX_WAIT_MS} ms in all at most")
        return selector if selector is not None else total


class ScrapeRequest(ScrapeFields):
    """Firecrawl's scrape body (§3 of its v2 API): one page, the formats and how."""

    url: str = Field(max_length=8192)


def _formats(given: list[str | dict[str, Any]] | None) -> tuple[str, ...]:
    """The library's names for the formats asked (markdown when none are)."""
    names = []
    for index, item in enumerate(given if given is not None else ["markdown"]):
        name = item if isinstance(item, str) else item.get("type")
        if not isinstance(name, str) or name not in FORMAT_NAMES:
            raise Unsupported(["formats", index], item, f"formats are {', '.join(FORMAT_NAMES)}")
        if isinstance(item, dict):
            extra = set(item) - {"type"} - (set(SCREENSHOT_KEYS) if name == "screenshot" else set())
            if extra:
                raise Unsupported(["formats", index, sorted(extra)[0]], item)
        names.append(FORMAT_NAMES[name])
    return tuple(dict.fromkeys(names))


def _screenshot(given: list[str | dict[str, Any]] | None) -> dict[str, Any]:
    """The screenshot's options (whole page, viewport) when one is asked as an object."""
    for item in given or ():
        if isinstance(item, dict) and item.get("type") == "screenshot":
            chosen: dict[str, Any] = {}
            if "fullPage" in item:
                chosen["full_page"] = item["fullPage"]
            viewport = item.get("viewport")
            if isinstance(viewport, dict):
                chosen["viewport"] = (viewport.get("width"), viewport.get("height"))
            elif viewport is not None:
                chosen["viewport"] = viewport
            return chosen
    return {}


def _check_parsers(given: list[str | dict[str, Any]] | None) -> None:
    """PDFs are always read by their own reader: ``pdf`` is honoured, nothing else is."""
    if given is None:
        return
    if not given:
        raise Unsupported(["parsers"], given, "PDF files are always read")
    for index, item in enumerate(given):
        if item == "pdf" or item == {"type": "pdf"}:
            continue
        raise Unsupported(["parsers", index], item, "only 'pdf' is")
