"""A small site on the local server for map and crawl tests: pages that link to each other
(cycles, duplicate spellings, a redirect out of the site, a 404), and sitemaps."""

from __future__ import annotations

import gzip
import time

from servers import MisbehavingServer, Query, Request

HTML = "text/html; charset=utf-8"


def page(title: str, links: list[str], words: str = "") -> bytes:
    """An HTML page titled ``title`` with a paragraph and ``links`` as anchors."""
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    prose = words or f"This is the page about {title}, with enough prose to be read as text."
    return (
        f"<html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
        f"<p>{prose}</p><ul>{anchors}</ul></main></body></html>"
    ).encode()


def serve_page(server: MisbehavingServer, path: str, body: bytes, delay: float = 0.0) -> None:
    """Serve ``body`` as HTML at ``path`` (after ``delay`` seconds)."""

    def handler(request: Request, query: Query) -> None:
        if delay:
            time.sleep(delay)
        request.answer(200, body, {"Content-Type": HTML})

    server.route(path, handler)


def serve_bytes(server: MisbehavingServer, path: str, body: bytes, kind: str) -> None:
    """Serve ``body`` as ``kind`` at ``path``."""
    server.route(path, lambda request, query: request.answer(200, body, {"Content-Type": kind}))


def urlset(urls: list[str]) -> bytes:
    """An XML sitemap of ``urls``."""
    entries = "".join(f"<url><loc>{url}</loc><lastmod>2024-01-01</lastmod></url>" for url in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'
    ).encode()


def sitemap_index(urls: list[str]) -> bytes:
    """An XML sitemap index of ``urls``."""
    entries = "".join(f"<sitemap><loc>{url}</loc></sitemap>" for url in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}'
        "</sitemapindex>"
    ).encode()


def gzipped(body: bytes) -> bytes:
    return gzip.compress(body)
