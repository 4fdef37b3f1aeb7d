"""Field provenance: every leaf of an answer named by its JSON Pointer (RFC 6901), the
evidence it cites, and whether its value is really written there (whole words, so ``12``
never matches ``312``); a citation that misses is moved to evidence that has the value.
Each piece of evidence a field cites is linked at the sentence that holds its value."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from citesift.agent.evidence import Evidence
from citesift.model import Place, TextPlace
from citesift.text.places import SentencePlace, sentence_link

MAX_VERIFIED_WORDS = 40
"""A longer text value is a summary in the model's words: it is never said to be verified."""
_THOUSANDS = re.compile(r"(?<=\d),(?=\d)")
_WORD = re.compile(r"\d+(?:\.\d+)+|\w+")
"""A word: a decimal number whole (so ``12`` is not found in ``12.5``), else a run of letters
and digits."""


@dataclass(frozen=True, slots=True)
class FieldSource:
    """Where one leaf of the answer comes from: its ``pointer`` and ``value``, the evidence
    ids it cites, their URLs, whether the value was found in that evidence (``verified``)
    and whether the citation was moved to evidence that has it (``corrected``)."""

    pointer: str
    value: Any
    evidence_ids: tuple[str, ...]
    sources: tuple[str, ...]
    verified: bool
    corrected: bool = False


def escape(token: str) -> str:
    """One reference token of a JSON Pointer: ``~`` as ``~0``, ``/`` as ``~1``."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """A reference token read back (``~1`` first, so ``~01`` stays ``~1``)."""
    return token.replace("~1", "/").replace("~0", "~")


def leaves(data: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every leaf of ``data`` (a value that is neither an object nor an array) with its
    pointer; the whole value is the leaf ``""`` when it is not a container."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            yield from leaves(value, f"{pointer}/{escape(str(key))}")
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from leaves(value, f"{pointer}/{index}")
    else:
        yield pointer, data


def resolves(data: Any, pointer: str) -> bool:
    """Whether ``pointer`` names a value inside ``data`` (array indices as written by RFC
    6901: digits without a leading zero)."""
    if pointer == "":
        return True
    if not pointer.startswith("/"):
        return False
    here = data
    for raw in pointer[1:].split("/"):
        token = unescape(raw)
        if isinstance(here, Mapping) and token in here:
            here = here[token]
        elif isinstance(here, list) and _index(token, len(here)) is not None:
            here = here[int(token)]
        else:
            return False
    return True


def _index(token: str, size: int) -> int | None:
    if not token.isascii() or not token.isdigit() or (len(token) > 1 and token[0] == "0"):
        return None
    return int(token) if int(token) < size else None


def words(text: str) -> str:
    """``text`` as its words, lower-cased, space-padded, commas between digits removed, so a
    value is found only as whole words."""
    return " " + " ".join(_WORD.findall(_THOUSANDS.sub("", text).lower())) + " "


def value_text(value: Any) -> str | None:
    """How a leaf value would be written in a page, or None when it cannot be checked (a
    boolean, a long summary, an empty text)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return str(int(value)) if value.is_integer() else repr(value)
    text = str(value)
    count = len(_WORD.findall(text))
    return text if 0 < count <= MAX_VERIFIED_WORDS else None


def appears(value: Any, text: str) -> bool:
    """Whether ``value`` is written in ``text`` as whole words."""
    wanted = value_text(value)
    return wanted is not None and words(wanted) in words(text)


def value_link(
    url: str,
    text: str,
    places: Sequence[TextPlace],
    value: Any,
    sentences: Sequence[SentencePlace] | None = None,
) -> tuple[str, Place | None]:
    """A link to where a passage (``text`` of ``url``) says ``value``, and its place in a
    file: the sentence that holds it as whole words (as a field is verified), or the few
    of one line that hold it together; the passage's first sentence when none does.
    ``sentences``: the passage's ``sentence_places``, when found once for many values."""
    wanted = value_text(value)
    if wanted is None:
        return sentence_link(url, text, places, sentences=sentences)
    found = words(wanted)
    return sentence_link(url, text, places, lambda piece: found in words(piece), sentences)


def cited_ids(pointer: str, cited: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """The ids cited for ``pointer``: its own, else those of the nearest enclosing pointer
    cited (a citation of ``/items/0`` covers ``/items/0/name``)."""
    at = pointer
    while True:
        if at in cited:
            return tuple(cited[at])
        if not at:
            return ()
        at = at[: at.rfind("/")]


def field_sources(
    data: Any, cited: Mapping[str, Sequence[str]], evidence: Sequence[Evidence]
) -> list[FieldSource]:
    """The provenance of every non-null leaf of ``data``: verified when its value is in the
    evidence it cites; else cited to the first evidence that has it (corrected); else kept as
    cited and unverified."""
    known = {e.id: e for e in evidence}
    out: list[FieldSource] = []
    for pointer, value in leaves(data):
        if value is None:
            continue
        ids = tuple(i for i in cited_ids(pointer, cited) if i in known)
        if any(appears(value, known[i].text) for i in ids):
            ids = tuple(i for i in ids if appears(value, known[i].text))
            out.append(_source(pointer, value, ids, known, verified=True))
            continue
        other = next((e.id for e in evidence if appears(value, e.text)), None)
        if other is not None:
            out.append(_source(pointer, value, (other,), known, verified=True, corrected=True))
        else:
            out.append(_source(pointer, value, ids, known, verified=False))
    return out


def _source(
    pointer: str,
    value: Any,
    ids: tuple[str, ...],
    known: Mapping[str, Evidence],
    *,
    verified: bool,
    corrected: bool = False,
) -> FieldSource:
    urls = tuple(dict.fromkeys(known[i].url for i in ids))
    return FieldSource(pointer, value, ids, urls, verified, corrected)
