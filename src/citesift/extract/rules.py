"""Extraction rules kept as data: which elements break blocks, which are dropped, and why.

Every vocabulary here is a plain set so that rules are read, reviewed and judged by the
benchmark rather than buried in code. Class and id values are split into tokens on any
character that is not a letter or digit, so ``post-sidebar`` yields ``post`` and ``sidebar``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
    menu nav ol p plaintext pre section summary table tbody td tfoot th thead tr ul
    """
)

# The kind of block an element's text makes; anything else is a paragraph.
KIND_BY_TAG = {
    "h1": "heading", "h2": "heading", "h3": "heading",
    "h4": "heading", "h5": "heading", "h6": "heading",
    "li": "list_item", "dd": "list_item", "dt": "list_item",
    "td": "table_cell", "th": "table_cell",
    "caption": "caption", "figcaption": "caption",
    "blockquote": "quote", "pre": "code", "plaintext": "code",
}  # fmt: skip

HEADING_TAGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
CELL_TAGS = frozenset(("td", "th"))

# Dropped with all their content in both modes (never shown as text, or not the page's prose).
ALWAYS_DROPPED_TAGS = words(
    """
    title script style noscript template svg math head iframe object embed select button
    datalist textarea canvas audio video map
    """
)
# Dropped in article mode on MediaWiki pages (the Wikipedia rules: not the article's prose).
MEDIAWIKI_DROPPED_TAGS = words("table figure figcaption blockquote pre")
# Dropped in article mode elsewhere: figures and their captions. Quotations and code stay
# (they are often the article's own text); data tables are judged after the scan.
ARTICLE_DROPPED_TAGS = words("figure figcaption")

# Class tokens dropped in both modes: reference lists, navigation boxes, edit links,
# maintenance tags, mathematics.
ALWAYS_DROPPED_CLASSES = words(
    """
    references mw-references-wrap reflist refbegin navbox navbox-styles vertical-navbox
    mw-editsection pcs_edit_section_link_container ambox tmbox ombox cmbox fmbox imbox
    mwe-math-element Inline-Template mw-ref mw-empty-elt
    """
)
# Class tokens dropped in article mode on MediaWiki pages only (Parsoid furniture around the
# prose). Elsewhere the same words name ordinary content (``class="post gallery"`` on a
# photo story, ``toc`` on a page's own contents) and stay hints for main-content detection.
ARTICLE_DROPPED_CLASSES = words(
    """
    hatnote shortdescription noprint infobox metadata navigation-not-searchable thumb
    gallery toc sidebar
    """
)
_ARTICLE_CLASSES = ALWAYS_DROPPED_CLASSES | ARTICLE_DROPPED_CLASSES
# Classes that, on a <sup>, mark a reference marker.
REFERENCE_MARKER_CLASSES = frozenset(("reference", "mw-ref"))
ARTICLE_DROPPED_ROLES = frozenset(("note",))
# Ids dropped in article mode: Wikipedia's title-bar coordinates.
ARTICLE_DROPPED_IDS = frozenset(("coordinates",))

# Sections that article mode keeps when inline style hides them: collapsed (mobile pages
# fold every section but the lead), they are still the article a reader expands.
COLLAPSIBLE_TAGS = words("section details")

# Main-content detection (article mode on pages that are not Parsoid).
BOILERPLATE_TAGS = words("nav header footer aside menu dialog")
# Tags that are furniture only as a hint: a <form> may wrap a whole page (ASP.NET does).
BOILERPLATE_HINT_TAGS = words("form")
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
    subscription signup share sharing sharebar socialshare related recommended
    popular trending taxonomy tags tagcloud pagination pager skip skiplink modal popup
    overlay outbrain taboola byline dateline author copyright legal disclaimer print toolbar
    gallery slideshow carousel caption captions credit credits cta date timestamp meta
    """
)
# Class/id tokens of the above that name a comment thread: readers' replies are not the
# article even where they hold most of a page's text.
COMMENT_TOKENS = words("comment comments disqus respond reply")
# An id of at least this many words may be the slug of its section's heading: a title, not
# a furniture name (``id="sharing-with-a-single-developer"``).
SLUG_MIN_WORDS = 3
# Class/id tokens of the above that name the text a site repeats on every page (its footer,
# legal and cookie notices): it reads as prose, but is the article of no page.
SITEWIDE_TOKENS = words("footer copyright legal disclaimer cookie cookies consent gdpr")
# What an element says when it declares itself the page's main content: its tag, its ARIA
# role, schema.org's microdata for an article's text, or the microformats' classes for a
# blog entry and its text (hAtom's ``hentry`` and ``entry-content``, h-entry's).
CONTENT_TAGS = words("article main")
CONTENT_ROLES = words("main article")
CONTENT_ITEMPROPS = words("articleBody")
CONTENT_CLASSES = words("hentry h-entry entry-content e-content")
# Landmark tags that, inside these elements, belong to them rather than to the page (a
# header of an article, a note aside in a section), as in the HTML accessibility mappings.
SCOPED_LANDMARKS = {
    "header": words("article aside main nav section"),
    "footer": words("article aside main nav section"),
    "aside": words("article aside nav section"),
}
# Tags main-content detection never drops by class or id (they wrap the whole page).
NEVER_BOILERPLATE_TAGS = frozenset(("html", "body", "main", "article"))


def dropped_tags(mode: Mode, mediawiki: bool = True) -> frozenset[str]:
    """The tags dropped with their content in ``mode`` (on a MediaWiki page or not)."""
    if mode == "page":
        return ALWAYS_DROPPED_TAGS
    return ALWAYS_DROPPED_TAGS | (MEDIAWIKI_DROPPED_TAGS if mediawiki else ARTICLE_DROPPED_TAGS)


@dataclass(frozen=True, slots=True)
class Policy:
    """What one scan drops: the mode's rules and what is known about the page."""

    mode: Mode
    mediawiki: bool  # MediaWiki or Parsoid output (the Wikipedia rules apply)
    drop_tags: frozenset[str]
    furniture: bool  # drop block-level page furniture (main-content detection)
    hidden_blocks: bool  # drop hidden block-level elements (hidden inline ones always go)
    data_tables: bool  # leave out tables that hold data rather than prose


def policy(mode: Mode, mediawiki: bool, parsoid: bool) -> Policy:
    """The rules for ``mode`` on a page that is MediaWiki output, or Parsoid output, or not."""
    article = mode == "article"
    return Policy(
        mode=mode,
        mediawiki=mediawiki or parsoid,
        drop_tags=dropped_tags(mode, mediawiki or parsoid),
        furniture=article and not parsoid,
        hidden_blocks=not (article and parsoid),
        data_tables=article and not (mediawiki or parsoid),
    )


def dropped_classes(mode: Mode, mediawiki: bool = True) -> frozenset[str]:
    """The class tokens dropped with their content in ``mode`` (on a MediaWiki page or not)."""
    return _ARTICLE_CLASSES if mode == "article" and mediawiki else ALWAYS_DROPPED_CLASSES


def without_furniture(rules: Policy) -> Policy:
    """The same rules with main-content detection by tag, role, class and id turned off."""
    return replace(rules, furniture=False)
