"""The trained judge's model, a JSON file (no pickle): a multinomial
logistic regression over the features of ``features.NAMES``, standardised, and a Platt
scaling that turns its belief in ``supported`` into a calibrated 0–1 score. The one shipped
beside this module is trained by ``train/verify_judge.py`` on claims built from Wikipedia
articles (CC BY-SA), never on the benchmark's claims; that script says how, and trains one
on your own claims as well."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from citesift.errors import ModelError
from citesift.verify.judges.base import LABELS, Label
from citesift.verify.judges.features import NAMES

MODEL_FILE = "offline_judge.json"
MAX_MODEL_BYTES = 1 << 20
"""A model file is a few kilobytes; a larger one is not a judge model."""


class ModelFileError(ModelError, ValueError):
    """A model file is unreadable or does not match the features this code computes."""


@dataclass(frozen=True, slots=True)
class JudgeModel:
    """Weights per label (rows in ``LABELS`` order) over standardised features, and the
    Platt pair ``(a, b)``: score = sigmoid(a * logit(p_supported) + b)."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    platt: tuple[float, float]

    def probabilities(self, features: tuple[float, ...]) -> dict[Label, float]:
        """Each label's probability for one claim's features."""
        z = self.weights @ ((np.asarray(features) - self.mean) / self.scale) + self.bias
        odds = np.exp(z - z.max())
        return {label: float(p) for label, p in zip(LABELS, odds / odds.sum(), strict=True)}

    def score(self, supported: float) -> float:
        """The calibrated confidence that the claim is supported in full."""
        p = min(max(supported, 1e-9), 1 - 1e-9)
        a, b = self.platt
        return 1 / (1 + math.exp(-(a * math.log(p / (1 - p)) + b)))


def read_model(data: Any) -> JudgeModel:
    """A ``JudgeModel`` from its JSON form, checked against ``NAMES`` and ``LABELS``."""
    try:
        if tuple(data["features"]) != NAMES or tuple(data["labels"]) != LABELS:
            raise ModelFileError("the model's features or labels are not this code's")
        arrays = [np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "weights")]
        bias = np.asarray(data["bias"], dtype=np.float64)
        a, b = (float(x) for x in data["platt"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"unreadable judge model: {exc}") from exc
    mean, scale, weights = arrays
    shapes = (mean.shape, scale.shape, weights.shape, bias.shape)
    if shapes != ((len(NAMES),), (len(NAMES),), (len(LABELS), len(NAMES)), (len(LABELS),)):
        raise ModelFileError(f"the judge model's arrays have shapes {shapes}")
    if not all(np.isfinite(x).all() for x in (*arrays, bias)) or (scale <= 0).any():
        raise ModelFileError("the judge model holds a value that is not finite or positive")
    return JudgeModel(mean, scale, weights, bias, (a, b))


@cache
def shipped_model() -> JudgeModel:
    """The model shipped with the package, read once."""
    text = files("citesift.verify.judges").joinpath(MODEL_FILE).read_text(encoding="utf-8")
    return read_model(json.loads(text))


def load_model(path: Path) -> JudgeModel:
    """The model in the JSON file at ``path`` (as ``train/verify_judge.py`` writes it)."""
    try:
        with path.open("rb") as handle:
            body = handle.read(MAX_MODEL_BYTES + 1)
    except OSError as exc:
        raise ModelFileError(f"cannot read the judge model {path}: {exc.strerror}") from exc
    if len(body) > MAX_MODEL_BYTES:
        raise ModelFileError(f"{path} is over {MAX_MODEL_BYTES} bytes, not a judge model")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"{path} is not JSON: {exc}") from exc
    return read_model(data)
