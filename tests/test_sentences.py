"""The default sentence rule on hard cases: abbreviations, initials, decimals, quotes, scripts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citesift.text import sentence_spans


def sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mr. Smith left. Dr. Jones stayed.", ["Mr. Smith left.", "Dr. Jones stayed."]),
        ("Use a tool, e.g. a hammer. Or i.e. not.", ["Use a tool, e.g. a hammer.", "Or i.e. not."]),
        ("J. R. R. Tolkien wrote it. It sold.", ["J. R. R. Tolkien wrote it.", "It sold."]),
        ("Pi is 3.14 or so. Yes.", ["Pi is 3.14 or so.", "Yes."]),
        (
            "He lived in the U.S. Army base. The U.S. is big.",
            ["He lived in the U.S. Army base.", "The U.S. is big."],
        ),
        (
            "She moved to the U.S. The move was hard.",
            ["She moved to the U.S.", "The move was hard."],
        ),
        ("Apples, pears, etc. The end.", ["Apples, pears, etc.", "The end."]),
        ("Apple Inc. announced it.", ["Apple Inc. announced it."]),
        ("World War I. The treaty ended it.", ["World War I.", "The treaty ended it."]),
        (
            "I was... well, tired. Then... Nothing.",
            ["I was... well, tired.", "Then...", "Nothing."],
        ),
        ("Wait… What?", ["Wait…", "What?"]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("He said “Stop!” Then he left.", ["He said “Stop!”", "Then he left."]),
        ("(See below.) Next one.", ["(See below.)", "Next one."]),
        ("Signed in 1919.[1] Ratified in 1920.", ["Signed in 1919.[1]", "Ratified in 1920."]),
        ("1. First item. 2. Second item.", ["1. First item.", "2. Second item."]),
        ("It was 1919. 1920 came.", ["It was 1919.", "1920 came."]),
        ("Is it? Yes! Good.", ["Is it?", "Yes!", "Good."]),
        ('"Why?" he asked. Fine.', ['"Why?" he asked.', "Fine."]),
        ("Really?! Yes.", ["Really?!", "Yes."]),
        ("这是第一句。这是第二句！第三句？", ["这是第一句。", "这是第二句！", "第三句？"]),
        ("「終わり。」次の文。", ["「終わり。」", "次の文。"]),
        ("यह पहला वाक्य है। यह दूसरा है।", ["यह पहला वाक्य है।", "यह दूसरा है।"]),
        ("هل أنت بخير؟ نعم.", ["هل أنت بخير؟", "نعم."]),
        ("Это первое. Это второе.", ["Это первое.", "Это второе."]),
        ("Αυτό είναι. Και αυτό!", ["Αυτό είναι.", "Και αυτό!"]),
        ("Սա առաջինն է։ Սա երկրորդն է։", ["Սա առաջինն է։", "Սա երկրորդն է։"]),
        ("ဒါပထမ။ ဒါဒုတိယ။", ["ဒါပထမ။", "ဒါဒုတိယ။"]),
        ("これは文です．次の文です．", ["これは文です．", "次の文です．"]),
        ("See fig. 3 and p. 12 for details.", ["See fig. 3 and p. 12 for details."]),
        ("The answer was no. The end.", ["The answer was no.", "The end."]),
        ("Symphony No. 5 is famous. Vol. 2 too.", ["Symphony No. 5 is famous.", "Vol. 2 too."]),
        ("first line\nsecond line", ["first line", "second line"]),
        ("a\r\n\r\nb", ["a", "b"]),
        ("  padded sentence.  ", ["padded sentence."]),
        ("no stop at all", ["no stop at all"]),
        ("www.example.org is a site.", ["www.example.org is a site."]),
    ],
)
def test_sentence_spans_hard_cases(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "\n\n", " \t\n "])
def test_sentence_spans_of_blank_text_is_empty(text: str) -> None:
    assert sentence_spans(text) == []


def test_sentence_spans_are_trimmed_offsets_into_the_text() -> None:
    text = "  One here.   Two there.  "
    assert sentence_spans(text) == [(2, 11), (14, 24)]


def test_sentence_spans_keep_astral_characters_whole() -> None:
    assert sentences("Smile 😀. Next 😀!") == ["Smile 😀.", "Next 😀!"]


def test_sentence_spans_survive_lone_surrogates() -> None:
    assert sentences("Half\ud800 here. Next.") == ["Half\ud800 here.", "Next."]


@pytest.mark.timeout(10)
def test_sentence_spans_are_fast_on_long_text() -> None:
    text = "Mr. A. B. said 3.14 etc. and so on. " * 20_000
    assert len(sentence_spans(text)) == 20_000


@given(st.text(max_size=300))
def test_sentence_spans_are_ordered_trimmed_and_non_empty(text: str) -> None:
    spans = sentence_spans(text)
    previous = 0
    for start, end in spans:
        assert previous <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip()
        previous = end


@pytest.mark.timeout(10)
@pytest.mark.parametrize(
    "text",
    [
        " " * 200_000 + "Mr. " * 20_000,
        "x" * 1_000_000 + ". Next.",
        "… " * 200_000,
        '"' * 200_000 + " Mr. " * 20_000,
        ". " * 200_000,
    ],
    ids=["spaces-then-titles", "huge-word", "ellipses", "quotes", "stops"],
)
def test_sentence_spans_stay_linear_on_hostile_text(text: str) -> None:
    spans = sentence_spans(text)
    assert all(text[start:end].strip() == text[start:end] for start, end in spans)
