"""Bytes to blocks: HTML (article and page modes), with every block's place in the source,
and PDF and Office files, with every block's place in the file."""

from citesift.extract.document import extract_document
from citesift.extract.html import Blocks, html_to_blocks
from citesift.extract.markdown import blocks_to_markdown
from citesift.extract.metadata import PageMetadata, extract_metadata
from citesift.extract.source import source_text
from citesift.extract.strip import strip_tags

__all__ = [
    "Blocks",
    "PageMetadata",
    "blocks_to_markdown",
    "extract_document",
    "extract_metadata",
    "html_to_blocks",
    "source_text",
    "strip_tags",
]
