"""A scrape's ``links`` format: a page's absolute http(s) addresses, each once, with the text
of its first anchor, read as a crawl reads them (``citesift.scrape.urls.page_links``)."""

from __future__ import annotations

from dataclasses import dataclass

from citesift.scrape.urls import LINK_SECONDS, page_links

MAX_LINKS = 10_000
"""Links kept from one page; a page with more is cut at this many (and a warning says so)."""


@dataclass(frozen=True, slots=True)
class Link:
    """One link of a page: where it goes (absolute, normalised, no fragment) and what its
    anchor says."""

    url: str
    text: str


def scrape_links(
    html: str, base: str, warnings: list[str], seconds: float = LINK_SECONDS
) -> list[Link]:
    """The links of ``html`` resolved against its ``<base href>`` or ``base``, in page
    order, at most ``MAX_LINKS`` read within ``seconds``; what was left unread is added
    to ``warnings``."""
    read = page_links(html, base, MAX_LINKS, seconds)
    problem = read.problem()
    if problem is not None:
        warnings.append(f"links: {problem}")
    return [Link(url, text) for url, text in read.found.items()]
