"""Markdown notes (an Obsidian-style vault): front matter, wikilinks, sections, tables,
and a note read into a citable document."""

from citesift.extract.notes.document import note_document
from citesift.extract.notes.frontmatter import Frontmatter, split_frontmatter
from citesift.extract.notes.note import Note, parse_note
from citesift.extract.notes.plain import normalize, plain
from citesift.extract.notes.sections import Section, find_section, sections
from citesift.extract.notes.tables import parse_table
from citesift.extract.notes.wikilinks import extract_wikilinks, strip_wikilinks

__all__ = [
    "Frontmatter",
    "Note",
    "Section",
    "extract_wikilinks",
    "find_section",
    "normalize",
    "note_document",
    "parse_note",
    "parse_table",
    "plain",
    "sections",
    "split_frontmatter",
    "strip_wikilinks",
]
