"""A list of web addresses, each read once through the fetcher: HTTPS only, on origins the
caller allows (a list they must give), no redirect followed, each answer within the
deadline and the byte cap. An address that breaks a rule stops the load before anything
is fetched; a page that cannot be read is reported, the rest kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from urllib.parse import urlsplit

from citesift.errors import LOAD_FAILED, DocumentError, LoadError, invalid, masked, shown
from citesift.extract.document import extract_document
from citesift.extract.html import DEFAULT_BUDGET, checked_budget
from citesift.model import MAX_BODY_BYTES, Limited, Skipped, Snapshot, SourceDocument
from citesift.net import Fetcher, FetchPolicy, run_sync
from citesift.net.policy import MAX_DEADLINE
from citesift.sources.loaders.files import read_under
from citesift.sources.loaders.limits import LoadLimits
from citesift.sources.loaders.results import Loaded, download_each

LABEL = "url"
DEFAULT_PORTS = {"https": 443}


def origin_of(address: str) -> str | None:
    """``https://host[:port]`` of an HTTPS address (host in lower case, the default port
    left out), or None when it is not an HTTPS address with a host."""
    try:
        parts = urlsplit(address)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme.lower() != "https" or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    shown = f":{port}" if port not in (None, DEFAULT_PORTS["https"]) else ""
    return f"https://{host.lower()}{shown}"


def allowed(origins: Sequence[str]) -> frozenset[str]:
    """The origins as given, each an HTTPS origin with nothing after it; at least one."""
    if isinstance(origins, str) or not origins:
        raise invalid("allowed_origins", origins, "a non-empty list of https:// origins")
    kept = set()
    for given in origins:
        origin = origin_of(given) if isinstance(given, str) else None
        if origin is None or urlsplit(given).path not in ("", "/") or "?" in given:
            raise invalid("allowed_origins", given, "an https:// origin such as https://host")
        kept.add(origin)
    return frozenset(kept)


def checked_urls(urls: Sequence[str], origins: frozenset[str]) -> list[str]:
    """``urls`` when every one is an HTTPS address on an allowed origin, else ``LoadError``
    naming the first that is not."""
    if isinstance(urls, str):
        raise invalid("urls", urls, "a list of addresses")
    for url in urls:
        origin = origin_of(url) if isinstance(url, str) else None
        if origin is None:
            raise LoadError(LOAD_FAILED, f"{LABEL}: not an https address: {shown(url)}")
        if origin not in origins:
            raise LoadError(LOAD_FAILED, f"{LABEL}: origin not allowed: {origin}")
    return list(urls)


async def load_urls(
    urls: Sequence[str],
    allowed_origins: Sequence[str],
    policy: FetchPolicy,
    limits: LoadLimits | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """Each of ``urls`` fetched with ``policy`` (its deadline and body cap from ``limits``,
    at most what a fetch allows; no redirect) and read into a document of at most
    ``budget`` characters of text (checked before any request) whose revision is its ETag
    (ending ``@budget=N`` when the budget cut it); ``metadata["url"]`` is the address
    asked for."""
    checked_budget(budget)
    chosen = checked_urls(urls, allowed(allowed_origins))
    limits = limits or LoadLimits()
    cap = min(limits.max_response_bytes, MAX_BODY_BYTES)
    bounded = policy.with_(
        deadline=min(limits.timeout_ms / 1000, MAX_DEADLINE),
        max_body_bytes=cap,
        max_declared_bytes=cap,
        max_redirects=0,
        truncate=False,
    )
    async with Fetcher() as fetcher:

        async def download(url: str) -> SourceDocument:
            outcome = await fetcher.fetch(url, bounded)
            if not isinstance(outcome, Snapshot):
                raise LoadError(LOAD_FAILED, _failure(url, outcome))
            try:
                document = extract_document(outcome, budget=budget)
            except DocumentError as error:
                raise LoadError(LOAD_FAILED, f"{LABEL}: {error}: {masked(url)}") from error
            meta = {**document.metadata, "url": url}
            revision = read_under(outcome.header("etag"), document, budget)
            return replace(document, revision=revision, metadata=meta)

        return await download_each(LABEL, chosen, download, str)


def _failure(url: str, outcome: Skipped | Limited) -> str:
    """Why ``url`` was not read, its secrets (and any its reason quotes) ``masked``."""
    status = getattr(outcome, "status", None)
    if status:
        return masked(f"{LABEL} {status}: {url}")
    return masked(f"{LABEL}: {outcome.reason or 'not read'}: {url}")


def load_urls_sync(
    urls: Sequence[str],
    allowed_origins: Sequence[str],
    policy: FetchPolicy,
    limits: LoadLimits | None = None,
    budget: int = DEFAULT_BUDGET,
) -> Loaded:
    """``load_urls`` from synchronous code."""
    return run_sync(load_urls(urls, allowed_origins, policy, limits, budget))
