"""Where a store is, said the same on every face: a URL of a scheme no store is reached by is
a usage error naming the schemes there are (never a file named after it), a URL's passwords
are never printed, and a store's server that cannot be reached is a one-line failure."""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.cli.reading import EXIT_FAILED
from citesift.errors import InvalidArgument, StoreError, StoreUnreachable, masked, without_secrets
from citesift.index.rag import create_rag
from citesift.ingest import index_add
from citesift.store import open_store

CONTACT = ("--contact", "https://example.org/contact")
UNKNOWN = ["postgressql://postgres:hunter2@db.example/walk", "mysql://x/y", "sqlite:///index.db"]
COMMANDS = [
    ["index", "add", "notes.md"],
    ["search", "tides"],
    ["index", "ls"],
    ["index", "stats"],
    ["index", "rm", "notes.md"],
    ["serve", "--port", "0", *CONTACT],
    ["mcp", *CONTACT],
]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working folder holding one note, where no store may appear."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("# Tides\n\nThe tides rise and fall with the moon.")
    return tmp_path


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("store", UNKNOWN)
def test_a_store_url_of_another_scheme_is_a_usage_error_on_every_command(
    here: Path, command: list[str], store: str
) -> None:
    result = CliRunner().invoke(app, [*command, "--store", store])
    assert result.exit_code == EXIT_USAGE, result.output
    assert "postgresql://" in result.stderr and "postgres://" in result.stderr
    assert "hunter2" not in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in here.iterdir()) == ["notes.md"]  # no file named after it


@pytest.mark.parametrize("store", UNKNOWN)
def test_the_library_refuses_a_store_url_of_another_scheme(here: Path, store: str) -> None:
    for call in (
        lambda: open_store(store),
        lambda: create_rag(store=store, retrieval="bm25"),
        lambda: index_add(["notes.md"], store=store, retrieval="bm25"),
    ):
        with pytest.raises(InvalidArgument, match="postgresql:// or postgres://") as raised:
            call()
        assert "hunter2" not in str(raised.value)
    assert sorted(p.name for p in here.iterdir()) == ["notes.md"]


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:hunter2@h/db", "postgresql://u:***@h/db"),
        ("postgresql:///db?host=h&password=hunter2", "postgresql:///db?host=h&password=***"),
        ("postgres:///db?PASSWORD=hunter2&port=5", "postgres:///db?PASSWORD=***&port=5"),
        ("postgresql:///db?sslpassword=hunter2#x", "postgresql:///db?sslpassword=***#x"),
        ("postgresql://u@h/db?passfile=/p&user=me", "postgresql://u@h/db?passfile=/p&user=me"),
        ("postgresql:///db?%70assword=hunter2&a=b", "postgresql:///db?%70assword=***&a=b"),
        ("postgresql:///db?SSL%50ASSWORD=hunter2", "postgresql:///db?SSL%50ASSWORD=***"),
        ("postgresql:///db?password", "postgresql:///db?password=***"),
        ("postgresql://u:pa/ss@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u:pa?ss#x@h/db?a=b", "postgresql://u:***@h/db?a=b"),
        ("said postgresql://u:pw@h/db to admin@h", "said postgresql://u:***@h/db to admin@h"),
        ("https://h/p?%70assword=hunter2&q=1", "https://h/p?%70assword=***&q=1"),
        ("https://h/p?%20api_key=hunter2#token=x", "https://h/p?%20api_key=***#token=***"),
        ("http://localhost:8080/@alice?q=1", "http://localhost:8080/@alice?q=1"),
    ],
)
def test_every_password_of_a_url_is_masked(url: str, shown: str) -> None:
    """libpq reads a password holding ``?`` or ``#`` whole, and one holding ``/`` as a port
    and a database name: masked up to the host all the same."""
    assert masked(url) == shown


@pytest.mark.parametrize("command", COMMANDS[1:], ids=lambda c: " ".join(c[:2]))
def test_a_store_server_that_cannot_be_reached_is_one_line_and_a_failure(
    here: Path, command: list[str]
) -> None:
    """No server listens in the folder named as its socket's: a failure to try again
    (status 1), said before any server listens, its passwords masked."""
    url = f"postgresql://u:hunter1@/db?host={here}&password=hunter2&sslpassword=hunter3"
    result = CliRunner().invoke(app, [*command, "--store", url])
    assert result.exit_code == EXIT_FAILED, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("error: cannot reach the store postgresql://u:***@/db?host=")
    assert "password=***&sslpassword=***" in line and "hunter" not in result.output
    with pytest.raises(StoreUnreachable, match="cannot reach"):
        open_store(url)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:p%ss-hunter2@/db?host={here}",
        "postgresql://u@/db?host={here}&password=se%zzhunter2",
        "postgresql://u@/db?host={here}&%70assword=se%zzhunter2",
        "postgresql://u@/db?host={here}&sslpassword=hunt%65r2&password=se%zz",
    ],
)
def test_a_url_the_driver_cannot_read_is_said_without_its_passwords(here: Path, url: str) -> None:
    """libpq quotes the value it could not decode, a password among them: masked in the
    reason too, as written and as decoded."""
    url = url.format(here=here)
    result = CliRunner().invoke(app, ["search", "tides", "--store", url])
    assert result.exit_code != 0 and "Traceback" not in result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("error: cannot use the store URL postgresql://"), line
    assert "hunter2" not in line and "%zz" not in line and "***" in line


def test_each_password_is_left_out_of_a_message_as_written_and_as_decoded() -> None:
    url = "postgresql://u:p%40ss@h/db?%70assword=hunt%65r2&sslpassword=x%zz&user=hunter"
    said = 'bad "p%40ss" "p@ss" "hunt%65r2" "hunter2" "x%zz" user hunter'
    expected = 'bad "***" "***" "***" "***" "***" user hunter'
    assert without_secrets(said, url) == expected


def test_a_short_password_or_a_role_name_is_no_word_a_message_loses() -> None:
    """A password under 4 characters would blank every word holding it; a role is no
    secret, but is blanked as a password equal to it."""
    said = "role postgres: password abc refused"
    assert without_secrets(said, "postgresql://postgres:abc@h/db") == said
    assert without_secrets(said, "postgresql://postgres:postgres@h/db") == (
        "role ***: password abc refused"
    )


def test_a_failed_open_prints_no_password_in_its_traceback(here: Path) -> None:
    """Nothing the driver said, chained or in the context, reaches a printed traceback."""
    url = f"postgresql://u:hunter1@/db?host={here}&password=hunter2"
    with pytest.raises(StoreUnreachable) as raised:
        open_store(url)
    printed = "".join(traceback.format_exception(raised.value))
    assert "cannot reach" in printed and "hunter" not in printed


def test_a_server_failure_to_retry_keeps_its_kind_without_the_password(postgres_url: str) -> None:
    """A failure the server says (here a deadlock quoting the password) stays the cause, of
    its own kind, so a caller can tell it to retry; its words lose the password."""
    import psycopg

    url = f"{postgres_url}&password=hunter2-secret"
    store = open_store(url)
    try:
        with pytest.raises(StoreError) as raised, store.transaction() as conn:
            conn.execute(
                "DO $$ BEGIN RAISE EXCEPTION 'no luck for hunter2-secret'"
                " USING ERRCODE = '40P01'; END $$"
            )
    finally:
        store.close()
    assert isinstance(raised.value.__cause__, psycopg.errors.DeadlockDetected)
    printed = "".join(traceback.format_exception(raised.value))
    assert "no luck for ***" in printed and "hunter2" not in printed


def test_what_holds_a_store_url_prints_without_its_password(tmp_path: Path) -> None:
    from citesift.ingest.job import IngestJob
    from citesift.settings import Settings
    from citesift.sources.gather import LoadOptions

    url = "postgresql://u:hunter2@h/db?password=hunter3"
    job = IngestJob(url, "bm25", "article", None, None, LoadOptions(), None)
    for holder in (Settings(store=url), job):
        assert "hunter" not in repr(holder) and "hunter" not in str(holder)


def test_a_file_uri_names_the_store_file_it_points_to(here: Path) -> None:
    """A ``file:`` URI is a path (its ``%NN`` decoded), on every command and in the library;
    one naming another machine is refused."""
    url = (here / "my store.db").as_uri()
    assert "%20" in url
    added = CliRunner().invoke(app, ["index", "add", "notes.md", "--store", url])
    assert added.exit_code == 0, added.output
    assert sorted(p.name for p in here.iterdir()) == ["my store.db", "notes.md"]
    found = CliRunner().invoke(app, ["search", "tides", "--retrieval", "bm25", "--store", url])
    assert found.exit_code == 0 and "The tides rise" in found.stdout, found.output
    with open_store(url) as store:
        assert str(store.path) == str(here / "my store.db")
    remote = CliRunner().invoke(app, ["index", "ls", "--store", "file://elsewhere/s.db"])
    assert remote.exit_code == EXIT_USAGE and "file: URI" in remote.stderr


@pytest.mark.parametrize("suffix", ["/", "?mode=ro", "#main", "?"])
def test_a_file_uri_of_no_file_or_with_a_query_is_a_usage_error(here: Path, suffix: str) -> None:
    """``file:///`` is no store file, and ``?mode=ro`` would be silently dropped: both are
    refused, on the command line and in the library, and no file is made."""
    url = (here / "s.db").as_uri() + suffix if suffix != "/" else here.as_uri() + "/"
    refused = CliRunner().invoke(app, ["index", "ls", "--store", url])
    assert refused.exit_code == EXIT_USAGE and "file: URI" in refused.stderr, refused.output
    with pytest.raises(InvalidArgument, match="file: URI"):
        open_store(url)
    with pytest.raises(InvalidArgument, match="file: URI"):
        open_store("file:///")
    assert not (here / "s.db").exists()
