"""Address safety: only http(s) URLs whose host resolves to public addresses are fetched.

The host is resolved once, through a resolver the caller may replace (tests stub DNS), every
address it gives is checked, and the request then connects to the checked address itself
(the URL names the host for the Host header and TLS), so DNS cannot swap it afterwards.
Numeric hosts in the forms browsers accept (``2130706433``, ``0x7f.1``, ``0177.0.0.1``) are
read as the IPv4 addresses they mean before any resolver is asked. An IPv6 address that
carries an IPv4 one (mapped, compatible, translated, 6to4, Teredo, NAT64) is judged by the
IPv4 address it carries. Private networks may be allowed; link-local addresses (the cloud
metadata service at 169.254.169.254) only when named in ``allowed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx

from citesift.errors import CitesiftError, invalid

Resolver = Callable[[str], Sequence[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

SCHEMES = ("http", "https")
MAX_URL_CHARS = 16_384
RESOLVE_TIMEOUT = 10.0
MAX_ADDRESSES = 4  # addresses tried in turn when connecting fails
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215: any prefix length in it
_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated IPv4-compatible ::a.b.c.d
_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765 IPv4-translated
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:)?//[^/?#]*@")


class AddressRefused(CitesiftError):
    """A URL that may not be fetched: its scheme, its form or the address its host has."""


@dataclass(frozen=True, slots=True)
class Target:
    """A checked URL and the addresses the request may connect to, in the resolver's order."""

    url: httpx.URL
    host: str
    addresses: tuple[str, ...]

    @property
    def address(self) -> str:
        """The first address to try."""
        return self.addresses[0]


def system_resolver(host: str) -> list[str]:
    """The addresses the operating system resolves ``host`` to (TCP, any family)."""
    infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def without_credentials(url: str) -> str:
    """``url`` without the user name and password its authority may hold
    (``https://user:secret@host/a`` is ``https://host/a``): a fetch never sends them, so no
    snapshot, result or report that records or shows the address keeps them either."""
    return _USERINFO.sub(r"\1//", url, count=1)


def parse_url(url: str) -> httpx.URL:
    """The URL parsed, or ``AddressRefused`` naming what is wrong with it."""
    if not isinstance(url, str):
        raise AddressRefused("the URL is not a string")
    if len(url) > MAX_URL_CHARS:
        raise AddressRefused(f"the URL is longer than {MAX_URL_CHARS} characters")
    try:
        url.encode("utf-8")
        parsed = httpx.URL(url)
        host = parsed.host  # an IDNA host (xn--) is decoded only when asked for, and may fail
    except (UnicodeError, httpx.InvalidURL, ValueError, TypeError) as error:
        raise AddressRefused(f"malformed URL: {error}") from None
    if parsed.scheme not in SCHEMES:
        raise AddressRefused(f"scheme {parsed.scheme or '(none)'!r} is not http or https")
    if not host:
        raise AddressRefused("the URL has no host")
    return parsed


DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def origin_of(url: str) -> tuple[str, str, int] | None:
    """``url``'s origin (scheme, host, port; the scheme's default port when none is written),
    or None when it has none: the one place headers a caller gave for a page may go."""
    try:
        parsed = httpx.URL(url)
        host = parsed.raw_host.decode("ascii").lower()
    except (UnicodeError, httpx.InvalidURL, ValueError, TypeError):
        return None
    scheme = parsed.scheme.lower()
    if not host or scheme not in DEFAULT_PORTS:
        return None
    return scheme, host, parsed.port or DEFAULT_PORTS[scheme]


def same_origin(url: str, other: str) -> bool:
    """Whether ``url`` and ``other`` share one origin (same scheme, host and port)."""
    origin = origin_of(url)
    return origin is not None and origin == origin_of(other)


async def check_target(
    url: str,
    resolver: Resolver,
    allow_private: bool,
    allowed: Sequence[IPNetwork] = (),
    timeout: float = RESOLVE_TIMEOUT,
) -> Target:
    """Parse, resolve (within ``timeout`` s) and check ``url``; ``AddressRefused`` says why not."""
    parsed = parse_url(url)
    host = parsed.raw_host.decode("ascii")
    literal = ip_literal(host)
    addresses = [literal] if literal else await _resolve(host, resolver, timeout)
    for address in addresses:
        refusal = address_refusal(address, allow_private, allowed)
        if refusal:
            raise AddressRefused(f"{host} resolves to {address}, {refusal}")
    tried = tuple(dict.fromkeys(str(address) for address in addresses))[:MAX_ADDRESSES]
    return Target(url=parsed, host=host, addresses=tried)


def networks(values: Sequence[str | IPNetwork]) -> tuple[IPNetwork, ...]:
    """Networks from their written forms (``"10.1.0.0/16"``, ``"::1"``); ValueError if bad."""
    if isinstance(values, str):
        values = [values]
    try:
        return tuple(ipaddress.ip_network(value, strict=False) for value in values)
    except (TypeError, ValueError) as error:
        raise invalid(
            "allow_networks", values, f"networks such as '10.1.0.0/16' ({error})"
        ) from None


def address_refusal(
    address: IPAddress, allow_private: bool = False, allowed: Sequence[IPNetwork] = ()
) -> str | None:
    """Why ``address`` may not be contacted, or None when it may.

    ``allowed`` names networks let through in any case; ``allow_private`` lets loopback and
    private addresses through, but not link-local ones (the cloud metadata address). An
    IPv6 address carrying IPv4 ones is refused when any of them is. Unspecified and
    multicast addresses are never contacted.
    """
    if any(address in network for network in allowed):
        return None
    for embedded in _embedded_ipv4(address):
        refusal = address_refusal(embedded, allow_private, allowed)
        if refusal:
            return f"{refusal} (carried in {address})"
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_link_local:
        return "a link-local address, allowed only when named in allow_networks"
    local = _local_ipv6(address)
    if address.is_global and not local:
        return None
    if allow_private and (address.is_private or address.is_loopback or local):
        return None
    return f"a non-public ({_kind(address)}) address"


def _local_ipv6(address: IPAddress) -> str | None:
    """The kind of a local IPv6 range the standard library counts as global, or None."""
    if not isinstance(address, ipaddress.IPv6Address):
        return None
    if address.is_site_local:
        return "site-local"
    return "local-use NAT64" if address in _NAT64_LOCAL else None


def ip_literal(host: str) -> IPAddress | None:
    """The address a numeric host means (IPv6, dotted IPv4 or the WHATWG numeric forms)."""
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    parts = host.rstrip(".").split(".")
    if not parts[-1] or _number(parts[-1]) is None:
        return None
    numbers = [_number(part) for part in parts]
    if len(numbers) > 4 or any(n is None for n in numbers):
        raise AddressRefused(f"malformed numeric host {host!r}")
    return _ipv4_from_parts([n for n in numbers if n is not None], host)


def _ipv4_from_parts(numbers: list[int], host: str) -> ipaddress.IPv4Address:
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        raise AddressRefused(f"malformed numeric host {host!r}")
    value = last
    for index, number in enumerate(head):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _number(part: str) -> int | None:
    """A WHATWG IPv4 part: decimal, ``0x`` hexadecimal or leading-zero octal."""
    lowered = part.lower()
    try:
        if lowered.startswith("0x"):
            return int(lowered[2:] or "0", 16)
        if len(lowered) > 1 and lowered.startswith("0"):
            return int(lowered[1:], 8)
        return int(lowered, 10) if lowered.isdigit() else None
    except ValueError:
        return None


def _embedded_ipv4(address: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: mapped, compatible, translated, 6to4,
    Teredo (server and client) or NAT64 (for the local-use prefix, where the prefix length
    is not known, the common /96 placement)."""
    if not isinstance(address, ipaddress.IPv6Address) or address.is_loopback:
        return []
    value = int(address)
    low32 = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if address.ipv4_mapped:
        return [address.ipv4_mapped]
    if address.sixtofour:
        return [address.sixtofour]
    if address.teredo:
        return list(address.teredo)
    if address in _NAT64 or address in _TRANSLATED:
        return [low32]
    if address in _COMPATIBLE and not address.is_unspecified:
        return [low32]
    if address in _NAT64_LOCAL:
        return [low32]  # the /96 placement; the prefix itself is never public (below)
    return []


def _kind(address: IPAddress) -> str:
    local = _local_ipv6(address)
    if local:
        return local
    for kind in ("loopback", "link_local", "private", "reserved"):
        if getattr(address, f"is_{kind}"):
            return kind.replace("_", "-")
    return "special-purpose"


async def _resolve(host: str, resolver: Resolver, timeout: float) -> list[IPAddress]:
    try:
        async with asyncio.timeout(timeout):
            names = await _off_loop(resolver, host)
        addresses = [ipaddress.ip_address(str(name).split("%")[0]) for name in names]
    except TimeoutError:
        raise AddressRefused(f"cannot resolve {host} within {timeout:g} s") from None
    except (OSError, UnicodeError, ValueError, TypeError) as error:
        raise AddressRefused(f"cannot resolve {host}: {error}") from None
    if not addresses:
        raise AddressRefused(f"{host} resolves to no address")
    return addresses


async def _off_loop(resolver: Resolver, host: str) -> Sequence[str]:
    """Run ``resolver`` in a daemon thread, so a stalled lookup never holds up the loop's end."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[Sequence[str]] = loop.create_future()

    def settle(result: Sequence[str], error: BaseException | None) -> None:
        if answer.done():
            return
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(result)

    def work() -> None:
        try:
            outcome: tuple[Sequence[str], BaseException | None] = (resolver(host), None)
        except Exception as error:
            outcome = ((), error)
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
            loop.call_soon_threadsafe(settle, *outcome)

    threading.Thread(target=work, name=f"resolve {host}", daemon=True).start()
    return await answer
