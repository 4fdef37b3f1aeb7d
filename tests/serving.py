"""The HTTP API served by uvicorn on 127.0.0.1 in a thread, for one test, and the unmodified
firecrawl-py SDK pointed at it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from firecrawl import Firecrawl

from citesift.api.config import ServeConfig
from citesift.api.run import create_app
from citesift.settings import Settings
from openai_server import ScriptedServer

CONTACT = "https://example.org/contact"
LOCAL = Settings(contact=CONTACT, allow_private=True, browser="/nonexistent/chromium")
"""Settings that reach the local test site and never launch a browser."""


@contextmanager
def running(config: ServeConfig | None = None, settings: Settings = LOCAL) -> Iterator[str]:
    """The API listening on a free loopback port; yields its base URL."""
    app = create_app(config or ServeConfig(port=0), settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the API did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def client(base: str) -> Firecrawl:
    """The firecrawl-py SDK against the API at ``base`` (any key; one retry)."""
    return Firecrawl(api_key="any-key", api_url=base, max_retries=1)


def with_model(model: ScriptedServer, tmp_path: Path) -> Settings:
    """Settings that reach the local site and plan with the scripted model, kept in a store."""
    return Settings(
        contact=CONTACT,
        allow_private=True,
        browser="/nonexistent/chromium",
        model="scripted",
        base_url=model.base_url,
        store=str(tmp_path / "store.db"),
    )
