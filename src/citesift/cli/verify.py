"""``citesift verify``: a claim graded against a source's sentences (``verify_claim``), and an
answer's claims graded against sources (``CitationVerifier``)."""

from __future__ import annotations

import dataclasses
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from citesift.cli.app import group
from citesift.cli.options import usage_error
from citesift.cli.reading import EXIT_FAILED
from citesift.cli.terminal import safe_json, say
from citesift.errors import InvalidArgument
from citesift.index.embedders import CachedEmbedder, default_embedder
from citesift.sources.files import MAX_FILE_BYTES, FileRefused, file_bytes, file_text
from citesift.store import SQLiteStore
from citesift.verify import (
    CitationSource,
    CitationVerifier,
    FactContradiction,
    Judge,
    LLMJudge,
    OfflineJudge,
    TrainedJudge,
    format_verified_response,
    verify_claim,
)
from citesift.verify.candidates import DEFAULT_TOP
from citesift.verify.judges.judge_model import ModelFileError
from citesift.verify.verifier import citation_source

verify_app = group("verify", "Grade claims against the sentences of their sources.")


class JudgeName(StrEnum):
    """Which judge decides a claim."""

    offline = "offline"
    trained = "trained"
    llm = "llm"


class NliName(StrEnum):
    """What turns a supported claim whose source states otherwise into a contradicted one."""

    offline = "offline"
    none = "none"


class Format(StrEnum):
    """How a verdict is printed."""

    text = "text"
    json = "json"


Output = Annotated[Format, typer.Option("--format", help="text for people, json for machines.")]


@verify_app.command("claim")
def claim(
    claim: Annotated[str, typer.Argument(metavar="CLAIM", help="The claim to check.")],
    sentences: Annotated[
        str,
        typer.Argument(metavar="SENTENCES", help="A file of sentences, one a line; - reads stdin."),
    ],
    judge: Annotated[JudgeName, typer.Option(help="Who decides.")] = JudgeName.offline,
    judge_model: Annotated[
        Path | None,
        typer.Option(help="The trained judge's model file (train/verify_judge.py writes one)."),
    ] = None,
    llm_url: Annotated[
        str | None, typer.Option(help="The OpenAI-compatible API of the LLM judge.")
    ] = None,
    llm_model: Annotated[str | None, typer.Option(help="The LLM judge's chat model.")] = None,
    top: Annotated[int, typer.Option(min=1, max=100, help="Candidate sentences read.")] = (
        DEFAULT_TOP
    ),
    about: Annotated[
        str,
        typer.Option(
            help="What CLAIM is about, as a field's name (--about height for 42): it finds"
            " the sentences, but they need not repeat it."
        ),
    ] = "",
    output: Output = Format.text,
) -> None:
    """How well SENTENCES support CLAIM: supported, partially_supported or not_supported,
    with the supporting sentences (numbered from 0). Exits 1 unless supported (also when
    the judge abstains: gives no verdict that can be read)."""
    lines = [line.strip() for line in _read(sentences).splitlines()]
    listed = [line for line in lines if line]
    with Console(stderr=True).status("Checking the claim…"):
        decides = _judge(judge, judge_model, llm_url, llm_model)
        check = verify_claim(claim, listed, decides, top=top, about=about)
    if output is Format.json:
        say(safe_json(dataclasses.asdict(check), indent=2))
    else:
        abstained = ", abstained" if check.abstained else ""
        say(f"{check.label}{abstained} (score {check.score:.2f}): {check.reason}")
        for i in check.supporting:
            say(f"  [{i}] {listed[i]}")
    if check.label != "supported":
        raise typer.Exit(EXIT_FAILED)


@verify_app.command("answer")
def answer(
    text: Annotated[
        str, typer.Argument(metavar="TEXT", help="The answer's text file; - reads stdin.")
    ],
    sources: Annotated[
        Path, typer.Argument(metavar="SOURCES", help="A JSON list of {content, title, url}.")
    ],
    support_threshold: Annotated[float, typer.Option(help="Cosine that supports.")] = 0.6,
    unverifiable_threshold: Annotated[
        float, typer.Option(help="Cosine below which no source.")
    ] = 0.3,
    nli: Annotated[
        NliName,
        typer.Option(
            help="offline: a supported claim whose source states another number or date, "
            "or the opposite, is contradicted; none: the cosine alone decides."
        ),
    ] = NliName.offline,
    output: Output = Format.text,
) -> None:
    """Each claim of TEXT graded by its closest source in SOURCES (embedding cosine), a
    supported one checked against that source's facts; exit 1 when a claim is contradicted."""
    listed = _sources(sources)
    with Console(stderr=True).status("Grading the claims…"), SQLiteStore(":memory:") as vectors:
        embedder = CachedEmbedder(default_embedder(), vectors)  # a source's sentences once
        checker = FactContradiction(embedder) if nli is NliName.offline else None
        verifier = CitationVerifier(
            embedder, support_threshold, unverifiable_threshold, nli=checker
        )
        response = verifier.verify(_read(text), listed)
    if output is Format.json:
        say(safe_json(dataclasses.asdict(response), indent=2))
    else:
        for verdict in response.claims:
            where = f" [{verdict.source_index}]" if verdict.source_index is not None else ""
            say(f"{verdict.verdict:12} {verdict.confidence:.2f}{where}  {verdict.text}")
        say(format_verified_response(response))
    if not response.overall_grounded:
        raise typer.Exit(EXIT_FAILED)


def _judge(name: JudgeName, path: Path | None, url: str | None, model: str | None) -> Judge:
    if path and name is not JudgeName.trained:
        usage_error("--judge-model goes with --judge trained")
    if name is not JudgeName.llm:
        if url or model:
            usage_error("--llm-url and --llm-model go with --judge llm")
        return OfflineJudge() if name is JudgeName.offline else _trained(path)
    if not (url and model):
        usage_error("--judge llm needs --llm-url and --llm-model")
    return LLMJudge(url, model)


def _trained(path: Path | None) -> Judge:
    try:
        return TrainedJudge(path)
    except ModelFileError as refusal:
        usage_error(str(refusal))


def _read(name: str) -> str:
    """A text file's (or standard input's) text, checked as the other commands do."""
    try:
        if name == "-":
            return file_text(sys.stdin.buffer.read(MAX_FILE_BYTES + 1))
        return file_text(file_bytes(Path(name)))
    except FileRefused as refusal:
        usage_error(f"{'standard input' if name == '-' else name}: {refusal}")


def _sources(path: Path) -> list[CitationSource]:
    """The sources a JSON file lists; a file that is no list of them is a usage error."""
    try:
        listed = json.loads(_read(str(path)))
    except ValueError:
        usage_error(f"{path}: not JSON")
    if not isinstance(listed, list):
        usage_error(f"{path}: expected a JSON list of sources")
    try:
        return [citation_source(item) for item in listed]
    except InvalidArgument as refusal:
        usage_error(f"{path}: {refusal}")
