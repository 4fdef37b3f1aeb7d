"""A research run that read a PDF, graded again: ``verify_run`` against the passages kept in
the answer, ``replay_run`` against the stored PDF, offline, its sentences linked by page. The
evidence keeps its place in the file, so ``trace`` names the page even when the file is gone,
and a run kept before evidence had places still traces."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from citesift import SQLiteStore, replay_run, verify_run
from citesift.agent.evidence import EXTRACT_CHARS, EvidenceLog
from citesift.agent.trace import trace
from citesift.cli import app
from citesift.extract.document import extract_document
from citesift.index.documents import BLOCK_SEPARATOR, block_starts, file_span
from citesift.model import Block, Place, Snapshot, TextPlace
from citesift.store.runs import runs_in
from citesift.text.places import places_at, stored_places
from local_site import serve_bytes
from made_documents import long_sheet, pdf, sheets_file
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
PAGED = pdf(
    [
        "Annual report of the parks and gardens\n"
        "The rose garden was replanted with four hundred bushes.\n"
        "Its old pond was dredged and lined with clay in March.\n"
        "Two new paths now cross the meadow from the north gate.\n"
        "The gardeners planted oaks, limes and beeches along them.\n"
        "A hundred benches were mended and painted green again.\n"
        "The glasshouse grew ferns and orchids for the summer show.\n"
        "Its heating was renewed so the palms survive the winter.\n"
        "The park cafe served tea by the lake from April to October.\n"
        "Its hedges were cut back by hand.\n"
        "Volunteers kept the lawns, paths and ponds open all season.",
        "The City Museum opened in 1998.\nIt has 312 rooms on 12 floors.",
    ]
)
"""A report whose first page fills a passage of its own: the museum's facts, on page 2, are
a passage of their own, which begins there."""


@pytest.fixture
def stored(server: MisbehavingServer, tmp_path: Path) -> Iterator[tuple[SQLiteStore, str]]:
    """A finished run kept in a store: the model reads the museum's PDF report, then answers."""
    serve_bytes(server, "/report", REPORT, "application/pdf")
    report = server.url("/report")
    store = SQLiteStore(tmp_path / "runs.db")
    question = "When did the City Museum open and how many floors has it?"
    yield store, str(scripted_run(store, question, report, DATA).run_id)
    store.close()


@pytest.fixture
def paged(server: MisbehavingServer, tmp_path: Path) -> Iterator[tuple[SQLiteStore, str]]:
    """A finished run citing the passage on page 2 of a report, kept in a store."""
    serve_bytes(server, "/paged", PAGED, "application/pdf")
    store = SQLiteStore(tmp_path / "runs.db")
    question = "When did the City Museum open and how many floors has it?"
    answer = scripted_run(store, question, server.url("/paged"), DATA)
    cited = answer.evidence[0]
    assert cited.place == Place(page=2, paragraph=1), cited
    assert cited.link().endswith("/paged#page=2")
    assert any(e.place == Place(page=1, paragraph=1) for e in answer.evidence[1:])
    yield store, str(answer.run_id)
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
        # the passage kept begins on page 1; this sentence of it is on page 2
        assert sentence.place == Place(page=2, paragraph=1), sentence
        assert sentence.fragment_url.endswith("/report#page=2")  # no text fragment in a PDF


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
        item = next(e for e in answer["evidence"] if "12 floors" in e["text"])
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
    assert span.span.startswith("The City Museum opened")  # no passage runs across a page
    assert span.place == "page 2, paragraph 1", span.place
    assert span.link is not None and span.link.endswith("/report#page=2")
    assert "%PDF" not in f"{span.before}{span.span}{span.after}"
    plain = CliRunner().invoke(app, ["trace", run_id, "/floors", "--store", str(store.path)])
    assert plain.exit_code == 0, plain.output
    assert "It has 312 rooms on 12 floors." in plain.stdout and "page 2" in plain.stdout
    assert "/report#page=2" in plain.stdout and "%PDF" not in plain.stdout

    def begun_on_page_1(answer: dict[str, Any]) -> None:
        """The evidence as a run kept before passages stopped at a page's end kept it."""
        item = next(e for e in answer["evidence"] if "12 floors" in e["text"])
        first = "City Museum annual report\nThe museum welcomed visitors all year."
        item["text"], item["block"] = f"{first}{BLOCK_SEPARATOR}{item['text']}", 0

    edit_answer(store, run_id, begun_on_page_1)
    (kept,) = trace(store, run_id, "/floors").fields[0].evidence
    assert kept.span is not None and kept.span.startswith("City Museum annual report")
    assert kept.place == "page 1, paragraph 1 to page 2, paragraph 1", kept.place
    # linked at the sentence holding the value, on page 2, not where the passage begins
    assert kept.link is not None and kept.link.endswith("/report#page=2")
    edit_answer(store, run_id, set_value("/floors", 14))  # said nowhere: its first sentence
    (moved,) = trace(store, run_id, "/floors").fields[0].evidence
    assert moved.link is not None and moved.link.endswith("/report#page=1")


def test_a_file_passage_starting_near_a_block_s_end_is_placed_where_it_starts() -> None:
    """A passage beginning with a block's short last sentence runs on into the next block
    within its first few characters: it is found where it begins, not at the block's start."""
    first = "The survey began in spring. It ended in May."
    blocks = [Block(text, "paragraph", (), 0, 0) for text in (first, "The second block.")]
    starts = block_starts(blocks)
    evidence = "It ended in May." + BLOCK_SEPARATOR + "The second block."
    assert file_span(blocks, starts, 0, evidence) == (28, 28 + len(evidence))
    assert file_span(blocks, starts, 0, "Edited since.") == (0, 13)  # found nowhere: its start


def test_a_run_citing_page_2_of_a_pdf_is_traced_verified_and_replayed_at_page_2(
    paged: tuple[SQLiteStore, str],
) -> None:
    store, run_id = paged
    where = ["--store", str(store.path)]
    (span,) = trace(store, run_id, "/floors").fields[0].evidence
    assert span.place == "page 2, paragraph 1" and span.link is not None
    assert span.link.endswith("/paged#page=2")
    for command in (["trace", run_id, "--verify"], ["replay", run_id]):
        shown = CliRunner().invoke(app, [*command, *where])
        assert shown.exit_code == 0, shown.output
        assert "[E1] It has 312 rooms on 12 floors." in shown.stdout
        assert "/paged#page=2 (page 2, paragraph 1)" in shown.stdout, shown.stdout
        assert "#:~:text=" not in shown.stdout and "#page=1" not in shown.stdout
    as_json = CliRunner().invoke(app, ["trace", run_id, "--verify", "--format", "json", *where])
    body = json.loads(as_json.stdout)
    traced = body["fields"][1]["evidence"][0]
    assert traced["place"] == "page 2, paragraph 1" and traced["link"].endswith("#page=2")
    (sentence,) = body["verification"]["fields"][1]["supporting"]
    assert sentence["place"] == {**dict.fromkeys(["slide", "sheet", "row", "column"]),
                                 "page": 2, "paragraph": 1}  # fmt: skip
    assert sentence["fragment_url"].endswith("/paged#page=2")


def test_trace_names_the_page_a_run_kept_when_its_file_is_no_longer_stored(
    paged: tuple[SQLiteStore, str],
) -> None:
    store, run_id = paged
    with store.transaction() as conn:
        conn.execute("DELETE FROM snapshots")
    (span,) = trace(store, run_id, "/floors").fields[0].evidence
    assert span.span is None and span.place == "page 2, paragraph 1"
    assert span.link is not None and span.link.endswith("/paged#page=2")
    shown = CliRunner().invoke(app, ["trace", run_id, "/floors", "--store", str(store.path)])
    assert "not in the store" in shown.stdout
    assert "page 2, paragraph 1: " in shown.stdout and "/paged#page=2" in shown.stdout


def test_a_run_kept_before_evidence_had_places_still_traces_and_verifies(
    paged: tuple[SQLiteStore, str],
) -> None:
    store, run_id = paged

    def as_kept_before(answer: dict[str, Any]) -> None:
        for item in answer["evidence"]:
            del item["places"]

    edit_answer(store, run_id, as_kept_before)
    (span,) = trace(store, run_id, "/floors").fields[0].evidence  # the stored file names it
    assert span.place == "page 2, paragraph 1" and span.link is not None
    shown = CliRunner().invoke(app, ["trace", run_id, "--verify", "--store", str(store.path)])
    assert shown.exit_code == 0, shown.output
    assert "now: supported" in shown.stdout and "It has 312 rooms on 12 floors." in shown.stdout
    (floors,) = verify_run(store, run_id, "/floors", embedder=HashEmbedder()).fields
    assert floors.status == "supported" and floors.supporting[0].place is None


def test_an_extract_of_a_spreadsheet_keeps_each_cell_s_place_through_json() -> None:
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    url = "https://example.org/sales.xlsx"
    body = sheets_file()
    document = extract_document(Snapshot("s1", url, url, 200, (), kind, None, 0, body))
    log = EvidenceLog()
    item = log.extract(document, "sales by region")
    log.close()
    assert item is not None
    assert item.text.startswith("Sales\n- Region\n- Total\n- Region: North\n- Total: 42")
    assert [item.text[p.start :].split("\n")[0] for p in item.places][:4] == [
        "- Region", "- Total", "- Region: North", "- Total: 42",
    ]  # fmt: skip
    assert places_at(item.places, [item.text.index("42")]) == [
        Place(sheet="Sales", row=2, column=2)
    ]
    assert item.link() == url and item.place is not None and item.place.label().startswith("sheet")
    kept = json.loads(json.dumps(item.to_dict()))
    assert stored_places(kept["places"], len(kept["text"])) == item.places
    assert kept["places"][0] == {"start": 6, "place": {"sheet": "Sales", "row": 1, "column": 1}}


def test_a_run_extracting_a_long_spreadsheet_keeps_its_places_compactly(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    """One place for every four characters: each is stored once, in the answer, with the
    fields it has; the event of the reading records the evidence without them."""
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    serve_bytes(server, "/sales", long_sheet(3_000), kind)
    url = server.url("/sales")
    read = {"action": "extract", "url": url, "intent": "sales"}
    with SQLiteStore(tmp_path / "runs.db") as store:
        answer = scripted_run(store, "List the sales", url, {"first": 0}, read)
        with store.reading() as conn:
            (kept,) = conn.execute("SELECT answer FROM runs").fetchone()
            events = conn.execute("SELECT kind, body FROM run_events").fetchall()
    (item,) = answer.evidence
    assert len(item.text) == EXTRACT_CHARS and len(item.places) == 1_999
    assert item.places[-1].place == Place(sheet="Sales", row=1_000, column=1)
    (evidence,) = json.loads(kept)["evidence"]
    assert stored_places(evidence["places"], len(evidence["text"])) == item.places
    assert len(kept) < 150_000, len(kept)  # 248,087 with each place's empty fields
    (read_event,) = [json.loads(body) for k, body in events if k == "evidence"]
    assert read_event[0]["text"] == item.text and "places" not in read_event[0]
    assert sum(len(body) for _, body in events) < 30_000  # 258,824 with the places


def test_a_stored_run_with_a_flood_of_places_traces_and_verifies_quickly(tmp_path: Path) -> None:
    """A store is read as untrusted: a passage of 100,000 characters kept with 20,000 places
    (and others out of order or past its end), cited by three fields, is traced and graded
    about as fast as without them, each sentence at the place where it begins."""
    text = "".join(f"Hall {n} has twelve floors and a roof. " for n in range(2_600))[:100_000]
    flood = [{"start": n * 5, "place": {"page": n + 1}} for n in range(20_000)]
    back, past = ({"start": at, "place": {"page": 1}} for at in (3, 10**9))
    claim = "Hall 2000 has twelve floors and a roof."
    fields = [{"pointer": f"/f{n}", "value": claim, "evidence_ids": ["E1"]} for n in range(3)]
    item = {"id": "E1", "url": "https://example.org/r.pdf", "kind": "passage", "text": text,
            "snapshot_id": "gone", "source_start": 0, "source_end": 10, "block": 0}  # fmt: skip
    with SQLiteStore(tmp_path / "runs.db") as store:
        took = []
        for places in ([], [*flood[:2], back, *flood[2:], past]):
            runs = runs_in(store)
            run_id = runs.start("Which hall has twelve floors?")
            answer = {"fields": fields, "evidence": [item | {"places": places}]}
            runs.finish(run_id, answer)
            began = time.monotonic()
            traced = trace(store, run_id)
            checked = verify_run(store, run_id, embedder=HashEmbedder())
            took.append(time.monotonic() - began)
    assert took[1] < took[0] + 3, took  # 10 s more when each sentence searched them in turn
    assert {f.evidence[0].place for f in traced.fields} == {"page 1 to page 20000"}
    assert stored_places(answer["evidence"][0]["places"], len(text))[2:4] == (
        TextPlace(10, Place(page=3)), TextPlace(15, Place(page=4)),
    )  # fmt: skip
    sentence = checked.fields[0].supporting[0]
    assert sentence.text == claim and sentence.place == Place(page=text.index(claim) // 5 + 1)
    assert sentence.fragment_url == f"https://example.org/r.pdf#page={sentence.place.page}"
