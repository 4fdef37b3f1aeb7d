"""``fetch``: one URL to a ``Snapshot``, or a ``Skipped``/``Limited`` outcome, politely and safely.

Each hop (the URL, then each redirect the policy allows) is checked on its own: scheme and
address, robots.txt when the policy honours it, then the host's limiter admits it and the
exchange reads it within the caps. The deadline bounds the name lookups, sending and reading
of all hops together, so a chain of slow redirects cannot stretch a fetch to a deadline per
hop (waits for the limiter and robots.txt are not counted: they have bounds of their own). Nothing
raises for a refusal or a failure; only the caller's own cancellation propagates.
"""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
from dataclasses import dataclass, replace

from citesift.model import FetchOutcome, Limited, Skipped, Snapshot
from citesift.net.address import AddressRefused, Target, check_target
from citesift.net.exchange import Redirect, deadline_passed, exchange, new_transport
from citesift.net.limiter import LimiterRefused, OnSend, SourceLimiter
from citesift.net.policy import FetchPolicy
from citesift.net.robots import ROBOTS_MAX_BYTES, ROBOTS_REDIRECTS
from citesift.store.snapshots import SnapshotCorrupted, Snapshots, snapshots_in

ROBOTS_DEADLINE = 10.0


async def fetch(url: str, policy: FetchPolicy, *, on_send: OnSend | None = None) -> FetchOutcome:
    """Fetch ``url`` under ``policy``; ``on_send`` runs before each request is sent.

    ``on_send`` may raise ``LimiterRefused("caller")`` to refuse (any other exception it
    raises is read the same way): the answer is then ``Limited("caller")``, nothing sent.
    """
    if policy.offline:
        return _stored(url, policy)
    outcome = await _follow(url, policy, on_send)
    if isinstance(outcome, Snapshot):
        outcome = replace(outcome, url=url)
        if policy.save and policy.store is not None:
            return _kept(outcome, snapshots_in(policy.store))
    return outcome


def fetch_sync(url: str, policy: FetchPolicy, *, on_send: OnSend | None = None) -> FetchOutcome:
    """``fetch`` for code without an event loop."""
    return asyncio.run(fetch(url, policy, on_send=on_send))


def _stored(url: str, policy: FetchPolicy) -> FetchOutcome:
    if policy.store is None:
        return Skipped(None, "offline, and no store to answer from")
    try:
        found = snapshots_in(policy.store).latest(url)
    except (sqlite3.Error, SnapshotCorrupted) as error:
        return Skipped(None, f"the store cannot answer: {error}")
    return found if found is not None else Skipped(None, "not in the store")


def _kept(snapshot: Snapshot, snapshots: Snapshots) -> FetchOutcome:
    """``snapshot`` once saved; a ``Skipped`` when the store asked for cannot keep it."""
    try:
        snapshots.save(snapshot)
    except (sqlite3.Error, SnapshotCorrupted) as error:
        return Skipped(snapshot.status, f"fetched but not kept: {error}")
    return snapshot


@dataclass
class _Spent:
    """Seconds spent looking up names, sending and reading so far, over all hops of one fetch."""

    seconds: float = 0.0


async def _follow(url: str, policy: FetchPolicy, on_send: OnSend | None) -> FetchOutcome:
    seen = {url}
    current = url
    spent = _Spent()
    for hop in range(policy.max_redirects + 1):
        outcome = await _hop(current, policy, on_send, spent)
        if not isinstance(outcome, Redirect):
            return outcome
        if hop == policy.max_redirects:
            break
        if outcome.location in seen:
            return Skipped(outcome.status, f"redirect loop back to {outcome.location}")
        seen.add(outcome.location)
        current = outcome.location
    return Skipped(outcome.status, f"redirect to {outcome.location} not followed")


async def _hop(
    url: str, policy: FetchPolicy, on_send: OnSend | None, spent: _Spent
) -> Snapshot | Skipped | Limited | Redirect:
    target = await _checked(url, policy, spent)
    if isinstance(target, Skipped):
        return target
    limiter = policy.limiters.limiter_for(target.host)
    if policy.robots:
        refusal = await _robots_refusal(target, policy, limiter)
        if refusal is not None:
            return refusal
    transport = new_transport(policy.tls)
    left = policy.deadline - spent.seconds

    async def send() -> Snapshot | Skipped | Redirect:
        started = asyncio.get_running_loop().time()
        try:
            return await exchange(target, policy, limiter, transport, left)
        finally:
            spent.seconds += asyncio.get_running_loop().time() - started

    try:
        return await limiter.run(send, _guarded(on_send))
    except LimiterRefused as refusal:
        return Limited(refusal.reason)
    finally:
        await transport.aclose()


async def _checked(url: str, policy: FetchPolicy, spent: _Spent) -> Target | Skipped:
    """``url``'s checked address, looked up within what is left of the deadline."""
    left = policy.deadline - spent.seconds
    if left <= 0:
        return Skipped(None, deadline_passed(policy))
    started = asyncio.get_running_loop().time()
    try:
        return await check_target(
            url, policy.resolver, policy.allow_private, policy.allow_networks, left
        )
    except AddressRefused as refusal:
        return Skipped(None, str(refusal))
    finally:
        spent.seconds += asyncio.get_running_loop().time() - started


async def _robots_refusal(
    target: Target, policy: FetchPolicy, limiter: SourceLimiter
) -> Skipped | Limited | None:
    """Why robots.txt forbids ``target`` now (Disallow, or unreachable), or None."""
    robots_policy = policy.with_(
        robots=False,
        offline=False,
        save=False,
        error_pages=True,
        max_redirects=ROBOTS_REDIRECTS,
        max_body_bytes=ROBOTS_MAX_BYTES,
        truncate=True,
        accept="text/plain",
        deadline=min(policy.deadline, ROBOTS_DEADLINE),
    )
    rules = await policy.robots_cache.rules_for(target.url, lambda u: fetch(u, robots_policy))
    if isinstance(rules, Limited):
        return rules
    agent = policy.identity.name
    delay = rules.crawl_delay(agent)
    if delay:
        limiter.slow_to(delay)
    why = rules.verdict(str(target.url), agent)
    return Skipped(None, why) if why else None


def _guarded(on_send: OnSend | None) -> OnSend | None:
    """``on_send`` with any exception it raises read as the caller refusing."""
    if on_send is None:
        return None

    async def guarded() -> None:
        try:
            result = on_send()
            if inspect.isawaitable(result):
                await result
        except LimiterRefused:
            raise
        except Exception as error:
            raise LimiterRefused("caller") from error

    return guarded
