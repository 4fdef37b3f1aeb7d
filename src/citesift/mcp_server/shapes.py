"""What a passage looks like in a tool's answer: its text and where to cite it from (URL,
title, licence, a link that scrolls to it), whatever part of the library found it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from citesift.agent import Evidence
from citesift.model import Licence, Match, Passage, stored_place
from citesift.text import match_link

Item = dict[str, Any]


def licence_item(licence: Licence | Mapping[str, Any] | None) -> Item | None:
    """A licence as ``{name, url}``; None when the source names none."""
    if licence is None:
        return None
    if isinstance(licence, Licence):
        return dataclasses.asdict(licence)
    return {"name": licence.get("name"), "url": licence.get("url")}


def passage_item(passage: Passage | Mapping[str, Any]) -> Item:
    """A passage (or a scrape's passage as JSON) with its citation and its span
    (``source_start``/``source_end``: characters of the snapshot's decoded text)."""
    given = dataclasses.asdict(passage) if isinstance(passage, Passage) else passage
    place = passage.place if isinstance(passage, Passage) else stored_place(given.get("place"))
    return {
        "text": given["content"],
        "url": given["url"],
        "title": given["title"],
        "licence": licence_item(given.get("licence")),
        "link": given["fragment_url"],
        "place": place.label() if place else None,
        "snapshot_id": given.get("snapshot_id"),
        "block": given.get("block"),
        "source_start": given.get("source_start"),
        "source_end": given.get("source_end"),
    }


def match_item(match: Match) -> Item:
    """An index hit as a passage, with its score (its document id when it has no URL)."""
    origin = match.provenance
    url = (origin.url if origin else None) or match.metadata.get("url")
    return {
        "text": match.content,
        "url": url,
        "title": (origin.title if origin else None) or match.metadata.get("title"),
        "licence": licence_item(origin.licence if origin else None),
        "link": match_link(match),
        "place": origin.place.label() if origin and origin.place else None,
        "score": match.score,
        "document_id": origin.document_id if origin else match.id,
    }


def evidence_item(evidence: Evidence) -> Item:
    """A research run's evidence as a passage, with the id its answer cites it by (its span
    in characters of the snapshot's decoded text)."""
    return {
        "id": evidence.id,
        "kind": evidence.kind,
        "text": evidence.text,
        "url": evidence.url,
        "title": evidence.title,
        "licence": licence_item(evidence.licence),
        "link": evidence.link(),
        "place": evidence.place.label() if evidence.place else None,
        "snapshot_id": evidence.snapshot_id,
        "source_start": evidence.source_start,
        "source_end": evidence.source_end,
    }
