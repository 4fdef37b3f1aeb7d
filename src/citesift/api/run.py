"""Making the API and serving it with uvicorn; the ``serve`` extra is imported only here,
when asked, and its absence is said plainly."""

from __future__ import annotations

from typing import TYPE_CHECKING

from citesift.api.config import ServeConfig
from citesift.errors import ConfigError
from citesift.settings import Settings

if TYPE_CHECKING:
    from fastapi import FastAPI

MISSING_EXTRA = "the HTTP API needs FastAPI and uvicorn: pip install 'citesift[serve]'"


def create_app(config: ServeConfig, settings: Settings) -> FastAPI:
    """The API for ``config``, fetching as ``settings`` say (a missing contact or a bad bound
    is raised here, before anything listens)."""
    try:
        from citesift.api.app import build_app
    except ModuleNotFoundError as error:
        raise ConfigError(f"{MISSING_EXTRA} ({error})") from None
    return build_app(config, settings)


def serve(config: ServeConfig, settings: Settings) -> None:
    """Listen on ``config``'s host and port until interrupted."""
    app = create_app(config, settings)
    import uvicorn

    uvicorn.run(app, host=config.host, port=config.port, log_level="info", proxy_headers=False)
