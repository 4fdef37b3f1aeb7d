"""A claim that quotes whole sentences of its source word for word is supported by them,
however many sentences it runs over: the run of a recorded page's menu, byline and opening
that extractive research once cited as a passage is graded as the passage it is."""

from __future__ import annotations

from citesift import FactContradiction, verify_claim
from citesift.extract.document import extract_document
from citesift.text.sentences import sentence_spans
from citesift.verify.judges.verbatim import QUOTES_SOURCE, quoted_sentences
from citesift.verify.verifier import NliResult
from conftest import FIXTURES
from test_rag_helpers import HashEmbedder

RECORDED = (
    FIXTURES / "pages" / ("08f793762792bd252c75fb57544cdf506ffcc04785136cb87503f02364b82b56.html")
)


def page_sentences() -> list[str]:
    """The recorded page's sentences, read whole (menus and byline included)."""
    document = extract_document(RECORDED.read_bytes(), "https://example.org/a", mode="page")
    return [b.text[s:e] for b in document.blocks for s, e in sentence_spans(b.text)]


def quotation() -> tuple[list[str], str, range]:
    """The page's sentences, a claim quoting its menu, byline and opening (names, a byline, a
    date: none left out) and the indices of the sentences it quotes."""
    sentences = page_sentences()
    first = sentences.index("Account Settings Log Out")
    last = next(i for i, s in enumerate(sentences) if s.startswith("The Steelers spent Monday"))
    return sentences, "\n\n".join(sentences[first : last + 1]), range(first, last + 1)


def test_a_claim_quoting_many_short_sentences_is_supported_by_them_all() -> None:
    sentences, claim, quoted = quotation()
    check = verify_claim(claim, sentences)
    assert (check.label, check.score) == ("supported", 1.0)
    assert check.supporting == tuple(quoted)
    assert check.reason.startswith(QUOTES_SOURCE)


def test_the_offline_contradiction_check_holds_a_quotation_entailed_as_the_judge_does() -> None:
    """``verify --nli offline`` and ``check`` agree on a claim quoting its source."""
    sentences, claim, _ = quotation()
    answer = FactContradiction(HashEmbedder())("\n\n".join(sentences), claim)
    assert answer == NliResult("entailment", verify_claim(claim, sentences).score)


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
