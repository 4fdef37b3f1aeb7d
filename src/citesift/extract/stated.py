"""How long a page says its article is: schema.org ``articleBody`` in its JSON-LD.

The stated text is only evidence for main-content detection (a selection far shorter than
it is doubted); what is kept is always text the page shows, with its place in the source.
"""

from __future__ import annotations

from citesift.extract.jsonld import jsonld_nodes
from citesift.extract.pagetags import read_page_tags

_MARK = '"articleBody"'


def stated_body_chars(html: str) -> int:
    """The length, white space collapsed, of the longest ``articleBody`` the page's JSON-LD
    states (0 when it states none). Pages without the property pay one search."""
    if html.find(_MARK) < 0:
        return 0
    longest = 0
    for node in jsonld_nodes(read_page_tags(html).jsonld):
        body = node.get("articleBody")
        if isinstance(body, str):
            longest = max(longest, len(" ".join(body.split())))
    return longest
