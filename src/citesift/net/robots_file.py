"""A robots.txt file read by RFC 9309's rules, in time linear in its size.

``RobotsFile.parse(text)`` reads the lines once: groups (their user agents, rules and
Crawl-delay) and the ``Sitemap:`` lines. The rules for one agent (the groups naming its
product token, merged; else the ``*`` groups) are gathered and indexed once, on first use:
plain path prefixes by their length, ``$``-anchored paths by the path, and patterns with
``*`` by their literal start, longest first. A match then looks up only the rules whose
literal start the path begins with, so a file of thousands of rules costs each URL a few
lookups, not a pass over them all. The longest matching pattern wins, ``Allow`` on a tie;
paths and patterns are compared with their percent-escapes made alike.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from urllib.parse import urlsplit

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_TOKEN = re.compile(r"[a-z0-9_-]*")
_LINE_END = re.compile(r"\r\n|\r|\n")
"""Where a line ends (RFC 9309: CR, LF or CRLF; not the other breaks ``splitlines`` takes)."""
_RAW_BYTE = re.compile("[\udc80-\udcff]")
"""A byte that was not UTF-8, as decoding with ``surrogateescape`` keeps it."""
_FIELDS = {
    "user-agent": "user-agent",
    "useragent": "user-agent",
    "user agent": "user-agent",
    "allow": "allow",
    "disallow": "disallow",
    "dissallow": "disallow",
    "dissalow": "disallow",
    "disalow": "disallow",
    "crawl-delay": "crawl-delay",
    "sitemap": "sitemap",
    "site-map": "sitemap",
}
"""The fields read, with the misspellings crawlers commonly accept; others are ignored."""
_INDEX_PAGES = ("/index.html", "/index.htm")
"""An allowed index page allows its directory's own address too (as crawlers read it)."""


@dataclass
class _Group:
    """One group of the file: the product tokens it names and its lines, as written."""

    agents: list[str] = field(default_factory=list)
    rules: list[tuple[bool, str]] = field(default_factory=list)  # (allow, pattern)
    delay: float | None = None


@dataclass(slots=True)
class _Wildcard:
    """A pattern with ``*``: its literal parts, whether ``$`` anchors it, its length (what
    ranks it) and whether it allows."""

    parts: tuple[str, ...]
    anchored: bool
    length: int
    allow: bool

    def matches(self, path: str) -> bool:
        """Whether the pattern matches ``path`` from its start (each ``*`` taking the
        fewest characters is enough: only ``*`` is a wildcard)."""
        first, *middle, last = self.parts
        if not path.startswith(first):
            return False
        at = len(first)
        for part in middle:
            found = path.find(part, at)
            if found < 0:
                return False
            at = found + len(part)
        if self.anchored:
            return len(path) - len(last) >= at and path.endswith(last)
        return path.find(last, at) >= 0


class AgentRules:
    """The rules of the groups that apply to one agent, indexed for matching."""

    def __init__(self, rules: list[tuple[bool, str]]) -> None:
        self.prefixes: dict[str, bool] = {}  # pattern -> allows (Allow wins a tie)
        self.exact: dict[str, bool] = {}  # a $-anchored pattern without * -> allows
        starts: dict[str, list[_Wildcard]] = defaultdict(list)
        for allow, written in rules:
            for pattern in _patterns(allow, written):
                self._add(allow, pattern, starts)
        self.prefix_lengths = sorted({len(p) for p in self.prefixes}, reverse=True)
        self.starts = {start: sorted(found, key=_rank) for start, found in starts.items()}
        self.start_lengths = sorted({len(s) for s in self.starts}, reverse=True)

    def _add(self, allow: bool, pattern: str, starts: dict[str, list[_Wildcard]]) -> None:
        """Index one normalised pattern."""
        anchored = pattern.endswith("$")
        body = pattern[:-1] if anchored else pattern
        if "*" in body:
            parts = tuple(body.split("*"))
            starts[parts[0]].append(_Wildcard(parts, anchored, len(pattern), allow))
        else:
            chosen = self.exact if anchored else self.prefixes
            chosen[body] = chosen.get(body, False) or allow

    def allows(self, path: str) -> bool:
        """Whether ``path`` (normalised, its query included) may be fetched."""
        best = (-1, True)  # (length of the longest matching pattern, whether it allows)
        for length in self.prefix_lengths:
            if length <= len(path) and (allow := self.prefixes.get(path[:length])) is not None:
                best = (length, allow)
                break
        if (allow := self.exact.get(path)) is not None:
            best = max(best, (len(path) + 1, allow))
        for length in self.start_lengths:
            if length > len(path) or (found := self.starts.get(path[:length])) is None:
                continue
            for rule in found:  # longest first, Allow first on a tie
                if (rule.length, rule.allow) <= best:
                    break
                if rule.matches(path):
                    best = (rule.length, rule.allow)
                    break
        return best[1]


class RobotsFile:
    """A parsed robots.txt: its groups and sitemaps; each agent's rules indexed on first
    use."""

    def __init__(self, groups: list[_Group], sitemaps: list[str]) -> None:
        self.groups = groups
        self.sitemaps = sitemaps
        self._agents: dict[str, tuple[AgentRules, float | None]] = {}

    @classmethod
    def parse(cls, text: str) -> RobotsFile:
        """The file ``text`` (read line by line, once; bytes that were not UTF-8 may be kept
        in it by ``surrogateescape``, and rules then match their percent-escapes)."""
        groups: list[_Group] = []
        sitemaps: list[str] = []
        group: _Group | None = None
        in_rules = False
        for line in _LINE_END.split(text):
            name, colon, value = line.partition("#")[0].partition(":")
            key = _FIELDS.get(name.strip().lower())
            if not colon or key is None:
                continue
            value = value.strip()
            if key == "sitemap":
                if value:
                    sitemaps.append(_RAW_BYTE.sub(_raw_escaped, value))
            elif key == "user-agent":
                if group is None or in_rules:
                    group = _Group()
                    groups.append(group)
                    in_rules = False
                group.agents.append(_token(value))
            elif group is not None:
                in_rules = True
                if key == "crawl-delay":
                    group.delay = _seconds(value) if group.delay is None else group.delay
                elif value:  # an empty Disallow allows all: no rule
                    group.rules.append((key == "allow", value))
        return cls(groups, sitemaps)

    def allowed(self, url: str, agent: str) -> bool:
        """Whether ``agent`` (its product token) may fetch ``url``."""
        return self._for(agent)[0].allows(_path_of(url))

    def crawl_delay(self, agent: str) -> float | None:
        """The Crawl-delay of the groups that apply to ``agent``, in seconds."""
        return self._for(agent)[1]

    def _for(self, agent: str) -> tuple[AgentRules, float | None]:
        """The rules and Crawl-delay for ``agent``: the groups naming its product token,
        merged, else the ``*`` groups."""
        token = _token(agent)
        found = self._agents.get(token)
        if found is None:
            chosen = [g for g in self.groups if token in g.agents]
            chosen = chosen or [g for g in self.groups if "*" in g.agents]
            rules = [rule for group in chosen for rule in group.rules]
            delays = [g.delay for g in chosen if g.delay is not None]
            found = self._agents[token] = (AgentRules(rules), delays[0] if delays else None)
        return found


def _rank(rule: _Wildcard) -> tuple[int, bool]:
    """How a wildcard rule is tried: longest first, ``Allow`` first on a tie."""
    return (-rule.length, not rule.allow)


def _token(agent: str) -> str:
    """The product token a user agent is matched by: ``*``, or its leading name characters
    lower-cased (``Googlebot/2.1`` is ``googlebot``)."""
    agent = agent.strip().lower()
    if agent.startswith("*"):
        return "*"
    matched = _TOKEN.match(agent)
    return matched.group() if matched else ""


def _seconds(value: str) -> float | None:
    """A Crawl-delay's seconds, or None when it is no finite number of them."""
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if 0 <= seconds < float("inf") else None


def _patterns(allow: bool, written: str) -> list[str]:
    """The normalised patterns a rule's value stands for (an allowed index page also allows
    its directory's own address)."""
    anchored = written.endswith("$")
    pattern = _normal(written[:-1] if anchored else written)
    if not pattern.startswith(("/", "*")):
        pattern = "/" + pattern
    found = [pattern + "$" if anchored else pattern]
    if allow and not anchored and pattern.endswith(_INDEX_PAGES):
        found.append(pattern.rpartition("/")[0] + "/$")
    return found


def _path_of(url: str) -> str:
    """The path and query of ``url`` that rules match, normalised (``/`` when empty)."""
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query or url.partition("#")[0].endswith("?"):
        path += "?" + parts.query
    return _normal(path)


def _normal(text: str) -> str:
    """``text`` with percent-escapes made alike: those of unreserved characters decoded, the
    others upper-cased, and characters outside ASCII or printable ones escaped in UTF-8."""
    if not text.isascii() or not text.isprintable() or " " in text:
        text = "".join(c if c.isascii() and c.isprintable() and c != " " else _escaped(c)
                       for c in text)  # fmt: skip
    if "%" in text:
        text = _ESCAPE.sub(_unescaped, text)
    return text


def _escaped(char: str) -> str:
    """``char`` percent-escaped in UTF-8 (a byte kept by ``surrogateescape`` as that byte,
    as Google reads one; any other lone surrogate as U+FFFD)."""
    try:
        raw = char.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        raw = char.encode("utf-8", errors="replace")
    return "".join(f"%{byte:02X}" for byte in raw)


def _raw_escaped(byte: re.Match[str]) -> str:
    """A byte kept by ``surrogateescape`` percent-escaped."""
    return _escaped(byte.group())


def _unescaped(escape: re.Match[str]) -> str:
    """An escape of an unreserved character decoded, any other upper-cased."""
    char = chr(int(escape.group(1), 16))
    return char if char in _UNRESERVED else escape.group().upper()
