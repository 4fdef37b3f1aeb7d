"""Field provenance: leaves as JSON Pointers with RFC 6901 escaping, whole-word verification,
citation correction, and the checks a finish must pass."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citesift.agent.actions import Finish
from citesift.agent.answers import finish_problem, schema_validator
from citesift.agent.evidence import Evidence
from citesift.agent.provenance import (
    appears,
    escape,
    field_sources,
    leaves,
    resolves,
    unescape,
    value_link,
)
from citesift.errors import InvalidArgument
from citesift.model import Place, TextPlace
from citesift.text.fragments import fragment_url


def ev(n: int, text: str) -> Evidence:
    return Evidence(f"E{n}", f"https://site.example/{n}", "passage", text)


def test_pointers_escape_tilde_and_slash_per_rfc_6901() -> None:
    assert escape("a/b~c") == "a~1b~0c"
    assert unescape("a~1b~0c") == "a/b~c"
    assert unescape("~01") == "~1"  # ~0 is read after ~1, so this is "~" then "1"
    data = {"a/b": {"m~n": [10, {"x": None}]}, "": 3}
    assert list(leaves(data)) == [
        ("/a~1b/m~0n/0", 10),
        ("/a~1b/m~0n/1/x", None),
        ("/", 3),
    ]
    assert list(leaves("plain")) == [("", "plain")]


@pytest.mark.parametrize(
    ("pointer", "exists"),
    [
        ("", True),
        ("/a~1b/m~0n/0", True),
        ("/a~1b/m~0n/1/x", True),
        ("/a~1b/m~0n/2", False),
        ("/a~1b/m~0n/01", False),
        ("/a~1b/m~0n/-", False),
        ("/a/b", False),
        ("a~1b", False),
        ("/", True),
    ],
)
def test_a_pointer_resolves_only_to_what_is_there(pointer: str, exists: bool) -> None:
    data = {"a/b": {"m~n": [10, {"x": None}]}, "": 3}
    assert resolves(data, pointer) is exists


def test_values_are_found_as_whole_words_only() -> None:
    assert appears(12, "The box holds 12 eggs.")
    assert not appears(12, "Room 312 is on the left.")
    assert not appears(12, "It costs 12.5 euros.")
    assert not appears(5, "It costs 12.5 euros.")
    assert appears(1200, "Population: 1,200 people")
    assert appears("1,200", "Population: 1200 people")
    assert appears(12.5, "It costs 12.5 euros.")
    assert appears(3.0, "three is 3")
    assert appears("New York", "She moved to new  york in 1990.")
    assert not appears("York", "Yorkshire pudding")
    assert not appears(True, "true")  # booleans are never verified
    assert not appears("word " * 60, "word " * 100)  # a long summary is never verified
    assert not appears("", "anything")


def test_a_citation_is_verified_corrected_or_marked_unverified() -> None:
    evidence = [
        ev(1, "Founded in 1998 by two students."),
        ev(2, "The company has 312 employees and 12 offices."),
        ev(3, "Its headquarters are in Lyon."),
    ]
    data = {"founded": 1998, "offices": 12, "city": "Paris", "hq": "Lyon", "ceo": None, "ok": True}
    cited = {"/founded": ["E1"], "/offices": ["E1"], "/city": ["E3"], "/hq": ["E3", "E2"]}
    found = {s.pointer: s for s in field_sources(data, cited, evidence)}
    assert set(found) == {"/founded", "/offices", "/city", "/hq", "/ok"}  # null needs no source
    assert found["/founded"].verified and not found["/founded"].corrected
    assert found["/offices"].evidence_ids == ("E2",) and found["/offices"].corrected
    assert found["/offices"].sources == ("https://site.example/2",)
    assert found["/city"].evidence_ids == ("E3",) and not found["/city"].verified
    assert found["/hq"].evidence_ids == ("E3",) and found["/hq"].verified
    assert not found["/ok"].verified


def test_a_citation_of_a_container_covers_its_leaves() -> None:
    evidence = [ev(1, "Alice is 30. Bob is 41.")]
    data = {"people": [{"name": "Alice", "age": 30}, {"name": "Bob", "age": 41}]}
    sources = field_sources(data, {"/people": ["E1"]}, evidence)
    assert [s.pointer for s in sources] == [
        "/people/0/name",
        "/people/0/age",
        "/people/1/name",
        "/people/1/age",
    ]
    assert all(s.verified and s.evidence_ids == ("E1",) and not s.corrected for s in sources)


def test_a_finish_is_checked_against_schema_ids_and_pointers() -> None:
    schema = {
        "type": "object",
        "properties": {"price": {"type": "number"}},
        "required": ["price"],
    }
    validator = schema_validator(schema)
    good = Finish({"price": 12}, {"/price": ("E1",)})
    assert finish_problem(good, validator, {"E1"}) is None
    wrong = finish_problem(Finish({"price": "12"}, {}), validator, {"E1"})
    assert wrong == "`data` at /price does not match the schema: '12' is not of type 'number'"
    unknown = finish_problem(Finish({"price": 1}, {"/price": ("E1", "E7")}), validator, {"E1"})
    assert unknown == "`sources` cites unknown evidence ids: E7"
    absent = finish_problem(Finish({"price": 1}, {"/cost": ("E1",)}), validator, {"E1"})
    assert absent == "`sources` names pointers that do not exist in `data`: '/cost'"
    assert finish_problem(Finish([1], {"/0": ("E1",)}), None, {"E1"}) is None


def test_a_schema_that_is_not_one_is_refused() -> None:
    with pytest.raises(InvalidArgument, match="schema"):
        schema_validator({"type": "banana"})
    with pytest.raises(InvalidArgument, match="schema"):
        schema_validator([1, 2])
    assert schema_validator(None) is None


def test_a_schema_too_deep_or_endless_to_check_is_refused_and_a_costly_check_is_cut_off() -> None:
    with pytest.raises(InvalidArgument, match="can be checked"):
        schema_validator({"$ref": "#"})
    with pytest.raises(InvalidArgument, match="referring only to itself"):
        schema_validator({"$ref": "http://10.0.0.1/schema.json"})
    elsewhere = schema_validator({"properties": {"a": {"$ref": "file:///etc/passwd"}}})
    problem = finish_problem(Finish({"a": 1}, {}), elsewhere, {"E1"})
    assert problem is not None and "to a schema it does not hold" in problem
    with pytest.raises(InvalidArgument, match="nesting 64 levels at most"):
        schema_validator(json.loads('{"not": ' * 100 + "{}" + "}" * 100))
    doubling = {  # each level of data is checked twice over by the level above
        "type": "object",
        "properties": {"a": {"anyOf": [{"$ref": "#"}, {"$ref": "#"}]}},
    }
    check = schema_validator(doubling)
    nested = json.loads('{"a": ' * 60 + "1" + "}" * 60)
    started = time.monotonic()
    problem = finish_problem(Finish(nested, {}), check, {"E1"})
    assert time.monotonic() - started < 10
    assert problem is not None and "cannot be checked against the schema" in problem
    assert finish_problem(Finish({"a": {"a": {}}}, {}), check, {"E1"}) is None


@pytest.mark.timeout(30)
def test_a_pattern_that_backtracks_without_end_is_cut_off_and_others_still_match() -> None:
    check = schema_validator(
        {
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": "^(a|a)*$"}},
            "patternProperties": {"^(b|b)*$": {"type": "integer"}},
        }
    )
    started = time.monotonic()
    problem = finish_problem(Finish({"code": "a" * 40 + "!"}, {}), check, {"E1"})
    assert problem is not None and "cannot be checked against the schema" in problem
    problem = finish_problem(Finish({"b" * 40 + "!": 1}, {}), check, {"E1"})
    assert problem is not None and "cannot be checked against the schema" in problem
    assert time.monotonic() - started < 20  # two checks of 2 s each, on a busy machine
    assert finish_problem(Finish({"code": "aaa", "bb": 2}, {}), check, {"E1"}) is None
    wrong = finish_problem(Finish({"code": "ab", "bb": "x"}, {}), check, {"E1"})
    assert wrong is not None and "'ab' does not match" in wrong and "/bb" in wrong


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(st.text())
def test_escaping_a_token_reads_back_and_never_leaves_a_bare_slash(token: str) -> None:
    assert unescape(escape(token)) == token
    assert "/" not in escape(token)


@given(json_values)
def test_every_leaf_pointer_resolves_to_its_value(data: object) -> None:
    for pointer, value in leaves(data):
        assert resolves(data, pointer)
        here = data
        for token in pointer.split("/")[1:] if pointer else []:
            key = unescape(token)
            here = here[int(key)] if isinstance(here, list) else here[key]  # type: ignore[index]
        assert here == value


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=0, max_value=10**9))
def test_a_number_is_never_found_inside_a_longer_one(value: int, other: int) -> None:
    text = f"Room {other} is here."
    assert appears(value, text) is (str(value) == str(other))


PASSAGE = (
    "City Museum\n\nThe City Museum opened in 1998. It has 312 rooms on 12 floors.\n\n"
    "Its director was named in\n2015 by the board."
)
URL = "https://site.example/museum"


@pytest.mark.parametrize(
    ("value", "sentence"),
    [
        (12, "It has 312 rooms on 12 floors."),  # whole words: not the 12 of 312
        (1998.0, "The City Museum opened in 1998."),
        (
            "1998. It has 312 rooms",
            "The City Museum opened in 1998. It has 312 rooms on 12 floors.",
        ),
        ("named in 2015", "City Museum"),  # runs across a line: no link joins them
        (14, "City Museum"),  # said nowhere: the passage's first sentence
        (True, "City Museum"),
        ("x " * 100, "City Museum"),
    ],
)
def test_a_field_links_its_evidence_at_the_sentence_holding_its_value(
    value: object, sentence: str
) -> None:
    """Never at the whole passage: it begins in a heading and runs on into a paragraph,
    where a text fragment finds nothing."""
    assert value_link(URL, PASSAGE, (), value) == (fragment_url(URL, sentence), None)


def test_a_field_read_from_a_file_links_the_page_of_the_sentence_holding_its_value() -> None:
    text = "Annual report\n\nThe museum opened in 1998.\n\nIt has 12 floors."
    places = (TextPlace(0, Place(page=1, paragraph=1)), TextPlace(43, Place(page=2, paragraph=1)))
    assert text[43:] == "It has 12 floors."
    assert value_link(URL, text, places, 12) == (f"{URL}#page=2", Place(page=2, paragraph=1))
    assert value_link(URL, text, places, 1998) == (f"{URL}#page=1", Place(page=1, paragraph=1))
    assert value_link(URL, "   ", places, 12) == (f"{URL}#page=1", Place(page=1, paragraph=1))
    assert value_link(URL, "", (), 12) == (URL, None)
    item = Evidence("E1", URL, "passage", text, places=places)
    assert item.link() == f"{URL}#page=1"  # the evidence itself: at its first sentence
