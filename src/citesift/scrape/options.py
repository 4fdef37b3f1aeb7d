"""What a scrape is asked for: formats, rendering, waits, filters and freshness, checked once.

One frozen ``ScrapeOptions`` value instead of two dozen keywords; a value that makes no
sense is an ``InvalidArgument`` naming the option, never swapped for a default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from selectolax.lexbor import LexborHTMLParser, SelectolaxError

from citesift.errors import invalid, unshown, written_number
from citesift.net.policy import request_headers
from citesift.numbers import is_decimal, number_in, written_whole

FORMATS = (
    "markdown",
    "text",
    "blocks",
    "passages",
    "html",
    "raw_html",
    "links",
    "metadata",
    "screenshot",
)
"""Every format a scrape can answer; only those asked are computed."""
RENDER_CHOICES = ("auto", "always", "never")
BLOCKABLE = ("images", "fonts", "media")
"""Resource kinds a rendered page may be kept from loading."""
DEFAULT_TIMEOUT = 30.0
MAX_TIMEOUT = 600.0
MAX_WAIT_MS = 60_000
MAX_VIEWPORT = 10_000
MAX_AGE_SECONDS = 10 * 365 * 86_400.0
RenderChoice = Literal["auto", "always", "never"]


@dataclass(frozen=True)
class ScrapeOptions:
    """How one page is scraped (see the field comments); checked when made."""

    formats: tuple[str, ...] = ("markdown",)
    render: RenderChoice = "auto"  # auto: render when the static page needs it
    wait_for: int | str = 0  # after load: milliseconds, or a CSS selector to wait for
    timeout: float = DEFAULT_TIMEOUT  # seconds for the render (the fetch has its own deadline)
    viewport: tuple[int, int] = (1280, 800)  # width, height in CSS pixels
    block_resources: tuple[str, ...] = ()  # of BLOCKABLE, kept from loading when rendering
    # sent with the page's requests, its own and a render's; never in a repr (a key, a cookie)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    only_main_content: bool = True  # the article (True) or all the page shows (False)
    include_tags: tuple[str, ...] = ()  # CSS selectors: read only what these match
    exclude_tags: tuple[str, ...] = ()  # CSS selectors: drop what these match
    max_age: float | None = None  # seconds: answer from a stored snapshot this young
    full_page: bool = True  # a screenshot of the whole page, else of the viewport

    def __post_init__(self) -> None:
        formats = _names("formats", self.formats, FORMATS)
        if not formats:
            raise invalid("formats", self.formats, f"one or more of {', '.join(FORMATS)}")
        if self.render not in RENDER_CHOICES:
            raise invalid("render", self.render, "'auto', 'always' or 'never'")
        if "screenshot" in formats and self.render == "never":
            raise invalid("formats", self.formats, "without 'screenshot' when render='never'")
        object.__setattr__(self, "formats", formats)
        object.__setattr__(self, "wait_for", _wait(self.wait_for))
        number_in("timeout", self.timeout, 0, MAX_TIMEOUT, above=True)
        object.__setattr__(self, "viewport", _viewport(self.viewport))
        object.__setattr__(
            self, "block_resources", _names("block_resources", self.block_resources, BLOCKABLE)
        )
        object.__setattr__(self, "headers", _headers(self.headers))
        for name in ("include_tags", "exclude_tags"):
            object.__setattr__(self, name, _selectors(name, getattr(self, name)))
        for name in ("only_main_content", "full_page"):
            if not isinstance(getattr(self, name), bool):
                raise invalid(name, getattr(self, name), "True or False")
        if self.max_age is not None:
            number_in("max_age", self.max_age, 0, MAX_AGE_SECONDS)

    def replace(self, **changes: Any) -> ScrapeOptions:
        """A copy with some options changed (and checked again)."""
        return replace(self, **changes)


def _names(name: str, value: object, known: tuple[str, ...]) -> tuple[str, ...]:
    """``value`` as a tuple of distinct names, each one of ``known``."""
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(item in known for item in items):
        raise invalid(name, value, f"names from {', '.join(known)}")
    return tuple(dict.fromkeys(items))


def _wait(value: object) -> int | str:
    """Milliseconds to wait (0 to 60,000), or a CSS selector to wait for."""
    if isinstance(value, str) and value.strip():
        if not is_decimal(value.strip()):
            return _selectors("wait_for", (value,))[0]
        wait = written_whole(value.strip(), MAX_WAIT_MS + 1)
        if wait > MAX_WAIT_MS:
            raise invalid(
                "wait_for",
                value,
                f"milliseconds from 0 to {written_number(MAX_WAIT_MS)} or a selector",
            )
        return wait
    return int(number_in("wait_for", value, 0, MAX_WAIT_MS, whole=True))


def _viewport(value: object) -> tuple[int, int]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise invalid("viewport", value, "(width, height) in pixels")
    width, height = (int(number_in("viewport", v, 1, MAX_VIEWPORT, whole=True)) for v in value)
    return width, height


def _headers(value: object) -> dict[str, str]:
    """Headers for the page's requests (its own and, rendered, the browser's); never ones a
    fetch sets itself (who is asking, where, what it accepts)."""
    if not isinstance(value, Mapping):
        raise unshown("headers", "a mapping of header names to values")
    return dict(request_headers(value))


def _selectors(name: str, value: object) -> tuple[str, ...]:
    """CSS selectors, each checked by the parser that will apply it."""
    items = (value,) if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(
        isinstance(s, str) and s.strip() for s in items
    ):
        raise invalid(name, value, "CSS selectors")
    probe = LexborHTMLParser("<p></p>")
    for selector in items:
        try:
            probe.css(selector)
        except SelectolaxError:
            raise invalid(name, selector, "a CSS selector") from None
    return tuple(s.strip() for s in items)
