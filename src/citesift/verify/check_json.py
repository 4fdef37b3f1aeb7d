"""A document check as JSON: the one object ``citesift check --format json``, the HTTP
API's ``POST /citesift/check`` and the MCP ``check_citations`` tool give, so that a check's
answer reads the same whichever way it was asked for."""

from __future__ import annotations

import dataclasses
from typing import Any

from citesift.verify.document_check import CitationCheck, DocumentCheck


def citation_json(check: CitationCheck) -> dict[str, Any]:
    """One citation's verdict, flat: the citing sentence, the address it cites, the marker
    citing it and the sentence's span in the document, then the verdict (``status``, in
    snake case as the counts are: ``unavailable`` for "source unavailable"; ``score``,
    ``reason``, ``abstained``) and the source's best supporting sentence (``evidence``) with
    its link (``evidence_url``), ``snapshot_id``, ``title``, ``licence`` (``{name, url}``)
    and ``place`` in a PDF or Office file (``{page, slide, sheet, paragraph, row,
    column}``; None in a web page)."""
    fields = dataclasses.asdict(check)
    if check.status == "source unavailable":
        fields["status"] = "unavailable"
    return {**fields.pop("citation"), **fields}


def check_json(report: DocumentCheck) -> dict[str, Any]:
    """The whole check: each citation's ``citation_json`` in document order, the counts
    of each verdict, ``passed``, ``cut_short`` and ``unchecked`` (see ``DocumentCheck``)."""
    return {"citations": [citation_json(check) for check in report.citations]} | check_counts(
        report
    )


def check_counts(report: DocumentCheck) -> dict[str, Any]:
    """What the check says besides its citations (what a paged answer repeats on each
    page)."""
    return {
        "supported": report.supported,
        "partially_supported": report.partially_supported,
        "not_supported": report.not_supported,
        "unavailable": report.unavailable,
        "passed": report.passed,
        "cut_short": report.cut_short,
        "unchecked": report.unchecked,
    }
