"""Local folders loaded for the index: patterns, .gitignore files, formats told by content,
and re-ingest that reads only what changed and prunes what is gone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.index import shown
from citesift.errors import InvalidArgument
from citesift.model import SourceDocument
from citesift.sources.files import content_revision, document_ids, file_revision, file_uri, uri_path
from citesift.sources.loaders import folder_files, gone, load_file, load_folder
from made_documents import pdf


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for name, text in {
        "a.md": "# Alpha\n\nThe alpha note about tides.",
        "b.txt": "Plain text about comets.",
        "skip.log": "ignored by suffix",
        "build/out.md": "# Built\n\nignored by the root .gitignore",
        "docs/keep.md": "# Keep\n\nkept by a negation",
        "docs/drafts/x.md": "# Draft\n\nignored by the nested .gitignore",
        "docs/drafts/final.md": "# Final\n\nre-included by the nested .gitignore",
        ".git/HEAD.md": "never read",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / ".gitignore").write_text("build/\n*.log\ndocs/drafts/\n!docs/drafts/\n")
    (root / "docs" / ".gitignore").write_text("drafts/*\n!drafts/final.md\n")
    (root / "report.bin").write_bytes(pdf(["Quarterly report on glaciers."]))
    return root


def names(root: Path, patterns: tuple[str, ...] = ()) -> list[str]:
    return [p.relative_to(root).as_posix() for p in folder_files(root, patterns)]


def test_gitignore_files_are_respected_at_every_depth(tree: Path) -> None:
    assert names(tree) == ["a.md", "b.txt", "docs/drafts/final.md", "docs/keep.md"]


def test_patterns_choose_the_files_and_content_decides_the_format(tree: Path) -> None:
    assert names(tree, ("*.bin",)) == ["report.bin"]
    assert names(tree, ("docs/**/*.md",)) == ["docs/drafts/final.md", "docs/keep.md"]
    loaded = load_file(tree / "report.bin", any_name=True)
    assert load_file(tree / "report.bin").refused is not None
    assert isinstance(loaded.document, SourceDocument)
    assert "glaciers" in loaded.document.blocks[0].text
    assert loaded.document.revision == content_revision((tree / "report.bin").read_bytes())


def test_bad_patterns_are_refused(tree: Path) -> None:
    with pytest.raises(InvalidArgument):
        list(folder_files(tree, "*.md"))
    with pytest.raises(InvalidArgument):
        list(folder_files(tree, ("",)))


def test_a_link_cycle_ends(tree: Path) -> None:
    os.symlink(tree, tree / "docs" / "loop")
    assert names(tree) == ["a.md", "b.txt", "docs/drafts/final.md", "docs/keep.md"]


def test_unchanged_files_are_not_read_again_and_changed_ones_are(tree: Path) -> None:
    first = {f.id: f for f in load_folder(tree)}
    assert all(f.document is not None for f in first.values())
    known = {i: file_revision(f.path, f.path.read_bytes()) for i, f in first.items()}
    (tree / "a.md").write_text("# Alpha\n\nChanged.", encoding="utf-8")
    again = {f.id: f for f in load_folder(tree, known=known)}
    changed = file_uri(tree / "a.md")
    assert [i for i, f in again.items() if not f.unchanged] == [changed]
    document = again[changed].document
    assert isinstance(document, SourceDocument) and document.blocks[-1].text == "Changed."


def test_a_text_file_indexed_before_plain_text_reading_is_read_again(tree: Path) -> None:
    known = {file_uri(tree / name): content_revision((tree / name).read_bytes())
             for name in ("a.md", "b.txt")}  # fmt: skip
    again = {f.path.name: f for f in load_folder(tree, known=known)}
    assert again["a.md"].unchanged and not again["b.txt"].unchanged
    document = again["b.txt"].document
    assert document is not None and document.revision == known[file_uri(tree / "b.txt")] + ":text"
    assert load_file(tree / "b.txt", known={file_uri(tree / "b.txt"): document.revision}).unchanged


def test_gone_lists_only_deleted_files_under_the_folder(tree: Path, tmp_path: Path) -> None:
    elsewhere = file_uri(tmp_path / "other" / "x.md")
    indexed = [file_uri(tree / "a.md"), file_uri(tree / "b.txt"), elsewhere]
    (tree / "b.txt").unlink()
    assert gone(tree, indexed, seen={file_uri(tree / "a.md")}) == [file_uri(tree / "b.txt")]


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_index_add_again_reads_only_changes_and_prunes(tree: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    add = ("index", "add", str(tree), "--store", store, "--retrieval", "bm25")
    code, out, _ = run(*add)
    assert code == 0 and out == "indexed 4 document(s) as 4 chunk(s)\n"
    assert run(*add) == (0, "4 document(s) unchanged\n", "")
    (tree / "a.md").write_text("# Alpha\n\nNow about currents.", encoding="utf-8")
    (tree / "b.txt").unlink()
    code, out, _ = run(*add)
    assert code == 0 and out == "indexed 1 document(s) as 1 chunk(s)\n2 document(s) unchanged\n"
    assert file_uri(tree / "b.txt") in run("index", "ls", "--store", store)[1]
    code, out, _ = run(*add, "--prune")
    assert (
        code == 0 and out == "3 document(s) unchanged\nremoved 1 document(s) whose files are gone\n"
    )
    listed = run("index", "ls", "--store", store)[1]
    assert file_uri(tree / "b.txt") not in listed and "\tAlpha" in listed
    code, out, _ = run("search", "currents", "--store", store, "--retrieval", "bm25")
    assert code == 0 and "Alpha" in out


def test_index_add_with_a_glob_reads_by_content(tree: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "index.db")
    code, out, _ = run("index", "add", str(tree), "--glob", "*.bin", "--store", store,
                       "--retrieval", "bm25")  # fmt: skip
    assert code == 0 and out.startswith("indexed 1 document(s)")
    assert run("index", "ls", "--store", store)[1].startswith(file_uri(tree / "report.bin"))


def test_a_file_uri_names_its_file_back_whatever_the_bytes_of_its_name(tmp_path: Path) -> None:
    """One decoding of a ``file:`` URI serves the CLI's names, the ids a user gives and the
    check that a file is gone: a name that is not UTF-8 comes back byte for byte."""
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9 #1?.txt"))
    path.write_text("Notes.")
    uri = file_uri(path)
    assert "%E9" in uri and "%23" in uri and "%3F" in uri
    assert uri_path(uri) == shown(uri) == str(path.resolve())
    assert document_ids([uri]) == [uri]
    assert gone(tmp_path, [uri], set()) == []
    path.unlink()
    assert gone(tmp_path, [uri], set()) == [uri]


LONG_TOKEN = "https://example.org/" + "a" * 130  # 150 characters with no space in them
"""A URL crossing the budget: the cut falls at the space before it, 111 characters short."""


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("long.txt", f"{'word ' * 178}{LONG_TOKEN} tail\n"),
        ("long.html", f"<html><body><p>{'word ' * 178}{LONG_TOKEN} tail</p></body></html>"),
    ],
)
def test_a_budget_cut_well_short_of_the_budget_is_read_again_under_a_larger_one(
    tmp_path: Path, name: str, text: str
) -> None:
    """The budget, not a size or time bound, cut the text: the revision says so, so the
    same bytes under a larger budget are read again, whole."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    cut = load_file(path, budget=1000)
    assert cut.document is not None and cut.document.budget_cut
    kept = sum(len(block.text) for block in cut.document.blocks)
    assert kept < 900 and str(cut.document.revision).endswith("@budget=1000")
    known = {cut.id: cut.document.revision}
    assert load_file(path, known, budget=1000).unchanged
    whole = load_file(path, known, budget=2000)
    assert whole.document is not None and not whole.document.truncated
    assert LONG_TOKEN in whole.document.blocks[-1].text
