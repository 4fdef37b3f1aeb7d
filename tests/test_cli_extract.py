"""``citesift extract``: the bundled sample, files and stdin, every format, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.sources.files import content_revision, file_document, file_revision, file_uri

runner = CliRunner()


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["extract", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def test_the_sample_prints_article_blocks_with_kind_span_and_section() -> None:
    code, out, _ = run("--sample")
    assert code == 0
    title, url, legend, blank, first = out.split("\n")[:5]
    assert title == "How a neighbourhood tool library lends 4,000 items a year"
    assert url == "https://dispatch.example/community/tool-library-ledger"
    assert "start:end (its characters in the decoded source)" in legend and blank == ""
    assert first.startswith("[0] paragraph ")
    assert "Behind a green door on Quay Street" in out
    assert "heading" in out and "§ What people borrow\n" in out
    for furniture in ("We use cookies", "Related stories", "Sign up", "Borrowed the carpet"):
        assert furniture not in out


def test_block_spans_point_at_the_sample_source() -> None:
    _, out, _ = run("--sample", "--format", "blocks")
    header, text = out.split("\n")[7:9]
    start, end = (int(n) for n in header.split()[2].split(":"))
    source = files("citesift").joinpath("samples/article.html").read_text(encoding="utf-8")
    assert text.split()[:3] == source[start:end].split()[:3]


def test_page_mode_shows_the_furniture_and_table_cells_as_blocks() -> None:
    code, out, _ = run("--sample", "--mode", "page", "--format", "text")
    assert code == 0
    assert "We use cookies" in out and "\n\nHammer drill\n\n412\n\n" in out


def test_markdown_renders_the_sample_table_row_by_row() -> None:
    code, out, _ = run("--sample", "--mode", "page", "--format", "markdown")
    assert code == 0
    assert "| Item | Loans | Average days out |\n| --- | --- | --- |\n" in out
    assert "| Hammer drill | 412 | 2.1 |\n" in out
    assert "\n## What people borrow\n" in out and "*Most borrowed items, 2024*" in out
    title = "# How a neighbourhood tool library lends 4,000 items a year\n"
    assert out.startswith(title) and out.count("lends 4,000 items a year") == 1  # page's <h1>


def test_markdown_opens_with_the_title_and_nests_the_article_headings_under_it() -> None:
    code, out, _ = run("--sample", "--format", "markdown")
    assert code == 0
    assert out.startswith("# How a neighbourhood tool library lends 4,000 items a year\n\n")
    assert "\n## What people borrow\n" in out and "\n# What" not in out


def test_json_is_the_whole_source_document() -> None:
    code, out, _ = run("--sample", "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["title"] == "How a neighbourhood tool library lends 4,000 items a year"
    assert document["url"] == "https://dispatch.example/community/tool-library-ledger"
    assert document["site"] == "dispatch.example"
    assert document["licence"] == {
        "name": "CC BY 4.0",
        "url": "https://creativecommons.org/licenses/by/4.0/",
    }
    assert document["publisher"] == "Harbourside Dispatch"
    assert document["page_date"] == 1741941000000
    first = document["blocks"][0]
    assert set(first) == {
        "text", "kind", "section", "source_start", "source_end", "offsets", "place",
        "value_start",
    }  # fmt: skip
    assert first["place"] is None  # a place is for files, where spans mean nothing


def test_a_file_and_a_url_name_the_document(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<title>Notes</title><p>Kept text.</p>", encoding="utf-8")
    _, out, _ = run(str(page), "--url", "https://notes.example/n/1", "--format", "json")
    document = json.loads(out)
    assert (document["title"], document["site"], document["key"]) == (
        "Notes",
        "notes.example",
        "https://notes.example/n/1",
    )


@pytest.mark.parametrize("source", ["page.html", "-"])
def test_a_url_no_address_can_carry_is_a_usage_error(tmp_path: Path, source: str) -> None:
    """Bytes that are not UTF-8 (``$'\\xff\\xfe'``) reach the command as lone surrogates:
    one line, exit 64, as ``fetch`` says, not a traceback."""
    (tmp_path / "page.html").write_text("<p>Kept text.</p>", encoding="utf-8")
    page = str(tmp_path / source) if source != "-" else source
    code, out, err = run(page, "--url", "\udcff\udcfe", stdin=b"<p>Kept text.</p>")
    assert (code, out) == (EXIT_USAGE, "")
    assert err == "error: --url holds a lone surrogate, which no address can carry\n"


def test_standard_input_is_read_and_decoded() -> None:
    html = '<meta charset="windows-1252"><p>Caf\u00e9 au lait</p>'.encode("cp1252")
    code, out, _ = run("-", "--format", "text", stdin=html)
    assert (code, out) == (0, "Caf\u00e9 au lait\n\n")


@pytest.mark.parametrize("mode", ["article", "page"])
@pytest.mark.parametrize("output", ["blocks", "text", "markdown", "json"])
def test_every_mode_and_format_reads_a_file_and_stdin_alike(
    tmp_path: Path, mode: str, output: str
) -> None:
    page = tmp_path / "sample.html"
    page.write_bytes(files("citesift").joinpath("samples/article.html").read_bytes())
    options = ("--mode", mode, "--format", output, "--url", "https://news.example/a")
    from_file = run(str(page), *options)
    from_stdin = run("-", *options, stdin=page.read_bytes())
    assert from_file[0] == from_stdin[0] == 0 and from_file[1].strip()
    assert _unstamped(from_stdin[1], output) == _unstamped(from_file[1], output)


def _unstamped(out: str, output: str) -> object:
    """The output without the time it was read at (which differs from run to run)."""
    return {**json.loads(out), "read_at": None} if output == "json" else out


def test_page_mode_shows_more_than_article_mode_in_every_format() -> None:
    for output in ("blocks", "text", "markdown", "json"):
        article = run("--sample", "--format", output)[1]
        page = run("--sample", "--mode", "page", "--format", output)[1]
        assert len(page) > len(article), output


def test_the_budget_cut_is_noted_on_stderr() -> None:
    code, out, err = run("--sample", "--budget", "60", "--format", "text")
    assert code == 0
    assert len(out.replace("\n", "")) <= 60
    assert "cut at the budget of 60 characters" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("/no/such/file.html",), "/no/such/file.html: cannot be read"),
        ((".",), ".: a folder, not a file"),
        (("/dev/null",), "/dev/null: not a regular file"),
        ((), "give one of FILE"),
        (("page.html", "--sample"), "give one of FILE"),
    ],
)
def test_bad_input_is_a_usage_error(args: tuple[str, ...], message: str) -> None:
    code, out, err = run(*args)
    assert (code, out) == (EXIT_USAGE, "")
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "args", [("--budget", "-1"), ("--mode", "everything"), ("--format", "pdf")]
)
def test_absurd_options_are_refused_before_any_work(args: tuple[str, ...]) -> None:
    code, out, err = run("--sample", *args)
    assert (code, out) == (2, "")
    assert "Invalid value" in err


def test_binary_data_is_refused_as_index_add_refuses_it(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(bytes(range(256)) * 64 + b"\x00\xff<p>end</p>")
    code, out, err = run(str(garbage), "--format", "json", "--mode", "page")
    assert (code, out) == (EXIT_USAGE, "") and "holds NUL bytes: binary data" in err
    code, out, err = run("-", "--format", "text", stdin=garbage.read_bytes())
    assert (code, out) == (EXIT_USAGE, "") and "standard input: holds NUL bytes" in err
    wide = "<p>Glaciers carve fjords.</p>".encode("utf-16")  # NUL bytes, but text
    assert run("-", "--format", "text", stdin=wide)[1] == "Glaciers carve fjords.\n\n"


@pytest.mark.timeout(60)
def test_the_console_script_reads_stdin_in_a_real_process() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from citesift.cli import main; main()", "extract", "-"],
        input=b"<h2>Heading</h2><p>Some text.</p>",
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split("\n", 3)[:2] == ["Heading", "<stdin>"]
    assert done.stdout.decode().endswith(
        "\n\n[0] heading 4:11 § -\nHeading\n\n[1] paragraph 19:29 § Heading\nSome text.\n\n"
    )


def test_the_sample_table_is_one_aligned_table_with_its_span() -> None:
    lines = run("--sample")[1].splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[5-22] table "))
    assert lines[at].endswith(" § What people borrow")
    start, end = (int(n) for n in lines[at].split()[2].split(":"))
    source = files("citesift").joinpath("samples/article.html").read_text(encoding="utf-8")
    assert source[start:].startswith("Item") and source[:end].endswith("2.3")
    assert lines[at + 1 : at + 3] == [
        "Item               Loans  Average days out",
        "Hammer drill       412    2.1",
    ]
    assert lines[at + 6] == "Folding ladder     176    2.3" and lines[at + 7] == ""


def test_text_and_markdown_files_read_as_index_add_reads_them(tmp_path: Path) -> None:
    two = tmp_path / "two.txt"
    two.write_text("First paragraph here.\n\nSecond paragraph there.")
    code, out, _ = run(str(two))
    assert code == 0 and out.startswith(f"two\nfile://{two.resolve()}\n")
    assert "[0] paragraph 0:21 § -\nFirst paragraph here.\n" in out
    assert "[1] paragraph 23:46 § -\nSecond paragraph there.\n" in out
    note = tmp_path / "tides.md"
    note.write_text("# Heading\n\nMarkdown body text.\n")
    code, out, _ = run(str(note), "--url", "https://notes.example/tides")
    assert code == 0 and out.startswith("Heading\nhttps://notes.example/tides\n")
    assert "[1] paragraph 11:30 § Heading\nMarkdown body text.\n" in out
    (tmp_path / "nul.txt").write_bytes(b"a\x00b")
    assert run(str(tmp_path / "nul.txt"))[0] == EXIT_USAGE


def test_a_page_file_stating_no_title_is_titled_by_its_name_written_as_text(
    tmp_path: Path,
) -> None:
    """A file name holding a byte that is not UTF-8 titles its page with that byte as
    ``%NN``, as its ``file:`` URI writes it, never with a lone surrogate."""
    page = Path(os.fsdecode(bytes(tmp_path) + b"/caf\xe9.html"))
    page.write_text("<p>Kept text of a page with no title.</p>", encoding="utf-8")
    result = CliRunner().invoke(app, ["extract", str(page), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["title"] == "caf%E9"


def test_an_html_file_is_named_by_its_file_uri_as_index_add_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Named by a path relative to where the command runs, a page with a space and a ``#``
    in its name is the document ``index add`` makes of it: its absolute, percent-encoded
    ``file:`` URI for address and key, site ``file``, the revision of its bytes; ``--url``
    names it instead."""
    (tmp_path / "notes").mkdir()
    page = tmp_path / "notes" / "tide table #2.html"
    page.write_text('<title>Tides</title><p>Kept text, <a href="next.html">next</a>.</p>')
    monkeypatch.chdir(tmp_path)
    code, out, err = run("notes/tide table #2.html", "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    uri = file_uri(page)
    assert uri == file_uri(tmp_path / "notes") + "/tide%20table%20%232.html"
    indexed = file_document(page)
    assert (document["url"], document["key"], document["site"]) == (uri, uri, "file")
    assert (document["title"], document["revision"]) == ("Tides", indexed.revision)
    assert [b["text"] for b in document["blocks"]] == [b.text for b in indexed.blocks]
    assert run("notes/tide table #2.html")[1].split("\n")[:2] == ["Tides", uri]
    code, out, _ = run("notes/tide table #2.html", "--url", "https://tides.example/2")
    assert code == 0 and out.split("\n")[:2] == ["Tides", "https://tides.example/2"]


def test_a_file_of_another_name_is_read_as_html_at_the_revision_of_that_reading(
    tmp_path: Path,
) -> None:
    """``extract`` reads ``page.xhtml`` as HTML, so its revision is that of its bytes read
    so, not the ``:text`` one ``index add`` gives it when ``--glob`` chooses it (there it is
    read as plain text): a revision names the reading it comes from."""
    page = tmp_path / "page.xhtml"
    page.write_text("<title>Tides</title><p>High water at noon.</p>")
    code, out, err = run(str(page), "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert [b["text"] for b in document["blocks"]] == ["High water at noon."]
    assert document["revision"] == content_revision(page.read_bytes())
    assert file_revision(page, page.read_bytes()) == document["revision"] + ":text"
    html = tmp_path / "page.html"
    html.write_bytes(page.read_bytes())
    assert json.loads(run(str(html), "--format", "json")[1])["revision"] == file_revision(
        html, html.read_bytes()
    )
