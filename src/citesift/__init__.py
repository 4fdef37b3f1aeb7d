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
from citesift.store import SQLiteStore, default_store_path

__version__ = "0.1.0"

__all__ = [
    "Block",
    "BlockKind",
    "Document",
    "Failed",
    "FetchOutcome",
    "Hit",
    "Hits",
    "Licence",
    "Limited",
    "Passage",
    "ReadOutcome",
    "SQLiteStore",
    "SearchOutcome",
    "Skipped",
    "Snapshot",
    "SourceDocument",
    "SourceHit",
    "WIKIPEDIA_LICENCE",
    "__version__",
    "default_store_path",
]
