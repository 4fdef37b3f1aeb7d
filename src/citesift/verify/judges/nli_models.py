"""An NLI cross-encoder the user has, as the function ``NLIJudge`` asks: an ONNX export run
on onnxruntime, or any model through sentence-transformers (the ``cross-encoder`` extra).

No NLI model ships its weights in a package, so none is bundled and nothing is downloaded
unless a model is named that is not a local path *and* ``allow_download=True`` is passed.
The labels come from the model's ``config.json`` (``id2label``) unless given.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from citesift.index.onnx import cpu_session, padded_tokenizer
from citesift.index.rerankers.cross_encoder import (
    INSTALL_HINT,
    ONNX_FILES,
    ONNX_INPUTS,
    CrossEncoderError,
)

DEFAULT_MAX_TOKENS = 512
Logits = Callable[[str, str], np.ndarray]


def load_nli(
    model: str | Path,
    *,
    labels: Sequence[str] | None = None,
    allow_download: bool = False,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    threads: int | None = None,
) -> Callable[[str, str], dict[str, float]]:
    """``nli(premise, hypothesis)`` answering each label's probability, from the model at
    ``model`` (a directory with ``model.onnx`` and ``tokenizer.json``, or one
    sentence-transformers reads)."""
    path = Path(model).expanduser()
    if not path.exists() and not allow_download:
        raise CrossEncoderError(
            f"no NLI model at {str(model)!r}: pass a local directory, or allow_download=True"
        )
    names = [n.lower() for n in labels] if labels is not None else _config_labels(path)
    if "entailment" not in names:
        raise CrossEncoderError(f"the NLI model's labels {names} have no 'entailment'")
    onnx_file = next((path / f for f in ONNX_FILES if (path / f).is_file()), None)
    if onnx_file is not None:
        logits = _onnx_logits(onnx_file, path / "tokenizer.json", max_tokens, threads)
    else:
        logits = _sentence_transformers_logits(str(model), not allow_download, max_tokens)

    def nli(premise: str, hypothesis: str) -> dict[str, float]:
        raw = np.asarray(logits(premise, hypothesis), dtype=np.float64).reshape(-1)
        if raw.shape != (len(names),) or not np.isfinite(raw).all():
            raise CrossEncoderError(f"expected {len(names)} finite logits, got {raw.shape}")
        odds = np.exp(raw - raw.max())
        return {name: float(p) for name, p in zip(names, odds / odds.sum(), strict=True)}

    return nli


def _config_labels(path: Path) -> list[str]:
    """The labels in order from ``config.json``'s ``id2label`` (a model fetched by name
    needs ``labels`` given, as nothing is read before it is fetched)."""
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
        id2label = config["id2label"]
        return [str(id2label[str(i)]).lower() for i in range(len(id2label))]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CrossEncoderError(
            f"no id2label in {path / 'config.json'}: pass labels=[...] in the model's order"
        ) from exc


def _onnx_logits(
    model_file: Path, tokenizer_file: Path, max_tokens: int, threads: int | None
) -> Logits:
    if not tokenizer_file.is_file():
        raise CrossEncoderError(f"no tokenizer.json beside {model_file}")
    tokenizer = padded_tokenizer(tokenizer_file, max_tokens)
    session = cpu_session(model_file, threads or os.cpu_count() or 1)
    inputs = [i.name for i in session.get_inputs() if i.name in ONNX_INPUTS]

    def logits(premise: str, hypothesis: str) -> np.ndarray:
        encoding = tokenizer.encode(premise, hypothesis)
        columns = {
            "input_ids": encoding.ids,
            "attention_mask": encoding.attention_mask,
            "token_type_ids": encoding.type_ids,
        }
        feed = {name: np.array([columns[name]], dtype=np.int64) for name in inputs}
        out: np.ndarray = np.asarray(session.run(None, feed)[0])
        return out

    return logits


def _sentence_transformers_logits(model: str, local_only: bool, max_tokens: int) -> Logits:
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as exc:
        raise ImportError(f"this NLI model needs sentence-transformers: {INSTALL_HINT}") from exc
    encoder = CrossEncoder(model, device="cpu", max_length=max_tokens, local_files_only=local_only)

    def logits(premise: str, hypothesis: str) -> np.ndarray:
        out: np.ndarray = np.asarray(
            encoder.predict([(premise, hypothesis)], convert_to_numpy=True, show_progress_bar=False)
        )
        return out

    return logits
