"""The ``citesift`` command line: each command parses, calls the library, renders."""

from citesift.cli import check as _check  # noqa: F401  registers its commands
from citesift.cli import crawl as _crawl  # noqa: F401  registers its commands
from citesift.cli import extract as _extract  # noqa: F401  registers its commands
from citesift.cli import fetch as _fetch  # noqa: F401  registers its commands
from citesift.cli import index as _index  # noqa: F401  registers its commands
from citesift.cli import map as _map  # noqa: F401  registers its commands
from citesift.cli import mcp_command as _mcp  # noqa: F401  registers its commands
from citesift.cli import page as _page  # noqa: F401  registers its commands
from citesift.cli import replay as _replay  # noqa: F401  registers its commands
from citesift.cli import research as _research  # noqa: F401  registers its commands
from citesift.cli import scrape as _scrape  # noqa: F401  registers its commands
from citesift.cli import search as _search  # noqa: F401  registers its commands
from citesift.cli import serve as _serve  # noqa: F401  registers its commands
from citesift.cli import store as _store  # noqa: F401  registers its commands
from citesift.cli import verify as _verify  # noqa: F401  registers its commands
from citesift.cli import wiki as _wiki  # noqa: F401  registers its commands
from citesift.cli.app import app


def main() -> None:
    """Entry point of the ``citesift`` console script."""
    app()


__all__ = ["app", "main"]
