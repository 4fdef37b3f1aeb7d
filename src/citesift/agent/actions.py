"""The planner protocol: one JSON object a reply, one action in it, read into a value or into
the exact message that tells the model what was wrong."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ACTIONS = ("search", "map", "scrape", "extract", "finish")
MAX_SEARCH_LIMIT = 20
NOT_AN_ACTION = "the reply must be a JSON object with an `action` field"
NO_URLS = "the scrape action needs `urls`, a non-empty array of URLs"
MAX_NESTING = 64
"""Arrays and objects a reply (or a schema) may nest: what is checked, stored and shown
after it is walked by recursion, which a deeper value would exhaust."""


@dataclass(frozen=True, slots=True)
class Search:
    """Look ``query`` up with the search backend, at most ``limit`` results."""

    query: str
    limit: int | None = None
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Map:
    """List a site's URLs from ``url``, ranked by the words of ``search``."""

    url: str
    search: str | None = None
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Scrape:
    """Read ``urls`` and keep the passages that answer ``query``."""

    urls: tuple[str, ...]
    query: str | None = None
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Extract:
    """Take a whole list or table, described by ``intent``, from the page at ``url``."""

    url: str
    intent: str
    notes: str | None = None


@dataclass(frozen=True, slots=True)
class Finish:
    """The answer: ``data``, ``sources`` (JSON Pointer → evidence ids), what is ``missing``."""

    data: Any = None
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    message: str | None = None
    notes: str | None = None


Action = Search | Map | Scrape | Extract | Finish


class ActionError(Exception):
    """A reply the engine cannot use; the message is shown to the model as its correction."""


def parse_reply(text: str) -> Action:
    """The action of a model's reply text (a JSON object, maybe fenced as a code block)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        raise ActionError("the reply is not valid JSON; " + NOT_AN_ACTION) from None
    if deeper_than(value, MAX_NESTING):
        why = f"the reply nests more than {MAX_NESTING} arrays and objects; "
        raise ActionError(why + NOT_AN_ACTION)
    return parse_action(value)


def deeper_than(value: object, levels: int) -> bool:
    """Whether ``value`` (decoded JSON) nests more than ``levels`` arrays and objects, found
    without recursion."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth == levels:
                return True
            inner = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in inner)
    return False


def parse_action(value: object) -> Action:
    """The action ``value`` (a decoded JSON reply) names, or ``ActionError`` saying what is
    wrong in the words the model is shown."""
    if not isinstance(value, dict) or not isinstance(value.get("action"), str):
        raise ActionError(NOT_AN_ACTION)
    name = value["action"].strip()
    notes = _optional(value, "notes")
    if name == "search":
        return Search(_required(value, name, "query"), _limit(value.get("limit")), notes)
    if name == "map":
        return Map(_required(value, name, "url"), _optional(value, "search"), notes)
    if name == "scrape":
        return Scrape(_urls(value), _optional(value, "query"), notes)
    if name == "extract":
        url = _required(value, name, "url")
        return Extract(url, _required(value, name, "intent"), notes)
    if name == "finish":
        return Finish(
            value.get("data"),
            _cited(value.get("sources")),
            tuple(m for m in _list(value.get("missing")) if isinstance(m, str)),
            _optional(value, "message"),
            notes,
        )
    raise ActionError(f'unknown action "{name}": use search, map, scrape, extract or finish')


def _required(value: dict[str, Any], action: str, key: str) -> str:
    """A string field, trimmed and not empty."""
    found = value.get(key)
    if not isinstance(found, str) or not found.strip():
        raise ActionError(f"the {action} action needs a non-empty string `{key}`")
    return found.strip()


def _optional(value: dict[str, Any], key: str) -> str | None:
    """An optional string field, trimmed; empty (or not a string) is absent."""
    found = value.get(key)
    return found.strip() or None if isinstance(found, str) else None


def _limit(value: object) -> int | None:
    """A whole number of results, clamped to 1..``MAX_SEARCH_LIMIT``; anything else is absent."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return min(max(value, 1), MAX_SEARCH_LIMIT)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _urls(value: dict[str, Any]) -> tuple[str, ...]:
    """``urls`` (strings only, trimmed, empty ones dropped) with a single ``url`` appended."""
    urls = [u.strip() for u in _list(value.get("urls")) if isinstance(u, str) and u.strip()]
    single = _optional(value, "url")
    if single:
        urls.append(single)
    if not urls:
        raise ActionError(NO_URLS)
    return tuple(dict.fromkeys(urls))


def _cited(value: object) -> dict[str, tuple[str, ...]]:
    """``sources`` as pointer → evidence ids (an id alone counts as a list of one)."""
    if not isinstance(value, dict):
        return {}
    cited: dict[str, tuple[str, ...]] = {}
    for pointer, ids in value.items():
        listed = [ids] if isinstance(ids, str) else _list(ids)
        cited[str(pointer)] = tuple(i.strip() for i in listed if isinstance(i, str) and i.strip())
    return cited
