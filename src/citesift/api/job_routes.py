"""Firecrawl's job routes: a crawl, a batch scrape, an agent run and an extract each start a
job kept in the store (``citesift.jobs``), whose status, results (paged, with ``next``) and
errors are read back, and which can be cancelled."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from citesift.agent.provenance import value_link
from citesift.agent.unread import answer_notes
from citesift.api.crawl_request import CrawlRequest
from citesift.api.documents import crawl_document, document, failure_item
from citesift.api.firecrawl import scrape_within
from citesift.api.job_requests import AgentRequest, BatchScrapeRequest, ExtractRequest
from citesift.api.replies import Unsupported, failure
from citesift.api.state import Serving, serving
from citesift.jobs import KEEP_SECONDS, JobsBusy, Work, batch_work, crawl_work, research_work
from citesift.model import TextPlace
from citesift.scrape.browser import Browser
from citesift.scrape.result import TIMEOUT, ScrapeFailure
from citesift.store.jobs import PAGE_ITEMS, ItemKind, Job
from citesift.text.places import SentencePlace, sentence_places, stored_places

router = APIRouter(prefix="/v2", tags=["firecrawl jobs"])
Shared = Annotated[Serving, Depends(serving)]
Skip = Annotated[int, Query(ge=0, le=1 << 40)]
Limit = Annotated[int, Query(ge=1, le=PAGE_ITEMS)]
MAX_ERRORS = 1_000
"""Errors one errors answer lists at most."""
Render = Callable[[dict[str, Any]], dict[str, Any]]


@router.post("/crawl", response_model=None)
async def start_crawl(
    body: CrawlRequest, shared: Shared, request: Request
) -> JSONResponse | dict[str, Any]:
    """Start crawling a site; answers the job's id and where its status is."""
    start, options = body.crawl_options()
    setup = shared.setup
    work = crawl_work(
        start,
        options,
        policy=shared.policy,
        fetcher=setup.fetcher,
        store=shared.work_store,
        snapshots=setup.store or setup.budget,
        browser=shared.browser,
    )
    return _started(shared, request, "crawl", "crawl", body.model_dump(by_alias=True), work)


@router.get("/crawl/{job}", response_model=None)
async def crawl_status(
    job: str, shared: Shared, request: Request, skip: Skip = 0, limit: Limit = PAGE_ITEMS
) -> JSONResponse | dict[str, Any]:
    """How a crawl stands, and a page of its documents from ``skip`` on."""
    return _status(shared, request, job, "crawl", skip, limit, crawl_document)


@router.delete("/crawl/{job}", response_model=None)
async def cancel_crawl(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """Cancel a crawl (409 when it had ended)."""
    return _cancel(shared, job, "crawl")


@router.get("/crawl/{job}/errors", response_model=None)
async def crawl_errors(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """The pages a crawl could not read, and those robots.txt kept it from."""
    return _errors(shared, job, "crawl")


@router.post("/batch/scrape", response_model=None)
async def start_batch(
    body: BatchScrapeRequest, shared: Shared, request: Request
) -> JSONResponse | dict[str, Any]:
    """Start scraping a list of pages with one set of options."""
    pages, invalid = body.pages()

    async def scrape_one(url: str, browser: Browser) -> tuple[ItemKind, dict[str, Any]]:
        try:
            outcome = await scrape_within(url, body, shared, browser)
        except TimeoutError:
            return "error", {"url": url, "error": f"over {body.timeout} ms", "code": TIMEOUT}
        if isinstance(outcome, ScrapeFailure):
            return "error", failure_item(outcome)
        return "result", document(outcome)

    work = batch_work(pages, scrape_one, shared.setup.settings.browser)
    answer = _started(shared, request, "batch", "batch/scrape", _kept(body), work)
    if isinstance(answer, dict) and invalid:
        answer["invalidURLs"] = invalid
    return answer


@router.get("/batch/scrape/{job}", response_model=None)
async def batch_status(
    job: str, shared: Shared, request: Request, skip: Skip = 0, limit: Limit = PAGE_ITEMS
) -> JSONResponse | dict[str, Any]:
    """How a batch scrape stands, and a page of its documents from ``skip`` on."""
    return _status(shared, request, job, "batch", skip, limit, _as_is)


@router.delete("/batch/scrape/{job}", response_model=None)
async def cancel_batch(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """Cancel a batch scrape (409 when it had ended)."""
    return _cancel(shared, job, "batch")


@router.get("/batch/scrape/{job}/errors", response_model=None)
async def batch_errors(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """The pages of a batch that could not be scraped."""
    return _errors(shared, job, "batch")


@router.post("/agent", response_model=None)
async def start_agent(
    body: AgentRequest, shared: Shared, request: Request
) -> JSONResponse | dict[str, Any]:
    """Start a research run: the answer to ``prompt``, every field cited to its evidence
    (extractive, the best passages cited, when the server has no model)."""
    asked = body.research()
    if not asked["urls"] and shared.search is None:
        why = "with no search source configured, a research run starts from the pages given"
        raise Unsupported(["urls"], [], why)
    work = _research(shared, asked.pop("task"), search=shared.search or "none", **asked)
    return _started(shared, request, "agent", "agent", body.model_dump(by_alias=True), work)


@router.get("/agent/{job}", response_model=None)
async def agent_status(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """How a research run stands; when done, its answer and each field's evidence (URL,
    quote, and the span of the stored snapshot it came from)."""
    found = _job(shared, job, "agent")
    if found is None:
        return _missing()
    answer = _research_status(shared, found)
    if answer["status"] == "cancelled":  # Firecrawl's agent has no such status
        answer["status"] = "failed"
    return answer


@router.post("/extract", response_model=None)
async def start_extract(
    body: ExtractRequest, shared: Shared, request: Request
) -> JSONResponse | dict[str, Any]:
    """Start extracting what ``prompt`` asks (and ``schema`` shapes) from the pages given,
    and those alone, by a research run the configured model plans; every field cited."""
    asked = body.research()
    if shared.setup.settings.model is None:
        why = "extract needs a chat model: set model (and base_url) in the settings"
        return failure(501, why, "EXTRACT_NOT_CONFIGURED")
    work = _research(shared, asked.pop("task"), search="none", follow_links=False, **asked)
    return _started(shared, request, "extract", "extract", body.model_dump(by_alias=True), work)


@router.get("/extract/{job}", response_model=None)
async def extract_status(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """How an extract stands; when done, its answer, the pages each field came from
    (``sources``, when ``showSources`` was asked) and each field's evidence; when cancelled,
    the evidence it had read by then."""
    found = _job(shared, job, "extract")
    if found is None:
        return _missing()
    answer = _research_status(shared, found)
    fields = answer.get("citesift", {}).get("fields", [])
    if found.request.get("showSources") and fields:
        answer["sources"] = {
            field["pointer"]: sorted({item["url"] for item in field["evidence"]})
            for field in fields
        }
    return answer


@router.delete("/extract/{job}", response_model=None)
async def cancel_extract(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """Cancel an extract (409 when it had ended): it reads no further page, what it read is
    kept in the store, and its status shows the evidence read by then."""
    return _cancel(shared, job, "extract")


def _research(shared: Serving, task: str, **options: Any) -> Work:
    """A research run of ``task`` with ``options``, as the server runs one: its model, its
    store, its fetcher and its browser."""
    settings = shared.setup.settings
    return research_work(
        task,
        **options,
        identity=shared.setup.identity,
        model=settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        allow_private=settings.allow_private,
        store=shared.work_store,
        fetcher=shared.setup.fetcher,
        browser=shared.browser,
    )


def _research_status(shared: Serving, found: Job) -> dict[str, Any]:
    """A research run's job in Firecrawl's words: its status (``processing`` while it
    runs), and its answer once it has one (``partial`` when the run failed)."""
    answer: dict[str, Any] = {
        "success": found.status != "failed",
        "id": found.id,
        "status": "processing" if found.status == "running" else found.status,
        "creditsUsed": 0,
        "expiresAt": _expires(found),
    }
    results = shared.jobs.jobs.items(found.id, "result", 0, 1)
    if results:
        answer |= _cited_answer(results[0], "data" if found.status == "completed" else "partial")
    if found.error is not None:
        answer["error"] = found.error
    return answer


@router.delete("/agent/{job}", response_model=None)
async def cancel_agent(job: str, shared: Shared) -> JSONResponse | dict[str, Any]:
    """Cancel a research run (409 when it had ended)."""
    return _cancel(shared, job, "agent")


def _cited_answer(answer: dict[str, Any], key: str) -> dict[str, Any]:
    """A research answer in Firecrawl's words (under ``key``: ``data``, or ``partial`` for a
    run that failed or was cancelled) with citesift's provenance: each field's value and the
    evidence it cites, with URL, quote and source span; a partial answer also shows all the
    evidence read before the run stopped, cited or not."""
    evidence = {item["id"]: item for item in answer.get("evidence", ())}
    split: dict[str, _Split] = {}

    def quoted(evidence_id: str, value: Any = None) -> dict[str, Any]:
        """The evidence quoted, its sentences found once however many fields cite it."""
        item = evidence[evidence_id]
        if evidence_id not in split:
            split[evidence_id] = _split(item)
        return _quoted(item, split[evidence_id], value)

    fields = [
        {
            "pointer": field["pointer"],
            "value": field["value"],
            "verified": field["verified"],
            "evidence": [quoted(i, field["value"]) for i in field["evidence_ids"] if i in evidence],
        }
        for field in answer.get("fields", ())
    ]
    shown = {
        "fields": fields,
        "missing": answer.get("missing", []),
        "runId": answer.get("run_id"),
        **answer_notes(answer),
    }
    if key == "partial":
        shown["evidence"] = [quoted(i) for i in evidence]
    tokens = (answer.get("tokens_in") or 0) + (answer.get("tokens_out") or 0)
    return {
        key: answer.get("data"),
        "stopReason": answer.get("stop_reason"),
        "tokensUsed": tokens,
        "citesift": shown,
    }


_Split = tuple[tuple[TextPlace, ...], list[SentencePlace]]
"""A piece of evidence's places in its file and its sentences (``sentence_places``)."""


def _split(evidence: dict[str, Any]) -> _Split:
    """The stored evidence's places and its sentences, found once for all that link it."""
    text = evidence["text"]
    places = stored_places(evidence.get("places"), len(text))
    return places, sentence_places(text, places)


def _quoted(evidence: dict[str, Any], split: _Split, value: Any = None) -> dict[str, Any]:
    """A piece of evidence as the status shows it: URL, quote, the stored span, and a link to
    its sentence that holds the field's ``value`` (its first sentence when none does or no
    field cites it): its page in a PDF or Office file, whose ``place`` it names; a text
    fragment in a web page. ``split``: its places and sentences, as ``_split`` gives them."""
    url, text = evidence["url"], evidence["text"]
    link, place = value_link(url, text, split[0], value, split[1])
    return {
        "url": url,
        "quote": text,
        "link": link,
        "place": place.label() if place is not None else None,
        "snapshotId": evidence["snapshot_id"],
        "sourceStart": evidence["source_start"],
        "sourceEnd": evidence["source_end"],
    }


def _kept(body: BatchScrapeRequest) -> dict[str, Any]:
    """The request as its job keeps it in the store: the headers' values (a Cookie, an
    Authorization) written ``***``, their names kept; nothing reads them back."""
    asked = body.model_dump(by_alias=True)
    if asked.get("headers"):
        asked["headers"] = dict.fromkeys(asked["headers"], "***")
    return asked


def _started(
    shared: Serving, request: Request, kind: str, path: str, asked: dict[str, Any], work: Work
) -> JSONResponse | dict[str, Any]:
    try:
        job = shared.jobs.start(kind, asked, work)
    except JobsBusy as error:
        return failure(429, str(error), "JOBS_BUSY", headers={"Retry-After": "30"})
    return {"success": True, "id": job.id, "url": f"{_base(request)}/v2/{path}/{job.id}"}


def _status(
    shared: Serving,
    request: Request,
    job: str,
    kind: str,
    skip: int,
    limit: int,
    render: Render,
) -> JSONResponse | dict[str, Any]:
    """A job's status in Firecrawl's shape, with the page of results from ``skip`` and
    ``next`` while more are kept or the job still runs."""
    found = _job(shared, job, kind)
    if found is None:
        return _missing()
    page = shared.jobs.jobs.items(found.id, "result", skip, limit)
    answer: dict[str, Any] = {
        "success": found.status != "failed",
        "status": "scraping" if found.status == "running" else found.status,
        "completed": found.results,
        "total": max(found.total, found.results),
        "creditsUsed": 0,
        "expiresAt": _expires(found),
        "data": [render(item) for item in page],
    }
    after = skip + len(page)
    if after < found.results or not found.ended:
        shown = "" if limit == PAGE_ITEMS else f"&limit={limit}"
        answer["next"] = f"{_base(request)}{request.url.path}?skip={after}{shown}"
    if found.status == "failed":
        answer["error"] = found.error or "the job failed"
    if found.warning is not None:
        answer["warning"] = found.warning
    return answer


def _cancel(shared: Serving, job: str, kind: str) -> JSONResponse | dict[str, Any]:
    found = _job(shared, job, kind)
    if found is None:
        return _missing()
    if not shared.jobs.cancel(found.id):
        return failure(409, f"the job has ended ({found.status})", "JOB_ENDED")
    return {"success": True, "status": "cancelled"}


def _errors(shared: Serving, job: str, kind: str) -> JSONResponse | dict[str, Any]:
    """The job's errors (at most ``MAX_ERRORS``), and the URLs robots.txt kept it from
    (``robotsBlocked``: the links a crawl left out, and the pages that failed for it)."""
    found = _job(shared, job, kind)
    if found is None:
        return _missing()
    errors = _items(shared, found.id, "error")
    stamp = datetime.fromtimestamp(found.updated_at / 1000, UTC).isoformat()
    listed = [
        {"id": f"{found.id}-{number}", "timestamp": stamp, **item}
        for number, item in enumerate(errors[:MAX_ERRORS])
    ]
    blocked = [item["url"] for item in listed if item.get("code") == "ROBOTS_DISALLOWED"]
    blocked += [item["url"] for item in _items(shared, found.id, "blocked")]
    return {"errors": listed, "robotsBlocked": blocked[:MAX_ERRORS]}


def _items(shared: Serving, job: str, kind: ItemKind) -> list[dict[str, Any]]:
    """The job's first ``MAX_ERRORS`` items of ``kind`` (or a page more)."""
    items: list[dict[str, Any]] = []
    while len(items) < MAX_ERRORS:
        page = shared.jobs.jobs.items(job, kind, len(items))
        if not page:
            break
        items += page
    return items


def _job(shared: Serving, job: str, kind: str) -> Job | None:
    found = shared.jobs.jobs.get(job)
    return found if found is not None and found.kind == kind else None


def _missing() -> JSONResponse:
    return failure(404, "Job not found", "JOB_NOT_FOUND")


def _expires(job: Job) -> str:
    return datetime.fromtimestamp(job.updated_at / 1000 + KEEP_SECONDS, UTC).isoformat()


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _as_is(item: dict[str, Any]) -> dict[str, Any]:
    return item
