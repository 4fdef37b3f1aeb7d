"""The tools that check and research: a claim against a page, a document's citations
against the pages they cite, a research run with every field cited."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from citesift.agent import aresearch
from citesift.agent.run import MAX_TASK_CHARS
from citesift.agent.unread import answer_notes
from citesift.errors import invalid
from citesift.mcp_server.failures import anticipated, gave_nothing
from citesift.mcp_server.paging import Item, pieces
from citesift.mcp_server.shapes import evidence_item, passage_item
from citesift.mcp_server.state import Shared, web_url
from citesift.model import Document, SourceHit
from citesift.text import citation_sources
from citesift.verify import ClaimCheck, check_citations, verify_claim
from citesift.verify.check_json import check_counts, citation_json
from citesift.verify.claim_check import MAX_CLAIM_CHARS, MAX_SENTENCES, verify_read_far
from citesift.verify.document_check import (
    MAX_SERVED_DOCUMENT_CHARS,
    MAX_SERVED_SECONDS,
    SERVED_MAX_SECONDS,
)

Cursor = Annotated[
    str | None, Field(description="A next_cursor from an earlier call: read on from there.")
]


def register(server: MCPServer, shared: Shared) -> None:
    """Add the checking and research tools to ``server``."""

    @server.tool(name="verify_claim")
    @anticipated
    async def verify_claim_tool(
        claim: Annotated[str, Field(max_length=MAX_CLAIM_CHARS, description="The claim to check.")],
        url: Annotated[
            str | None, Field(description="The page that should support it (or sentences).")
        ] = None,
        sentences: Annotated[
            list[str] | None,
            Field(
                max_length=MAX_SENTENCES,
                description="The source's sentences that should support it (or url).",
            ),
        ] = None,
        about: Annotated[
            str,
            Field(
                max_length=MAX_CLAIM_CHARS,
                description="What the claim is about, as a field's name (height for 42):"
                " it finds the sentences, which need not repeat it.",
            ),
        ] = "",
    ) -> dict[str, Any]:
        """How well a page (url) or a list of sentences supports a claim: supported,
        partially_supported or not_supported, with the supporting passages (URL, title,
        licence, link) or sentences (index and text). Give exactly one of url, sentences."""
        if sentences is not None and url is None:
            check = await asyncio.to_thread(verify_claim, claim, sentences, about=about)
            given = [{"index": i, "text": sentences[i]} for i in check.supporting]
            return _verdict(shared, check, given)
        if url is None or sentences is not None:
            raise invalid("url", url, "given when sentences are not, and only then")
        outcome = await shared.sources.web_pages("page").read(SourceHit(web_url(url), url))
        if not isinstance(outcome, Document):
            raise gave_nothing("read", outcome)
        passages = [p for p in citation_sources(outcome.document) if p.content.strip()]
        read = [p.content.strip() for p in passages]
        check = await asyncio.to_thread(verify_read_far, claim, read, about=about)
        return _verdict(shared, check, [passage_item(passages[i]) for i in check.supporting])

    @server.tool(name="check_citations")
    @anticipated
    async def check_citations_tool(
        text: Annotated[
            str,
            Field(max_length=MAX_SERVED_DOCUMENT_CHARS, description="The document, with links."),
        ],
        kind: Literal["markdown", "html"] = "markdown",
        base_url: Annotated[
            str | None, Field(description="The address its relative links start from.")
        ] = None,
        max_seconds: Annotated[
            float,
            Field(
                gt=0,
                le=MAX_SERVED_SECONDS,
                description="Seconds for the whole check: citations not reached by then are "
                "unavailable (time limit reached) and cut_short is true.",
            ),
        ] = SERVED_MAX_SECONDS,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """Each citation of a document graded against the page it cites: the verdict, and
        the page's best supporting sentence with a link to it; cut_short when the time
        limit passed first; unchecked the citations past the first 2,000, not read."""
        if cursor:
            return shared.pager.next("check_citations", cursor)
        pages = shared.sources.web_pages("page")
        report = await asyncio.to_thread(
            check_citations, text, pages, kind, base_url=base_url, max_seconds=max_seconds
        )
        checks = [citation_json(check) for check in report.citations]
        return shared.pager.first("check_citations", checks, **check_counts(report))

    @server.tool(name="research")
    @anticipated
    async def research_tool(
        task: Annotated[str, Field(max_length=MAX_TASK_CHARS, description="What to find out.")],
        urls: Annotated[
            list[str] | None,
            Field(description="Pages to start from; the run keeps to them and their links."),
        ] = None,
        effort: Annotated[
            Literal["low", "medium", "high"],
            Field(description="Pages to read: low 5, medium 20, high 80."),
        ] = "low",
        max_seconds: Annotated[float, Field(gt=0, le=900, description="Wall time.")] = 120.0,
        cursor: Cursor = None,
    ) -> dict[str, Any]:
        """Research a task (searching Wikipedia, or keeping to the pages given), planned by
        the configured chat model, else extractive. The whole answer comes in pages of
        items, each naming its part: "data" (the answer's JSON in pieces: join every json in
        order, then parse), "field" (a pointer into the data, the evidence ids it cites,
        whether they were verified, a link for each to its sentence holding the value),
        "missing" (a pointer not found), "evidence" (a passage with its id, URL, title,
        licence and a link to its first sentence) and "unread" (a URL asked for but not read,
        with its reason); "message" says why a run that read nothing answers nothing."""
        if cursor:
            return shared.pager.next("research", cursor)
        setup = shared.sources
        settings = setup.settings
        answer = await aresearch(
            task,
            identity=setup.identity,
            urls=[web_url(u, "urls") for u in urls or []],
            search="none" if urls else "wikipedia",  # given pages: the run keeps to them
            search_url=shared.config.wiki_origin,
            model=settings.model,
            base_url=settings.base_url,
            api_key=settings.api_key,
            effort=effort,
            max_seconds=max_seconds,
            allow_private=settings.allow_private,
            store=shared.kept(),
            fetcher=setup.fetcher,
            browser=shared.browser,
        )
        notes = answer_notes(answer.to_dict())
        # a quarter page each: JSON text in JSON may take twice its length, escaped again
        data = pieces(json.dumps(answer.data, ensure_ascii=False), shared.pager.page_chars // 4)
        items: list[Item] = [
            *({"part": "data", "json": piece} for piece in data),
            *({"part": "field", "pointer": f.pointer, "evidence_ids": list(f.evidence_ids),
               "verified": f.verified, "links": [link for _, link, _ in answer.links(f)]}
              for f in answer.fields),
            *({"part": "missing", "pointer": pointer} for pointer in answer.missing),
            *({"part": "evidence", **evidence_item(e)} for e in answer.evidence),
            *({"part": "unread", **u} for u in notes["unread"]),
        ]  # fmt: skip
        return shared.pager.first(
            "research", items, status=answer.status, stop_reason=answer.stop_reason,
            message=notes["message"], run_id=answer.run_id,
        )  # fmt: skip


def _verdict(shared: Shared, check: ClaimCheck, supporting: list[Item]) -> dict[str, Any]:
    """A claim check's verdict, its supporting passages or sentences paged."""
    head = {
        "label": check.label,
        "score": check.score,
        "reason": check.reason,
        "abstained": check.abstained,
    }
    return shared.pager.first("verify_claim", supporting, **head)
