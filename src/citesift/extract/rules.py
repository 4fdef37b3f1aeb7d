"""Extraction rules kept as data: which elements break blocks, which are dropped, and why.

Every vocabulary here is a plain set so that rules are read, reviewed and judged by the
benchmark rather than buried in code. Class and id values are split into tokens on any
character that is not a letter or digit, so ``post-sidebar`` yields ``post`` and ``sidebar``.
"""

from __future__ import annotations

from typing import Literal

Mode = Literal["article", "page"]


def words(text: str) -> frozenset[str]:
    """The white-space separated words of ``text`` as a set."""
    return frozenset(text.split())


# Elements that never hold children (their end tag is ignored, they never change depth).
VOID_TAGS = words(
    """
    area base br col embed hr img input keygen link meta param source track wbr
    """
)

# Elements whose opening and closing end the current block.
BLOCK_TAGS = words(
    """
    address article aside blockquote body caption center dd details dialog div dl dt
    fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html li main
    menu nav ol p pre section summary table tbody td tfoot th thead tr ul
    """
)

# The kind of block an element's text makes; anything else is a paragraph.
KIND_BY_TAG = {
    "h1": "heading", "h2": "heading", "h3": "heading",
    "h4": "heading", "h5": "heading", "h6": "heading",
    "li": "list_item", "dd": "list_item", "dt": "list_item",
    "td": "table_cell", "th": "table_cell",
    "caption": "caption", "figcaption": "caption",
    "blockquote": "quote", "pre": "code",
}  # fmt: skip

HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))

# Dropped with all their content in both modes (never shown as text, or not the page's prose).
ALWAYS_DROPPED_TAGS = words(
    """
    title script style noscript template svg math head iframe object embed select button
    datalist textarea canvas audio video map
    """
)
# Dropped in article mode only (the Wikipedia/Parsoid rules: not the article's prose).
ARTICLE_DROPPED_TAGS = words(
    """
    table figure figcaption blockquote pre
    """
)

# Class tokens dropped in both modes: reference lists, navigation boxes, edit links,
# maintenance tags, mathematics.
ALWAYS_DROPPED_CLASSES = words(
    """
    references mw-references-wrap reflist refbegin navbox navbox-styles vertical-navbox
    mw-editsection pcs_edit_section_link_container ambox tmbox ombox cmbox fmbox imbox
    mwe-math-element Inline-Template mw-ref mw-empty-elt
    """
)
# Class tokens dropped in article mode only (Parsoid furniture around the prose).
ARTICLE_DROPPED_CLASSES = words(
    """
    hatnote shortdescription noprint infobox metadata navigation-not-searchable thumb
    gallery toc sidebar
    """
)
# Classes that, on a <sup>, mark a reference marker.
REFERENCE_MARKER_CLASSES = frozenset(("reference", "mw-ref"))
ARTICLE_DROPPED_ROLES = frozenset(("note",))

# Main-content detection (article mode on pages that are not Parsoid).
BOILERPLATE_TAGS = words(
    """
    nav header footer aside form menu dialog
    """
)
BOILERPLATE_ROLES = words(
    """
    navigation banner contentinfo complementary search dialog alertdialog menu menubar
    """
)
# Class/id tokens that name page furniture rather than content.
BOILERPLATE_TOKENS = words(
    """
    nav navbar navigation menu submenu breadcrumb breadcrumbs header masthead footer sidebar
    aside widget widgets comment comments disqus respond reply cookie cookies consent gdpr
    banner ad ads advert adverts advertisement sponsor sponsored promo newsletter subscribe
    subscription signup share sharing social sharebar socialshare related recommended
    popular trending taxonomy tags tagcloud pagination pager skip skiplink modal popup
    overlay outbrain taboola byline dateline author copyright legal disclaimer print toolbar
    """
)
# Tags main-content detection never drops by class or id (they wrap the whole page).
NEVER_BOILERPLATE_TAGS = frozenset(("html", "body", "main", "article", "p"))


def dropped_tags(mode: Mode) -> frozenset[str]:
    """The tags dropped with their content in ``mode``."""
    return ALWAYS_DROPPED_TAGS | ARTICLE_DROPPED_TAGS if mode == "article" else ALWAYS_DROPPED_TAGS


def dropped_classes(mode: Mode) -> frozenset[str]:
    """The class tokens dropped with their content in ``mode``."""
    if mode == "article":
        return ALWAYS_DROPPED_CLASSES | ARTICLE_DROPPED_CLASSES
    return ALWAYS_DROPPED_CLASSES
