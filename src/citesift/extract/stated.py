"""How long a page says its article is: schema.org ``articleBody`` in its JSON-LD.

The stated text is only evidence for main-content detection (a selection far shorter than
it is doubted); what is kept is always text the page shows, with its place in the source.
"""

from __future__ import annotations

import re

from citesift.extract.jsonld import jsonld_nodes
from citesift.extract.pagetags import read_page_tags

_MARK = '"articleBody"'
_KEY = re.compile(r'"articleBody"\s*:')  # as a JSON key (microdata names it in an attribute)


def stated_body_chars(html: str) -> int:
    """The length, white space collapsed, of the longest ``articleBody`` the page's JSON-LD
    states (0 when it states none). Pages without the property as a JSON key pay one or two
    searches (microdata's ``itemprop="articleBody"`` says nothing of the length)."""
    if html.find(_MARK) < 0 or _KEY.search(html) is None:
        return 0
    longest = 0
    for node in jsonld_nodes(read_page_tags(html).jsonld):
        body = node.get("articleBody")
        if isinstance(body, str):
            longest = max(longest, len(" ".join(body.split())))
    return longest
