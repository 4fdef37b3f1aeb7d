"""The research loop: each turn the prompt is rebuilt, the model replies with one action, the
engine runs it and shows the result next turn, until the model finishes or a budget runs
out (then one last turn may only finish). Without a model the run is extractive: search,
read the best pages, and answer with the passages that best match the task, each cited."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from citesift.agent.actions import (
    Action,
    ActionError,
    Extract,
    Finish,
    Map,
    Scrape,
    Search,
    parse_reply,
)
from citesift.agent.answers import finish_problem, schema_validator
from citesift.agent.budget import Budget, Spend
from citesift.agent.evidence import (
    CLOSEST,
    UNMATCHED,
    Evidence,
    EvidenceLog,
    best_first,
    ranked,
)
from citesift.agent.prompt import Candidate, View, system_prompt, user_prompt
from citesift.agent.provenance import FieldSource, field_sources, value_link
from citesift.agent.tokens import BYTE_ESTIMATE, TokenCounter
from citesift.agent.tools import Page, Tools, written_in
from citesift.agent.unread import Unread, UnreadLog, nothing_read
from citesift.clients import ChatClient, ClientError
from citesift.errors import InvalidArgument, invalid, written_number
from citesift.index import Embedder
from citesift.index.query import bounded_query
from citesift.model import Place, SourceDocument
from citesift.store.runs import RunStore

Progress = Callable[[str], None]
Status = Literal["completed", "failed"]
DEFAULT_SEARCH_LIMIT = 5
MAX_PROBLEMS = 3
"""How many of a map's unread sitemaps and pages its result names."""
MAX_TITLE_CHARS = 200
"""The most of a link's anchor text or a result's snippet a candidate line carries."""
FINAL_TURNS = 2
"""Turns the model gets once tools are closed: the final turn and one correction of it."""
MAX_CORRECTIONS = 3
"""Corrections in a row before the run stops trying to get a usable reply."""
PATIENCE = 2
"""Reads in a row that bring no new evidence before tools are closed: new pages have
stopped bringing anything new, so the model is asked to finish."""
TIME_RESERVE = 0.1
"""The share of the wall-time budget kept for the final turn."""
MAX_TRIES = 10
"""Pages one action tries to read at most: a page that cannot be read is not a page read
(the page budget counts what was read), so the tries of a turn are bounded here."""
EXTRACTIVE_PAGES = 5
EXTRACTIVE_PASSAGES = 5
UNRANKED_FOLLOW = "none could be ranked by meaning, so the page's opening passages"
"""What a read tells the model of a page shown by its first passages (``OPENING``)."""
MAX_TASK_CHARS = 20_000
DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class Answer:
    """A run's outcome: the answer ``data``, each field's provenance (``fields``), what the
    model could not find (``missing``), the evidence read, how it ended, and the URLs asked
    for but not read (``unread``, each with why); a run that read nothing says why in its
    ``message`` when the model gave none. ``status`` is
    ``failed`` when the answer is incomplete after a budget ran out (``stop_reason``
    ``budget.exhausted``), the model could not be used, or the run was cancelled
    (``cancelled``: no data, the evidence read until then)."""

    task: str
    data: Any
    fields: tuple[FieldSource, ...]
    missing: tuple[str, ...]
    message: str | None
    evidence: tuple[Evidence, ...]
    status: Status
    stop_reason: str
    run_id: str | None = None
    steps: int = 0
    pages: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    usage_estimated: bool = False
    unread: tuple[Unread, ...] = ()

    @property
    def unverified(self) -> list[str]:
        """The pointers of fields whose value was not found in the evidence they cite."""
        return [f.pointer for f in self.fields if not f.verified]

    def links(self, field: FieldSource) -> list[tuple[Evidence, str, Place | None]]:
        """Each piece of evidence ``field`` cites, with a link to its sentence that holds
        the field's value (its first sentence when none does) and that sentence's place in
        a file."""
        known = {e.id: e for e in self.evidence}
        cited = [known[i] for i in field.evidence_ids if i in known]
        return [(e, *value_link(e.url, e.text, e.places, field.value)) for e in cited]

    def to_dict(self) -> dict[str, Any]:
        """The answer as plain JSON-ready values (its evidence as ``Evidence.to_dict``)."""
        values = dataclasses.asdict(dataclasses.replace(self, evidence=()))
        values["evidence"] = [item.to_dict() for item in self.evidence]
        return values


OnCancel = Callable[[Answer], None]
"""Hears the partial answer of a run being cancelled."""


@dataclass
class _State:
    """What a run carries from turn to turn."""

    evidence: EvidenceLog = field(default_factory=EvidenceLog)
    steps: list[str] = field(default_factory=list)
    notes: str | None = None
    last_result: str | None = None
    candidates: dict[str, Candidate] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)
    fresh: list[int] = field(default_factory=list)
    correction: str | None = None
    dry_reads: int = 0
    unread: UnreadLog = field(default_factory=UnreadLog)


class _Run:
    """One research run (``research`` drives it)."""

    def __init__(
        self,
        task: str,
        schema: dict[str, Any] | None,
        tools: Tools,
        budget: Budget,
        runs: RunStore | None,
        progress: Progress | None,
        tokens: TokenCounter,
        has_urls: bool,
        embedder: Embedder | None = None,
    ) -> None:
        self.task, self.schema, self.tools, self.tokens = task, schema, tools, tokens
        self.validator = schema_validator(schema)
        if not has_urls and tools.search is None:
            raise invalid(
                "urls", [], "pages to start from (given, or written in the task) without search"
            )
        self.spend = Spend(budget)
        self.runs = runs
        self.run_id = runs.start(task) if runs is not None else None
        self.say = progress or (lambda _: None)
        self.state = _State(EvidenceLog(embedder))
        self.stop_kind = "budget.exhausted"
        """Why tools were closed, once they are: a budget, or reads that brought nothing."""

    def record(self, kind: str, body: Any) -> None:
        if self.runs is not None and self.run_id is not None:
            self.runs.add(self.run_id, kind, body)

    def tell(self, text: str) -> None:
        self.say(text)
        self.state.last_result = text

    # The model's loop.

    async def plan(self, chat: ChatClient) -> Answer:
        tools = self.tools
        system = system_prompt(search=tools.search is not None, map=not tools.confined)
        system_tokens = self.tokens.count(system)
        input_tokens, output_tokens = self.spend.budget.prompt_limits()
        final_reason: str | None = None
        final_turns = corrections = 0
        while True:
            final_reason = final_reason or self.exhausted()
            if final_reason is not None:
                if final_turns == FINAL_TURNS:
                    return self.failed(self.stop_kind, final_reason)
                final_turns += 1
            prompt = user_prompt(self.view(input_tokens, final_reason), system_tokens, self.tokens)
            if prompt is None:
                return self.failed("prompt.too_small", "the prompt budget cannot hold the task")
            await self.pace(system_tokens + self.tokens.count(prompt) + output_tokens)
            seconds = self.spend.seconds_left() + self.spend.budget.max_seconds * TIME_RESERVE
            try:
                reply = await chat.complete(
                    system, prompt, max_tokens=output_tokens, seconds=seconds
                )
            except ClientError as error:
                return self.failed("model.error", str(error))
            self.account(
                system + prompt, reply.content, reply.prompt_tokens, reply.completion_tokens
            )
            self.record("turn", {"prompt": prompt, "reply": reply.content})
            self.state.fresh, self.state.correction = [], None
            done = await self.take(reply.content, final_reason)
            if done is not None:
                return done
            self.spend.steps += 1
            if self.state.correction is None:
                corrections = 0
                continue
            self.say(f"correction: {self.state.correction}")
            self.record("correction", self.state.correction)
            corrections += 1
            if corrections > MAX_CORRECTIONS:
                return self.failed("model.unusable", self.state.correction)

    async def take(self, reply: str, final_reason: str | None) -> Answer | None:
        """Act on one reply: the answer when it is a usable finish; else run its tool, or
        set the correction that says what was wrong with it."""
        try:
            action = parse_reply(reply)
        except ActionError as error:
            self.state.correction = str(error)
            return None
        self.record("action", _action_json(action))
        self.state.notes = action.notes or self.state.notes
        if isinstance(action, Finish):
            ids = self.state.evidence.by_id()  # the check may take seconds: off the loop
            problem = await asyncio.to_thread(finish_problem, action, self.validator, ids)
            if problem is None:
                return self.finished(action, final_reason)
            self.state.correction = problem
        elif final_reason is not None:
            self.state.correction = "no more tools: only the finish action is allowed"
        else:
            await self.act(action)
        return None

    def exhausted(self) -> str | None:
        """Which budget has run out (the time budget keeps a reserve for the final turn), or
        whether reading has stopped bringing new evidence."""
        reason = self.spend.exhausted()
        budget = self.spend.budget
        if reason is None and self.spend.seconds_left() <= budget.max_seconds * TIME_RESERVE:
            reason = f"the time budget ({budget.max_seconds:g} s) is spent"
        if reason is None and self.state.dry_reads >= PATIENCE:
            self.stop_kind = "no.new.evidence"
            reason = f"the last {PATIENCE} reads brought no new evidence"
        return reason

    async def pace(self, tokens: int) -> None:
        """Wait until a turn of ``tokens`` fits the per-minute limit, never into the time kept
        for the final turn."""
        room = self.spend.seconds_left() - self.spend.budget.max_seconds * TIME_RESERVE
        pause = min(self.spend.pause_for(tokens), max(room, 0.0))
        if pause > 0:
            self.say(f"pacing: {pause:.0f} s for the model's per-minute token limit")
            await asyncio.sleep(pause)

    def account(self, sent: str, got: str, tokens_in: int | None, tokens_out: int | None) -> None:
        """Add a turn's usage: the service's counts, else estimates (and say so)."""
        if tokens_in is None or tokens_out is None:
            self.spend.estimated = True
        used_in = self.tokens.count(sent) if tokens_in is None else tokens_in
        used_out = self.tokens.count(got) if tokens_out is None else tokens_out
        self.spend.tokens_in += used_in
        self.spend.tokens_out += used_out
        self.spend.spent(used_in + used_out)

    def view(self, input_tokens: int, final_reason: str | None) -> View:
        state = self.state
        unread = [c for url, c in state.candidates.items() if url not in state.read]
        words = [f"{c.title} {c.description} {c.url}" for c in unread]
        unread = [unread[i] for i in best_first(words, self.task)]
        return View(
            task=self.task,
            budget_line=self.spend.line(),
            input_tokens=input_tokens,
            schema=self.schema,
            steps=state.steps,
            notes=state.notes,
            last_result=state.last_result,
            candidates=unread,
            evidence=state.evidence.items,
            fresh=state.fresh,
            correction=state.correction,
            final_reason=final_reason,
        )

    # The tools.

    async def act(self, action: Action) -> None:
        """Run a tool action; its result is next turn's "last result"."""
        if isinstance(action, Search):
            summary = await self.search(action.query, action.limit or DEFAULT_SEARCH_LIMIT)
        elif isinstance(action, Map):
            summary = await self.map(action.url, action.search)
        elif isinstance(action, Scrape):
            summary = await self.scrape(action.urls, action.query or self.task)
        elif isinstance(action, Extract):
            summary = await self.extract(action.url, action.intent)
        else:
            return
        self.state.steps.append(f"{len(self.state.steps) + 1}. {_action_line(action)} → {summary}")

    async def search(self, query: str, limit: int) -> str:
        engine = self.tools.search
        if engine is None:
            self.tell("search is not available in this run; scrape the URLs you have")
            return "no search"
        self.say(f"searching: {query}")
        try:
            results = await engine.search(query, limit)
        except (ClientError, InvalidArgument) as error:  # a query the engine cannot take too
            self.tell(f"the search failed: {error}")
            return "failed"
        for result in results:
            self.tools.admit(result.url)  # a confined run may read the results it asked for
        kept = [r for r in results if self.tools.refusal(r.url) is None]
        for result in kept:
            self.state.candidates.setdefault(
                result.url,
                Candidate(result.url, result.title, result.snippet[:MAX_TITLE_CHARS]),
            )
        lines = "".join(f"- {r.url} | {r.title} | {r.snippet[:MAX_TITLE_CHARS]}\n" for r in kept)
        self.tell(f"{len(kept)} result(s) for {query!r}:\n{lines}")
        self.record("search", {"query": query, "results": [dataclasses.asdict(r) for r in kept]})
        return f"{len(kept)} result(s)"

    async def map(self, url: str, search: str | None) -> str:
        if self.tools.confined:
            self.tell("map is not available in this run: it keeps to the pages it was given")
            return "no map"
        refusal = self.tools.refusal(url, site=True)
        if refusal:
            self.tell(f"{url} cannot be mapped: {refusal}")
            return "refused"
        self.say(f"mapping: {url}")
        try:
            found = await self.tools.pages.map(url, search)
        except ValueError as error:
            self.tell(f"{url} cannot be mapped: {error}")
            return "refused"
        self.tools.see(found.readable_urls())
        kept = [u for u in found.readable_urls() if self.tools.refusal(u) is None]
        for address in kept:
            self.state.candidates.setdefault(address, Candidate(address))
        problems = "".join(f"- {p}\n" for p in found.problems[:MAX_PROBLEMS])
        self.tell(
            f"{len(kept)} URL(s) found on the site; they are listed as candidates"
            + (f"\nNot read:\n{problems}" if problems else "")
        )
        return f"{len(kept)} URL(s)"

    async def scrape(self, urls: Sequence[str], query: str, wanted: int | None = None) -> str:
        documents, lines, tried = await self.read_pages(urls, wanted)
        found = await self.passages(documents, query, lines)
        self.show(found, tried)
        self.record("evidence", _read_event(found))
        ids = ", ".join(e.id for e in found) or "none"
        self.tell("".join(lines) + f"New evidence: {ids}")
        return f"{len(documents)} page(s) read, evidence {ids}"

    async def extract(self, url: str, intent: str) -> str:
        documents, lines, tried = await self.read_pages([url])
        item = self.state.evidence.extract(documents[0], intent) if documents else None
        found = [item] if item is not None else []
        if documents and item is None:
            lines.append(f"{url}: no list or table on this page; its passages on the intent:\n")
            found = await self.passages(documents, intent, lines)
        self.show(found, tried)
        self.record("evidence", _read_event(found))
        ids = ", ".join(e.id for e in found) or "none"
        self.tell("".join(lines) + f"New evidence: {ids}")
        return f"evidence {ids}"

    async def passages(
        self, documents: Sequence[SourceDocument], query: str, lines: list[str]
    ) -> list[Evidence]:
        """The evidence ``documents`` give for ``query`` (``EvidenceLog.read``, off the loop:
        ranking a page by meaning takes a second or two; a run cancelled meanwhile leaves the
        read to finish in its thread, and closes the log after it), a line added to
        ``lines`` for each page shown by passages none holding the query's words (those
        closest in meaning, or its opening ones when no model could rank them), so the model
        knows they were not found by its words. The query (the task's or the model's, of any
        length) is cut to its first ``MAX_QUERY_CHARS``; one the index refuses (nothing to
        look for) finds nothing, and the model is told why."""
        try:
            found = await asyncio.to_thread(
                self.state.evidence.read, documents, bounded_query(query)
            )
        except InvalidArgument as error:
            lines.append(f"the pages cannot be searched for the query: {error}\n")
            return []
        shown = {e.url: e.kind for e in found if e.kind in UNMATCHED}
        for url, kind in shown.items():
            follow = "those closest in meaning" if kind == CLOSEST else UNRANKED_FOLLOW
            lines.append(f"{url}: no passage holds a word of the query; {follow} follow\n")
        return found

    async def read_pages(
        self, urls: Sequence[str], wanted: int | None = None
    ) -> tuple[list[SourceDocument], list[str], int]:
        """Read the pages the page budget allows (at most ``wanted``, and ``MAX_TRIES``
        tries); a line for each saying what came of it, and the pages tried. Only a page
        read is counted."""
        documents: list[SourceDocument] = []
        lines: list[str] = []
        tries = 0

        def not_read(url: str, reason: str, tried: bool = True) -> None:
            lines.append(f"{url}: not read: {reason}\n")
            self.state.unread.refused(url, reason)
            if tried:
                self.tools.fail(url)

        for url in urls:
            if wanted is not None and len(documents) >= wanted:
                break
            refusal = self.tools.refusal(url)
            if refusal:
                not_read(url, refusal)
            elif self.spend.pages >= self.spend.budget.pages:
                not_read(url, "the page budget is spent", False)
            elif tries == MAX_TRIES:
                not_read(url, f"not tried, as one action tries {MAX_TRIES} pages at most", False)
            else:
                tries += 1
                page = await self.read_page(url)
                if isinstance(page, str):
                    not_read(url, page)
                else:
                    documents.append(page.document)
                    lines.append(f"{url}: read ({page.document.title})\n")
        return documents, lines, tries

    async def read_page(self, url: str) -> Page | str:
        """Read ``url``, counting it and taking its links as candidates; or why not."""
        self.state.read.add(url)
        self.say(f"reading: {url}")
        page = await self.tools.pages.read(url)
        if isinstance(page, str):
            self.record("skipped", {"url": url, "reason": page})
            return page
        self.spend.pages += 1
        self.state.unread.read(url, page.document.url)
        self.state.read.add(page.document.url)
        self.tools.see([page.document.url])  # where a redirect led: the model is shown it
        for link, text in self.tools.follow(url, page):
            title = " ".join(text.split())[:MAX_TITLE_CHARS]
            self.state.candidates.setdefault(link, Candidate(link, title))
        return page

    def show(self, found: Sequence[Evidence], tried: int) -> None:
        """Mark ``found`` as the evidence new this turn; none counts as a dry read when a
        page was asked for (a turn whose URLs were all refused asked nothing: no read)."""
        if found or tried:
            self.state.dry_reads = 0 if found else self.state.dry_reads + 1
        index = {e.id: i for i, e in enumerate(self.state.evidence.items)}
        self.state.fresh = [index[e.id] for e in found]

    # Endings.

    def finished(self, finish: Finish, final_reason: str | None) -> Answer:
        evidence = self.state.evidence.items
        fields = field_sources(finish.data, finish.sources, evidence)
        incomplete = bool(finish.missing) or any(not f.verified for f in fields)
        stop = "finished" if final_reason is None else self.stop_kind
        failed = stop == "budget.exhausted" and incomplete
        status: Status = "failed" if failed else "completed"
        return self.answer(finish.data, tuple(fields), finish.missing, finish.message, status, stop)

    def failed(self, stop_reason: str, message: str) -> Answer:
        self.say(f"stopped: {message}")
        return self.answer(None, (), (), message, "failed", stop_reason)

    def answer(
        self,
        data: Any,
        fields: tuple[FieldSource, ...],
        missing: tuple[str, ...],
        message: str | None,
        status: Status,
        stop_reason: str,
    ) -> Answer:
        spend = self.spend
        unread = self.state.unread.listed()
        if message is None and not self.state.evidence.items:
            message = nothing_read(unread)
        answer = Answer(
            self.task,
            data,
            fields,
            tuple(missing),
            message,
            tuple(self.state.evidence.items),
            status,
            stop_reason,
            self.run_id,
            spend.steps,
            spend.pages,
            spend.tokens_in,
            spend.tokens_out,
            spend.estimated,
            unread,
        )
        if self.runs is not None and self.run_id is not None:
            self.runs.finish(self.run_id, answer.to_dict())
        return answer

    # Without a model.

    async def extractive(self, urls: Sequence[str]) -> Answer:
        """Search the task, read the best pages, answer with the best passages, each cited
        to itself (the value is the evidence's own text); a page's passages closest in
        meaning, read as none held a word of the task, are no answer to it."""
        if self.tools.search is not None:
            await self.search(self.task[:300], EXTRACTIVE_PAGES)
        wanted = [*urls, *self.state.candidates]
        pages = min(self.spend.budget.pages, EXTRACTIVE_PAGES)
        await self.scrape(list(dict.fromkeys(wanted)), self.task, pages)
        matched = [e for e in self.state.evidence.items if e.kind not in UNMATCHED]
        best = ranked(matched, self.task)[:EXTRACTIVE_PASSAGES]
        data = [{"text": e.text, "url": e.url, "title": e.title} for e in best]
        fields = tuple(
            FieldSource(f"/{i}/text", e.text, (e.id,), (e.url,), True) for i, e in enumerate(best)
        )
        missing = () if best else (self.task,)
        status: Status = "completed" if best else "failed"
        unmatched = "no passage of the pages read holds a word of the task"
        message = unmatched if self.state.evidence.items and not best else None
        return self.answer(data, fields, missing, message, status, "extractive")


async def run_research(
    task: str,
    tools: Tools,
    *,
    schema: dict[str, Any] | None = None,
    urls: Sequence[str] = (),
    chat: ChatClient | None = None,
    budget: Budget = DEFAULT_BUDGET,
    runs: RunStore | None = None,
    progress: Progress | None = None,
    tokens: TokenCounter = BYTE_ESTIMATE,
    on_cancel: OnCancel | None = None,
    embedder: Embedder | None = None,
) -> Answer:
    """Research ``task`` with ``tools``: with a ``chat`` model, the planner loop; without
    one, extractive research. ``urls`` are read first as candidates (a caller confines the
    run to them and their links through ``tools.given``). Every event is kept in ``runs``
    when given; prompts are measured by ``tokens`` (the model's tokenizer, else the byte
    estimate). A run cancelled ends in ``runs`` with its partial answer (no data, the
    evidence read so far, ``stop_reason`` ``cancelled``), which ``on_cancel`` hears too;
    the cancellation then goes on, once a page being read in a thread is done. ``embedder``
    ranks by meaning the passages of a page none of which holds a word of the query (the
    bundled MiniLM when None; the page's first when it cannot)."""
    if not isinstance(task, str) or not task.strip() or len(task) > MAX_TASK_CHARS:
        raise invalid("task", task, f"text of 1 to {written_number(MAX_TASK_CHARS)} characters")
    if isinstance(urls, str):
        raise invalid("urls", urls, "a list of URLs")
    # a URL the user wrote in the task is a page to start from, as one given is
    starts = bool(urls) or bool(written_in(task))
    run = _Run(task.strip(), schema, tools, budget, runs, progress, tokens, starts, embedder)
    for url in urls:
        run.state.candidates.setdefault(url, Candidate(url, "given by the caller"))
    try:
        return await (run.extractive(urls) if chat is None else run.plan(chat))
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):  # the cancel goes on, whatever keeping it meets
            partial = run.failed("cancelled", "the run was cancelled")
            if on_cancel is not None:
                on_cancel(partial)
        raise
    finally:
        # in a thread: it waits for a read a cancel left running, and the loop goes on
        await asyncio.to_thread(run.state.evidence.close)


def _read_event(found: Sequence[Evidence]) -> list[dict[str, Any]]:
    """Evidence as the event of its reading records it: each piece's id, source and text;
    its places (one for each cell of a spreadsheet's extract) are kept once, in the answer,
    and the stored file gives them again."""
    kept = [dataclasses.asdict(dataclasses.replace(e, places=())) for e in found]
    return [{k: v for k, v in item.items() if k != "places"} for item in kept]


def _action_json(action: Action) -> dict[str, Any]:
    return {"action": type(action).__name__.lower(), **dataclasses.asdict(action)}


def _action_line(action: Action) -> str:
    """A step as the model is later reminded of it."""
    body = {k: v for k, v in _action_json(action).items() if v and k != "notes"}
    return json.dumps(body, ensure_ascii=False)[:300]
