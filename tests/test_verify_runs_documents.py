"""A research run that read a PDF, graded again: ``verify_run`` against the passages kept in
the answer, ``replay_run`` against the stored PDF, offline, its sentences linked by page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from citesift import SQLiteStore, replay_run, verify_run
from citesift.agent.trace import trace
from citesift.cli import app
from citesift.index.documents import BLOCK_SEPARATOR, block_starts, file_span
from citesift.model import Block
from local_site import serve_bytes
from made_documents import pdf
from servers import MisbehavingServer
from test_rag_helpers import HashEmbedder
from test_verify_runs import edit_answer, scripted_run, set_value

pytestmark = pytest.mark.timeout(120)
REPORT = pdf(
    [
        "City Museum annual report\nThe museum welcomed visitors all year.",
        "The City Museum opened in 1998.\nIt has 312 rooms on 12 floors.",
    ]
)
DATA = {"opened": 1998, "floors": 12}


@pytest.fixture
def stored(server: MisbehavingServer, tmp_path: Path) -> Iterator[tuple[SQLiteStore, str]]:
    """A finished run kept in a store: the model reads the museum's PDF report, then answers."""
    serve_bytes(server, "/report", REPORT, "application/pdf")
    report = server.url("/report")
    store = SQLiteStore(tmp_path / "runs.db")
    question = "When did the City Museum open and how many floors has it?"
    yield store, str(scripted_run(store, question, report, DATA).run_id)
    store.close()


def test_a_run_that_read_a_pdf_is_graded_again_and_replayed_from_it(
    stored: tuple[SQLiteStore, str],
) -> None:
    store, run_id = stored
    for grade in (verify_run, replay_run):
        checked = grade(store, run_id, embedder=HashEmbedder())
        assert checked.flagged == (), checked
        floors = next(f for f in checked.fields if f.pointer == "/floors")
        (sentence,) = floors.supporting
        assert sentence.text == "It has 312 rooms on 12 floors."
    replayed = replay_run(store, run_id, embedder=HashEmbedder()).fields[1].supporting[0]
    assert replayed.fragment_url.endswith("/report#page=2")  # a text fragment means nothing there


def test_a_value_altered_after_a_run_that_read_a_pdf_is_flagged_on_replay(
    stored: tuple[SQLiteStore, str],
) -> None:
    store, run_id = stored
    edit_answer(store, run_id, set_value("/floors", 14))
    replayed = replay_run(store, run_id, embedder=HashEmbedder())
    assert replayed.flagged == ("/floors",)


def test_a_passage_kept_altered_is_flagged_on_replay_from_the_pdf(
    stored: tuple[SQLiteStore, str],
) -> None:
    store, run_id = stored

    def tamper(answer: dict[str, Any]) -> None:
        (item,) = answer["evidence"]
        item["text"] = item["text"].replace("12 floors", "14 floors")
        set_value("/floors", 14)(answer)

    edit_answer(store, run_id, tamper)
    assert verify_run(store, run_id, embedder=HashEmbedder()).flagged == ()  # the edit agrees
    assert replay_run(store, run_id, embedder=HashEmbedder()).flagged == ("/floors",)


def test_trace_of_a_field_read_from_a_pdf_shows_its_text_and_page_not_the_files_bytes(
    stored: tuple[SQLiteStore, str],
) -> None:
    store, run_id = stored
    (span,) = trace(store, run_id, "/floors").fields[0].evidence
    assert span.span is not None and "It has 312 rooms on 12 floors." in span.span
    assert span.span.startswith("City Museum annual report")  # the passage spans both pages
    assert span.place == "page 1, paragraph 1 to page 2, paragraph 1", span.place
    assert span.link is not None and span.link.endswith("/report#page=1")
    assert "%PDF" not in f"{span.before}{span.span}{span.after}"
    plain = CliRunner().invoke(app, ["trace", run_id, "/floors", "--store", str(store.path)])
    assert plain.exit_code == 0, plain.output
    assert "It has 312 rooms on 12 floors." in plain.stdout and "page 2" in plain.stdout
    assert "/report#page=1" in plain.stdout and "%PDF" not in plain.stdout


def test_a_file_passage_starting_near_a_block_s_end_is_placed_where_it_starts() -> None:
    """A passage beginning with a block's short last sentence runs on into the next block
    within its first few characters: it is found where it begins, not at the block's start."""
    first = "The survey began in spring. It ended in May."
    blocks = [Block(text, "paragraph", (), 0, 0) for text in (first, "The second block.")]
    starts = block_starts(blocks)
    evidence = "It ended in May." + BLOCK_SEPARATOR + "The second block."
    assert file_span(blocks, starts, 0, evidence) == (28, 28 + len(evidence))
    assert file_span(blocks, starts, 0, "Edited since.") == (0, 13)  # found nowhere: its start
