"""A regex tokenizer over HTML source that keeps positions, and the per-element drop tests.

One compiled pattern finds each tag, comment and declaration with its position; text is
whatever lies between two matches. The body of a raw-text element (``script``, ``style``,
``title``…) is skipped in one search, up to the end tag an HTML tokenizer would use
(``</script`` followed by tab, LF, FF, CR, space, ``/`` or ``>``), or to the end of input;
``<plaintext>`` has no end tag, and all after it is text (read by ``walk``, not skipped).
"""

from __future__ import annotations

import re

from citesift.extract import rules
from citesift.extract.style import hides

RAW_TEXT_TAGS = (
    "script", "style", "title", "textarea", "noscript", "xmp", "iframe", "noembed", "plaintext"
)  # fmt: skip
PLAINTEXT = "plaintext"  # everything after its start tag is text: no end tag ends it

# Groups: 1 "/" of an end tag, 2 tag name, 3 attribute text; comments and declarations
# match with no group set. A ">" inside a quoted attribute value does not end the tag; as
# in an HTML tokenizer, a quote opens a value only right after "=" (``alt=5'11`` is a plain
# value), and a quote never closed is read as a plain character. The attribute text is read
# as runs between "=" signs (the unrolled loop: one step per value, not per character), the
# cheapest form Python's ``re`` runs. Every construct that is never closed runs to the end
# of the input, as it does in an HTML tokenizer (a tag with no ">", ``closes`` says, is
# dropped there with all that follows it): so no opener is ever read twice, which keeps the
# scan linear on input full of unclosed tags. A DOCTYPE's internal subset (``[...]``)
# belongs to it, "]>" included.
TOKEN = re.compile(
    r"""<(?:
        (/?)([A-Za-z][^\t\n\f\r />]*+)([^>=]*+(?:=\s*+(?:"[^"]*+"|'[^']*+')?[^>=]*+)*+)>?
      | !--(?:-?>|.*?(?:--!?>|\Z))
      | ![Dd][Oo][Cc][Tt][Yy][Pp][Ee][^>\[]*+(?:\[[^\]]*+\]?)?[^>]*+>?
      | [!?][^>]*+>?
    )""",
    re.DOTALL | re.VERBOSE,
)
# The end tag an HTML tokenizer ends a raw-text element's body with (any letter case).
RAW_TEXT_ENDS = {
    tag: re.compile("</" + "".join(f"[{c}{c.upper()}]" for c in tag) + r"[\t\n\f\r />]")
    for tag in RAW_TEXT_TAGS
    if tag != PLAINTEXT
}
RAW_TEXT_ENDS[PLAINTEXT] = re.compile(r"(?!)")  # matches nowhere: the body runs to the end
_ATTR = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_SHORT_ATTRIBUTE_TEXT = 4096  # attribute text this short is parsed in one call
MAX_ATTRIBUTES = 64
READ_ATTRIBUTES = frozenset(
    [
        *("class", "id", "style", "hidden", "aria-hidden", "role", "typeof", "href", "rel"),
        *("type", "content", "name", "property", "itemprop", "http-equiv", "datetime"),
        *("lang", "xml:lang", "charset"),
    ]
)
_CLASS_ONLY = re.compile(r' class="([^"]*)"')  # the commonest attribute text by far
_NAME_TOKEN = re.compile(r"[a-z0-9]+")
# Where two words of a name meet without a separator: a capital after a small letter, a
# digit after a letter, a letter after a digit.
_WORD_JOIN = re.compile(r"(?<=[a-z])(?=[A-Z0-9])|(?<=[0-9])(?=[A-Za-z])")
_PLAINTEXT_START = re.compile(r"<plaintext", re.IGNORECASE)


def raw_text_end(html: str, tag: str, pos: int) -> int:
    """Where the body of raw-text element ``tag`` opened before ``pos`` ends (its end tag)."""
    found = RAW_TEXT_ENDS[tag].search(html, pos)
    return found.start() if found else len(html)


def closes(html: str, token: re.Match[str]) -> bool:
    """Whether a ``TOKEN`` match ends in its ">" (else the input ended inside it)."""
    return html[token.end() - 1] == ">"


def plaintext_start(html: str, before: int) -> int:
    """Where the text of a ``<plaintext>`` start tag that opens before ``before`` begins
    (everything from there on is text, not markup), or -1 when none does."""
    found = _PLAINTEXT_START.search(html, 0, before)
    if found is None:
        return -1
    pos = 0
    while (m := TOKEN.search(html, pos, before)) is not None:
        pos = m.end()
        name = (m.group(2) or "").lower()
        if name == PLAINTEXT and not m.group(1) and closes(html, m):
            return pos
        if name in RAW_TEXT_ENDS and not m.group(1):
            pos = raw_text_end(html, name, pos)
    return -1


def attributes(raw: str) -> dict[str, str]:
    """The attributes of a start tag's attribute text, names lower-cased, first one wins.

    A tag with a flood of attributes keeps the first ``MAX_ATTRIBUTES`` names and every one
    in ``READ_ATTRIBUTES`` (what extraction and metadata read), so its memory stays small
    whatever the flood, and a ``style`` or ``hidden`` at its end still counts.
    """
    only_class = _CLASS_ONLY.fullmatch(raw)
    if only_class is not None:
        return {"class": only_class[1]}
    if len(raw) <= _SHORT_ATTRIBUTE_TEXT:
        return {
            name.lower(): dq or sq or bare for name, dq, sq, bare in reversed(_ATTR.findall(raw))
        }
    found: dict[str, str] = {}
    for match in _ATTR.finditer(raw):
        name = match.group(1).lower()
        if name not in found and (len(found) < MAX_ATTRIBUTES or name in READ_ATTRIBUTES):
            found[name] = match.group(2) or match.group(3) or match.group(4) or ""
    return found


def is_hidden(attrs: dict[str, str], styled: bool = True) -> bool:
    """Whether the element is hidden by ``hidden``, ``aria-hidden="true"`` or inline style.

    ``styled=False`` leaves inline style out: a section collapsed by ``display:none`` is
    still content a reader expands.
    """
    if "hidden" in attrs:
        return True
    if "aria-hidden" in attrs and attrs["aria-hidden"].strip().lower() == "true":
        return True
    style = attrs.get("style") if styled else None
    return style is not None and hides(style)


def is_dropped(tag: str, attrs: dict[str, str], mode: rules.Mode, mediawiki: bool = True) -> bool:
    """Whether the element and all it holds are dropped in ``mode`` on a MediaWiki page or
    not (not counting hidden ones)."""
    classes = attrs["class"].split() if "class" in attrs else ()
    if classes:
        if not rules.dropped_classes(mode, mediawiki).isdisjoint(classes):
            return True
        if tag == "sup" and not rules.REFERENCE_MARKER_CLASSES.isdisjoint(classes):
            return True
    if "typeof" in attrs and "mw:Extension/ref" in attrs["typeof"]:
        return True
    return mode == "article" and (
        ("role" in attrs and attrs["role"].lower() in rules.ARTICLE_DROPPED_ROLES)
        or attrs.get("id") in rules.ARTICLE_DROPPED_IDS
    )


def is_furniture(tag: str, attrs: dict[str, str]) -> bool:
    """Whether a block-level element is page furniture by its tag or its ARIA role."""
    return tag in rules.BOILERPLATE_TAGS or (
        "role" in attrs and attrs["role"].lower() in rules.BOILERPLATE_ROLES
    )


def declares_content(tag: str, attrs: dict[str, str]) -> bool:
    """Whether a block-level element says it is the page's main content: ``<article>``,
    ``<main>``, ``role="main"``, schema.org's ``itemprop="articleBody"`` or a microformats
    entry class (``class="hentry"``, ``class="entry-content"``)."""
    if tag in rules.CONTENT_TAGS:
        return True
    if "role" in attrs and attrs["role"].lower() in rules.CONTENT_ROLES:
        return True
    if "class" in attrs and not rules.CONTENT_CLASSES.isdisjoint(attrs["class"].lower().split()):
        return True
    return "itemprop" in attrs and not rules.CONTENT_ITEMPROPS.isdisjoint(attrs["itemprop"].split())


def furniture_names(tag: str, attrs: dict[str, str]) -> tuple[bool, bool, bool]:
    """Whether a block-level element's tag, class or id names page furniture (a hint only),
    whether its class or id names a comment thread (readers' replies), and whether it names
    text the site repeats on every page (a footer, a legal or cookie notice)."""
    hinted = tag in rules.BOILERPLATE_HINT_TAGS
    if not attrs or tag in rules.NEVER_BOILERPLATE_TAGS:
        return hinted, False, False
    tokens = _name_tokens(f"{attrs.get('class', '')} {attrs.get('id', '')}")
    if rules.BOILERPLATE_TOKENS.isdisjoint(tokens):  # comment names are furniture names
        return hinted, False, False
    thread = not rules.COMMENT_TOKENS.isdisjoint(tokens)
    return True, thread, not rules.SITEWIDE_TOKENS.isdisjoint(tokens)


def title_slug(attrs: dict[str, str]) -> str:
    """The words of an element's id joined by hyphens when the id may be the slug of its
    heading (``id="sharing-with-a-single-developer"``, as documentation generators name
    sections) and its class names no furniture; else "". Whether it is, ``walk`` checks
    against the heading once it is read."""
    ident = attrs.get("id")
    if not ident:
        return ""
    words = _name_tokens(ident)
    if len(words) < rules.SLUG_MIN_WORDS:
        return ""
    if not rules.BOILERPLATE_TOKENS.isdisjoint(_name_tokens(attrs.get("class", ""))):
        return ""
    return "-".join(words)


def slug(text: str) -> str:
    """The letter and digit runs of ``text``, lower-cased and joined by hyphens."""
    return "-".join(_NAME_TOKEN.findall(text.lower()))


def _name_tokens(names: str) -> list[str]:
    """The words of class and id text, lower-cased: its letter and digit runs, split where
    a capital follows a small letter or letters meet digits (``AdsLeft``, ``footer2``), as
    names written in camel case or numbered run their words together.

    Most class lists are lower-case ASCII words joined by hyphens and underscores: string
    methods split those at a fraction of the regex's cost, which is left for the rest.
    """
    spaced = names.replace("-", " ").replace("_", " ")
    letters = spaced.replace(" ", "")
    if letters.isascii() and letters.isalnum():
        if letters.isalpha() and letters.islower():
            return spaced.split()
        return _WORD_JOIN.sub(" ", spaced).lower().split()
    return _NAME_TOKEN.findall(_WORD_JOIN.sub(" ", names).lower())
