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
from citesift.verify.candidates import unit_vectors

SYNONYM = 0.8
"""Cosine of two single words' MiniLM vectors from which they are near-synonyms. Unrelated
words lie about 0.1 to 0.3 apart; words of one field that differ in the fact they state
(*win* and *lose*, *king* and *queen*, *increase* and *decrease*, *first* and *second*) about
0.5 to 0.7, as do looser synonyms (*quick* and *fast*, *wed* and *married*); true
synonyms (*buy* and *purchase*, *lawyer* and *attorney*, *film* and *movie*, *begin* and
*start*) 0.8 to 0.9. Above 0.8 stand few pairs that differ in fact (*husband* and *wife*),
so only then does a word's meaning stand for the word."""
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
    wanted: Mapping[str, str], offered: Mapping[str, str], embedder: Embedder
) -> dict[str, frozenset[str]]:
    """For each of the claim's ``wanted`` words, the ``offered`` page stems whose word is a
    near-synonym of it (``SYNONYM``), the words not kept from an earlier claim
    (``WORDS_KEPT``) embedded in one call."""
    wants = [(k, w.lower()) for k, w in wanted.items() if len(w) >= MIN_LETTERS]
    offers = [(k, w.lower()) for k, w in offered.items() if len(w) >= MIN_LETTERS]
    if not wants or not offers:
        return {}
    vectors = _word_vectors(embedder, [w for _, w in wants] + [w for _, w in offers])
    cosines = vectors[: len(wants)] @ vectors[len(wants) :].T
    found = {}
    for row, (key, word) in enumerate(wants):
        close = frozenset(
            offers[int(j)][0]
            for j in np.flatnonzero(cosines[row] >= SYNONYM)
            if not _scale_apart(word, offers[int(j)][1])
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
    if missing:
        found.update(zip(missing, unit_vectors(embedder, missing), strict=True))
    with _lock:
        for word, vector in found.items():
            _kept[embedder.name, word] = vector.astype(np.float32)
            _kept.move_to_end((embedder.name, word))
        while len(_kept) > WORDS_KEPT:
            _kept.popitem(last=False)
    return np.array([found[w] for w in words])


def _scale_apart(a: str, b: str) -> bool:
    """``a`` and ``b`` are of one degree (``DEGREES``), neither the other's end: they may
    name the two ends of a scale."""
    short, long = sorted((a, b), key=len)
    return any(a.endswith(d) and b.endswith(d) for d in DEGREES) and not long.endswith(short)
