"""Rerankers chosen by name: bm25, voyage, jina, cohere, or a local cross-encoder."""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path

from citesift.errors import ConfigError, InvalidArgument
from citesift.index.rerankers.base import Reranker
from citesift.index.rerankers.bm25 import BM25Reranker
from citesift.index.rerankers.http import CohereReranker, HTTPReranker, JinaReranker, VoyageReranker

DEFAULT_RERANKER = "bm25"
CROSS_ENCODER = "cross-encoder"
HTTP_RERANKERS: dict[str, type[HTTPReranker]] = {
    "voyage": VoyageReranker,
    "jina": JinaReranker,
    "cohere": CohereReranker,
}
RERANKERS = (DEFAULT_RERANKER, *HTTP_RERANKERS, CROSS_ENCODER)


def reranker_by_name(
    name: str = DEFAULT_RERANKER,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    model: str | Path | None = None,
) -> Reranker:
    """The reranker called ``name`` (one of ``RERANKERS``).

    An HTTP reranker takes ``api_key``, else ``$CITESIFT_<NAME>_API_KEY``, else the
    provider's own variable; ``base_url`` points it at another endpoint (a stand-in) and
    ``model`` names the provider's model. ``cross-encoder`` needs ``model``: a local model
    directory (nothing is downloaded). An unknown name, or an HTTP reranker with no key
    anywhere, is a ``ValueError``.
    """
    chosen = str(name).strip().lower()
    if chosen == DEFAULT_RERANKER:
        return BM25Reranker()
    if chosen == CROSS_ENCODER:
        return _cross_encoder(model)
    if chosen not in HTTP_RERANKERS:
        raise InvalidArgument(f"unknown reranker {name!r}: choose one of {', '.join(RERANKERS)}")
    kind = HTTP_RERANKERS[chosen]
    key = api_key or key_from_env(chosen) or os.environ.get(kind.api.key_env, "").strip()
    if not key:
        raise ConfigError(
            f"the {chosen} reranker needs an API key: give one, or set"
            f" CITESIFT_{chosen.upper()}_API_KEY or {kind.api.key_env}"
        )
    default = {f.name: f.default for f in fields(kind)}
    picked = str(model or default["model"]), str(base_url or default["base_url"])
    return kind(model=picked[0], base_url=picked[1], api_key=key)


def key_from_env(name: str) -> str | None:
    """``$CITESIFT_<NAME>_API_KEY`` when it is set and not blank."""
    return os.environ.get(f"CITESIFT_{name.upper()}_API_KEY", "").strip() or None


def _cross_encoder(model: str | Path | None) -> Reranker:
    """A cross-encoder from a local model directory (imported only when asked for)."""
    if not model:
        raise InvalidArgument("the cross-encoder reranker needs a model: a local model directory")
    from citesift.index.rerankers.cross_encoder import CrossEncoderReranker

    return CrossEncoderReranker(model)
