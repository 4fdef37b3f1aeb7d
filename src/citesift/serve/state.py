"""What the routes share while the server runs: the source setup (identity, store, one
fetcher with its limiters) and the fetch policy the settings give."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from citesift.net import FetchPolicy
from citesift.settings import SourceSetup


@dataclass(frozen=True)
class Serving:
    """The setup every request reads through, and its fetch policy."""

    setup: SourceSetup
    policy: FetchPolicy


def serving(request: Request) -> Serving:
    """The running server's shared setup (a FastAPI dependency)."""
    found: Serving = request.app.state.serving
    return found
