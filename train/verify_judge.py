"""Train the model of ``verify_claim``'s trained judge and write it as JSON.

By default the claims are built from recorded Wikipedia articles by ``judge_data.py`` (CC
BY-SA; see that module for how each label is made) and the model replaces the one shipped;
no benchmark claim is read. With ``--data`` the claims are your own (a JSONL file of
claim, sentences, label, see ``judge_data.read_claims``) and one in five is held out; the
model goes to ``--out``, and ``TrainedJudge(path)`` or ``citesift verify claim --judge
trained --judge-model PATH`` uses it. For each claim the
judge's own features are computed (candidates by BM25 and the bundled MiniLM, then
``features.measure``), a multinomial logistic regression is fitted on the claims of all
articles but one, and a Platt scaling of its belief in ``supported`` is fitted on the claims
of the article held out, where the model is also scored.

    python train/verify_judge.py [--pages DIR] [--held-out ARTICLE] [--out FILE]
    python train/verify_judge.py --data CLAIMS.jsonl --out MODEL.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from citesift import SQLiteStore
from citesift.index.embedders import CachedEmbedder, default_embedder
from citesift.verify.candidates import find_candidates
from citesift.verify.judges.base import LABELS
from citesift.verify.judges.features import NAMES, measure
from citesift.verify.judges.judge_model import MODEL_FILE
from judge_data import HELD_OUT, Example, build, read_claims

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PAGES = ROOT / "tests" / "fixtures" / "wikipedia" / "pages"
DEFAULT_OUT = ROOT / "src" / "citesift" / "verify" / "judges" / MODEL_FILE
DEFAULT_CACHE = ROOT / ".citesift" / "train-judge.db"
EMBED_BATCH = 512
L2 = 1.0
"""The ridge penalty on the weights (the features are standardised)."""
DECIMALS = 6
"""The decimals the model file keeps of each number."""


def featurise(
    examples: list[Example], embedder: CachedEmbedder
) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """Each example's features and the sentences the judge would choose (every text
    embedded first, in large batches)."""
    texts = list(dict.fromkeys(t for ex in examples for t in (ex.claim, *ex.evidence)))
    for start in range(0, len(texts), EMBED_BATCH):
        embedder.embed(texts[start : start + EMBED_BATCH])
        print(f"  embedded {start + EMBED_BATCH}/{len(texts)}", file=sys.stderr)
    rows, chosen = [], []
    for n, ex in enumerate(examples):
        found = find_candidates(ex.claim, ex.evidence, embedder)
        measured = measure(ex.claim, ex.evidence, found)
        rows.append(measured.features if measured else (0.0,) * len(NAMES))
        chosen.append(measured.chosen if measured else ())
        if n % 500 == 0:
            print(f"  features {n}/{len(examples)}", file=sys.stderr)
    return np.asarray(rows, dtype=np.float64), chosen


def standardisation(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each feature's mean and standard deviation over the rows of ``x`` to ``DECIMALS``,
    as the model file keeps them, so the model is fitted on the standard scores the judge
    computes; the deviation 1 for a feature that never varies, whose deviation is 0 or the
    noise of summing equal numbers (0 once rounded), which the judge would refuse to divide
    by."""
    spread = written(x.std(axis=0))
    return written(x.mean(axis=0)), np.where(spread > 0, spread, 1.0)


def written(values: np.ndarray) -> np.ndarray:
    """``values`` as the model file keeps them: each rounded to ``DECIMALS``."""
    return np.array([round(v, DECIMALS) for v in values.tolist()], dtype=np.float64)


def fit_softmax(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weights and biases of a multinomial logistic regression with an L2 penalty."""
    k, d = len(LABELS), x.shape[1]
    onehot = np.eye(k)[y]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[: k * d].reshape(k, d), theta[k * d :]
        z = x @ w.T + b
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        value = -np.mean(np.log(p[np.arange(len(y)), y] + 1e-12)) + L2 * np.sum(w * w) / len(y)
        g = (p - onehot) / len(y)
        grad_w = g.T @ x + 2 * L2 * w / len(y)
        return float(value), np.concatenate([grad_w.ravel(), g.sum(axis=0)])

    result = minimize(loss, np.zeros(k * d + k), jac=True, method="L-BFGS-B")
    return result.x[: k * d].reshape(k, d), result.x[k * d :]


def probabilities(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    z = x @ w.T + b
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    out: np.ndarray = p / p.sum(axis=1, keepdims=True)
    return out


def fit_platt(p: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """``(a, b)`` so that sigmoid(a * logit(p) + b) fits the held-out outcomes."""
    logit = np.log(np.clip(p, 1e-9, 1 - 1e-9) / np.clip(1 - p, 1e-9, 1))

    def loss(ab: np.ndarray) -> float:
        q = 1 / (1 + np.exp(-(ab[0] * logit + ab[1])))
        q = np.clip(q, 1e-12, 1 - 1e-12)
        return float(-np.mean(positive * np.log(q) + (1 - positive) * np.log(1 - q)))

    a, b = minimize(loss, np.array([1.0, 0.0]), method="Nelder-Mead").x
    return float(a), float(b)


def macro_f1(gold: np.ndarray, predicted: np.ndarray) -> float:
    scores = []
    for k in range(len(LABELS)):
        tp = np.sum((predicted == k) & (gold == k))
        p = tp / max(np.sum(predicted == k), 1)
        r = tp / max(np.sum(gold == k), 1)
        scores.append(2 * p * r / (p + r) if p + r else 0.0)
    return float(np.mean(scores))


def sentence_f1(examples: list[Example], chosen: list[tuple[int, ...]]) -> float:
    """Mean F1 of the chosen sentences against the gold support, over supported claims."""
    scores = []
    for ex, picked in zip(examples, chosen, strict=True):
        if not ex.gold:
            continue
        hit = len(set(ex.gold) & set(picked))
        p, r = hit / max(len(picked), 1), hit / len(ex.gold)
        scores.append(2 * p * r / (p + r) if hit else 0.0)
    return float(np.mean(scores))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, help="your own claims (JSONL) instead of articles")
    parser.add_argument("--pages", type=Path, default=DEFAULT_PAGES, help="recorded articles")
    parser.add_argument("--held-out", default="Dog", help="the article kept for calibration")
    parser.add_argument("--per-sentence", type=int, default=2, help="claims per sentence")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="embedding cache")
    parser.add_argument("--out", type=Path, help="the model file (default: the shipped one)")
    args = parser.parse_args()
    if args.data is None:
        examples, held_out, out = (
            build(args.pages, args.per_sentence, args.seed),
            args.held_out,
            args.out or DEFAULT_OUT,
        )
    elif args.out is None:
        parser.error("--data needs --out: the shipped model stays the one built from articles")
    else:
        try:
            examples, held_out, out = read_claims(args.data, args.seed), HELD_OUT, args.out
        except (OSError, ValueError) as exc:
            parser.error(str(exc))
    print(f"{len(examples)} claims: {dict(Counter(e.label for e in examples))}", file=sys.stderr)
    print(f"  by kind: {dict(Counter(e.kind for e in examples))}", file=sys.stderr)
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(default_embedder(), SQLiteStore(args.cache))
    x, chosen = featurise(examples, embedder)
    y = np.array([LABELS.index(e.label) for e in examples])
    held = np.array([e.article == held_out for e in examples])
    if held.all() or not held.any() or len(set(y[~held])) < len(LABELS):
        parser.error("too few claims: each label is needed in training, and some held out")
    mean, scale = standardisation(x[~held])
    z = (x - mean) / scale
    w, b = fit_softmax(z[~held], y[~held])
    p = probabilities(z[held], w, b)
    platt = fit_platt(p[:, 0], (y[held] == 0).astype(float))
    predicted = p.argmax(axis=1)
    held_examples = [e for e, h in zip(examples, held, strict=True) if h]
    held_chosen = [c for c, h in zip(chosen, held, strict=True) if h]
    report = {
        "claims": int((~held).sum()),
        "held_out_claims": int(held.sum()),
        "held_out_article": held_out,
        "held_out_accuracy": round(float(np.mean(predicted == y[held])), 4),
        "held_out_macro_f1": round(macro_f1(y[held], predicted), 4),
        "held_out_sentence_f1": round(sentence_f1(held_examples, held_chosen), 4),
    }
    print(json.dumps(report, indent=2), file=sys.stderr)
    for name, weights in zip(NAMES, w.T, strict=True):
        print(f"  {name:18} " + " ".join(f"{v:+.2f}" for v in weights), file=sys.stderr)
    source = (
        f"from the claims of {args.data.name}"
        if args.data
        else "from claims built from Wikipedia articles (CC BY-SA 3.0/4.0, Wikipedia contributors)"
    )
    model = {
        "about": f"Trained judge of citesift's verify_claim, made by train/verify_judge.py "
        f"{source}.",
        "features": list(NAMES),
        "labels": list(LABELS),
        "mean": [round(v, DECIMALS) for v in mean.tolist()],
        "scale": [round(v, DECIMALS) for v in scale.tolist()],
        "weights": [[round(v, DECIMALS) for v in row] for row in w.tolist()],
        "bias": [round(v, DECIMALS) for v in b.tolist()],
        "platt": [round(v, DECIMALS) for v in platt],
        "training": report
        | {"seed": args.seed, "per_sentence": None if args.data else args.per_sentence},
    }
    out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
