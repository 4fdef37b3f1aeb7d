"""``citesift verify``: the command line over verify_claim and CitationVerifier."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.verify.judges.judge_model import MODEL_FILE
from openai_server import ScriptedServer, chat_reply, serve_openai

runner = CliRunner()
SENTENCES = (
    "Mozilla officially sponsored the Rust project in 2009.\n"
    "The Rust logo was developed in 2011 based on a bicycle chainring.\n"
    "\n"
    "Graydon Hoare stepped down from Rust in 2013.\n"
)


@pytest.fixture
def sentences(tmp_path: Path) -> Path:
    path = tmp_path / "sentences.txt"
    path.write_text(SENTENCES, encoding="utf-8")
    return path


def test_a_supported_claim_prints_its_sentence(sentences: Path) -> None:
    result = runner.invoke(
        app, ["verify", "claim", "In 2013, Graydon Hoare stepped down from Rust.", str(sentences)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("supported (score ")
    assert "  [2] Graydon Hoare stepped down from Rust in 2013." in result.stdout


def test_json_mirrors_the_claim_check(sentences: Path) -> None:
    result = runner.invoke(
        app,
        ["verify", "claim", "The Rust logo was drawn in 2014.", "-", "--format", "json"],
        input=SENTENCES,
    )
    assert result.exit_code == 1, result.output  # not supported: a failure, as check's
    check = json.loads(result.stdout)
    assert set(check) == {"label", "supporting", "score", "reason", "abstained"}
    assert check["label"] != "supported" and "2014" in check["reason"]
    assert check["abstained"] is False


def test_what_a_claim_is_about_finds_its_sentence_but_need_not_be_repeated() -> None:
    lines = "The tower was finished in 1887.\nIt stands 42 metres tall.\nIts club has 42 members.\n"
    args = ["verify", "claim", "42", "-", "--about", "height"]
    result = runner.invoke(app, args, input=lines)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("supported (score ")
    assert result.stdout.splitlines()[1:] == ["  [1] It stands 42 metres tall."]
    wrong = runner.invoke(app, ["verify", "claim", "43", "-", "--about", "height"], input=lines)
    assert wrong.stdout.startswith("not_supported") and "not found: 43" in wrong.stdout
    assert wrong.exit_code == 1
    named = runner.invoke(app, ["verify", "claim", "weight: 42", "-"], input=lines)
    assert not named.stdout.startswith("supported")  # written in the claim, a word is a fact
    assert named.exit_code == 1
    synonym = runner.invoke(app, ["verify", "claim", "height: 42", "-"], input=lines)
    # height is matched by tall by one MiniLM word cosine just past the bar: that alone finds
    # the sentence, and a word matched by meaning backs a claim in part, never in full
    assert synonym.stdout.startswith("partially_supported")
    assert synonym.stdout.splitlines()[1:] == ["  [1] It stands 42 metres tall."]


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai() as server:
        yield server


def test_the_llm_judge_is_asked_when_named(sentences: Path, api: ScriptedServer) -> None:
    verdict = {"label": "supported", "supporting": [0], "score": 0.95, "reason": "it says so"}
    api.script("/v1/chat/completions", chat_reply(json.dumps(verdict)))
    result = runner.invoke(
        app,
        [
            "verify",
            "claim",
            "Mozilla sponsored Rust in 2009.",
            str(sentences),
            "--judge",
            "llm",
            "--llm-url",
            api.base_url,
            "--llm-model",
            "m",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["supporting"] == [0]
    assert len(api.received("/v1/chat/completions")) == 1


def llm_claim(sentences: Path, api: ScriptedServer, *extra: str) -> list[str]:
    claim = "Mozilla sponsored Rust in 2009."
    given = ["--judge", "llm", "--llm-url", api.base_url, "--llm-model", "m"]
    return ["verify", "claim", claim, str(sentences), *given, *extra]


def test_an_llm_reply_that_cannot_be_read_is_said_to_be_an_abstention(
    sentences: Path, api: ScriptedServer
) -> None:
    api.script("/v1/chat/completions", chat_reply("Sure! It is supported."))
    text = runner.invoke(app, llm_claim(sentences, api))
    assert text.exit_code == 1, text.output
    assert (
        text.stdout
        == "not_supported, abstained (score 0.00): the judge's answer could not be read\n"
    )
    api.script("/v1/chat/completions", chat_reply("Sure! It is supported."))
    as_json = runner.invoke(app, llm_claim(sentences, api, "--format", "json"))
    assert as_json.exit_code == 1, as_json.output
    answer = json.loads(as_json.stdout)
    assert (answer["label"], answer["abstained"]) == ("not_supported", True)
    described = runner.invoke(app, ["verify", "claim", "--help"]).stdout
    assert "Exits 1 unless supported" in " ".join(described.split())


def test_the_trained_judge_reads_the_model_file_named(sentences: Path, tmp_path: Path) -> None:
    model = tmp_path / "judge.json"
    model.write_text(
        files("citesift.verify.judges").joinpath(MODEL_FILE).read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    claim = "In 2013, Graydon Hoare stepped down from Rust."
    args = ["verify", "claim", claim, str(sentences), "--judge", "trained", "--format", "json"]
    result = runner.invoke(app, [*args, "--judge-model", str(model)])
    assert result.exit_code == 0, result.output
    assert 2 in json.loads(result.stdout)["supporting"]
    model.write_text("{}", encoding="utf-8")
    refused = runner.invoke(app, [*args, "--judge-model", str(model)])
    assert refused.exit_code == EXIT_USAGE and "judge model" in refused.stderr


@pytest.mark.parametrize(
    "extra",
    [["--judge", "llm"], ["--llm-model", "m"], ["--judge-model", "m.json"]],
)
def test_options_that_do_not_go_together_are_usage_errors(
    sentences: Path, extra: list[str]
) -> None:
    result = runner.invoke(app, ["verify", "claim", "A claim.", str(sentences), *extra])
    assert result.exit_code == EXIT_USAGE


def test_an_answer_is_graded_against_sources(tmp_path: Path) -> None:
    sources = tmp_path / "sources.json"
    sources.write_text(
        json.dumps(
            [
                {"content": "The Eiffel Tower in Paris was finished in 1889.", "url": "https://e/"},
                {"content": "Honey bees live in colonies ruled by a queen.", "url": "https://b/"},
            ]
        ),
        encoding="utf-8",
    )
    answer = "The Eiffel Tower was completed in 1889. Quarterly bond yields fell sharply."
    result = runner.invoke(
        app, ["verify", "answer", "-", str(sources), "--format", "json"], input=answer
    )
    assert result.exit_code == 0, result.output
    response = json.loads(result.stdout)
    assert [c["verdict"] for c in response["claims"]] == ["supported", "unverifiable"]
    assert response["claims"][0]["source_ref"] == "https://e/"
    text = runner.invoke(app, ["verify", "answer", "-", str(sources)], input=answer)
    assert text.stdout.rstrip().endswith("1/2 claims verified (50%)")


@pytest.mark.parametrize(
    ("listed", "said"),
    [
        ({"content": "x"}, "expected a JSON list of sources"),
        (["a bare string"], "a source must be"),
        ([{"content": 5}], "a source's content must be a string"),
        ([{"content": "x", "url": ["u"]}], "a source's url must be a string or None"),
    ],
)
def test_sources_that_are_not_a_json_list_of_sources_are_a_usage_error(
    tmp_path: Path, listed: object, said: str
) -> None:
    sources = tmp_path / "sources.json"
    sources.write_text(json.dumps(listed), encoding="utf-8")
    result = runner.invoke(app, ["verify", "answer", "-", str(sources)], input="Some claim here.")
    assert result.exit_code == EXIT_USAGE and said in result.stderr, result.output


def test_an_answer_stating_another_date_than_its_source_is_contradicted(tmp_path: Path) -> None:
    sources = tmp_path / "sources.json"
    content = (
        "Mozilla officially sponsored the Rust project in 2009. "
        "The first stable release, Rust 1.0, was published on May 15, 2015."
    )
    sources.write_text(json.dumps([{"content": content, "url": "https://r/"}]), encoding="utf-8")
    answer = (
        "Mozilla sponsored Rust in 2011. Mozilla never sponsored Rust. "
        "Rust 1.0 was published on May 15, 2019. Rust 1.0 was published in May 2015."
    )
    args = ["verify", "answer", "-", str(sources), "--format", "json"]
    result = runner.invoke(app, args, input=answer)
    assert result.exit_code == 1, result.output
    response = json.loads(result.stdout)
    verdicts = ["contradicted"] * 3 + ["supported"]
    assert [c["verdict"] for c in response["claims"]] == verdicts
    assert response["overall_grounded"] is False
    cosine = runner.invoke(app, [*args, "--nli", "none"], input=answer)
    assert cosine.exit_code == 0, cosine.output
    assert {c["verdict"] for c in json.loads(cosine.stdout)["claims"]} == {"supported"}
