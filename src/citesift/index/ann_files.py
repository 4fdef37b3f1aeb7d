"""Where an embedder's HNSW index is saved beside the store, and how: written whole to a
partial file, renamed, then recorded in the store with the last log entry it covers, so a
recorded file is never a half-written one."""

from __future__ import annotations

import glob
import hashlib
import re
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path

from citesift.errors import StoreError
from citesift.index.ann import HnswIndex
from citesift.store import vector_log
from citesift.store.sqlite import MEMORY, SQLiteStore

PARTIAL = ".partial"


def save(
    sqlite: SQLiteStore,
    embedder: str,
    index: HnswIndex,
    covered: int,
    abandon: Callable[[], bool] = lambda: False,
) -> Path | None:
    """Save ``index`` (complete up to log entry ``covered``) beside the store and record it;
    the file recorded after (another process may have recorded a newer one), None for a
    ``:memory:`` store's. Files of this embedder no longer recorded are removed. When
    ``abandon()`` says so once the file is written, it is removed unrecorded (None). A file
    that cannot be written is ``StoreError`` (nothing of it left)."""
    if str(sqlite.path) == MEMORY:
        return None
    target = file_for(sqlite.path, embedder, covered)
    partial = target.with_name(target.name + PARTIAL)
    try:
        index.save(partial)
    except (OSError, RuntimeError) as error:  # a full disk, a folder it cannot write in
        with suppress(OSError):
            partial.unlink(missing_ok=True)
        reason = f"the HNSW index could not be saved to {str(partial)!r}: {error}"
        raise StoreError(reason) from error
    if abandon():
        partial.unlink(missing_ok=True)
        return None
    partial.replace(target)
    saved = vector_log.VectorFile(embedder, target.name, covered, index.dim)
    try:
        with sqlite.transaction() as conn:
            vector_log.record(conn, saved)
            kept = vector_log.recorded(conn, embedder)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    file = target.parent / kept.file if kept is not None else target
    pattern = f"{glob.escape(_stem(sqlite.path, embedder))}.*.usearch"  # a name may hold "["
    for old in target.parent.glob(pattern):
        if old != file:
            with suppress(OSError):
                old.unlink()
    return file


def file_for(store: Path, embedder: str, covered: int) -> Path:
    """``<store>.<embedder>-<hash>.<covered>.usearch`` beside the store."""
    return store.with_name(f"{_stem(store, embedder)}.{covered}.usearch")


def lock_for(store: Path, embedder: str) -> Path:
    """``<store>.<embedder>-<hash>.lock``: the file whose lock one build holds."""
    return store.with_name(f"{_stem(store, embedder)}.lock")


def _stem(store: Path, embedder: str) -> str:
    """The store's file name and a name for ``embedder`` safe in a file's (hashed, as two
    embedders may read the same once cleaned)."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder)[:40]
    digest = hashlib.sha256(embedder.encode()).hexdigest()[:8]
    return f"{store.name}.{name}-{digest}"
