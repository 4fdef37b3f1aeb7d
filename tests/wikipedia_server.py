"""A local Wikipedia stand-in: a real HTTP server on 127.0.0.1 over the recorded responses.

It serves the recorded Parsoid pages at both page paths (RESTBase
``/api/rest_v1/page/html/{key}`` and core REST ``/w/rest.php/v1/page/{key}/html``), their
older revisions, and the REST search (``/w/rest.php/v1/search/page``), with the headers the
recordings lack made up as Wikimedia sends them (Content-Type with the HTML profile, an ETag
``W/"<revision>/<time-uuid>"``, Content-Language, Vary, gzip when asked). A search for a
recorded query answers the recorded body; any other finds recorded pages by title words.
Tests make it misbehave with ``answer(path, Answer(...))`` (429, 503, 307, oversized, slow,
gzip bombs, chunked) and read every request it got in ``requests``.

Run ``python tests/wikipedia_server.py FIXTURES_DIR [PORT]`` to try the command line on it.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

SEARCH_PATH = "/w/rest.php/v1/search/page"
_RESTBASE = re.compile(r"^/api/rest_v1/page/html/(?P<key>[^/]+)(?:/(?P<rev>\d+))?$")
_CORE_PAGE = re.compile(r"^/w/rest.php/v1/page/(?P<key>[^/]+)/html$")
_CORE_REVISION = re.compile(r"^/w/rest.php/v1/revision/(?P<rev>\d+)/html$")
_REVISION = re.compile(rb'about="[^"]*/revision/(\d+)"')
_TIME_UUID = re.compile(rb'property="mw:TimeUuid" content="([^"]+)"')
_HTML_VERSION = re.compile(rb'property="mw:html(?::v|V)ersion" content="([^"]+)"')
_FILE_SAFE = "_().,-"


@dataclass
class Answer:
    """A made-up answer for one path: status, headers, body and how to send it."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    delay: float = 0.0  # seconds to wait before the status line
    chunked: bool = False  # send the body in chunks with no Content-Length
    chunk_delay: float = 0.0  # seconds between chunks
    drop: bool = False  # close the connection with no answer at all
    compress: bool = True  # gzip the body when the client accepts it


@dataclass(frozen=True)
class Request:
    """One request the stand-in received."""

    path: str
    headers: dict[str, str]
    at: float  # time.monotonic() when it arrived


class WikipediaStandIn:
    """The server: start it, point a provider's origin at ``origin``, stop it."""

    def __init__(self, fixtures: Path, port: int = 0) -> None:
        self.fixtures = fixtures
        self.answers: dict[str, Answer] = {}
        self.requests: list[Request] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, path: str, answer: Answer) -> None:
        """Answer every request for ``path`` (query ignored) with ``answer`` from now on."""
        self.answers[path] = answer

    def paths(self) -> list[str]:
        """The paths (with query) requested so far, in order."""
        return [request.path for request in self.requests]

    def __enter__(self) -> WikipediaStandIn:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def respond(self, path: str, headers: dict[str, str]) -> Answer:
        """The answer to a GET of ``path`` (with its query)."""
        self.requests.append(Request(path, headers, time.monotonic()))
        parts = urlsplit(path)
        if parts.path in self.answers:
            return self.answers[parts.path]
        if parts.path == SEARCH_PATH:
            return self._search(parse_qs(parts.query))
        return self._page(parts.path)

    def _search(self, query: dict[str, list[str]]) -> Answer:
        phrase = query.get("q", [""])[0]
        recorded = self.fixtures / "search" / (_file_key(phrase.replace(" ", "_")) + ".json")
        if len(recorded.name) <= 255 and recorded.is_file():  # a longer name is none on disk
            return _json(recorded.read_bytes())
        limit = int((query.get("limit") or ["10"])[0] or 10)
        pages = [_search_entry(path) for path in self._matching_pages(phrase)][:limit]
        return _json(json.dumps({"pages": pages}).encode())

    def _matching_pages(self, phrase: str) -> list[Path]:
        words = {word.lower() for word in re.findall(r"\w+", phrase)}
        pages = sorted((self.fixtures / "pages").glob("*.html"))
        return [p for p in pages if words & set(re.findall(r"\w+", _title(p).lower()))]

    def _page(self, path: str) -> Answer:
        canonical = _canonical_path(path)
        if canonical is not None:
            return Answer(301, {"Location": canonical})
        found = self._page_file(path)
        if found is None or not found.is_file():
            problem = {"type": "https://mediawiki.org/wiki/HyperSwitch/errors/not_found"}
            return Answer(
                404, {"Content-Type": "application/problem+json"}, json.dumps(problem).encode()
            )
        body = found.read_bytes()
        return Answer(200, _page_headers(body), body)

    def _page_file(self, path: str) -> Path | None:
        for pattern in (_RESTBASE, _CORE_PAGE, _CORE_REVISION):
            match = pattern.match(path)
            if match:
                groups = match.groupdict()
                return self._file_for(groups.get("key"), groups.get("rev"))
        return None

    def _file_for(self, key: str | None, revision: str | None) -> Path | None:
        if revision is None:
            return self.fixtures / "pages" / (_file_key(unquote(key or "")) + ".html")
        if key is not None:
            return self.fixtures / "revisions" / _file_key(unquote(key)) / f"{revision}.html"
        return next((self.fixtures / "revisions").glob(f"*/{revision}.html"), None)


@contextlib.contextmanager
def fresh_stand_in(fixtures: Path) -> Iterator[WikipediaStandIn]:
    """The stand-in for one test. Nothing of a host's state outlives the test: each fetcher
    holds its own limiters, and each test's default store (which keeps the command line's
    blocks) is its own."""
    with WikipediaStandIn(fixtures) as server:
        yield server


def _canonical_path(path: str) -> str | None:
    """The path with its title normalised as MediaWiki does (``_`` for spaces, first letter
    upper case) when the asked spelling differs, else None: such a request answers 301."""
    match = _RESTBASE.match(path) or _CORE_PAGE.match(path)
    if match is None:
        return None
    asked = unquote(match["key"])
    key = asked.strip().replace(" ", "_")
    key = key[:1].upper() + key[1:]
    if key == asked:
        return None
    return path[: match.start("key")] + _file_key(key) + path[match.end("key") :]


def _file_key(key: str) -> str:
    """A key as the fixture file names spell it (characters outside a safe set encoded)."""
    return quote(key, safe=_FILE_SAFE)


def _title(path: Path) -> str:
    return unquote(path.stem).replace("_", " ")


def _search_entry(path: Path) -> dict[str, object]:
    """A REST search entry for a recorded page, shaped like the recorded answers."""
    key = unquote(path.stem)
    return {
        "id": abs(hash(key)) % 10**8,
        "key": key,
        "title": _title(path),
        "excerpt": _title(path),
        "matched_title": None,
        "anchor": None,
        "description": None,
        "thumbnail": None,
    }


def _json(body: bytes) -> Answer:
    return Answer(200, {"Content-Type": "application/json", "Vary": "Accept-Encoding"}, body)


def _page_headers(body: bytes) -> dict[str, str]:
    """The headers Wikimedia sends with a page, made from the page's own metadata."""
    revision = _first(_REVISION, body, "0")
    version = _first(_HTML_VERSION, body, "2.8.0")
    uuid = _first(_TIME_UUID, body, "00000000-0000-1000-8000-000000000000")
    return {
        "Content-Type": f'text/html; charset=utf-8; profile="https://www.mediawiki.org/wiki/Specs/HTML/{version}"',
        "ETag": f'W/"{revision}/{uuid}"',
        "Content-Language": "en",
        "Vary": "Accept-Encoding",
    }


def _first(pattern: re.Pattern[bytes], body: bytes, default: str) -> str:
    match = pattern.search(body[:4096])
    return match.group(1).decode() if match else default


def _handler_for(stand_in: WikipediaStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            answer = stand_in.respond(self.path, headers)
            time.sleep(answer.delay)
            if answer.drop:
                self.close_connection = True
                return
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                _send(self, answer, "gzip" in headers.get("accept-encoding", ""))

        def log_message(self, *_: object) -> None:
            """Quiet: tests read ``requests`` instead."""

    return Handler


def _send(handler: BaseHTTPRequestHandler, answer: Answer, gzip_ok: bool) -> None:
    """Write ``answer``: gzipped when the client accepts it and the answer is not pre-encoded."""
    headers = dict(answer.headers)
    body = answer.body
    if gzip_ok and answer.compress and body and "Content-Encoding" not in headers:
        body = gzip.compress(body, 6)
        headers["Content-Encoding"] = "gzip"
    handler.send_response(answer.status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Connection", "close")
    if answer.chunked:
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        _send_chunks(handler, body, answer.chunk_delay)
        return
    if "Content-Length" not in headers:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def _send_chunks(handler: BaseHTTPRequestHandler, body: bytes, delay: float) -> None:
    for start in range(0, len(body), 16_384):
        piece = body[start : start + 16_384]
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.flush()
        time.sleep(delay)
    handler.wfile.write(b"0\r\n\r\n")


if __name__ == "__main__":
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    with WikipediaStandIn(Path(sys.argv[1]), port) as stand_in:
        print(f"Wikipedia stand-in at {stand_in.origin}", flush=True)
        threading.Event().wait()
