"""One search as a chunk store receives it: text, vector, depth, filter and mode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

Mode = Literal["hybrid", "bm25", "dense"]
MODES: tuple[Mode, ...] = ("hybrid", "bm25", "dense")


@dataclass(frozen=True, slots=True)
class Query:
    """A search: ``vector`` (from ``embedder``) is None in BM25 mode."""

    text: str
    top_k: int
    mode: Mode = "hybrid"
    vector: np.ndarray | None = None
    embedder: str | None = None
    filter: dict[str, Any] | None = None
