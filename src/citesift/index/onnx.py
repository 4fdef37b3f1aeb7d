"""Local ONNX models: files checked against their pinned sums, tokenizers, CPU sessions."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path
from typing import Any

from citesift.errors import ModelError


class ModelFileError(ModelError, RuntimeError):
    """A model or tokenizer file is missing or does not match its pinned checksum."""


def verified(path: Path, sha256: str) -> Path:
    """``path`` if its content hashes to ``sha256``, else ``ModelFileError``."""
    if not path.is_file():
        raise ModelFileError(f"model file missing: {path}")
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != sha256:
        raise ModelFileError(f"checksum mismatch for {path}: expected sha256 {sha256}")
    return path


def padded_tokenizer(path: Path, max_tokens: int) -> Any:
    """The ``tokenizer.json`` at ``path``, truncating at ``max_tokens`` and padding a batch
    to its longest input with ``[PAD]``."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.enable_padding(pad_id=tokenizer.token_to_id("[PAD]") or 0, pad_token="[PAD]")
    return tokenizer


def cpu_session(path: Path, threads: int) -> Any:
    """A CPU onnxruntime session on ``path`` with ``threads`` intra-op threads."""
    ort = _runtime()
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@cache
def _runtime() -> Any:
    """onnxruntime, imported once, its default logger set to errors only and its telemetry
    off unless ``ORT_DISABLE_TELEMETRY`` is set (at import it writes a device id under
    HOME, and logs its own coloured warning where it cannot: a local tool sends nothing)."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    ort.set_default_logger_severity(3)
    return ort
