"""The optional cross-encoder reranker: a real ONNX model on onnxruntime, and clear refusals."""

from __future__ import annotations

import builtins
import copy
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer
from typer.testing import CliRunner

from citesift.cli import app
from citesift.cli.options import EXIT_USAGE
from citesift.index.embedders.minilm import tokenizer_path
from citesift.index.rerankers.base import rerank_checked
from citesift.index.rerankers.by_name import reranker_by_name
from citesift.index.rerankers.cross_encoder import (
    INSTALL_HINT,
    CrossEncoderError,
    CrossEncoderReranker,
)
from citesift.model import Match

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

HITS = [
    Match("short", None, "Aspirin.", {"n": 1}),
    Match("long", None, "Aspirin lowers the risk of a second heart attack in adults.", {"n": 2}),
    Match("mid", None, "Aspirin thins the blood.", {"n": 3}),
]


def document_length_model(path: Path, inputs: tuple[str, ...], outputs: int = 1) -> None:
    """A tiny cross-encoder whose logit is the number of unmasked second-segment tokens."""
    shape = ["batch", "sequence"]
    graph_inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, shape) for n in inputs]
    segment = "token_type_ids" if "token_type_ids" in inputs else "attention_mask"
    nodes = [
        helper.make_node("Mul", [segment, "attention_mask"], ["kept"]),
        helper.make_node("Cast", ["kept"], ["kept_f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["kept_f", "axes"], ["sum"], keepdims=1),
        helper.make_node("Tile", ["sum", "repeats"], ["logits"]),
    ]
    constants = [
        helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
        helper.make_tensor("repeats", TensorProto.INT64, [2], [1, outputs]),
    ]
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", outputs])
    graph = helper.make_graph(nodes, "length", graph_inputs, [logits], initializer=constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path / "model.onnx"))
    shutil.copy(tokenizer_path(), path / "tokenizer.json")


def _document_tokens(text: str) -> int:
    tokenizer = Tokenizer.from_file(str(tokenizer_path()))
    tokenizer.no_padding()
    return len(tokenizer.encode(text, add_special_tokens=False))


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    document_length_model(tmp_path / "ce", ("input_ids", "attention_mask", "token_type_ids"))
    return tmp_path / "ce"


def test_an_onnx_cross_encoder_rescores_and_reorders(model_dir: Path) -> None:
    before = copy.deepcopy(HITS)
    out = CrossEncoderReranker(model_dir, threads=1).rerank("aspirin", HITS, 3)
    assert [h.id for h in out] == ["long", "mid", "short"]
    assert [h.score for h in out] == [_document_tokens(h.content) + 1 for h in out]
    assert before == HITS and out[0].metadata is not HITS[1].metadata


def test_batches_give_the_same_scores(model_dir: Path) -> None:
    one = CrossEncoderReranker(model_dir, batch_size=1).rerank("q", HITS, 3)
    many = CrossEncoderReranker(model_dir, batch_size=64).rerank("q", HITS, 3)
    assert one == many


def test_pairs_are_cut_at_max_tokens(model_dir: Path) -> None:
    hits = [Match("huge", None, "word " * 2_000_000)]  # 10 MB: cut before tokenizing
    (out,) = CrossEncoderReranker(model_dir, max_tokens=64).rerank("query", hits, 1)
    assert 0 < out.score <= 64


def test_top_k_and_no_hits(model_dir: Path) -> None:
    reranker = CrossEncoderReranker(model_dir)
    assert [h.id for h in reranker.rerank("q", HITS, 1)] == ["long"]
    assert reranker.rerank("q", [], 5) == []
    assert len(rerank_checked(reranker, "q", list(HITS), 2)) == 2


def test_a_model_without_token_type_ids_is_fed_what_it_declares(tmp_path: Path) -> None:
    document_length_model(tmp_path / "m", ("input_ids", "attention_mask"))
    out = CrossEncoderReranker(tmp_path / "m").rerank("q", HITS, 3)
    assert [h.id for h in out] == ["long", "mid", "short"]


def test_a_model_with_two_logits_is_refused(tmp_path: Path) -> None:
    document_length_model(tmp_path / "m", ("input_ids", "attention_mask"), outputs=2)
    with pytest.raises(CrossEncoderError, match="one relevance logit"):
        CrossEncoderReranker(tmp_path / "m").rerank("q", HITS, 3)


def test_a_missing_tokenizer_is_refused(model_dir: Path) -> None:
    (model_dir / "tokenizer.json").unlink()
    with pytest.raises(CrossEncoderError, match=r"tokenizer\.json"):
        CrossEncoderReranker(model_dir)


def test_a_model_name_is_not_downloaded_unless_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # should the guard ever fail, still no download
    with pytest.raises(CrossEncoderError, match="allow_download=True"):
        CrossEncoderReranker(tmp_path / "not-here")
    with pytest.raises(CrossEncoderError, match="allow_download=True"):
        CrossEncoderReranker("some-org/some-cross-encoder")


def test_missing_sentence_transformers_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def without_it(name: str, *args: object, **kwargs: object) -> object:
        if name.split(".")[0] == "sentence_transformers":
            raise ImportError("No module named 'sentence_transformers'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_it)
    with pytest.raises(CrossEncoderError, match=re.escape(INSTALL_HINT)):
        CrossEncoderReranker(tmp_path)  # a directory, but no ONNX export in it
    searched = CliRunner().invoke(
        app, ["search", "tides", "--rerank", "cross-encoder", "--rerank-model", str(tmp_path)]
    )
    assert searched.exit_code == EXIT_USAGE, searched.output  # as any extra not installed
    [line] = searched.stderr.splitlines()
    assert line.startswith("error: "), line
    assert INSTALL_HINT in searched.stderr and "Traceback" not in searched.output


def test_scores_are_plain_floats(model_dir: Path) -> None:
    out = CrossEncoderReranker(model_dir).rerank("q", HITS, 3)
    assert all(type(h.score) is float and np.isfinite(h.score) for h in out)


def test_a_cross_encoder_by_name_from_a_local_directory(model_dir: Path) -> None:
    reranker = reranker_by_name("cross-encoder", model=model_dir)
    assert [h.id for h in reranker.rerank("aspirin", HITS, 3)] == ["long", "mid", "short"]
