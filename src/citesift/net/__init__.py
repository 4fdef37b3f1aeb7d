"""Polite, safe fetching: the one way citesift reads from the network.

The public surface::

    identity = ClientIdentity("mytool", "1.0", "https://example.org/contact")
    policy = FetchPolicy(identity)               # or FetchPolicy.for_pages / for_wikipedia
    outcome = await fetch(url, policy)           # or fetch_sync(url, policy)
    # -> Snapshot | Skipped(status, reason) | Limited(reason); never raises but on cancellation

- ``ClientIdentity(name, version, contact)``: ``.user_agent`` is ``name/version (contact)``;
  an empty contact or a browser-like agent is refused (``IdentityError``).
- ``FetchPolicy``: a frozen options object (deadline, byte caps, redirects, addresses,
  robots.txt, offline replay, store, resolver seam, TLS roots, limiter registry, robots
  cache); absurd values are sanitised. ``error_pages=True`` keeps a 4xx/5xx answer as a
  ``Snapshot`` (429/503 and 3xx never are); ``save=True`` keeps every snapshot in ``store``.
- ``fetch(url, policy, on_send=None)``: ``Skipped.status`` is the HTTP status when an answer
  arrived (404, 429, 200 for a body over the cap, 3xx for a redirect not followed) and None
  for a refused URL or address, robots.txt, a transport error or the deadline. A 429/503
  blocks the host in its limiter per Retry-After. ``Limited(reason)``: the limiter refused
  (``blocked``, ``minute``, ``wait``) or ``on_send`` did (``caller``); nothing was sent.
  ``on_send`` runs before every request sent for the caller (each redirect hop), not for
  robots.txt. The deadline bounds name lookups and sending to the last body byte, all hops
  together.
- Addresses: the host is resolved once (``policy.resolver``), every address checked, and
  the request connects to the checked address with the name in Host and TLS SNI (the
  certificate is verified against the name), so DNS cannot be swapped after the check.
  Proxies from the environment are ignored for the same reason.
- ``SourceLimiter`` / ``LimiterRefused`` / ``retry_after_ms`` / ``limiter_for(host)``: the
  per-host politeness rules; one limiter per host per registry (``LIMITERS`` by default).
  ``LimiterRegistry(budget=StoreBudget(store))`` shares spacing, the minute budget and
  blocks with every process using the same store (``citesift.store.limits``).
- ``check_target`` / ``address_refusal`` / ``system_resolver``: the address check fetch
  uses, public so other callers (a browser, a crawler) refuse the same addresses.
- ``RobotsCache``: robots.txt per origin (RFC 9309: 4xx allows, 5xx/timeout disallows for now).
- ``ManualClock``: a virtual clock for testing code that runs under a limiter.
"""

from citesift.net.address import (
    AddressRefused,
    Resolver,
    Target,
    address_refusal,
    check_target,
    system_resolver,
)
from citesift.net.clock import Clock, ManualClock, SystemClock
from citesift.net.fetch import fetch, fetch_sync
from citesift.net.identity import ClientIdentity, IdentityError
from citesift.net.limiter import (
    LIMITERS,
    LimiterRefused,
    LimiterRegistry,
    SharedBudget,
    SourceLimiter,
    limiter_for,
)
from citesift.net.policy import FetchPolicy
from citesift.net.retry_after import retry_after_ms
from citesift.net.robots import ROBOTS, RobotsCache, RobotsRules

__all__ = [
    "AddressRefused",
    "ClientIdentity",
    "Clock",
    "FetchPolicy",
    "IdentityError",
    "LIMITERS",
    "LimiterRefused",
    "LimiterRegistry",
    "ManualClock",
    "ROBOTS",
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
    "limiter_for",
    "retry_after_ms",
    "system_resolver",
]
