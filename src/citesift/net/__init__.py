"""Polite, safe fetching: the one way citesift reads from the network.

The public surface::

    identity = ClientIdentity("mytool", "1.0", "https://example.org/contact")
    policy = FetchPolicy(identity)               # or FetchPolicy.for_pages / for_wikipedia
    async with Fetcher() as fetcher:             # holds connections, limiters, robots.txt
        outcome = await fetcher.fetch(url, policy)
    outcome = Fetcher().fetch_sync(url, policy)  # from sync code, even inside a running loop
    # -> Snapshot | Skipped(status, reason) | Limited(reason); never raises but on cancellation

- ``ClientIdentity(name, version, contact)``: ``.user_agent`` is ``name/version (contact)``;
  an empty contact or a browser-like agent is refused (``IdentityError``).
- ``FetchPolicy``: a frozen value of bounds and switches (deadline, byte caps, redirects,
  addresses, robots.txt, resolver seam, TLS roots); a value that makes no sense is an
  ``InvalidArgument`` naming it. ``error_pages=True`` keeps a 4xx/5xx answer as a
  ``Snapshot`` (429/503 and 3xx never are).
- ``Fetcher(limiters=None, robots=None)``: the state fetching keeps, nothing process-wide:
  a connection pool per host (connections go to the checked address, the name in Host and
  TLS SNI), a ``LimiterRegistry`` and a ``RobotsCache``. ``fetch(url, policy, on_send=None)``:
  ``Skipped.status`` is the HTTP status when an answer arrived (404, 429, 200 for a body
  over the cap or one whose compressed stream is cut short, 3xx for a redirect not
  followed) and None for a refused URL or address, robots.txt, a transport error or the
  deadline. A 429/503 blocks the host in its limiter per Retry-After
  (``blocked_seconds(url)`` says for how long). ``Limited(reason)``: the limiter refused
  (``blocked``, ``minute``, ``wait``) or ``on_send`` did (``caller``); nothing was sent.
  ``on_send`` runs before every request sent for the caller (each redirect hop), not for
  robots.txt. The deadline bounds name lookups and sending to the last body byte, all hops
  together. ``fetch(url, policy)`` / ``fetch_sync`` are one-off conveniences with a fetcher
  of their own. ``robots_rules(url, policy)``: the robots.txt rules of ``url``'s origin
  from the cache its fetches use (fetched once per origin). ``Fetches`` is the protocol a
  fetcher composed over one (replaying from a store, saving to one:
  ``citesift.sources.snapshots``) also keeps.
- Addresses: the host is resolved once (``policy.resolver``), every address checked (an
  IPv6 address by the IPv4 one it carries), and the request connects to the checked
  address, so DNS cannot be swapped after the check. Proxies from the environment are
  ignored for the same reason. ``allow_private`` allows loopback and private networks but
  not link-local ones (the metadata address), which only ``allow_networks`` can name.
- ``SourceLimiter`` / ``LimiterRefused`` / ``retry_after_ms``: the per-host politeness
  rules; one limiter per host per registry. ``LimiterRegistry(budget=...)`` shares spacing,
  the minute budget and blocks through a ``SharedBudget`` (the store keeps one).
- ``FetchPolicy.check(url)``: the address check fetch makes with a policy's resolver and
  rules, public so other callers (a browser, its proxy, a crawler) refuse the same addresses;
  ``check_target`` / ``address_refusal`` / ``system_resolver`` are its parts.
- ``without_credentials(url)``: ``url`` without the user name and password it may hold.
  The request never sends them, and every URL fetching records (a snapshot's ``url`` and
  ``final_url``, redirect targets, the addresses an outcome names) is kept without them.
- ``RobotsCache``: robots.txt per origin (RFC 9309: 4xx allows, 5xx/timeout disallows for now).
- ``run_sync(call)``: a coroutine run to completion from sync code, in a running loop or not.
- ``ManualClock``: a virtual clock for testing code that runs under a limiter.
"""

from citesift.net.address import (
    AddressRefused,
    Resolver,
    Target,
    address_refusal,
    check_target,
    system_resolver,
    without_credentials,
)
from citesift.net.clock import Clock, ManualClock, SystemClock
from citesift.net.decompress import DecompressError
from citesift.net.fetch import Fetcher, Fetches, fetch, fetch_sync
from citesift.net.identity import ClientIdentity, IdentityError
from citesift.net.limiter import (
    LimiterRefused,
    LimiterRegistry,
    SharedBudget,
    SourceLimiter,
)
from citesift.net.loops import run_sync
from citesift.net.policy import FetchPolicy
from citesift.net.retry_after import retry_after_ms
from citesift.net.robots import RobotsCache, RobotsRules

__all__ = [
    "AddressRefused",
    "ClientIdentity",
    "Clock",
    "DecompressError",
    "FetchPolicy",
    "Fetcher",
    "Fetches",
    "IdentityError",
    "LimiterRefused",
    "LimiterRegistry",
    "ManualClock",
    "Resolver",
    "RobotsCache",
    "RobotsRules",
    "SharedBudget",
    "SourceLimiter",
    "SystemClock",
    "Target",
    "address_refusal",
    "check_target",
    "fetch",
    "fetch_sync",
    "retry_after_ms",
    "run_sync",
    "system_resolver",
    "without_credentials",
]
