"""One HTTP request to a checked address, bounded by a deadline and byte caps.

No client object, so no cookie jar and no redirect following: the request goes through
its host's pooled transport (``citesift.net.pool``) to the checked address (the URL's host
goes in the Host header and TLS server name), the status decides what to read, and the
body is decompressed piece by piece under the cap (a stream cut short is a failure).
Failures come back as ``Skipped``, never as exceptions.
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
import time
from dataclasses import dataclass
from email.message import Message

import httpx

from citesift.encoding import sniff_charset
from citesift.errors import masked
from citesift.model import Skipped, Snapshot
from citesift.net.address import Target, without_credentials
from citesift.net.decompress import ACCEPT_ENCODING, DecompressError, decoder_for
from citesift.net.limiter import SourceLimiter
from citesift.net.policy import FetchPolicy

KEPT_HEADERS = frozenset(
    {
        "cache-control", "cf-mitigated", "content-encoding", "content-language", "content-length",
        "content-location", "content-revision-id", "content-security-policy", "content-type",
        "date", "etag", "expires", "last-modified", "link", "location", "retry-after",
        "x-frame-options", "x-robots-tag",
    }
)  # fmt: skip
"""Headers kept on a snapshot: what reading, revision, caching and replay need (cf-mitigated
tells a bot challenge from the page), and what a browser showing it holds it to (its
content security policy, where it may be framed)."""
_TEXT_TYPES = ("text/", "application/xhtml+xml", "application/xml", "application/json")
BLOCKING_STATUSES = (429, 503)
UNREACHABLE = "host unreachable"
"""How a reason starts when no connection to the host could be made."""


@dataclass(frozen=True, slots=True)
class Redirect:
    """A 3xx answer with the absolute address it points to."""

    status: int
    location: str


class _TooLarge(Exception):
    pass


async def exchange(
    target: Target,
    policy: FetchPolicy,
    limiter: SourceLimiter,
    transport: httpx.AsyncHTTPTransport,
    left: float,
) -> Snapshot | Skipped | Redirect:
    """Send one GET to ``target`` through ``transport`` (its host's pool), read the answer
    within the caps and the ``left`` seconds of the policy's deadline that earlier hops of the
    fetch did not spend."""
    try:
        async with asyncio.timeout(left):
            response = await _send(target, policy, transport)
            try:
                return await _answer(target, policy, limiter, response)
            finally:
                await response.aclose()
    except TimeoutError:
        return Skipped(None, deadline_passed(policy))
    except (httpx.ConnectError, httpx.ConnectTimeout) as error:
        return Skipped(None, f"{UNREACHABLE}: {type(error).__name__}: {masked(str(error))}")
    except (httpx.HTTPError, OSError, ssl.SSLError) as error:
        return Skipped(None, f"transport error: {type(error).__name__}: {masked(str(error))}")


def deadline_passed(policy: FetchPolicy) -> str:
    """The reason a fetch gives when its deadline ran out before the answer was complete."""
    return f"no complete answer within the {policy.deadline:g} s deadline"


async def _send(
    target: Target, policy: FetchPolicy, transport: httpx.AsyncHTTPTransport
) -> httpx.Response:
    """Send to the target's checked addresses in turn until one accepts the connection."""
    *others, last = target.addresses
    for address in others:
        try:
            return await transport.handle_async_request(_request(target, address, policy))
        except httpx.ConnectError:
            continue
    return await transport.handle_async_request(_request(target, last, policy))


def _request(target: Target, address: str, policy: FetchPolicy) -> httpx.Request:
    url = target.url.copy_with(host=address, userinfo=b"")
    headers = {
        "Host": _host_header(target.url),
        "User-Agent": policy.identity.user_agent,
        "Accept": policy.accept,
        "Accept-Encoding": ACCEPT_ENCODING,
        **dict(policy.headers),
    }
    timeout = dict.fromkeys(("connect", "read", "write", "pool"), policy.deadline)
    extensions: dict[str, object] = {"timeout": timeout}
    if target.url.scheme == "https":
        extensions["sni_hostname"] = target.host
    return httpx.Request("GET", url, headers=headers, extensions=extensions)


def _host_header(url: httpx.URL) -> str:
    host = url.raw_host.decode("ascii")
    host = f"[{host}]" if ":" in host else host
    return host if url.port is None else f"{host}:{url.port}"


async def _answer(
    target: Target, policy: FetchPolicy, limiter: SourceLimiter, response: httpx.Response
) -> Snapshot | Skipped | Redirect:
    status = response.status_code
    if status in BLOCKING_STATUSES:
        limiter.block(response.headers.get("retry-after"))
        return Skipped(status, f"HTTP {status}: the host asked us to wait; it is blocked")
    if 300 <= status < 400:
        return _redirect(target.url, response)
    if not 200 <= status < 300 and not policy.error_pages:
        return Skipped(status, f"HTTP {status}")
    declared = _declared_length(response)
    if declared is not None and declared > policy.max_declared_bytes and not policy.truncate:
        cap = policy.max_declared_bytes
        return Skipped(status, f"declared length {declared:,} bytes over the cap of {cap:,} bytes")
    fetched_at = int(time.time() * 1000)
    try:
        body = await _read_body(response, policy.max_body_bytes, policy.truncate)
    except _TooLarge:
        return Skipped(status, f"body over the cap of {policy.max_body_bytes} bytes")
    except DecompressError as error:
        return Skipped(status, f"body could not be decompressed: {error}")
    return make_snapshot(str(target.url), response, body, fetched_at)


def _redirect(url: httpx.URL, response: httpx.Response) -> Redirect | Skipped:
    location = response.headers.get("location", "").strip()
    if not location:
        return Skipped(response.status_code, "redirect without a location")
    try:
        return Redirect(response.status_code, without_credentials(str(url.join(location))))
    except (httpx.InvalidURL, ValueError, UnicodeError):
        return Skipped(response.status_code, f"redirect to a malformed location {location!r}")


def _declared_length(response: httpx.Response) -> int | None:
    value = response.headers.get("content-length", "").strip()
    return int(value) if value.isascii() and value.isdigit() else None


async def _read_body(response: httpx.Response, cap: int, truncate: bool) -> bytes:
    """The decompressed body; past ``cap`` bytes, its first ``cap`` when ``truncate``."""
    decoder = decoder_for(response.headers.get("content-encoding"))
    body = bytearray()
    async for chunk in response.aiter_raw():
        for piece in decoder.feed(chunk):
            body += piece
            if len(body) > cap:
                if truncate:
                    return bytes(body[:cap])
                raise _TooLarge
    decoder.finish()  # a compressed body cut short is a failure, not a shorter page
    return bytes(body)


def make_snapshot(url: str, response: httpx.Response, body: bytes, fetched_at: int) -> Snapshot:
    """The snapshot of a read answer: id, kept headers, content type and chosen charset."""
    content_type = response.headers.get("content-type", "")
    mime, http_charset = media_type(content_type)
    text = mime.startswith(_TEXT_TYPES) or mime.endswith("+xml") or not mime
    return Snapshot(
        id=hashlib.sha256(body).hexdigest(),
        url=url,
        final_url=url,
        status=response.status_code,
        headers=tuple((k, v) for k, v in response.headers.items() if k.lower() in KEPT_HEADERS),
        content_type=content_type,
        charset=sniff_charset(body, http_charset) if text else None,
        fetched_at=fetched_at,
        body=body,
    )


def media_type(content_type: str) -> tuple[str, str | None]:
    """The lower-cased media type and the charset parameter of a Content-Type header."""
    if not content_type.strip():
        return "", None
    message = Message()
    message["content-type"] = content_type
    charset = message.get_param("charset")
    return message.get_content_type(), charset if isinstance(charset, str) else None
