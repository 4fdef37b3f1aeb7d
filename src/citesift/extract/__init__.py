"""Bytes to blocks: HTML (article and page modes), with every block's place in the source,
PDF and Office files, with every block's place in the file, and Markdown notes."""

from citesift.extract.document import extract_document
from citesift.extract.html import Blocks, html_to_blocks
from citesift.extract.markdown import blocks_to_markdown
from citesift.extract.metadata import PageMetadata, extract_metadata
from citesift.extract.notes import (
    Note,
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
from citesift.extract.source import source_text
from citesift.extract.strip import strip_tags

__all__ = [
    "Blocks",
    "Note",
    "PageMetadata",
    "blocks_to_markdown",
    "extract_document",
    "extract_metadata",
    "extract_wikilinks",
    "find_section",
    "html_to_blocks",
    "normalize",
    "parse_note",
    "parse_table",
    "plain",
    "sections",
    "source_text",
    "split_frontmatter",
    "strip_tags",
    "strip_wikilinks",
]
