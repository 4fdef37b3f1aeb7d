"""Claims with known answers, built from Wikipedia articles, to train the offline judge.

Every claim starts as a sentence ``S`` of an article; the evidence is a run of 40 to 150
sentences of the same article around ``S`` (a cited page is about the claim's subject).
The sentences that support the claim are rewritten in the evidence (35 to 95% of their
plain words replaced by other words of the page or dropped, now and then a name left out),
as a cited page words a fact its own way; numbers and dates are kept. Then, with equal
chances for the three labels:

* supported: ``S`` itself; a clause of ``S``; ``S`` joined with the next sentence (both
  support it); or ``S`` while the evidence splits it in two sentences.
* partially_supported: ``S`` joined with a clause of a sentence the evidence does not hold
  (from another article, or from the same one and taken out of the evidence); or ``S`` with
  one number, date or name altered (the rest of it still holds).
* not_supported: ``S`` with it and its neighbours taken out of the evidence (the page is
  about the subject but does not say this); a sentence of another article; or ``S`` negated.

The articles are the recorded Wikipedia pages of the test fixtures (CC BY-SA 3.0/4.0,
Wikipedia contributors; see tests/fixtures/wikipedia). No benchmark claim is used.

``read_claims`` reads claims of your own instead: a JSONL file, one claim a line, as
``{"claim": ..., "sentences": [...], "label": ..., "supporting": [indices]}`` (the
supporting indices are optional; they only score the sentences the judge picks).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from citesift.extract.document import extract_document
from citesift.text import citation_sources
from citesift.verify.facts import FUNCTION_WORDS, MONTHS
from citesift.verify.judges.base import LABELS

HELD_OUT = "held out"
"""The article name of the user's claims kept for calibration (one in ``HELD_EVERY``)."""
HELD_EVERY = 5

ARTICLES = ("Bill_Clinton", "Dog", "MOSFET", "Rust_(programming_language)", "United_States")
"""The articles claims are taken from."""
OTHERS = ("December_1", "User_talk%3AKoavf")
"""Pages used only as other articles' sentences (lists and talk, not prose to claim from)."""
WINDOW = (40, 150)
"""How many sentences of the article the evidence holds."""
REWRITE = (0.35, 0.95)
"""The least and most of a supporting sentence's plain words rewritten in the evidence: a
cited page is another text than the article, and few of a claim's words are found in it
as they are. Raised twice (from 0-50%, then 20-80%) to bring the coverage the judge measures
here near what it measures on real claims beside the pages they cite (its spread over all
claims, their labels unread); at 20-80% the median was still 0.63 here against 0.50."""

_NUMBER = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
_AUXILIARY = re.compile(r"\b(is|was|are|were|has|have|had|can|could|will|would|did|does)\b")
_NEGATED = re.compile(r"\s(?:not|never)\b|n't\b")
_CLAUSE = re.compile(r",\s+(?:and\s+|but\s+|which\s+|while\s+|who\s+)?|;\s+|\s+and\s+")


@dataclass(frozen=True, slots=True)
class Example:
    """A claim, the evidence sentences, the label and the indices of the gold support."""

    claim: str
    evidence: tuple[str, ...]
    label: str
    gold: tuple[int, ...]
    kind: str
    article: str


def read_claims(path: Path, seed: int) -> list[Example]:
    """The claims of a JSONL file of your own, one in ``HELD_EVERY`` (drawn with ``seed``)
    kept out of the fit for calibration; a line that is not a claim stops with its number."""
    rng = random.Random(seed)
    out = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                out.append(_claim(json.loads(line), rng.randrange(HELD_EVERY) == 0))
            except (ValueError, TypeError, KeyError) as exc:
                raise ValueError(f"{path}:{number}: not a claim ({exc})") from exc
    return out


def _claim(row: dict[str, object], held: bool) -> Example:
    claim, sentences, label = row["claim"], row["sentences"], row["label"]
    supporting = row.get("supporting", [])
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError("claim must be a text")
    if not isinstance(sentences, list) or not all(isinstance(x, str) for x in sentences):
        raise ValueError("sentences must be a list of texts")
    if label not in LABELS:
        raise ValueError(f"label must be one of {', '.join(LABELS)}")
    if not isinstance(supporting, list) or not all(
        isinstance(i, int) and 0 <= i < len(sentences) for i in supporting
    ):
        raise ValueError("supporting must list indices of sentences")
    gold = tuple(sorted(supporting))
    return Example(claim, tuple(sentences), str(label), gold, "given", HELD_OUT if held else "")


def article_sentences(folder: Path, name: str) -> list[str]:
    """The sentences of a recorded article as the library cites them."""
    html = (folder / f"{name}.html").read_bytes()
    document = extract_document(html, url=f"https://en.wikipedia.org/wiki/{name}")
    return [p.content.strip() for p in citation_sources(document) if p.content.strip()]


def usable(sentence: str) -> bool:
    """A prose sentence of a plain length."""
    return 8 <= len(sentence.split()) <= 60 and sentence.endswith(".")


def build(folder: Path, per_sentence: int, seed: int) -> list[Example]:
    """``per_sentence`` examples for each usable sentence of each article in ``ARTICLES``."""
    rng = random.Random(seed)
    pages = {name: article_sentences(folder, name) for name in ARTICLES + OTHERS}
    out = []
    for name in ARTICLES:
        sentences = pages[name]
        others = [s for other, page in pages.items() if other != name for s in page if usable(s)]
        for i, sentence in enumerate(sentences):
            if not usable(sentence):
                continue
            for _ in range(per_sentence):
                made = _example(rng, name, sentences, i, others)
                if made is not None:
                    out.append(made)
    return out


def _example(
    rng: random.Random, article: str, sentences: list[str], i: int, others: list[str]
) -> Example | None:
    label = rng.choice(["supported", "partially_supported", "not_supported"])
    makers = MAKERS[label]
    kind = rng.choice(sorted(makers))
    made = makers[kind](rng, sentences, i, others)
    if made is None:
        return None
    claim, evidence, gold = made
    return Example(claim, tuple(evidence), label, tuple(sorted(gold)), kind, article)


Made = tuple[str, list[str], list[int]] | None


def _window(rng: random.Random, sentences: list[str], i: int) -> tuple[int, int]:
    size = rng.randint(*WINDOW)
    start = max(0, min(i - rng.randint(0, size - 1), len(sentences) - size))
    return start, min(len(sentences), start + size)


def _evidence(
    rng: random.Random,
    sentences: list[str],
    i: int,
    *,
    rewrite: tuple[int, ...] = (),
    drop: tuple[int, ...] = (),
    replace: dict[int, list[str]] | None = None,
) -> tuple[list[str], dict[int, list[int]]]:
    """The evidence window around ``i``: sentences in ``rewrite`` reworded, those in
    ``drop`` left out, those in ``replace`` replaced by the sentences given; with the map
    from each original index to its places in the evidence."""
    start, end = _window(rng, sentences, i)
    vocabulary = [w for s in sentences[start:end] for w in s.split() if _plain(w)]
    rate = rng.uniform(*REWRITE)
    out: list[str] = []
    places: dict[int, list[int]] = {}
    for j in range(start, end):
        if j in drop:
            continue
        written = (replace or {}).get(j, [sentences[j]])
        if j in rewrite:
            written = [_reword(rng, s, vocabulary, rate) for s in written]
        places[j] = list(range(len(out), len(out) + len(written)))
        out.extend(written)
    return out, places


def _plain(word: str) -> bool:
    """A lower-case word of letters that is not a function word."""
    return word.isalpha() and word.islower() and word not in FUNCTION_WORDS and len(word) > 2


def _reword(rng: random.Random, sentence: str, vocabulary: list[str], rate: float) -> str:
    """``sentence`` with about ``rate`` of its plain words replaced or dropped, and now and
    then a name left out (a page may call a person "he", a company "it")."""
    words = []
    for n, word in enumerate(sentence.split()):
        if n > 0 and _name(word) and rng.random() < rate / 4:
            continue
        if not _plain(word) or not vocabulary or rng.random() >= rate:
            words.append(word)
        elif rng.random() < 0.75:
            words.append(rng.choice(vocabulary))
    return " ".join(words)


def _clause(rng: random.Random, sentence: str) -> str | None:
    """A clause of ``sentence`` of at least five words, without its final stop."""
    pieces = [p.strip(" .") for p in _CLAUSE.split(sentence) if len(p.split()) >= 5]
    return rng.choice(pieces) if pieces else None


def _joined(first: str, second: str, rng: random.Random) -> str:
    second = second.strip().rstrip(".")
    if second[:1].isupper() and not second.split()[0][1:].isupper():
        lowered = second[0].lower() + second[1:]
        second = lowered if second.split()[0].lower() in FUNCTION_WORDS else second
    return first.rstrip(" .") + rng.choice([", and ", "; ", ", while "]) + second + "."


def supported_itself(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    evidence, places = _evidence(rng, s, i, rewrite=(i,))
    return s[i], evidence, places[i]


def supported_clause(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    clause = _clause(rng, s[i])
    if clause is None or clause == s[i].rstrip("."):
        return None
    evidence, places = _evidence(rng, s, i, rewrite=(i,))
    return clause[0].upper() + clause[1:] + ".", evidence, places[i]


def supported_pair(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    if i + 1 >= len(s) or not usable(s[i + 1]):
        return None
    evidence, places = _evidence(rng, s, i, rewrite=(i, i + 1))
    if i + 1 not in places:
        return None
    return _joined(s[i], s[i + 1], rng), evidence, places[i] + places[i + 1]


def supported_split(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    parts = [m.end() for m in _CLAUSE.finditer(s[i])]
    if not parts:
        return None
    cut = rng.choice(parts)
    first, second = s[i][:cut].rstrip(" ,;") + ".", s[i][cut:]
    if len(first.split()) < 4 or len(second.split()) < 4:
        return None
    halves = [first, second[0].upper() + second[1:]]
    evidence, places = _evidence(rng, s, i, rewrite=(i,), replace={i: halves})
    return s[i], evidence, places[i]


def partial_extra(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    far = [j for j in range(len(s)) if abs(j - i) > 3 and usable(s[j])]
    elsewhere = rng.random() < 0.5 or not far
    extra_from = rng.choice(others) if elsewhere else s[rng.choice(far)]
    clause = _clause(rng, extra_from)
    if clause is None:
        return None
    taken = () if elsewhere else tuple(j for j in range(len(s)) if s[j] == extra_from)
    evidence, places = _evidence(rng, s, i, rewrite=(i,), drop=taken)
    return _joined(s[i], clause, rng), evidence, places[i]


def partial_altered(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    altered = _altered(rng, s[i], others)
    if altered is None:
        return None
    evidence, places = _evidence(rng, s, i, rewrite=(i,))
    return altered, evidence, places[i]


def not_taken_out(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    evidence, _ = _evidence(rng, s, i, drop=(i - 1, i, i + 1))
    return s[i], evidence, []


def not_elsewhere(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    evidence, _ = _evidence(rng, s, i)
    return rng.choice(others), evidence, []


def not_negated(rng: random.Random, s: list[str], i: int, others: list[str]) -> Made:
    if _NEGATED.search(s[i]):
        claim = _NEGATED.sub("", s[i], count=1)
    else:
        found = _AUXILIARY.search(s[i])
        if found is None:
            return None
        claim = s[i][: found.end()] + " not" + s[i][found.end() :]
    evidence, _ = _evidence(rng, s, i, rewrite=(i,))
    return claim, evidence, []


def _altered(rng: random.Random, sentence: str, others: list[str]) -> str | None:
    """``sentence`` with one number, month or name changed (None when it has none)."""
    choices: list[Callable[[], str | None]] = []
    numbers = list(_NUMBER.finditer(sentence))
    if numbers:
        choices.append(lambda: _changed_number(rng, sentence, rng.choice(numbers)))
    months = [w for w in sentence.split() if w.strip(",.").lower() in MONTHS and w[0].isupper()]
    if months:
        choices.append(lambda: _changed_month(rng, sentence, rng.choice(months)))
    names = [w for w in sentence.split()[1:] if _name(w)]
    if names:
        choices.append(lambda: _changed_name(rng, sentence, rng.choice(names), others))
    return rng.choice(choices)() if choices else None


def _changed_number(rng: random.Random, sentence: str, found: re.Match[str]) -> str:
    digits = found.group().replace(",", "")
    value = float(digits)
    if "." not in digits and 1000 <= value <= 2100:
        new = str(int(value) + rng.choice([-1, 1]) * rng.randint(1, 12))
    elif "." in digits:
        new = f"{value * rng.uniform(1.2, 3):.{len(digits.split('.')[1])}f}"
    else:
        new = str(max(int(value) + rng.randint(1, 9), int(value * rng.uniform(1.3, 4))))
    return sentence[: found.start()] + new + sentence[found.end() :]


def _changed_month(rng: random.Random, sentence: str, month: str) -> str:
    core = month.strip(",.")
    names = ["January", "February", "March", "April", "June", "July", "August", "September",
             "October", "November", "December"]  # fmt: skip
    new = rng.choice([n for n in names if n.lower() != core.lower()])
    return sentence.replace(core, new, 1)


def _name(word: str) -> bool:
    core = word.strip(",.;:()\"'")
    return (
        core[:1].isupper() and core.isalpha() and core.lower() not in FUNCTION_WORDS | set(MONTHS)
    )


def _changed_name(rng: random.Random, sentence: str, name: str, others: list[str]) -> str | None:
    pool = [w.strip(",.;:()\"'") for s in rng.sample(others, min(50, len(others)))
            for w in s.split()[1:] if _name(w)]  # fmt: skip
    pool = [w for w in pool if w != name.strip(",.;:()\"'")]
    if not pool:
        return None
    return sentence.replace(name.strip(",.;:()\"'"), rng.choice(pool), 1)


Maker = Callable[[random.Random, list[str], int, list[str]], Made]
MAKERS: dict[str, dict[str, Maker]] = {
    "supported": {
        "itself": supported_itself,
        "clause": supported_clause,
        "pair": supported_pair,
        "split": supported_split,
    },
    "partially_supported": {"extra": partial_extra, "altered": partial_altered},
    "not_supported": {
        "taken out": not_taken_out,
        "elsewhere": not_elsewhere,
        "negated": not_negated,
    },
}
