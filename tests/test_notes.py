"""Markdown notes: front matter, wikilinks, sections, tables, plain text and titles, with
the edge cases of the notes format they follow."""

import pytest

from citesift import (
    extract_wikilinks,
    find_section,
    normalize,
    parse_note,
    parse_table,
    plain,
    sections,
    split_frontmatter,
    strip_wikilinks,
)

LINKED = (
    "See [[Alpha]], [[Beta|the beta]], [[Gamma#Intro]], ![[diagram.png]], [[Alpha]] and "
    "[[#Local]]. In a table: [[Delta\\|D]]."
)


def test_front_matter_is_read_and_the_body_follows() -> None:
    split = split_frontmatter("---\ntitle: Plan\ntags: [a, b]\n---\n# Body\n")
    assert split.frontmatter == {"title": "Plan", "tags": ["a", "b"]}
    assert split.body == "# Body\n"
    assert split.error is None


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeff---\nk: v\n---\nbody",
        "---\r\nk: v\r\n---\r\nbody",
        "---   \nk: v\n---  \nbody",
    ],
)
def test_front_matter_after_a_bom_with_crlf_or_trailing_spaces(raw: str) -> None:
    split = split_frontmatter(raw)
    assert split.frontmatter == {"k": "v"}
    assert split.body == "body"


def test_front_matter_closed_by_the_end_of_the_text() -> None:
    split = split_frontmatter("---\nk: v\n---")
    assert (split.frontmatter, split.body) == ({"k": "v"}, "")
    assert split_frontmatter("---\nk: v\n").frontmatter == {"k": "v"}


def test_dates_stay_as_written() -> None:
    split = split_frontmatter("---\ndate: 2026-01-05\nat: 2026-01-05T10:00:00Z\n---\n")
    assert split.frontmatter == {"date": "2026-01-05", "at": "2026-01-05T10:00:00Z"}


def test_floats_json_has_not_are_null() -> None:
    """``.nan`` and ``.inf`` have no JSON: they are null, so a note's metadata is strict
    JSON wherever it goes (an index, JSON output), and the note is still read."""
    raw = "---\nscore: .nan\nweight: -.inf\ntagged: !!float .inf\nmany: [.NaN, 1.5]\n---\nBody"
    split = split_frontmatter(raw)
    assert split.frontmatter == {"score": None, "weight": None, "tagged": None,
                                 "many": [None, 1.5]}  # fmt: skip
    assert (split.body, split.error) == ("Body", None)


def test_invalid_yaml_is_reported_never_raised() -> None:
    split = split_frontmatter("---\ntitle: [unclosed\n---\nbody text")
    assert split.frontmatter == {}
    assert split.body == "body text"
    assert split.error is not None and split.error.startswith("invalid YAML front matter")


def test_yaml_that_is_not_a_mapping_gives_an_empty_one() -> None:
    split = split_frontmatter("---\n- a\n- b\n---\nbody")
    assert (split.frontmatter, split.error, split.body) == ({}, None, "body")


def test_aliases_are_refused_so_no_mapping_can_grow_past_its_text() -> None:
    laughs = "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20)
    )
    split = split_frontmatter(laughs + "---\nbody")
    assert split.frontmatter == {} and split.error is not None and "aliases" in split.error
    assert split.body == "body"


def test_no_front_matter_unless_it_opens_the_text() -> None:
    raw = "text\n---\nk: v\n---\n"
    assert split_frontmatter(raw).frontmatter == {}
    assert split_frontmatter(raw).body == raw
    assert split_frontmatter("\ufeffplain").body == "plain"


def test_wikilinks_targets_once_each_in_first_seen_order() -> None:
    assert extract_wikilinks(LINKED) == ["Alpha", "Beta", "Gamma", "diagram.png", "Delta"]


def test_wikilinks_stripped_to_what_a_reader_sees() -> None:
    assert strip_wikilinks(LINKED) == (
        "See Alpha, the beta, Gamma, diagram.png, Alpha and Local. In a table: D."
    )
    assert strip_wikilinks("empty [[]] stays") == "empty [[]] stays"
    assert extract_wikilinks("[[ ]] [[|alias]]") == []


def test_nothing_inside_fenced_code_is_a_link() -> None:
    text = "[[Out]]\n```\n[[In]]\n```\n~~~~\n[[Also]]\n~~~\n[[Still]]\n~~~~\n"
    assert extract_wikilinks(text) == ["Out"]
    assert strip_wikilinks(text).startswith("Out\n```\n[[In]]")


def test_sections_skip_headings_inside_a_longer_fence() -> None:
    found = sections("````\n```\n# inside\n````\n# Out")
    assert [s.heading for s in found] == ["", "Out"]
    assert found[0].level == 0


def test_sections_read_atx_headings_only() -> None:
    body = (
        "intro\n\n# One #\ntext one\n    # indented code\n#NoSpace\n## Two\n   ### Three ##\nt3\n"
    )
    found = sections(body)
    assert [(s.level, s.heading) for s in found] == [(0, ""), (1, "One"), (2, "Two"), (3, "Three")]
    assert found[0].content == "intro"
    assert found[1].content == "text one\n    # indented code\n#NoSpace"
    assert body[found[3].start : found[3].end] == "t3"


def test_find_section_ignores_case_and_accents() -> None:
    body = "# Résumé\nfirst\n## Ação rápida\nsecond"
    assert find_section(body, "ACAO").content == "second"  # type: ignore[union-attr]
    assert find_section(body, "resume").heading == "Résumé"  # type: ignore[union-attr]
    assert find_section(body, "missing") is None
    assert find_section(body, "  ") is None


def test_parse_table_names_missing_headers_by_column() -> None:
    rows = parse_table("| a | |\n|---|---|\n| 1 | 2 | 3 |")
    assert rows == [{"a": "1", "col1": "2", "col2": "3"}]


def test_parse_table_without_a_delimiter_row_is_empty() -> None:
    assert parse_table("| a | b |\n| 1 | 2 |") == []
    assert parse_table("no table here") == []


def test_parse_table_escaped_pipes_and_pipes_in_links() -> None:
    text = (
        "before\n\n| **Name** | Link |\n|:--|--:|\n| a \\| b | [[Target|alias]] |\n"
        "| c | [[T\\|x]] |\nafter the table\n| z | y |\n"
    )
    assert parse_table(text) == [
        {"Name": "a | b", "Link": "[[Target|alias]]"},
        {"Name": "c", "Link": "[[T|x]]"},
    ]


def test_a_table_inside_fenced_code_is_not_read() -> None:
    assert parse_table("```\n| a |\n|---|\n| 1 |\n```\n") == []


def test_normalize_and_plain() -> None:
    assert normalize("  Ação ") == "acao"
    assert normalize(None) == ""
    assert plain("**Bold** _x_ `code` *em* [[A|alias]]") == "Bold _x_ code em alias"
    assert plain(None) == ""


def test_title_is_the_first_level_one_heading_outside_fences() -> None:
    raw = "---\ntitle: From YAML\n---\n```\n# Not this\n```\n## Sub\n# Real Title\n"
    note = parse_note("a.md", raw)
    assert note.title == "Real Title"


def test_title_falls_back_to_front_matter_then_the_file_name() -> None:
    assert parse_note("x/a.md", "---\ntitle: From YAML\n---\n## Sub\n").title == "From YAML"
    assert parse_note("notes\\Daily Note.MD", "text").title == "Daily Note"
    assert parse_note("vault/Plan.markdown", "text").title == "Plan"
    assert parse_note("v1.2 notes.md", "").title == "v1.2 notes"


def test_parse_note_links_include_the_front_matter() -> None:
    raw = '---\nrelated: "[[Beta]]"\n---\nSee [[Alpha]].\n'
    note = parse_note("n.md", raw)
    assert note.links == ("Beta", "Alpha")
    assert note.body == "See [[Alpha]].\n"
    assert note.frontmatter_error is None


def test_parse_note_reports_a_broken_front_matter() -> None:
    note = parse_note("n.md", "---\n: : :\n  - [\n---\n# T\n")
    assert note.frontmatter == {} and note.frontmatter_error
    assert note.title == "T"


def test_parse_note_refuses_what_is_not_text() -> None:
    with pytest.raises(TypeError):
        parse_note("n.md", b"bytes")  # type: ignore[arg-type]
