"""One face for users: the version, readable help on every command, the same answer from
every group called without a command, and error lines that are never hard-wrapped."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.settings import version_text

COMMANDS = [
    ("extract",), ("fetch",), ("page",), ("search",), ("index", "add"), ("index", "ls"),
    ("index", "stats"), ("index", "rm"), ("wiki", "search"), ("wiki", "read"), ("serve",),
]  # fmt: skip
GROUPS = [(), ("index",), ("wiki",)]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def citesift(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, its output a pipe (not a terminal)."""
    command = [sys.executable, "-c", "from citesift.cli import main; main()", *args]
    env = {**os.environ, "COLUMNS": "80", "CITESIFT_CONTACT": ""}
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)


def test_version() -> None:
    assert run("--version") == (0, f"citesift {version_text()}\n", "")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_is_plain_text(command: tuple[str, ...]) -> None:
    code, out, _ = run(*command, "--help")
    assert code == 0 and out.startswith("Usage: ")
    for noise in ("<bool>", "``", "╭", "[red]", "[/"):
        assert noise not in out


@pytest.mark.parametrize("group", GROUPS, ids=lambda g: " ".join(("citesift", *g)))
def test_a_group_without_a_command_prints_its_help_and_exits_2(group: tuple[str, ...]) -> None:
    code, out, err = run(*group)
    assert code == 2 and "Usage: " in out + err and "Commands:" in out + err


def test_one_vocabulary_across_commands() -> None:
    helps = {" ".join(c): run(*c, "--help")[1] for c in COMMANDS}
    for name in ("extract", "page", "index add"):
        assert "--mode <article|page>" in helps[name] and "[default: article]" in helps[name]
    for name in ("search", "index add"):
        assert "--retrieval <hybrid|bm25|dense>" in helps[name]
    for name in ("search", "index ls", "wiki search"):
        assert "--format <text|json>" in helps[name]
    assert not any("--json" in text for text in helps.values())
    for name in ("fetch", "page", "check"):  # a deadline bounds each fetch, not a whole run
        words = " ".join(run(name, "--help")[1].split())
        assert "--deadline <float> Seconds from sending to the last byte." in words
    for name in ("check", "research"):  # a whole run's wall time
        assert "--max-seconds <float>" in run(name, "--help")[1]


@pytest.mark.timeout(120)
def test_error_lines_are_not_wrapped_when_not_on_a_terminal() -> None:
    parser = citesift(
        "search", "tides", "--an-option-whose-name-alone-fills-most-of-a-line-and-then-some"
    )
    assert parser.returncode == 2
    [line] = [x for x in parser.stderr.splitlines() if x.startswith("Error:")]
    assert len(line) > 80 and line.endswith(
        "--an-option-whose-name-alone-fills-most-of-a-line-and-then-some"
    )

    ours = citesift("page", "https://example.org/")  # no contact: a usage error of ours
    assert ours.returncode == EXIT_USAGE
    [line] = ours.stderr.splitlines()
    assert len(line) > 80 and line.startswith("error: a contact is required")


def test_a_bound_in_an_error_reads_as_the_help_says_it(tmp_path: Path) -> None:
    assert "How many chunks (1 to 1,000)." in " ".join(run("search", "--help")[1].split())
    code, _, err = run("search", "tides", "--top-k", "0", "--store", str(tmp_path / "s.db"))
    assert code == EXIT_USAGE
    assert err == "error: top_k must be a whole number from 1 to 1,000, not 0\n"
