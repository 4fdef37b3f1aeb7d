"""load_nli: a user's NLI cross-encoder (here a tiny real ONNX model) read as label
probabilities in the order its config.json names, and judging through NLIJudge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from citesift import NLIJudge, load_nli, verify_claim
from citesift.index import CrossEncoderError
from citesift.index.embedders.minilm import tokenizer_path

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

ORDER = ["contradiction", "entailment", "neutral"]


def hypothesis_length_model(path: Path, labels: list[str]) -> Path:
    """Three logits: the hypothesis's token count times (-1, 1, 0), so the second label
    grows surer as the hypothesis grows longer."""
    shape = ["batch", "sequence"]
    inputs = [
        helper.make_tensor_value_info(n, TensorProto.INT64, shape)
        for n in ("input_ids", "attention_mask", "token_type_ids")
    ]
    nodes = [
        helper.make_node("Mul", ["token_type_ids", "attention_mask"], ["kept"]),
        helper.make_node("Cast", ["kept"], ["kept_f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceSum", ["kept_f", "axes"], ["sum"], keepdims=1),
        helper.make_node("Mul", ["sum", "weights"], ["logits"]),
    ]
    constants = [
        helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
        helper.make_tensor("weights", TensorProto.FLOAT, [1, 3], [-1.0, 1.0, 0.0]),
    ]
    logits = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])
    graph = helper.make_graph(nodes, "nli", inputs, [logits], initializer=constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path / "model.onnx"))
    shutil.copy(tokenizer_path(), path / "tokenizer.json")
    id2label = {str(i): name.upper() for i, name in enumerate(labels)}
    (path / "config.json").write_text(json.dumps({"id2label": id2label}), encoding="utf-8")
    return path


def test_probabilities_follow_the_configured_label_order(tmp_path: Path) -> None:
    nli = load_nli(hypothesis_length_model(tmp_path / "m", ORDER), threads=1)
    answer = nli("The sky is blue.", "The sky is blue today.")
    assert set(answer) == set(ORDER)
    assert sum(answer.values()) == pytest.approx(1.0)
    assert answer["entailment"] > 0.99
    swapped = load_nli(
        hypothesis_length_model(tmp_path / "s", ["entailment", "contradiction", "neutral"])
    )
    assert swapped("The sky is blue.", "The sky is blue today.")["contradiction"] > 0.99


def test_the_judge_reads_the_model(tmp_path: Path) -> None:
    sentences = ["The sky is blue.", "Grass grows."]
    entails = NLIJudge(load_nli(hypothesis_length_model(tmp_path / "m", ORDER)))
    check = verify_claim("The sky is blue today.", sentences, entails, embedder=None, top=1)
    assert check.label == "supported" and check.supporting == (0,)
    order = ["entailment", "contradiction", "neutral"]
    contradicts = NLIJudge(load_nli(hypothesis_length_model(tmp_path / "c", order)))
    rejected = verify_claim("The sky is blue today.", sentences, contradicts, top=1)
    assert (rejected.label, rejected.supporting) == ("not_supported", ())
    assert "contradicts" in rejected.reason


def test_a_model_without_labels_or_a_missing_one_is_refused(tmp_path: Path) -> None:
    path = hypothesis_length_model(tmp_path / "m", ORDER)
    (path / "config.json").unlink()
    with pytest.raises(CrossEncoderError, match="id2label"):
        load_nli(path)
    assert load_nli(path, labels=ORDER)("a", "b c")["entailment"] > 0.5
    with pytest.raises(CrossEncoderError, match="no NLI model"):
        load_nli(tmp_path / "nowhere")
    with pytest.raises(CrossEncoderError, match="entailment"):
        load_nli(path, labels=["yes", "no", "maybe"])
