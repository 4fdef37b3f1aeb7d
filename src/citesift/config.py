"""Settings from a TOML file, ``CITESIFT_*`` environment variables and flags, in that order.

Each setting is a field of ``Settings``; its environment variable is ``CITESIFT_`` and the
field name in capitals, and its key in the config file (``$CITESIFT_CONFIG``, else
``./citesift.toml`` when present) is the field name. A later source wins; a value of the
wrong kind is a ``ConfigError`` that names where it came from. New settings slot in as
new fields.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from citesift.net import ClientIdentity, FetchPolicy
from citesift.store import SQLiteStore, default_store_path

ENV_PREFIX = "CITESIFT_"
CONFIG_ENV = "CITESIFT_CONFIG"
CONFIG_FILE = "citesift.toml"
CLIENT_NAME = "citesift"
OFFLINE_CONTACT = "none: offline, nothing is sent"
"""The contact of an offline run without one: a replay sends no request, so names no one."""
POLICY_SETTINGS = ("allow_private", "robots", "deadline", "max_body_bytes", "max_redirects")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigError(ValueError):
    """A setting that cannot be used, with where it came from."""


@dataclass(frozen=True)
class Settings:
    """Every setting; None means "the library's default"."""

    contact: str | None = None  # URL or e-mail of the operator, sent in the User-Agent
    allow_private: bool = False  # fetch loopback, private and link-local addresses
    robots: bool = True  # honour robots.txt
    deadline: float | None = None  # seconds, send to last body byte
    max_body_bytes: int | None = None  # cap on a body after decompression
    max_redirects: int | None = None  # redirects followed, each hop re-checked
    store: str | None = None  # the SQLite store file
    offline: bool = False  # answer from stored snapshots only, send nothing

    def identity(self) -> ClientIdentity:
        """The client identity to send; a contact is required unless the run is offline."""
        if not self.contact and self.offline:
            return ClientIdentity(CLIENT_NAME, _version(), OFFLINE_CONTACT)
        if not self.contact:
            raise ConfigError(
                "a contact is required so sites can reach you: pass --contact, "
                f'set {ENV_PREFIX}CONTACT, or put contact = "..." in {CONFIG_FILE}'
            )
        return ClientIdentity(CLIENT_NAME, _version(), self.contact)

    def fetch_policy(self, **changes: Any) -> FetchPolicy:
        """A web-page ``FetchPolicy`` with these settings applied."""
        chosen = {name: getattr(self, name) for name in POLICY_SETTINGS}
        given = {name: value for name, value in chosen.items() if value is not None}
        return FetchPolicy.for_pages(self.identity(), **{**given, **changes})

    def open_store(self) -> SQLiteStore:
        """The store these settings name (``default_store_path()`` when none)."""
        return SQLiteStore(Path(self.store) if self.store else default_store_path())


def load_settings(
    flags: Mapping[str, object] | None = None,
    environ: Mapping[str, str] | None = None,
    config: Path | None = None,
) -> Settings:
    """Settings from the config file, then the environment, then ``flags`` (None = unset)."""
    environ = os.environ if environ is None else environ
    path = config or config_path(environ)
    layers = [
        _from_file(path) if path else {},
        _from_env(environ),
        {k: v for k, v in (flags or {}).items() if v is not None},
    ]
    merged: dict[str, object] = {}
    for layer in layers:
        merged.update(layer)
    return Settings(**merged)  # type: ignore[arg-type]


def config_path(environ: Mapping[str, str]) -> Path | None:
    """``$CITESIFT_CONFIG`` (which must exist), else ``./citesift.toml`` when present."""
    named = environ.get(CONFIG_ENV)
    if named:
        if not Path(named).is_file():
            raise ConfigError(f"{CONFIG_ENV} names {named}, which is not a file")
        return Path(named)
    local = Path(CONFIG_FILE)
    return local if local.is_file() else None


def _from_file(path: Path) -> dict[str, object]:
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from None
    known = _types()
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(unknown)}")
    return {key: _typed(value, known[key], f"{path}: {key}") for key, value in table.items()}


def _from_env(environ: Mapping[str, str]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name, kind in _types().items():
        variable = ENV_PREFIX + name.upper()
        if environ.get(variable, "").strip():
            found[name] = _parsed(environ[variable].strip(), kind, variable)
    return found


def _types() -> dict[str, type]:
    """Each setting's value type (``bool``, ``int``, ``float`` or ``str``)."""
    kinds = {"bool": bool, "int | None": int, "float | None": float}
    return {field.name: kinds.get(str(field.type), str) for field in fields(Settings)}


def _parsed(text: str, kind: type, where: str) -> object:
    """A setting written as text (an environment variable) read as ``kind``."""
    if kind is bool:
        if text.lower() not in _TRUE | _FALSE:
            raise ConfigError(f"{where}: expected true or false, got {text!r}")
        return text.lower() in _TRUE
    try:
        return kind(text)
    except ValueError:
        raise ConfigError(f"{where}: expected {kind.__name__}, got {text!r}") from None


def _typed(value: object, kind: type, where: str) -> object:
    """A setting from the config file, checked to be of its kind (an int may stand for a float)."""
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if type(value) is not kind:
        raise ConfigError(f"{where}: expected {kind.__name__}, got {value!r}")
    return value


def _version() -> str:
    try:
        return version("citesift")
    except PackageNotFoundError:
        return "0"


__all__ = ["ConfigError", "Settings", "config_path", "load_settings"]
