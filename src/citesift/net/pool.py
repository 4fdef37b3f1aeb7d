"""Connections kept open between requests, one pool per host, for one event loop.

A request goes to the address that was checked (the URL's host in Host and TLS SNI), so
pooled connections must never be shared between host names: two names on one address
would otherwise share a TLS session verified for only one of them. Each (scheme, host,
port, TLS roots) gets a transport of its own; the least recently used idle ones are
closed past ``MAX_HOSTS``. Transports take no proxy from the environment (a proxy would
connect to an address we never checked) and verify TLS against certifi's roots unless
the policy names a context.
"""

from __future__ import annotations

import functools
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import certifi
import httpx

from citesift.net.address import Target

MAX_HOSTS = 32
KEEP_ALIVE = 5.0  # seconds an idle connection is kept
MAX_CONNECTIONS = 16
LIMITS = httpx.Limits(
    max_connections=MAX_CONNECTIONS,
    max_keepalive_connections=MAX_CONNECTIONS,  # a host given N at once keeps N, not reopens
    keepalive_expiry=KEEP_ALIVE,
)
PoolKey = tuple[str, str, int | None, ssl.SSLContext | None]


@dataclass
class _Entry:
    transport: httpx.AsyncHTTPTransport
    users: int = 0


class HostPools:
    """One transport (a connection pool) per host for the requests of one event loop."""

    def __init__(self, max_hosts: int = MAX_HOSTS) -> None:
        self.max_hosts = max_hosts
        self._entries: OrderedDict[PoolKey, _Entry] = OrderedDict()

    @asynccontextmanager
    async def transport(
        self, target: Target, tls: ssl.SSLContext | None
    ) -> AsyncIterator[httpx.AsyncHTTPTransport]:
        """The transport for ``target``'s host, held while the block runs."""
        key = (target.url.scheme, target.host.lower(), target.url.port, tls)
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = _Entry(new_transport(tls))
        self._entries.move_to_end(key)
        entry.users += 1
        try:
            yield entry.transport
        finally:
            entry.users -= 1
            await self._trim()

    async def aclose(self) -> None:
        """Close every connection."""
        entries, self._entries = list(self._entries.values()), OrderedDict()
        for entry in entries:
            await entry.transport.aclose()

    async def _trim(self) -> None:
        """Close the least recently used idle transports past ``max_hosts``. They leave the
        table before the first is closed, so a request starting meanwhile never takes one
        being closed, and two requests ending at once never close the same one."""
        idle = [key for key, entry in self._entries.items() if entry.users == 0]
        gone = [self._entries.pop(key) for key in idle[: len(self._entries) - self.max_hosts]]
        for entry in gone:
            await entry.transport.aclose()


def new_transport(tls: ssl.SSLContext | None = None) -> httpx.AsyncHTTPTransport:
    """A transport of our own: verifying TLS (certifi's roots unless ``tls`` is given), no
    proxy taken from the environment, bounded keep-alive."""
    return httpx.AsyncHTTPTransport(verify=tls or tls_context(), trust_env=False, limits=LIMITS)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One verifying TLS context (certifi's roots) for every request: made once, it is costly."""
    return ssl.create_default_context(cafile=certifi.where())
