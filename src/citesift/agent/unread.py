"""The URLs a run was asked to read and did not, each with why (refused by the run, or the
page gave nothing), and the message of a run that read nothing: what its answer says
besides its data, in one shape on the command line, the HTTP API and MCP."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from citesift.net import without_credentials

MAX_UNREAD = 20
"""URLs not read an answer names at most (the first ones asked for)."""


@dataclass(frozen=True, slots=True)
class Unread:
    """A URL the run did not read, and why, in the words the model was shown."""

    url: str
    reason: str


@dataclass
class UnreadLog:
    """The URLs not read so far, in the order first asked for; a URL read later leaves it.
    Each is kept without the user name and password the model may have written in it, as
    the list is stored and returned to callers."""

    reasons: dict[str, str] = field(default_factory=dict)

    def refused(self, url: str, reason: str) -> None:
        """``url`` was not read for ``reason`` (the latest reason kept)."""
        url = without_credentials(url)
        if url in self.reasons or len(self.reasons) < MAX_UNREAD:
            self.reasons[url] = reason

    def read(self, *urls: str) -> None:
        """``urls`` were read after all."""
        for url in urls:
            self.reasons.pop(without_credentials(url), None)

    def listed(self) -> tuple[Unread, ...]:
        """The URLs not read, with why."""
        return tuple(Unread(url, reason) for url, reason in self.reasons.items())


def nothing_read(unread: tuple[Unread, ...]) -> str:
    """Why a run that has no evidence answers with nothing."""
    if unread:
        return (
            f"nothing was read: none of the {len(unread)} URL(s) asked for could be read"
            " (each is listed with why)"
        )
    return "nothing was read: no page to read was found for the task"


def answer_notes(answer: Mapping[str, Any]) -> dict[str, Any]:
    """What an answer (as ``Answer.to_dict`` gives it) says besides its data and fields: its
    ``message`` (why nothing was read, when nothing was) and the URLs ``unread``, each as
    ``{url, reason}``."""
    unread = answer.get("unread") or ()
    return {
        "message": answer.get("message"),
        "unread": [{"url": u["url"], "reason": u["reason"]} for u in unread],
    }
