"""Where a store is: a SQLite file's path, or a PostgreSQL server's URL; ``open_store``
opens either, so a setting, a flag or an argument names the store the same way."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias
from urllib.parse import unquote_to_bytes, urlsplit

from citesift.errors import InvalidArgument, StoreUnusable, invalid, shown
from citesift.store.sqlite import MEMORY, SQLiteStore, default_store_path

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore

AnyStore: TypeAlias = "SQLiteStore | PostgresStore"
SCHEMES = ("postgresql://", "postgres://")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")
"""Text that starts as a URL does: a scheme (two letters or more, so not a drive) and ``://``."""


def is_postgres_url(name: object) -> bool:
    """Whether ``name`` is a PostgreSQL connection URL (``postgresql://…``)."""
    return isinstance(name, str) and name.startswith(SCHEMES)


def uri_path(uri: str) -> str:
    """The path a ``file:`` URI names, its ``%NN`` bytes decoded as the file system spells
    them: the name ``file_uri`` encoded, whatever its bytes."""
    return os.fsdecode(unquote_to_bytes(urlsplit(uri).path))


def store_path(location: str | Path | None) -> Path:
    """The SQLite file ``location`` names (None: the default file; a ``file:`` URI: the
    path it names, on this machine). A URL of a scheme no store is reached by
    (``mysql://``, a mistyped ``postgressql://``) is an ``InvalidArgument`` naming the
    schemes there are, never a file by that name."""
    if location is None or location == "":
        return default_store_path()
    if isinstance(location, str) and location[:5].lower() == "file:":
        return _uri_file(location)
    if isinstance(location, str) and _URL.match(location):
        error = InvalidArgument(
            f"store must be a SQLite file's path (or file: URI) or a {' or '.join(SCHEMES)} URL,"
            f" not {shown(location)}"
        )
        error.argument = "store"
        raise error
    return Path(location)


def _uri_file(uri: str) -> Path:
    """The file a ``file:`` URI names; a URI of another machine, of no file (a path ending
    in ``/``) or with a query or fragment (``?mode=ro``, which would be silently dropped)
    is an ``InvalidArgument``."""
    parts = urlsplit(uri)
    path = uri_path(uri)
    if parts.netloc not in ("", "localhost") or not path or path.endswith("/"):
        raise invalid("store", uri, "a file: URI of a file on this machine")
    if "?" in uri or "#" in uri:
        raise invalid("store", uri, "a file: URI without a ?query or #fragment")
    return Path(path)


def store_location(location: str | Path | None) -> str | Path:
    """Where the store ``location`` names is, as ``open_store`` reads it: a PostgreSQL URL
    as given, else the SQLite file's path (``store_path``)."""
    if isinstance(location, str) and is_postgres_url(location):
        return location
    return store_path(location)


def made_store(location: str | Path | None) -> str | Path | None:
    """``store_location(location)`` when a store may be there (a server's, or a file that
    exists), so a reader can say "nothing indexed yet" instead of making an empty file."""
    found = store_location(location)
    return found if isinstance(found, str) or found.exists() else None


def open_store(location: str | Path | None = None, *, read_only: bool = False) -> AnyStore:
    """The store at ``location``: a PostgreSQL URL, a SQLite path, or (None) the default
    SQLite file. ``read_only`` opens an existing SQLite file only to read it, so one in a
    folder this process cannot write can be searched (a server's store needs no side
    files: it opens as ever). A URL without the ``postgres`` extra installed is a
    ``StoreUnusable`` saying what to install."""
    if not is_postgres_url(location):
        return SQLiteStore(store_path(location), read_only=read_only)
    try:
        from citesift.store.postgres import PostgresStore
    except ImportError as error:
        raise StoreUnusable(
            f"a PostgreSQL store needs psycopg ({error}): pip install 'citesift[postgres]'"
        ) from None
    return PostgresStore(str(location))


def location_of(store: AnyStore) -> str:
    """Where ``store`` is, so another process can open it: its file's path or its URL; an
    ``InvalidArgument`` for a store held in memory, which no other process can reach."""
    if isinstance(store, SQLiteStore):
        if str(store.path) == MEMORY:
            raise invalid("store", store, "a store in a file or on a server, shared by workers")
        return str(store.path)
    return store.url
