"""One exception tree: every error citesift raises is a ``CitesiftError``.

Outcomes (``Skipped``, ``Limited``, ``Failed``) are values, not exceptions; these are for
what a caller must fix or cannot go on from. Each family also derives from the built-in
exception a caller would expect (``ValueError`` for a bad argument or setting), so
``except ValueError`` keeps working beside ``except CitesiftError``.
"""

from __future__ import annotations

import math
import re
from itertools import pairwise
from urllib.parse import unquote


class CitesiftError(Exception):
    """The base of every exception citesift raises on purpose."""


class InvalidArgument(CitesiftError, ValueError):
    """A value the caller passed makes no sense; the message names the argument, and
    ``argument`` holds its Python name when ``invalid`` made it (so a command line or an
    API can say it under the name its user knows)."""

    argument: str | None = None


class NotFound(InvalidArgument):
    """An argument naming something kept that is not there (a stored run): a bad argument
    still, which the HTTP API answers with 404."""


class ConfigError(CitesiftError, ValueError):
    """A setting (flag, ``CITESIFT_*`` variable or ``citesift.toml`` key) that cannot be used."""


class StoreError(CitesiftError):
    """The store cannot do what was asked; the message names the file."""


class StoreBusy(StoreError):
    """Another process has held the store's write lock for longer than we wait."""


class StoreCorrupt(StoreError):
    """The file is not a store, or a store that is damaged."""


class StoreUnusable(StoreError, ValueError):
    """The path named cannot hold a store (a directory, a device, a file in its way)."""


class StoreUnreachable(StoreError):
    """A store's server cannot be reached, or refuses us (down, a wrong address or
    password): a failure to try again once it is up, not a bad argument."""


class ClientError(CitesiftError):
    """A configured outbound API (LLM, embeddings, reranker, search) failed or refused."""


class ModelError(CitesiftError):
    """A local model's files are missing, altered, or cannot be run."""


class DocumentError(CitesiftError, ValueError):
    """A PDF or Office file that cannot be read: encrypted, corrupt, with macros, or past
    the bounds on its pages, members or inflated size; the message says which."""


class WorkerLost(CitesiftError):
    """A worker process ended before its work was done (killed, or out of memory); what the
    other workers finished is kept, and running the same work again goes on from there."""


def invalid(name: str, value: object, expected: str) -> InvalidArgument:
    """``InvalidArgument`` for argument ``name``: what it got and what it takes."""
    return unshown(name, f"{expected}, not {shown(value)}")


def unshown(name: str, expected: str) -> InvalidArgument:
    """``InvalidArgument`` for argument ``name`` saying what it takes, not what it got: a
    secret (a key) is never shown, and ``expected`` says what is wrong in other words."""
    error = InvalidArgument(f"{name} must be {expected}")
    error.argument = name
    return error


def shown(value: object) -> str:
    """``value`` as a message shows it: its repr with any secret of a URL in it ``masked``,
    cut to 80 characters."""
    text = masked(repr(value))
    return text if len(text) <= 80 else text[:77] + "..."


_USERINFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)([^/?#\s]*)@")
"""A URL's user part: ``scheme://user:password@`` (or ``scheme://token@``), up to the last
``@`` before the path, as ``urlsplit`` reads it (a password may hold ``@`` or a quote)."""
_DATABASE_USERINFO = re.compile(r"(?i)(\bpostgres(?:ql)?://)([^\s:/?#@]*:\S*)@")
"""A database URL's ``user:password@``, its password up to the last ``@`` before a space:
libpq reads a password holding ``?`` or ``#`` whole, and one holding ``/`` as a port and a
database name, which hold it still."""
_PARAMETER = re.compile(r"([?&#;])([^=&#?;\s'\"]*)(?:=([^&#\s'\"]*))?")
"""A query, fragment or path parameter: its separator, its name and its value (None for a
name alone). A name never holds ``;``, so an HTML-escaped ``&amp;token=`` is the name
``token`` after ``amp``."""
MASK = "***"
SHORTEST_SECRET = 4
"""Fewer characters than this ``without_secrets`` leaves alone: blanking them wherever they
appear would blank ordinary words and letters."""
SECRET_WORDS = frozenset(
    {
        *("key", "apikey", "token", "accesstoken", "secret", "sig", "signature", "auth"),
        *("password", "passwd", "pwd", "sslpassword", "credential", "credentials"),
        *("authorization", "cookie", "sessionid", "sessid", "jsessionid", "phpsessid", "sid"),
    }
)
"""Words naming a secret, each one whole part of a parameter's name (or two parts joined,
``session_id``): ``api_key``, ``access_token``, ``X-Amz-Signature``, ``sslpassword``, ``sig``.
A pagination token (``page_token``) is masked too, as any ``*_token``: no list of names
could tell the harmless ones, and masking one only hides which page.
``code`` (an OAuth code is spent once) names too much else: ``country_code``, ``zip_code``."""
_NAME_PARTS = re.compile(r"[-_.]+|(?<=[a-z0-9])(?=[A-Z])")
"""Where a parameter's name splits into words: ``-``, ``_``, ``.`` and camelCase."""


def secret_parameter(name: str) -> bool:
    """Whether a parameter named ``name`` carries a secret: one of its words, or two of them
    joined, is in ``SECRET_WORDS``, or its last word is ``session`` (``target_session_attrs``,
    ``author``, ``design``, ``keyword`` carry none)."""
    words = [word.lower() for word in _NAME_PARTS.split(name) if word]
    joined = ["".join(pair) for pair in pairwise(words)]
    return bool(SECRET_WORDS.intersection(words + joined)) or words[-1:] == ["session"]


ROLE_SCHEMES = ("postgresql://", "postgres://")
"""Schemes whose user part alone names a role, not a token: kept as written."""


def masked(text: str) -> str:
    """``text`` with the secrets of every URL in it written ``***``, the rest as written: a
    password of its user part (a user part without one, which may be a token, whole, but
    for a database's role in ``ROLE_SCHEMES``), and the value of any query or fragment
    parameter whose name, decoded (``%70assword``), ``secret_parameter`` names (a name
    alone after ``?`` or ``&`` gets ``=***``). The one mask of what a message shows."""

    def user_part(found: re.Match[str]) -> str:
        if _user_secret(found) is None:
            return found[0]
        user, colon, _ = found[2].partition(":")
        return f"{found[1]}{user + colon if colon else ''}{MASK}@"

    def parameter(found: re.Match[str]) -> str:
        if not _secret_name(found) or (found[3] is None and found[1] not in "?&"):
            return found[0]
        return f"{found[1]}{found[2]}={MASK}"

    for user_info in (_DATABASE_USERINFO, _USERINFO):
        text = user_info.sub(user_part, text)
    return _PARAMETER.sub(parameter, text)


def without_secrets(text: str, url: str) -> str:
    """``text`` (a driver's message about ``url``, which may quote a value it could not
    read) with each secret ``masked`` hides in ``url`` written ``***`` wherever it appears,
    as written and as decoded. A secret shorter than ``SHORTEST_SECRET`` is left, and the
    user name is no secret: only a password equal to it (``postgres``) blanks it too."""
    for secret in sorted(_secrets(url), key=len, reverse=True):
        text = text.replace(secret, MASK)
    return text


def _secrets(url: str) -> set[str]:
    """The secrets ``masked`` hides in ``url``, each as written and as decoded, from
    ``SHORTEST_SECRET`` characters on."""
    found = [
        _user_secret(match)
        for pattern in (_DATABASE_USERINFO, _USERINFO)
        for match in pattern.finditer(url)
    ]
    found += [_parameter_secret(match) for match in _PARAMETER.finditer(url)]
    forms = {form for value in found if value for form in (value, unquote(value))}
    return {form for form in forms if len(form) >= SHORTEST_SECRET}


def _user_secret(found: re.Match[str]) -> str | None:
    """The secret of a URL's user part (as ``_USERINFO`` or ``_DATABASE_USERINFO`` found it):
    its password, or a token written alone; None for a database's role written alone."""
    _, colon, password = found[2].partition(":")
    if colon:
        return password
    return None if found[1].lower() in ROLE_SCHEMES else found[2]


def _secret_name(found: re.Match[str]) -> bool:
    """Whether a parameter (``_PARAMETER``) is named as a secret, its name decoded."""
    return secret_parameter(unquote(found[2]).strip())


def _parameter_secret(found: re.Match[str]) -> str | None:
    """The value of a parameter (``_PARAMETER``) named as a secret; None for any other."""
    return found[3] if found[3] is not None and _secret_name(found) else None


def renamed(error: CitesiftError, names: dict[str, str]) -> str:
    """``error``'s message, the argument it names said as ``names`` has it (``api_keys`` as
    ``--api-key`` on the command line); as it is for any other."""
    message = str(error)
    argument = getattr(error, "argument", None)
    if argument in names and message.startswith(f"{argument} "):
        return names[argument] + message[len(argument) :]
    return message


def written_number(number: float) -> str:
    """``number`` as people write it in a message: a whole one with thousands separators
    (1,000,000, never 1e+06), any other to six significant digits (0.5, 2.5e-07)."""
    if isinstance(number, int) or (
        math.isfinite(number) and number.is_integer() and abs(number) < 1e15
    ):
        return f"{int(number):,}"
    return f"{number:g}"


LOAD_FAILED = "LOAD_FAILED"
PEER_MISSING = "PEER_MISSING"


class LoadError(CitesiftError):
    """A loader could not bring documents in. ``code`` says how: ``LOAD_FAILED`` (a request,
    an answer or every download failed) or ``PEER_MISSING`` (the optional SDK it needs is
    not installed). Messages name the service and the address, never a credential."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
