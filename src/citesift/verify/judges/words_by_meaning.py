"""A claim's common word the page never writes, matched by a page word of the same meaning
(*purchase* for *buy*, *physician* for *doctor*): a source words a fact its own way, and a
stem's family (``features._kin``) does not reach a synonym. Only common words: a name, a
number, a date or a negation must be matched as written (``features.measure`` offers no
other)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from threading import Lock

import numpy as np

from citesift.index import Embedder
from citesift.index.embedders import shared_embedder
from citesift.verify.candidates import unit_vectors

SYNONYM = 0.8
"""Cosine of two single words' MiniLM vectors from which they are near-synonyms. Unrelated
words lie about 0.1 to 0.3 apart; true synonyms (*buy* and *purchase*, *lawyer* and
*attorney*, *film* and *movie*, *begin* and *start*) 0.8 to 0.9. The bar does not part
synonyms from words that differ in the fact they state: many such pairs stand below it
(*win* and *lose*, *increase* and *decrease*, *first* and *second*, about 0.5 to 0.7), but
many stand above it too: *husband* and *wife* 0.87, *landlord* and *tenant* 0.84,
*democrats* and *republicans* 0.84, *monday* and *tuesday* 0.87, *legal* and *illegal*
0.84, *upstream* and *downstream* 0.85, *inbound* and *outbound* 0.88, *overestimate* and
*underestimate* 0.81, *ascending* and *descending* 0.81, *quarterfinal* and *semifinal*
0.89. Hence the guards: a word matched by meaning never makes a claim supported in full
(``offline._label``), only partly, and helps choose its sentences; two words told apart by
a prefix of direction or degree (``PREFIXES``) or of one degree (``DEGREES``) are never
matched; a name (*Monday*), number or date never is (``features._common``). The bar is
MiniLM's (``shared_embedder``): another model's cosines have another scale."""
PREFIXES = (
    "in", "out", "up", "down", "over", "under", "un", "il", "im", "ir", "dis", "non", "a",
    "de", "quarter", "semi",
)  # fmt: skip
"""Prefixes of direction or degree (*inbound*, *outbound*; *legal*, *illegal*;
*ascending*, *descending*; *quarterfinal*, *semifinal*): two words with one stem once such
a prefix is taken from either are never matched by meaning, as they most often state
opposite facts of one field (a synonym written with such a prefix is lost too, which costs
at most a partial match)."""
MIN_STEM = 4
"""Letters the stem left after a prefix (``PREFIXES``) needs to tell two words apart: a
shorter one is as often a word's own start (*a* of *arm*)."""
DEGREES = ("er", "est")
"""The endings of an adjective's degrees (*larger*, *largest*): two words of one degree are
as close by meaning at either end of their scale (*larger* and *smaller* 0.87, *older* and
*younger* 0.87) as at one, so they are never matched by meaning unless one is the other's
end (*keeper*, *goalkeeper*)."""
MIN_LETTERS = 3
"""Letters a word needs to be matched by meaning: a shorter one's vector says little."""
WORDS_KEPT = 20_000
"""Word vectors kept in memory (about 30 MB of MiniLM's, in single precision): a page
checked for many claims offers the same words each time, and an embedder without a cache
would embed them anew."""

_kept: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_lock = Lock()

WordsByMeaning = Callable[[Mapping[str, str], Mapping[str, str]], dict[str, frozenset[str]]]
"""Given the claim's words wanted (fact key → the word as the claim writes it) and the
page's words offered (stem → a word the page writes), the page stems matching each wanted
key by meaning (``close_words``)."""


def close_words(
    wanted: Mapping[str, str], offered: Mapping[str, str], embedder: Embedder | None = None
) -> dict[str, frozenset[str]]:
    """For each of the claim's ``wanted`` words, the ``offered`` page stems whose word is a
    near-synonym of it (``SYNONYM``), neither a prefix (``PREFIXES``) nor a degree
    (``DEGREES``) apart, by ``embedder``'s vectors (the bundled MiniLM when None, whose
    scale the bar is set on), the words not kept from an earlier claim (``WORDS_KEPT``)
    embedded in one call."""
    wants = [(k, w.lower()) for k, w in wanted.items() if len(w) >= MIN_LETTERS]
    offers = [(k, w.lower()) for k, w in offered.items() if len(w) >= MIN_LETTERS]
    if not wants or not offers:
        return {}
    model = embedder or shared_embedder()
    vectors = _word_vectors(model, [w for _, w in wants] + [w for _, w in offers])
    cosines = vectors[: len(wants)] @ vectors[len(wants) :].T
    found = {}
    for row, (key, word) in enumerate(wants):
        close = frozenset(
            offers[int(j)][0]
            for j in np.flatnonzero(cosines[row] >= SYNONYM)
            if not _scale_apart(word, offers[int(j)][1])
            and not _prefix_apart(word, offers[int(j)][1])
        )
        if close:
            found[key] = close
    return found


def _word_vectors(embedder: Embedder, words: list[str]) -> np.ndarray:
    """The unit vectors of ``words``, those not kept (``WORDS_KEPT``, by the embedder's
    name, which names its vectors) embedded in one call."""
    with _lock:
        found = {w: _kept[embedder.name, w] for w in words if (embedder.name, w) in _kept}
    missing = [w for w in dict.fromkeys(words) if w not in found]
    made = dict(zip(missing, unit_vectors(embedder, missing), strict=True)) if missing else {}
    found.update(made)
    with _lock:
        for word in found.keys() - made.keys():
            if (embedder.name, word) in _kept:
                _kept.move_to_end((embedder.name, word))
        for word, vector in made.items():
            _kept[embedder.name, word] = vector.astype(np.float32)
        while len(_kept) > WORDS_KEPT:
            _kept.popitem(last=False)
    return np.array([found[w] for w in words])


def _scale_apart(a: str, b: str) -> bool:
    """``a`` and ``b`` are of one degree (``DEGREES``), neither the other's end: they may
    name the two ends of a scale."""
    short, long = sorted((a, b), key=len)
    return any(a.endswith(d) and b.endswith(d) for d in DEGREES) and not long.endswith(short)


def _prefix_apart(a: str, b: str) -> bool:
    """``a`` and ``b`` share a stem of ``MIN_STEM`` letters or more once a prefix of
    direction or degree (``PREFIXES``) is taken from either (*legal*, *illegal*;
    *upstream*, *downstream*)."""
    return a != b and bool(_stems(a) & _stems(b))


def _stems(word: str) -> set[str]:
    """``word`` and what is left of it once any prefix of ``PREFIXES`` is taken off, of
    ``MIN_STEM`` letters or more."""
    cut = {word[len(p) :] for p in PREFIXES if word.startswith(p)}
    return {word} | {s for s in cut if len(s) >= MIN_STEM}
