"""Where a store is: a SQLite file's path, or a PostgreSQL server's URL; ``open_store``
opens either, so a setting, a flag or an argument names the store the same way."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from citesift.errors import StoreUnusable, invalid
from citesift.store.sqlite import MEMORY, SQLiteStore, default_store_path

if TYPE_CHECKING:
    from citesift.store.postgres import PostgresStore

AnyStore: TypeAlias = "SQLiteStore | PostgresStore"
SCHEMES = ("postgresql://", "postgres://")
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def is_postgres_url(name: object) -> bool:
    """Whether ``name`` is a PostgreSQL connection URL (``postgresql://…``)."""
    return isinstance(name, str) and name.startswith(SCHEMES)


def redacted(url: str) -> str:
    """``url`` with its password replaced by ``***`` (safe to print)."""
    return _PASSWORD.sub(r"\1***@", url)


def open_store(location: str | Path | None = None, *, read_only: bool = False) -> AnyStore:
    """The store at ``location``: a PostgreSQL URL, a SQLite path, or (None) the default
    SQLite file. ``read_only`` opens an existing SQLite file only to read it, so one in a
    folder this process cannot write can be searched (a server's store needs no side
    files: it opens as ever). A URL without the ``postgres`` extra installed is a
    ``StoreUnusable`` saying what to install."""
    if not is_postgres_url(location):
        path = Path(location) if location else default_store_path()
        return SQLiteStore(path, read_only=read_only)
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
