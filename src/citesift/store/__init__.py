"""The stores: the embedded default (one SQLite file in WAL mode, schema owned per
component) and, with the ``postgres`` extra, one PostgreSQL server shared by many workers."""

from citesift.store.location import (
    AnyStore,
    is_postgres_url,
    made_store,
    open_store,
    store_location,
    store_path,
)
from citesift.store.sqlite import SQLiteStore, default_store_path

__all__ = [
    "AnyStore",
    "SQLiteStore",
    "default_store_path",
    "is_postgres_url",
    "made_store",
    "open_store",
    "store_location",
    "store_path",
]
