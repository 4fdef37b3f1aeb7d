"""A stored research run graded again: ``verify_run`` / ``citesift trace --verify`` against
the passages kept in the answer, ``replay_run`` / ``citesift replay`` against the stored pages,
offline. A run is made with a scripted model over a local page, then its stored answer is
altered as a careless edit or a tampering would, and the grading must see it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from citesift import Answer, Embedder, MiniLMEmbedder, SQLiteStore, replay_run, research, verify_run
from citesift.cli import app
from citesift.errors import InvalidArgument
from citesift.index.embedders import CachedEmbedder
from citesift.verify import field_claim
from local_site import serve_page
from openai_server import ScriptedServer, chat_reply, serve_openai
from servers import TEST_IDENTITY, MisbehavingServer, loopback_fetcher

MUSEUM = (
    b"<html><head><title>City Museum</title></head><body><main><h1>City Museum</h1>"
    b"<p>The City Museum opened in 1998. It has 312 rooms on 12 floors.</p>"
    b"<p>Its director is Ada Lovelace-Byron, appointed in 2015.</p>"
    b"</main></body></html>"
)
DATA = {"opened": 1998, "floors": 12, "director": "Ada Lovelace-Byron"}


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return CachedEmbedder(MiniLMEmbedder(), SQLiteStore(":memory:"))


@pytest.fixture
def stored(server: MisbehavingServer, tmp_path: Path) -> Iterator[tuple[SQLiteStore, str]]:
    """A finished run kept in a store: the model reads the museum's page, then answers."""
    serve_page(server, "/museum", MUSEUM)
    museum = server.url("/museum")
    store = SQLiteStore(tmp_path / "runs.db")
    question = "When did the City Museum open, how many floors has it, who directs it?"
    answer = scripted_run(store, question, museum, DATA)
    assert all(f.verified for f in answer.fields)
    yield store, str(answer.run_id)
    store.close()


def scripted_run(
    store: SQLiteStore,
    question: str,
    url: str,
    data: dict[str, Any],
    read: dict[str, Any] | None = None,
) -> Answer:
    """A finished run of ``question``, kept in ``store``: the scripted model reads ``url``
    (scrapes it, or takes the ``read`` action), then answers ``data``, each field citing
    what it read first."""
    sources = {f"/{key}": ["E1"] for key in data}
    read = read or {"action": "scrape", "urls": [url], "query": question}
    replies = [
        chat_reply(json.dumps(read)),
        chat_reply(json.dumps({"action": "finish", "data": data, "sources": sources})),
    ]
    api: ScriptedServer
    with serve_openai() as api:
        api.script("/v1/chat/completions", *replies)
        answer = research(
            question, identity=TEST_IDENTITY, model="scripted", base_url=api.base_url,
            search="none", urls=[url], allow_private=True, fetcher=loopback_fetcher(), store=store,
        )  # fmt: skip
    assert answer.status == "completed" and answer.run_id is not None, answer
    return answer


def edit_answer(store: SQLiteStore, run_id: str, change: Any) -> None:
    """Rewrite the stored answer of ``run_id`` through ``change(answer)``."""
    with store.transaction() as conn:
        (text,) = conn.execute("SELECT answer FROM runs WHERE id = ?", (run_id,)).fetchone()
        answer = json.loads(text)
        change(answer)
        conn.execute("UPDATE runs SET answer = ? WHERE id = ?", (json.dumps(answer), run_id))


def set_value(pointer: str, value: Any) -> Any:
    def change(answer: dict[str, Any]) -> None:
        answer["data"][pointer.strip("/")] = value
        next(f for f in answer["fields"] if f["pointer"] == pointer)["value"] = value

    return change


def test_each_field_of_a_run_is_supported_by_the_sentence_it_came_from(
    stored: tuple[SQLiteStore, str], minilm: Embedder
) -> None:
    store, run_id = stored
    for grade in (verify_run, replay_run):
        checked = grade(store, run_id, embedder=minilm)
        assert checked.run_id == run_id and checked.flagged == ()
        fields = {f.pointer: f for f in checked.fields}
        assert list(fields) == ["/opened", "/floors", "/director"]
        assert fields["/floors"].claim == "floors: 12"
        (sentence,) = fields["/floors"].supporting
        assert sentence.text == "It has 312 rooms on 12 floors." and sentence.evidence_id == "E1"
        assert "#:~:text=" in sentence.fragment_url and sentence.place is None  # a web page
        assert [s.text for s in fields["/opened"].supporting] == ["The City Museum opened in 1998."]
        assert all(f.status == "supported" and f.score > 0.5 for f in fields.values())
    assert replay_run(store, run_id, embedder=minilm).from_snapshots
    (only,) = verify_run(store, run_id[:8], "/director", embedder=minilm).fields
    assert only.pointer == "/director" and "Ada Lovelace-Byron" in only.supporting[0].text


def test_a_stored_value_altered_after_the_run_is_flagged(
    stored: tuple[SQLiteStore, str], minilm: Embedder
) -> None:
    store, run_id = stored
    edit_answer(store, run_id, set_value("/floors", 14))
    for grade in (verify_run, replay_run):
        checked = grade(store, run_id, embedder=minilm)
        assert checked.flagged == ("/floors",)
        floors = next(f for f in checked.fields if f.pointer == "/floors")
        assert floors.verified and floors.status != "supported" and floors.score < 0.5
        assert "14" in floors.reason


def test_replay_reads_the_stored_page_not_the_passage_kept_in_the_answer(
    stored: tuple[SQLiteStore, str], minilm: Embedder
) -> None:
    store, run_id = stored

    def tamper(answer: dict[str, Any]) -> None:
        set_value("/opened", 1989)(answer)
        passage = answer["evidence"][0]
        passage["text"] = passage["text"].replace("1998", "1989")

    edit_answer(store, run_id, tamper)
    assert verify_run(store, run_id, embedder=minilm).flagged == ()  # the kept passage agrees
    replayed = replay_run(store, run_id, embedder=minilm)
    assert replayed.flagged == ("/opened",)  # the page as fetched does not


def test_evidence_whose_page_is_not_stored_cannot_support_a_replay(
    stored: tuple[SQLiteStore, str], minilm: Embedder
) -> None:
    store, run_id = stored
    with store.transaction() as conn:
        conn.execute("DELETE FROM snapshots")
    replayed = replay_run(store, run_id, embedder=minilm)
    assert {f.status for f in replayed.fields} == {"source unavailable"}
    assert all(f.supporting == () and f.score == 0.0 for f in replayed.fields)
    shown = replayed.as_json()  # as replay --format json prints it: the check's status name
    assert {f["status"] for f in shown["fields"]} == {"unavailable"}
    assert shown["flagged"] == list(replayed.flagged)
    assert verify_run(store, run_id, embedder=minilm).flagged == ()


TOWER = (
    b"<html><head><title>Town Tower</title></head><body><main><h1>Town Tower</h1>"
    b"<p>The Town Tower was finished in 1887. It stands 42 metres tall.</p>"
    b"<p>The tower club has 42 members.</p></main></body></html>"
)


def test_a_field_whose_name_the_page_never_writes_is_supported_by_its_value(
    server: MisbehavingServer, tmp_path: Path, minilm: Embedder
) -> None:
    serve_page(server, "/tower", TOWER)
    with SQLiteStore(tmp_path / "runs.db") as store:
        data = {"height": 42, "completed": 1887.0}
        answer = scripted_run(store, "How tall is the Town Tower?", server.url("/tower"), data)
        run_id = str(answer.run_id)
        for grade in (verify_run, replay_run):
            fields = {f.pointer: f for f in grade(store, run_id, embedder=minilm).fields}
            height = fields["/height"]
            assert height.claim == "height: 42" and height.status == "supported", height
            assert [s.text for s in height.supporting] == ["It stands 42 metres tall."]
            assert fields["/completed"].status == "supported", fields["/completed"]
        edit_answer(store, run_id, set_value("/height", 43))
        for grade in (verify_run, replay_run):
            (height,) = grade(store, run_id, "/height", embedder=minilm).fields
            assert height.status == "not_supported" and "not found: 43" in height.reason


def test_an_unknown_run_or_pointer_is_refused(stored: tuple[SQLiteStore, str]) -> None:
    store, run_id = stored
    with pytest.raises(InvalidArgument, match="run"):
        replay_run(store, "0123456789abcdef0")
    with pytest.raises(InvalidArgument, match="pointer"):
        verify_run(store, run_id, "/rooms")


@pytest.mark.parametrize(
    ("pointer", "value", "claim"),
    [
        ("/opened_in", 1998, "opened in: 1998"),
        ("/museum/openedIn", 1998.0, "opened in: 1998"),
        ("/items/0", "Tuesday", "Tuesday"),
        ("/free", True, "free: yes"),
        ("/0/text", "The museum opened in 1998 with ten rooms.", "The museum opened in 1998 with"
         " ten rooms."),
    ],
)  # fmt: skip
def test_a_field_reads_as_its_name_and_value(pointer: str, value: Any, claim: str) -> None:
    assert field_claim(pointer, value) == claim


def test_trace_verify_and_replay_on_the_command_line(stored: tuple[SQLiteStore, str]) -> None:
    store, run_id = stored
    where = ["--store", str(store.path)]
    traced = CliRunner().invoke(app, ["trace", run_id, "/floors", "--verify", *where])
    assert traced.exit_code == 0, traced.output
    assert "/floors = 12 (verified)" in traced.stdout
    assert (
        "now: supported" in traced.stdout and "[E1] It has 312 rooms on 12 floors." in traced.stdout
    )
    plain = CliRunner().invoke(app, ["trace", run_id, "/floors", *where])
    assert "now:" not in plain.stdout
    replayed = CliRunner().invoke(app, ["replay", run_id, *where])
    assert replayed.exit_code == 0, replayed.output
    assert "Every field is supported." in replayed.stdout
    for shown in (traced, replayed):  # a sentence of a web page is linked by its text
        assert "#:~:text=" in shown.stdout and "#page=" not in shown.stdout
    edit_answer(store, run_id, set_value("/floors", 14))
    flagged = CliRunner().invoke(app, ["replay", run_id, "--format", "json", *where])
    assert flagged.exit_code == 1
    body = json.loads(flagged.stdout)
    assert body["flagged"] == ["/floors"] and body["from_snapshots"] is True
    as_json = CliRunner().invoke(app, ["trace", run_id, "--verify", "--format", "json", *where])
    assert as_json.exit_code == 1  # as replay: a field not supported now fails the check
    verification = json.loads(as_json.stdout)["verification"]
    assert [f["status"] for f in verification["fields"]][1] != "supported"
    as_text = CliRunner().invoke(app, ["trace", run_id, "--verify", *where])
    assert as_text.exit_code == 1 and "now: " in as_text.stdout
    unchecked = CliRunner().invoke(app, ["trace", run_id, *where])
    assert unchecked.exit_code == 0, unchecked.output  # tracing alone grades nothing
    missing = CliRunner().invoke(app, ["replay", "ffffffffffffffff", *where])
    assert missing.exit_code == 1 and "a stored run" in missing.stderr


def test_a_run_kept_before_evidence_had_places_still_traces(
    stored: tuple[SQLiteStore, str],
) -> None:
    store, run_id = stored
    kept = json.loads(
        CliRunner()
        .invoke(app, ["trace", run_id, "--format", "json", "--store", str(store.path)])
        .stdout
    )

    def as_kept_before(answer: dict[str, Any]) -> None:
        for item in answer["evidence"]:
            assert item.pop("places") == []  # a web page's evidence has none
        answer["evidence"][0]["places"] = [{"start": "0", "place": "page 2"}]  # nor this

    edit_answer(store, run_id, as_kept_before)
    shown = CliRunner().invoke(
        app, ["trace", run_id, "--verify", "--format", "json", "--store", str(store.path)]
    )
    assert shown.exit_code == 0, shown.output
    body = json.loads(shown.stdout)
    assert body["fields"] == kept["fields"]
    assert {f["status"] for f in body["verification"]["fields"]} == {"supported"}
