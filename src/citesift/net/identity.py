"""Who is asking: the client identity every request names in its User-Agent header."""

from __future__ import annotations

import re
from dataclasses import dataclass

from citesift.errors import InvalidArgument

# Tokens that make an agent string pass for a browser; a polite client names itself instead.
_BROWSER_TOKENS = re.compile(r"mozilla|chrome|safari|applewebkit|gecko|firefox|edg/|opera", re.I)
_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
_MAX_CONTACT = 200


class IdentityError(InvalidArgument):
    """A client identity that would not let a site operator recognise or reach the caller."""


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """The caller's name, version and contact (a URL or an e-mail address), checked on creation.

    Wikimedia and other operators ask every automated client to say who it is and how to
    reach its operator; an empty contact or a browser-like agent is refused.
    """

    name: str
    version: str
    contact: str

    def __post_init__(self) -> None:
        for label, value in (("name", self.name), ("version", self.version)):
            if not isinstance(value, str) or not _TOKEN.match(value):
                raise IdentityError(f"client {label} must be a short token, got {value!r}")
        contact = self.contact.strip() if isinstance(self.contact, str) else ""
        if not contact or len(contact) > _MAX_CONTACT or not contact.isprintable():
            raise IdentityError("a contact (URL or e-mail of the operator) is required")
        if "(" in contact or ")" in contact:
            raise IdentityError("the contact may not contain parentheses")
        if _BROWSER_TOKENS.search(self.name) or _BROWSER_TOKENS.search(contact):
            raise IdentityError("a client identity may not impersonate a browser")
        object.__setattr__(self, "contact", contact)

    @property
    def user_agent(self) -> str:
        """``<name>/<version> (<contact>)``."""
        return f"{self.name}/{self.version} ({self.contact})"
