"""Licences pages state, with Creative Commons addresses named the way people cite them."""

from __future__ import annotations

import re

from citesift.model import Licence

_CREATIVE_COMMONS = re.compile(
    r"^https?://(?:www\.)?creativecommons\.org/licenses/([a-z]+(?:-[a-z]+)*)/(\d+(?:\.\d+)?)"
    r"(?:/([a-z]{2})(?=/|$))?",
    re.IGNORECASE,
)
_PUBLIC_DOMAIN = re.compile(
    r"^https?://(?:www\.)?creativecommons\.org/publicdomain/(zero|mark)/(\d+(?:\.\d+)?)/?",
    re.IGNORECASE,
)
_PUBLIC_DOMAIN_NAMES = {"zero": "CC0", "mark": "Public Domain Mark"}
_NAMED = re.compile(r"^(?:CC[ -]?)((?:BY|SA|NC|ND)(?:[ -](?:BY|SA|NC|ND))*)\s+(\d+\.\d+)$", re.I)
_CC_URL = "https://creativecommons.org/licenses/{code}/{version}/"


def licence_from_url(url: str, text: str | None) -> Licence:
    """The licence at ``url``: its Creative Commons name ("CC BY-SA 4.0") or else ``text``."""
    found = _CREATIVE_COMMONS.match(url)
    if found:
        code, version, port = found.groups()
        name = f"CC {code.upper()} {version}" + (f" {port.upper()}" if port else "")
        return Licence(name, url)
    found = _PUBLIC_DOMAIN.match(url)
    if found:
        return Licence(f"{_PUBLIC_DOMAIN_NAMES[found.group(1).lower()]} {found.group(2)}", url)
    return Licence(text or url, url)


def licence_named(name: str) -> Licence:
    """A licence stated by name only; a Creative Commons name gets its address."""
    found = _NAMED.match(name)
    if not found:
        return Licence(name, "")
    code = found.group(1).replace(" ", "-").lower()
    return Licence(
        f"CC {code.upper()} {found.group(2)}", _CC_URL.format(code=code, version=found.group(2))
    )
