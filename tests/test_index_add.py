"""``index_add``, the library's ``citesift index add``: in this process or by worker
processes on SQLite and on PostgreSQL, pruning the files that are gone with workers too,
what could not be read handed back as refusals, and bad arguments refused before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citesift import ClientIdentity, IndexAddReport, PageAccess, SourceRefusal, index_add
from citesift.errors import InvalidArgument
from citesift.index.documents import as_ingest_doc
from citesift.index.rag import INGEST_BATCH, create_rag
from citesift.ingest.add import _ingest
from citesift.ingest.report import Tally
from test_rag_helpers import HashEmbedder
from wikipedia_server import Answer, fresh_stand_in

SRC = str(Path(__file__).resolve().parent.parent / "src")
NOTES = 12


def notes(folder: Path) -> Path:
    """A folder of notes, each with a word of its own."""
    folder.mkdir()
    for n in range(NOTES):
        text = f"# Note {n}\n\nThe ferry to island{n} leaves at dawn and returns at dusk.\n"
        (folder / f"note{n}.md").write_text(text, encoding="utf-8")
    return folder


def ids(store: str) -> set[str]:
    with create_rag(store=store, retrieval="bm25") as rag:
        return {document.id for document in rag.documents()}


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_two_workers_index_a_folder_and_prune_a_removed_file(
    tmp_path: Path, store_location: str
) -> None:
    folder = notes(tmp_path / "notes")
    heard: list[tuple[str, int, int]] = []
    report = index_add([str(folder)], store=store_location, retrieval="bm25", workers=2,
                       progress=lambda *said: heard.append(said))  # fmt: skip
    assert (report.added, report.unchanged, report.removed, report.refused) == (NOTES, 0, 0, ())
    assert report.chunks >= NOTES and heard[-1] == ("Indexing", NOTES, NOTES)
    with create_rag(store=store_location, retrieval="bm25") as rag:
        hits = rag.search("island7", 1)
        assert hits and hits[0].provenance.document_id == (folder / "note7.md").as_uri()
    (folder / "note3.md").unlink()
    again = index_add([str(folder)], store=store_location, retrieval="bm25", workers=2, prune=True)
    assert (again.added, again.unchanged, again.removed) == (0, NOTES - 1, 1)
    left = ids(store_location)
    assert (folder / "note3.md").as_uri() not in left and len(left) == NOTES - 1


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_workers_read_pages_as_the_page_access_says(
    tmp_path: Path, wikipedia_fixtures: Path
) -> None:
    folder = notes(tmp_path / "notes")
    store = str(tmp_path / "index.db")
    page = b"<html><head><title>Comets</title></head><body><p>Comets have icy nuclei.</p>"
    with fresh_stand_in(wikipedia_fixtures) as site:
        site.answer("/comets", Answer(200, {"Content-Type": "text/html"}, page))
        site.answer("/gone", Answer(404, {"Content-Type": "text/html"}, b"<p>Not here.</p>"))
        pages = PageAccess(ClientIdentity("citesift-test", "1", "https://example.org/contact"),
                           allow_private=True)  # fmt: skip
        sources = [str(folder), site.origin + "/comets", site.origin + "/gone"]
        report = index_add(sources, store=store, retrieval="bm25", workers=2, pages=pages)
    assert report.added == NOTES + 1
    assert [(r.name, r.kind) for r in report.refused] == [(site.origin + "/gone", "failed")]
    with create_rag(store=store, retrieval="bm25") as rag:
        hits = rag.search("icy nuclei", 1)
        assert hits and hits[0].provenance.url == site.origin + "/comets"
        assert hits[0].provenance.snapshot_id  # the page kept as a snapshot in the same store


def add_in_a_process(folder: Path, store: str) -> subprocess.Popen[str]:
    """``index_add`` with two workers and a prune, in a process of its own (as on a machine
    of its own), printing its report."""
    code = (
        "import dataclasses, json, sys; from citesift import index_add; "
        "r = index_add([sys.argv[1]], store=sys.argv[2], retrieval='bm25', workers=2, prune=True);"
        " print(json.dumps(dataclasses.asdict(r)))"
    )
    return subprocess.Popen([sys.executable, "-c", code, str(folder), store], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": SRC})  # fmt: skip


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_two_calls_sharing_a_postgresql_job_prune_once(tmp_path: Path, postgres_url: str) -> None:
    folder = notes(tmp_path / "notes")
    assert index_add([str(folder)], store=postgres_url, retrieval="bm25").added == NOTES
    for n in (4, 9):
        (folder / f"note{n}.md").unlink()
    runs = [add_in_a_process(folder, postgres_url) for _ in range(2)]
    said = [run.communicate(timeout=240) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], said
    reports = [json.loads(out) for out, _ in said]
    assert sum(report["removed"] for report in reports) == 2  # by one of them, once
    read = sum(report["unchanged"] + report["elsewhere"] for report in reports)
    assert read >= NOTES - 2 and all(report["added"] == 0 for report in reports)
    assert ids(postgres_url) == {(folder / f"note{n}.md").as_uri() for n in range(NOTES)} - {
        (folder / "note4.md").as_uri(),
        (folder / "note9.md").as_uri(),
    }


def test_what_cannot_be_read_comes_back_as_refusals(tmp_path: Path) -> None:
    folder = notes(tmp_path / "notes")
    (tmp_path / "empty").mkdir()
    store = str(tmp_path / "index.db")
    sources = [str(folder / "note1.md"), str(tmp_path / "missing.md"), str(tmp_path / "empty")]
    report = index_add(sources, store=store, retrieval="bm25")
    assert (report.added, report.did_nothing) == (1, False)
    assert [(r.name, r.kind) for r in report.refused] == [
        (str(tmp_path / "missing.md"), "invalid"),
        (str(tmp_path / "empty"), "invalid"),
    ]
    assert all(isinstance(refusal, SourceRefusal) and refusal.reason for refusal in report.refused)
    nothing = index_add([str(tmp_path / "missing.md")], store=store, retrieval="bm25")
    assert nothing.did_nothing and isinstance(nothing, IndexAddReport)


def test_a_document_cut_into_too_many_chunks_is_refused_whole_the_others_kept(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "huge.txt").write_text("tide " * 84_000, encoding="utf-8")  # 420 KB of one word
    (folder / "ferry.txt").write_text("The ferry leaves at noon.", encoding="utf-8")
    store = str(tmp_path / "index.db")
    report = index_add([str(folder)], store=store, retrieval="bm25", chunk_size=20,
                       chunk_overlap=0, budget=500_000)  # fmt: skip
    assert (report.added, report.empty) == (1, 0) and report.chunks < 5
    [refused] = report.refused
    assert refused.kind == "invalid" and "huge.txt" in refused.name
    assert "over the 20,000 one document may have" in refused.reason
    assert [path.endswith("ferry.txt") for path in ids(store)] == [True]  # nothing of it stored
    rag = create_rag(HashEmbedder(), tmp_path / "direct.db", retrieval="bm25", chunk_size=20)
    rag.ingest([{"id": "huge", "content": "The harbour tide table is posted daily."}])
    huge = {"id": "huge", "content": "tide " * 84_000}
    with pytest.raises(InvalidArgument, match=r"documents must be cut into at most 20,000"):
        rag.ingest([huge, {"id": "ferry", "content": "The ferry leaves at noon."}])
    assert [document.id for document in rag.documents()] == ["ferry", "huge"]
    kept = rag.search("harbour tide table posted daily")  # the earlier version, as it was
    assert kept and all(match.id.startswith("huge_chunk_") for match in kept)
    assert "daily." in {match.content.split()[-1] for match in kept}  # not one "tide" of it
    rag.close()


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"workers": 0}, "workers"),
        ({"workers": 65}, "workers"),
        ({"workers": 1.5}, "workers"),
        ({"sources": "notes"}, "sources"),
        ({"sources": []}, "sources"),
        ({"sources": ["https://example.org/page"]}, "pages"),
        ({"mode": "everything"}, "mode"),
        ({"glob": "*.md"}, "glob"),
        ({"deadline": 0}, "deadline"),
        ({"chunk_size": -5}, "chunk_size"),
        ({"chunk_size": 1}, "chunk_size must be a whole number from 20"),
    ],
)
def test_a_bad_argument_is_refused_before_any_work(
    tmp_path: Path, arguments: dict[str, object], named: str
) -> None:
    folder = notes(tmp_path / "notes")
    call: dict[str, object] = {"sources": [str(folder)], "store": str(tmp_path / "index.db")}
    with pytest.raises(InvalidArgument, match=named):
        index_add(**{**call, "retrieval": "bm25", **arguments})  # type: ignore[arg-type]
    assert not (tmp_path / "index.db").exists() or ids(str(tmp_path / "index.db")) == set()


def test_the_indexing_progress_moves_while_chunks_are_embedded(tmp_path: Path) -> None:
    """The progress over the documents advances with each batch of chunks embedded, not only
    once a whole batch of documents is stored."""
    heard: list[tuple[str, int, int]] = []
    seen: list[int] = []

    class Watched(HashEmbedder):
        def embed(self, texts):  # type: ignore[no-untyped-def]
            seen.append(heard[-1][1] if heard else 0)
            return super().embed(texts)

    rag = create_rag(Watched(), tmp_path / "s.db", chunk_size=20, chunk_overlap=0)
    docs = [
        as_ingest_doc({"id": f"d{i}", "content": " ".join(f"w{i}x{j}" for j in range(12))})
        for i in range(INGEST_BATCH + 10)
    ]  # distinct chunks: the cache embeds a repeated text once
    with rag:
        _ingest(rag, Tally(), {d.id: d for d in docs}, lambda *said: heard.append(said))
    assert heard[-1] == ("Indexing documents", 74, 74)
    assert seen == sorted(seen) and len(seen) > 3
    assert any(0 < at < INGEST_BATCH for at in seen)  # moved inside the first batch of documents
