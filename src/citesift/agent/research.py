"""``research(task, ...)``: the agent as a user calls it, the model, the search backend, the
pages and the run store put together from plain arguments."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Literal

from citesift.agent.budget import Budget, Effort
from citesift.agent.run import Answer, OnCancel, Progress, run_research
from citesift.agent.tokens import BYTE_ESTIMATE, TokenizerFile
from citesift.agent.tools import Tools, WebPages, WikipediaSearch, written_in
from citesift.clients import BraveSearch, ChatClient, SearxngSearch, TavilySearch, WebSearch
from citesift.clients.search import BRAVE_URL, TAVILY_URL
from citesift.errors import invalid
from citesift.net import ClientIdentity, Fetcher, FetchPolicy, run_sync
from citesift.scrape.browser import Browser
from citesift.sources import DEFAULT_ORIGIN, WikipediaSourceProvider
from citesift.store import AnyStore
from citesift.store.runs import runs_in

SearchName = Literal["wikipedia", "searxng", "brave", "tavily", "none"]
SEARCH_BACKENDS = ("wikipedia", "searxng", "brave", "tavily", "none")


async def aresearch(
    task: str,
    *,
    identity: ClientIdentity,
    schema: dict[str, Any] | None = None,
    urls: Sequence[str] = (),
    search: SearchName | WebSearch | None = None,
    search_url: str | None = None,
    search_key: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    max_steps: int = 12,
    max_pages: int | None = None,
    effort: Effort = "medium",
    max_seconds: float = 300.0,
    max_tokens_in: int | None = None,
    max_tokens_out: int | None = None,
    context_tokens: int | None = None,
    tokens_per_minute: int | None = None,
    tokenizer: str | Path | None = None,
    allow_private: bool = False,
    store: AnyStore | None = None,
    fetcher: Fetcher | None = None,
    progress: Progress | None = None,
    on_cancel: OnCancel | None = None,
    browser: Browser | None = None,
    executable: str | None = None,
    follow_links: bool = True,
) -> Answer:
    """``research`` for async code."""
    budget = Budget(
        max_steps=max_steps,
        max_pages=max_pages,
        effort=effort,
        max_seconds=max_seconds,
        max_tokens_in=max_tokens_in,
        max_tokens_out=max_tokens_out,
        context_tokens=context_tokens,
        per_minute_tokens=tokens_per_minute,
    )
    if search is None:
        search = "none" if urls else "wikipedia"
    chat = _chat(model, base_url, api_key)
    shared = fetcher or Fetcher()
    try:
        access: dict[str, Any] = {"allow_private": allow_private, "store": store}
        wikipedia = WikipediaSourceProvider(
            identity, search_url or DEFAULT_ORIGIN, fetcher=shared, **access
        ) if search == "wikipedia" else None  # fmt: skip
        policy = FetchPolicy.for_pages(identity, allow_private=allow_private)
        pages = WebPages(policy, shared, store=store, wikipedia=wikipedia)
        engine = search_backend(search, search_url, search_key, wikipedia)
        tools = Tools(pages, engine, given=set(urls), follow_links=follow_links)
        tools.see(written_in(task))  # the user wrote them: as trusted as ``urls``
        runs = runs_in(store) if store is not None else None
        # One browser for the whole run, started by the first page that needs rendering
        # (or the caller's, kept open by the caller).
        own = Browser(executable, lazy=True) if browser is None else None
        async with own or nullcontext():
            pages.browser = browser or own
            return await run_research(
                task,
                tools,
                schema=schema,
                urls=urls,
                chat=chat,
                budget=budget,
                runs=runs,
                progress=progress,
                on_cancel=on_cancel,
                tokens=BYTE_ESTIMATE if tokenizer is None else TokenizerFile(tokenizer),
            )
    finally:
        if fetcher is None:
            await shared.aclose()


def research(task: str, **options: Any) -> Answer:
    """Research ``task`` and answer with every field cited.

    ``identity`` names who is asking (sent to every site). ``schema``: a JSON Schema the
    answer must match (else any JSON value). ``urls``: pages to start from; the run is then
    confined to them and the pages they link to (one hop: a linked page's own links are not
    followed; with ``follow_links=False``, to them alone) and does not search unless
    ``search`` is given. ``search``: ``wikipedia``
    (the default without ``urls``; ``search_url`` another wiki's origin), ``searxng``
    (``search_url`` the instance), ``brave`` or ``tavily`` (``search_key``, else
    ``$BRAVE_API_KEY`` / ``$TAVILY_API_KEY``), ``none``, or any ``WebSearch``; a confined
    run may read what its search found. Pages are read through ``scrape``: one that needs
    JavaScript is rendered in headless Chromium (``citesift[render]``), else read as served;
    one browser serves the whole run, started by the first page that needs it and ended
    with the run, however it ends (``executable`` names its Chromium, as ``Browser`` takes
    it; ``browser`` is one the caller keeps open instead).
    ``model`` at ``base_url`` (any OpenAI-compatible endpoint, through ``citesift[openai]``;
    ``api_key`` else ``$OPENAI_API_KEY``) plans the run; without a model the research is
    extractive: the best passages for the task, each cited. Budgets: ``max_steps``,
    ``max_pages`` (else by ``effort``: low 5, medium 20, high 80; only pages whose content
    came back count), ``max_seconds``, ``max_tokens_in`` and ``max_tokens_out`` (the whole
    run's); ``context_tokens``: the model's context (8192 assumed), which sizes each turn's
    prompt and reply; ``tokens_per_minute``: the model's per-minute token limit, which sizes
    them too and paces the turns to it; ``tokenizer``: the model's ``tokenizer.json`` to
    count with (else about three bytes a token). With a ``store`` the run (prompts, replies,
    actions, evidence, answer) and every page fetched are kept, for ``trace``.
    ``progress`` hears a line for each thing done. A run cancelled (Ctrl-C, its task
    cancelled) keeps its partial answer in the ``store`` (no data, the evidence read so far,
    ``stop_reason`` ``cancelled``), and ``on_cancel`` hears it.
    """
    return run_sync(aresearch(task, **options))


def _chat(model: str | None, base_url: str | None, api_key: str | None) -> ChatClient | None:
    if model is None and base_url is None:
        return None
    if not model:
        raise invalid("model", model, "a model name (a base URL was given)")
    return ChatClient(base_url or "https://api.openai.com/v1", model, api_key)


def search_backend(
    search: SearchName | WebSearch,
    url: str | None,
    key: str | None,
    wikipedia: WikipediaSourceProvider | None,
) -> WebSearch | None:
    """The search backend ``search`` names (or is): ``url`` its address, ``key`` its key,
    ``wikipedia`` the wiki that ``wikipedia`` searches; None for ``none``."""
    if not isinstance(search, str):
        if not callable(getattr(search, "search", None)):
            raise invalid("search", search, f"one of {', '.join(SEARCH_BACKENDS)} or a WebSearch")
        return search
    if search == "none":
        return None
    if search == "wikipedia" and wikipedia is not None:
        return WikipediaSearch(wikipedia)
    if search == "searxng":
        if not url:
            raise invalid("search_url", url, "the SearXNG instance's address")
        return SearxngSearch(url)
    if search == "brave":
        return BraveSearch(key, base_url=url or BRAVE_URL)
    if search == "tavily":
        return TavilySearch(key, base_url=url or TAVILY_URL)
    raise invalid("search", search, f"one of {', '.join(SEARCH_BACKENDS)} or a WebSearch")
