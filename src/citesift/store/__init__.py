"""The embedded default store: one SQLite file in WAL mode, schema owned per component."""

from citesift.store.sqlite import SQLiteStore, default_store_path

__all__ = ["SQLiteStore", "default_store_path"]
