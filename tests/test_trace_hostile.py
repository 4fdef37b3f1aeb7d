"""Hostile stored runs against ``trace``, ``verify_run`` and ``replay_run``: a run id that is
not there, a pointer that is no pointer, an answer edited into odd shapes, a damaged answer
row and damaged snapshot rows. Each is a clear error, or the one piece that cannot be read is
reported as such while every other field is still traced and graded."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from typer.testing import CliRunner

from citesift import SQLiteStore, replay_run, verify_run
from citesift.agent.trace import trace
from citesift.cli import app
from citesift.errors import InvalidArgument, StoreCorrupt
from citesift.model import Snapshot
from citesift.store.runs import runs_in
from citesift.store.snapshots import snapshot_id, snapshots_in
from citesift.verify.claim_check import MAX_CLAIM_CHARS
from test_rag_helpers import HashEmbedder

PAGES = {
    "bridge": b"<html><body><p>The bridge opened in 1932.</p></body></html>",
    "museum": b"<html><body><p>The museum has 12 floors.</p></body></html>",
}


def snapshot(body: bytes, url: str) -> Snapshot:
    return Snapshot(
        snapshot_id(body), url, url, 200, (), "text/html", "utf-8", 1_700_000_000_000, body
    )


def evidence(name: str, kept: Snapshot, text: str) -> dict[str, Any]:
    start = kept.body.decode().index(text)
    return {
        "id": name, "url": kept.url, "kind": "page", "text": text,
        "snapshot_id": kept.id, "source_start": start, "source_end": start + len(text),
    }  # fmt: skip


@pytest.fixture
def stored(tmp_path: Path) -> Iterator[tuple[SQLiteStore, str, dict[str, Snapshot]]]:
    """A run whose two fields each cite a stored page."""
    store = SQLiteStore(tmp_path / "runs.db")
    kept = {name: snapshot(body, f"https://{name}.example/") for name, body in PAGES.items()}
    for page in kept.values():
        snapshots_in(store).save(page)
    runs = runs_in(store)
    run_id = runs.start("When did the bridge open, and how many floors has the museum?")
    answer = {
        "data": {"opened": 1932, "floors": 12},
        "fields": [
            {"pointer": "/opened", "value": 1932, "evidence_ids": ["E1"], "verified": True},
            {"pointer": "/floors", "value": 12, "evidence_ids": ["E2"], "verified": True},
        ],
        "evidence": [
            evidence("E1", kept["bridge"], "The bridge opened in 1932."),
            evidence("E2", kept["museum"], "The museum has 12 floors."),
        ],
    }
    runs.finish(run_id, answer)
    yield store, run_id, kept
    store.close()


def edit(store: SQLiteStore, run_id: str, change: Any) -> None:
    with store.transaction() as conn:
        (text,) = conn.execute("SELECT answer FROM runs WHERE id = ?", (run_id,)).fetchone()
        answer = json.loads(text)
        change(answer)
        conn.execute("UPDATE runs SET answer = ? WHERE id = ?", (json.dumps(answer), run_id))


def damage_body(store: SQLiteStore, page: Snapshot, data: bytes) -> None:
    with store.transaction() as conn:
        conn.execute("UPDATE snapshot_bodies SET data = ? WHERE id = ?", (data, page.id))


ABSENT_RUNS = {
    "unknown": "0" * 16, "empty": "", "a path": "../runs", "a space": "a b", "a wildcard": "%",
    "a surrogate": "\ud800", "a NUL": "ab\x00", "a hundred thousand characters": "a" * 100_000,
}  # fmt: skip


@pytest.mark.parametrize("run", ABSENT_RUNS.values(), ids=ABSENT_RUNS.keys())
def test_a_run_that_is_not_there_is_refused_clearly(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]], run: str
) -> None:
    store = stored[0]
    for call in (trace, verify_run, replay_run):
        with pytest.raises(InvalidArgument, match="run must be the id of a stored run"):
            call(store, run)


@pytest.mark.parametrize("pointer", ["opened", "/nowhere", "", "/opened/0", "~2", "\x00"])
def test_a_pointer_that_is_not_a_field_s_is_refused_clearly(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]], pointer: str
) -> None:
    store, run_id, _ = stored
    for call in (trace, verify_run, replay_run):
        with pytest.raises(InvalidArgument, match="pointer must be the JSON Pointer"):
            call(store, run_id, pointer)


DAMAGED_BODIES = {
    "not zstd": b"this is not a zstd frame",
    "a frame declaring a terabyte": zstandard.ZstdCompressor().compress(b"x")[:4]
    + b"\xe4\x00\x00\x00\x00\x00\x01\x00",
    "another page's body": zstandard.ZstdCompressor().compress(PAGES["museum"]),
}


@pytest.mark.parametrize("data", DAMAGED_BODIES.values(), ids=DAMAGED_BODIES.keys())
def test_a_damaged_snapshot_is_one_page_unread_and_every_other_field_still_graded(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]], data: bytes
) -> None:
    store, run_id, kept = stored
    damage_body(store, kept["bridge"], data)
    traced = {f.pointer: f for f in trace(store, run_id).fields}
    assert traced["/opened"].evidence[0].span is None  # the page is as if not kept
    assert traced["/floors"].evidence[0].span == "The museum has 12 floors."
    replayed = {f.pointer: f for f in replay_run(store, run_id, embedder=HashEmbedder()).fields}
    assert replayed["/opened"].status == "source unavailable"
    assert replayed["/floors"].status == "supported"


def test_a_damaged_answer_row_is_a_clear_error_and_other_runs_still_read(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]],
) -> None:
    store, run_id, _ = stored
    other = runs_in(store).start("another task")
    runs_in(store).finish(other, {"data": {}, "fields": [], "evidence": []})
    with store.transaction() as conn:
        conn.execute("UPDATE runs SET answer = ? WHERE id = ?", ('{"fields": [', run_id))
    for call in (trace, verify_run, replay_run):
        with pytest.raises(StoreCorrupt, match=f"run {run_id} is damaged"):
            call(store, run_id)
    assert trace(store, other).task == "another task"
    result = CliRunner().invoke(app, ["trace", run_id, "--store", str(store.path)])
    assert result.exit_code == 1
    assert f"run {run_id} is damaged" in result.output and "Traceback" not in result.output


ODD_SHAPES = [
    lambda a: a.update(fields="not a list"),
    lambda a: a.update(fields=7),
    lambda a: a.update(evidence={"E1": "x"}),
    lambda a: a["fields"][0].update(evidence_ids=[["E1"], {"E1": 1}, 3, "E1"]),
    lambda a: a["fields"][0].update(evidence_ids="E1"),
    lambda a: a["fields"][0].update(pointer=None),
    lambda a: a["evidence"][0].update(id=["E1"]),
    lambda a: [a["evidence"][0].pop(k) for k in ("url", "kind", "text")],
    lambda a: a["evidence"][0].update(source_start="0", source_end=5),
    lambda a: a["evidence"][0].update(source_start=-40, source_end=5),
    lambda a: a["evidence"][0].update(source_start=30, source_end=2),
    lambda a: a["evidence"][0].update(source_start=True, source_end=10**30),
    lambda a: a["evidence"][0].update(snapshot_id=["x"]),
    lambda a: a["fields"][0].update(value={"deep": [[[[["x"]]]]] * 1000}),
]


@pytest.mark.parametrize("change", ODD_SHAPES)
def test_an_answer_edited_into_odd_shapes_traces_and_grades_what_it_can(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]], change: Any
) -> None:
    store, run_id, _ = stored
    edit(store, run_id, change)
    traced = trace(store, run_id)
    for field in traced.fields:
        for span in field.evidence:
            assert span.span is None or any(span.span in page.decode() for page in PAGES.values())
    for call in (verify_run, replay_run):
        checked = call(store, run_id, embedder=HashEmbedder())
        assert {f.pointer for f in checked.fields} <= {"/opened", "/floors"}


def test_a_value_too_long_to_be_a_claim_is_said_and_the_others_still_graded(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]],
) -> None:
    store, run_id, _ = stored
    edit(store, run_id, lambda a: a["fields"][0].update(value="1932 " * MAX_CLAIM_CHARS))
    checked = {f.pointer: f for f in replay_run(store, run_id, embedder=HashEmbedder()).fields}
    assert checked["/opened"].status == "not_supported"
    assert f"longer than {MAX_CLAIM_CHARS:,} characters" in checked["/opened"].reason
    assert checked["/floors"].status == "supported"


def test_evidence_cited_a_hundred_thousand_times_by_a_field_is_read_once(
    stored: tuple[SQLiteStore, str, dict[str, Snapshot]],
) -> None:
    """The trace listed it 100,000 times, and the grading read its sentence as many times,
    saying that only the first 50,000 of 100,000 sentences were read."""
    store, run_id, _ = stored
    edit(store, run_id, lambda a: a["fields"][0].update(evidence_ids=["E1", "E2"] * 50_000))
    (opened, _) = trace(store, run_id).fields
    assert [span.id for span in opened.evidence] == ["E1", "E2"]
    for call in (verify_run, replay_run):
        checked = {f.pointer: f for f in call(store, run_id, embedder=HashEmbedder()).fields}
        assert checked["/opened"].status == "supported"
        assert "only the first" not in checked["/opened"].reason
