"""A claim that quotes whole sentences of its source word for word is supported by them,
however many sentences it runs over: the run of a recorded page's menu, byline and opening
that extractive research once cited as a passage is graded as the passage it is."""

from __future__ import annotations

from citesift import verify_claim
from citesift.extract.document import extract_document
from citesift.text.sentences import sentence_spans
from citesift.verify.judges.verbatim import QUOTES_SOURCE, quoted_sentences
from conftest import FIXTURES

RECORDED = (
    FIXTURES / "pages" / ("08f793762792bd252c75fb57544cdf506ffcc04785136cb87503f02364b82b56.html")
)


def page_sentences() -> list[str]:
    """The recorded page's sentences, read whole (menus and byline included)."""
    document = extract_document(RECORDED.read_bytes(), "https://example.org/a", mode="page")
    return [b.text[s:e] for b in document.blocks for s, e in sentence_spans(b.text)]


def test_a_claim_quoting_many_short_sentences_is_supported_by_them_all() -> None:
    sentences = page_sentences()
    first = sentences.index("Account Settings Log Out")
    last = next(i for i, s in enumerate(sentences) if s.startswith("The Steelers spent Monday"))
    claim = "\n\n".join(sentences[first : last + 1])  # names, a byline, a date: none left out
    check = verify_claim(claim, sentences)
    assert (check.label, check.score) == ("supported", 1.0)
    assert check.supporting == tuple(range(first, last + 1))
    assert check.reason.startswith(QUOTES_SOURCE)


def test_only_whole_sentences_word_for_word_are_a_quotation() -> None:
    sentences = ["It is not true that the bridge opened in 1932.", "It carries six lanes."]
    assert quoted_sentences("the bridge opened in 1932.", sentences) is None  # part of one
    assert quoted_sentences("It carries  six\nlanes.", sentences) == (1,)  # white space aside
    assert quoted_sentences("It carries six lanes", sentences) is None
    assert quoted_sentences("It carries seven lanes.", sentences) is None
    assert quoted_sentences("…", ["…"]) is None  # no word: nothing is quoted
    whole = " ".join(sentences)
    assert quoted_sentences(whole, [sentences[0], "", sentences[1]]) == (0, 2)
    changed = verify_claim("It is true that the bridge opened in 1932.", sentences)
    assert not changed.reason.startswith(QUOTES_SOURCE)
