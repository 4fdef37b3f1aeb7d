"""A vault of Markdown notes read from disk and indexed: every block points back at its
words in the note, and a search answers passages naming the note's title and section."""

import time
from pathlib import Path

import pytest

from citesift import create_rag
from citesift.extract.notes import note_document
from citesift.model import SourceDocument
from citesift.sources.files import file_document, file_uri

PLAN = """---
title: Ignored because the note has a heading
tags: [finance, planning]
date: 2026-01-05
owner: "[[Dana]]"
---
# Quarterly Plan

Goals for the quarter, linked to [[Budget|the budget]] and **agreed** by `ops`. #review

## Revenue targets

- Grow subscription revenue by *twelve* percent in the north region
- Keep churn under two percent

| Region | Target |
|--------|--------|
| North | [[Budget\\|12%]] |

```python
# Revenue targets inside code are not a heading
print("[[NotALink]]")
```

## Hiring

> Two engineers join in March.
"""

BUDGET = """# Budget

Spending is capped at forty thousand euros per month.
"""

BROKEN = """---
tags: [unclosed
---
Notes without a heading about the warehouse inventory.
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    (folder / "projects").mkdir(parents=True)
    (folder / "projects" / "Plan.md").write_text(PLAN, encoding="utf-8")
    (folder / "Budget.md").write_text(BUDGET, encoding="utf-8")
    (folder / "Inventory.MD").write_bytes(BROKEN.replace("\n", "\r\n").encode("utf-8"))
    return folder


def note(path: Path) -> SourceDocument:
    document = file_document(path)
    assert isinstance(document, SourceDocument)
    return document


def test_a_note_round_trips_with_its_metadata(vault: Path) -> None:
    plan = note(vault / "projects" / "Plan.md")
    assert plan.title == "Quarterly Plan"
    assert plan.url == file_uri(vault / "projects" / "Plan.md")
    assert plan.revision is not None and plan.revision.startswith("sha256:")
    assert plan.metadata["tags"] == ["finance", "planning", "review"]
    assert plan.metadata["links"] == ["Dana", "Budget"]
    assert plan.metadata["frontmatter"]["date"] == "2026-01-05"
    assert plan.metadata["path"].endswith("Plan.md")
    texts = [(b.kind, b.section, b.text) for b in plan.blocks]
    assert texts[:3] == [
        ("heading", (), "Quarterly Plan"),
        ("paragraph", ("Quarterly Plan",), "Goals for the quarter, linked to the budget and "
         "agreed by ops. #review"),
        ("heading", ("Quarterly Plan",), "Revenue targets"),
    ]  # fmt: skip
    section = ("Quarterly Plan", "Revenue targets")
    assert ("list_item", section, "Grow subscription revenue by twelve percent in the north "
            "region") in texts  # fmt: skip
    assert ("paragraph", section, "| North | 12% |") in texts
    code = next(b for b in plan.blocks if b.kind == "code")
    assert code.section == section and "[[NotALink]]" in code.text
    assert texts[-1] == ("quote", ("Quarterly Plan", "Hiring"), "Two engineers join in March.")


def test_every_block_points_at_its_words_in_the_note(vault: Path) -> None:
    raw = PLAN
    for block in note(vault / "projects" / "Plan.md").blocks:
        source = raw[block.source_start : block.source_end]
        for start in range(len(block.text)):
            at = block.to_source(start)
            if not block.text[start].isspace():
                assert raw[at] == block.text[start], (block.text, start)
        assert block.text.split()[0] in source


def test_a_note_with_broken_front_matter_keeps_its_text(vault: Path) -> None:
    inventory = note(vault / "Inventory.MD")
    assert inventory.title == "Inventory"
    assert inventory.metadata["frontmatter"] == {}
    assert inventory.metadata["frontmatter_error"].startswith("invalid YAML")
    assert [b.text for b in inventory.blocks] == [
        "Notes without a heading about the warehouse inventory."
    ]


def test_a_search_over_the_vault_names_title_and_section(vault: Path, tmp_path: Path) -> None:
    rag = create_rag(store=tmp_path / "index.db", retrieval="bm25", chunk_size=70)
    rag.ingest([note(path) for path in sorted(vault.rglob("*.[mM][dD]"))])
    hit = rag.search("subscription revenue north region", top_k=1)[0]
    assert "subscription revenue" in hit.content
    assert hit.provenance is not None
    assert hit.provenance.title == "Quarterly Plan"
    assert hit.provenance.section == ("Quarterly Plan", "Revenue targets")
    assert hit.provenance.url == file_uri(vault / "projects" / "Plan.md")
    assert hit.metadata["tags"] == ["finance", "planning", "review"]
    budget = rag.search("spending capped euros", top_k=1)[0]
    assert budget.provenance is not None and budget.provenance.title == "Budget"
    hiring = rag.search("engineers join", top_k=1)[0]
    assert hiring.provenance is not None
    assert hiring.provenance.section == ("Quarterly Plan", "Hiring")


@pytest.mark.parametrize(
    "raw",
    [
        "# a" + " #" * 50_000 + "x",  # was quadratic: a heading's closing run found by regex
        "# a" + " " * 100_000 + "x",
        "[[" * 50_000,
        "---\n" + "[" * 20_000 + "\n---\nbody",
    ],
)
def test_hostile_notes_read_in_bounded_time(raw: str) -> None:
    started = time.monotonic()
    document = note_document(raw, "file:///x.md", "x.md", 0)
    assert time.monotonic() - started < 3
    assert document.title


def test_a_note_longer_than_the_budget_is_cut_and_says_so() -> None:
    document = note_document("word " * 100_000, "file:///x.md", "x.md", 0)
    assert document.truncated and sum(len(b.text) for b in document.blocks) == 299_999
    last = document.blocks[-1]
    assert last.source_end == 299_999 and last.text.endswith("word")
