"""A plain text file is read as it stands: its paragraphs whole, no Markdown read into it,
attributed as a note is, and cut short (saying so) only past a bound on its characters and
paragraphs, so a hostile file costs bounded memory."""

from pathlib import Path

from citesift import create_rag
from citesift.extract.html import MAX_SOURCE_CHARS
from citesift.extract.plaintext import MAX_TEXT_BLOCKS
from citesift.sources.files import file_document, file_uri
from measure import traced

MARKED = """---
title: not front matter
---
# a comment line, not a title

def __init__(self): return `value`

See [[a|b]] and **this**.
"""


def test_a_text_file_keeps_its_markup_characters_as_text(tmp_path: Path) -> None:
    path = tmp_path / "setup notes.txt"
    path.write_text(MARKED)
    document = file_document(path)
    assert document.title == "setup notes"
    assert document.url == file_uri(path) and document.key == file_uri(path)
    assert document.site == "file" and document.read_at > 0
    assert document.revision is not None and document.revision.startswith("sha256:")
    assert document.metadata == {"path": str(path)}
    assert [b.text for b in document.blocks] == [
        "---\ntitle: not front matter\n---\n# a comment line, not a title",
        "def __init__(self): return `value`",
        "See [[a|b]] and **this**.",
    ]
    assert all(b.kind == "paragraph" and b.section == () for b in document.blocks)
    assert all(MARKED[b.source_start : b.source_end] == b.text for b in document.blocks)
    assert not document.truncated


def test_blank_lines_of_any_kind_part_blocks_and_spans_stay_exact(tmp_path: Path) -> None:
    raw = "  first line\r\nsecond line  \r\n \t \r\n\r\nthird\n\n\n"
    path = tmp_path / "crlf.txt"
    path.write_bytes(raw.encode())
    blocks = file_document(path).blocks
    assert [b.text for b in blocks] == ["first line\r\nsecond line", "third"]
    assert [(b.source_start, b.source_end) for b in blocks] == [(2, 25), (36, 41)]


def test_a_large_text_file_is_read_whole_and_its_end_is_found(tmp_path: Path) -> None:
    paragraph = "Tidal records of the harbour, kept by the hour for the almanac.\n\n"
    path = tmp_path / "log.txt"
    path.write_text(paragraph * 62_000 + "The final entry names a zeppelin.\n")
    assert path.stat().st_size > 4_000_000
    document = file_document(path, budget=MAX_SOURCE_CHARS)  # the budget asks for it whole
    assert not document.truncated and len(document.blocks) == 62_001
    assert document.blocks[-1].text == "The final entry names a zeppelin."
    with create_rag(store=tmp_path / "index.db", retrieval="bm25", chunk_size=None) as rag:
        rag.ingest([document])
        [hit] = rag.search("zeppelin", top_k=1)
    assert hit.provenance is not None and hit.provenance.document_id == file_uri(path)
    assert hit.content.endswith("The final entry names a zeppelin.")


def test_a_file_of_a_million_paragraphs_is_cut_at_the_block_cap(tmp_path: Path) -> None:
    path = tmp_path / "hostile.txt"
    path.write_text("a\n\n" * 1_000_000)
    document, _, peak = traced(lambda: file_document(path))
    assert document.truncated and len(document.blocks) == MAX_TEXT_BLOCKS
    assert document.blocks[-1].source_start == 3 * (MAX_TEXT_BLOCKS - 1)
    assert peak < 40_000_000  # the file's text and 100,000 blocks; a block each: 160 MB


def test_a_text_past_the_character_bound_is_cut_after_a_line_break(tmp_path: Path) -> None:
    line = "word " * 19 + "word\n"
    path = tmp_path / "long.txt"
    path.write_text(line * (MAX_SOURCE_CHARS // len(line) + 10))
    document = file_document(path, budget=MAX_SOURCE_CHARS)
    [block] = document.blocks
    assert document.truncated and block.text.endswith("word")
    assert len(block.text) == (MAX_SOURCE_CHARS // len(line)) * len(line) - 1
