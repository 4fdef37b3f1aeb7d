"""citesift: citable evidence for LLM applications from the web, Wikipedia and documents."""

from citesift.model import (
    WIKIPEDIA_LICENCE,
    Block,
    BlockKind,
    Document,
    Failed,
    FetchOutcome,
    Hit,
    Hits,
    Licence,
    Limited,
    Passage,
    ReadOutcome,
    SearchOutcome,
    Skipped,
    Snapshot,
    SourceDocument,
    SourceHit,
)
from citesift.net import (
    ClientIdentity,
    FetchPolicy,
    LimiterRefused,
    SourceLimiter,
    fetch,
    fetch_sync,
    limiter_for,
    retry_after_ms,
)
from citesift.store import SQLiteStore, default_store_path
from citesift.store.snapshots import SnapshotStore

__version__ = "0.1.0"

__all__ = [
    "Block",
    "BlockKind",
    "ClientIdentity",
    "Document",
    "Failed",
    "FetchOutcome",
    "FetchPolicy",
    "Hit",
    "Hits",
    "Licence",
    "Limited",
    "LimiterRefused",
    "Passage",
    "ReadOutcome",
    "SQLiteStore",
    "SearchOutcome",
    "Skipped",
    "Snapshot",
    "SnapshotStore",
    "SourceDocument",
    "SourceHit",
    "SourceLimiter",
    "WIKIPEDIA_LICENCE",
    "__version__",
    "default_store_path",
    "fetch",
    "fetch_sync",
    "limiter_for",
    "retry_after_ms",
]
