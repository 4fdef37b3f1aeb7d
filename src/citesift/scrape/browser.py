"""Headless Chromium, driven by Playwright, for pages whose text only JavaScript writes.

One ``Browser`` is one Chromium process serving many pages, each in a context of its own
(at most ``max_pages`` at once) that is closed when its page is done or past its deadline.
A lazy one starts Chromium only when a page first needs it, so a run of many pages that may
or may not need rendering pays for at most one launch, and none when no page needs one.
The system's Chromium is launched (nothing downloads a browser) by Playwright, whose driver
ends the browser when the process that started it ends, even by SIGKILL. Every request the
page makes passes a route handler: the page's own document (its first navigation) is
answered with the bytes already fetched, and any later one is answered "204 No Content", so
the page stays (a page reloading or leaving itself is never let reach its host again, and
what is read is the page fetched); every other request is checked with ``citesift.net``'s
address rules (refused when they would refuse it) and dropped when it is of a kind asked
to be blocked. That check is the early one: Chromium reaches the network only through the
browser's egress proxy on loopback (``citesift.scrape.egress``, a door of its own per page,
loopback not bypassed), which resolves each host once with the policy's resolver, applies
the same rules to that address and connects to it, so a name answering the check with one
address and Chromium's connection with another (DNS rebinding), or a redirect (no route
handler sees one), reaches nothing the rules refuse. A frame's request to the page's origin
(scheme, host and port) carries the caller's Cookie header: it is fetched for the browser by
a ``citesift.net`` fetcher of the render's own, under the policy's address rules, deadline
and caps on body and inflated size (``FRAMES_AT_ONCE`` at a time, ``FRAME_BUDGET`` body caps
in all, none past the render's end), and answered to the page from what it read (with its
content type and ``PASSED_HEADERS``), its redirect handed back to the page (a cookie in
the browser's jar has no port, a header given to a request Chromium sends follows its
redirects, and an answer Playwright's driver fetches is held whole and inflated with no
cap); scripts, styles, a script's requests, pictures, fonts
and media go without it (``COOKIE_KINDS``).
A page sending more than ``MAX_REQUESTS`` fails, and windows it opens are closed at once.
While pages render, the browser's renderer processes are watched: one holding more than
``MAX_RENDERER_MB`` is ended, and the page it showed fails, as does a page counting more
than ``MAX_DOM_NODES``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from citesift.errors import CitesiftError
from citesift.extract.html import sanitise
from citesift.model import FetchOutcome, Skipped, Snapshot
from citesift.net import (
    AddressRefused,
    Fetcher,
    Fetches,
    FetchPolicy,
    LimiterRegistry,
    SourceLimiter,
)
from citesift.net.address import same_origin
from citesift.scrape.egress import BYPASS, EgressProxy
from citesift.scrape.options import ScrapeOptions
from citesift.scrape.renderers import find_descendant, renderer_memory

if TYPE_CHECKING:
    from playwright.async_api import Browser as PlaywrightBrowser
    from playwright.async_api import (
        BrowserContext,
        FloatRect,
        Page,
        Playwright,
        Request,
        Route,
        WebSocketRoute,
    )

BROWSER_ENV = "CITESIFT_BROWSER"
"""Names the Chromium executable to launch (else ``chromium`` on the PATH)."""
CANDIDATES = ("chromium", "chromium-browser")
MAX_SCRIPT_HEAP_MB = 512
"""Megabytes a page's scripts may hold: a page building a gigabyte in a loop ends its own
renderer there (its render fails) instead of taking the machine's memory."""
LAUNCH_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    f"--js-flags=--max-old-space-size={MAX_SCRIPT_HEAP_MB}",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
)
"""Chromium's switches. WebRTC speaks UDP, which the egress proxy cannot carry: a page may
use it only through the proxy, so its STUN or peer traffic reaches no unchecked address."""
MAX_RENDERER_MB = 1024
"""Megabytes of resident memory one page's renderer process may hold: its DOM, canvases,
image data and array buffers lie outside the script heap, and a page appending nodes or
allocating canvases in a loop took 4 to 6 GB within a 20 s deadline. A real page's renderer
holds tens to a few hundred MB (a page of 100,000 nodes about 150 MB), one at the script
heap bound about 600 MB: past twice that bound the renderer is ended and the page fails."""
MAX_DOM_NODES = 1_500_000
"""DOM nodes a page may count (asked of the page every ``WATCH_EVERY`` s, which it answers
even amid a script's loop): a real page rarely has more than 100,000, a very long one a few
hundred thousand; a page appending nodes in a loop reached this in about a second, where its
renderer took several to reach the memory bound."""
WATCH_EVERY = 0.25
"""Seconds between two looks at the renderers' memory (a look reads a few small files) and
at each page's count of nodes."""
TOLD_WITHIN = 1.0
"""Seconds after this browser ends a renderer within which a page's crash is taken for that
ending: Chromium tells no page which process renders it, so time ties the two."""
MAX_PAGES = 4
"""Pages one browser renders at once."""
LAUNCH_TIMEOUT = 30.0
RESOURCE_KINDS = {"images": ("image",), "fonts": ("font",), "media": ("media",)}
COOKIE_KINDS = frozenset({"document"})
"""The requests to the page's origin that carry the caller's Cookie: its frames (what is
read is the text they shape). Scripts, styles, a script's requests, pictures, fonts and
media go without it: a script could ask its origin with the cookie as often as it likes."""

PASSED_HEADERS = frozenset({"content-security-policy", "x-frame-options"})
"""Headers of a fetched answer (the page's document, a frame fetched with the caller's
Cookie) handed to the browser with its content type: they only restrict what it may run
and where it may be shown, as a browser fetching it would. Never Set-Cookie (the browser
keeps no cookie of the caller's), Content-Encoding, Content-Length nor Transfer-Encoding
(the body is answered whole, as read); nor Content-Disposition (an attachment becomes a
download written to disk, not text shown), Link (preloads, preconnects: more requests,
no text) nor Refresh (a frame reloading itself is fetched again and again)."""
PASSED_SCHEMES = ("data:", "blob:", "about:")
SOCKET_SCHEMES = {"ws": "http:", "wss": "https:"}
"""A WebSocket's server is checked as the http(s) address of the same host."""
POLICY_VIOLATION = 1008
NO_CONTENT = 204
MAX_REQUESTS = 500
"""Requests one page may send past its document (scripts, images, fetches, frames, pop-ups,
WebSockets, refused ones too): a page that fetches in a loop or opens windows or sockets
without end is stopped there, never let loose on its host past the limiter for as long as
its render lasts. Most pages send well under two hundred, images and trackers included; a
heavy one a few hundred."""
FRAMES_AT_ONCE = 2
"""Frames sent with the caller's Cookie one render fetches at once (the rest wait their
turn): each holds up to a body cap in memory while it is read, and a page's own frames are
few (a form, an embedded view); two let a slow one not hold up the others."""
FRAME_BUDGET = 4
"""Body caps that a render's frames sent with the caller's Cookie may bring together: a
frame is fetched only while a whole cap is left (what one did not use is given back), so a
page opening hundreds of frames of its origin brings four caps' worth at most."""
FRAME_LIMITER = partial(
    SourceLimiter, concurrency=FRAMES_AT_ONCE, spacing=0, per_minute=MAX_REQUESTS
)
"""The limiter of the fetcher that fetches a render's frames sent with the caller's Cookie:
no spacing (none holds the browser's other requests); ``MAX_REQUESTS`` bounds them."""
MAX_SHOT_SIDE = 10_000
"""CSS pixels of a whole-page screenshot's width and height at most: a page larger is shot
to there (a 100,000 px tall page took longer than a render's deadline to shoot)."""
SIZE_SCRIPT = """() => { const root = document.documentElement, body = document.body || root;
  return [Math.max(root.scrollWidth, body.scrollWidth),
          Math.max(root.scrollHeight, body.scrollHeight)]; }"""
"""The page's width and height in CSS pixels, as a whole-page screenshot measures them."""
PAGE_HTML = """(cap) => { const root = document.documentElement;
  let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "";
  if (root) html += root.outerHTML;
  return html.length > cap ? html.length : html; }"""
"""The page as HTML (its doctype and DOM, as Playwright's ``content`` gives it), serialised
once; only its length when it has more characters (each at least a byte) than the cap: a
page whose script writes more than a fetch may read is refused as a served body that large
would be, and nothing larger leaves the page."""
INSTALL = "pip install 'citesift[render]'"


class BrowserUnavailable(CitesiftError):
    """No browser can be launched here: none found, none at the path named, no Playwright."""


class RenderFailed(CitesiftError):
    """The browser could not show the page (a navigation error, a selector never shown)."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """What the browser showed: the DOM as HTML, where it ended, a screenshot when asked,
    and the addresses it refused to contact."""

    html: str
    final_url: str
    screenshot: bytes | None = None
    refused: tuple[str, ...] = ()
    left_for: str | None = None
    """Where the page first tried to go once shown (a script's redirect), not followed."""


def find_executable(named: str | None = None) -> str:
    """The Chromium to launch: ``named``, else ``$CITESIFT_BROWSER``, else ``chromium`` on the
    PATH; ``BrowserUnavailable`` saying why when there is none."""
    named = named or os.environ.get(BROWSER_ENV) or None
    if named is not None:
        if os.path.isfile(named) and os.access(named, os.X_OK):
            return named
        raise BrowserUnavailable(f"no browser executable at {named}")
    found = next((path for path in map(shutil.which, CANDIDATES) if path), None)
    if found is None:
        raise BrowserUnavailable(f"no Chromium found (install it, or set {BROWSER_ENV})")
    return found


@dataclass
class _Visit:
    """One page's request bookkeeping: the document to answer from, what was refused."""

    snapshot: Snapshot
    policy: FetchPolicy
    blocked: frozenset[str]
    frames: Fetches
    """What fetches the frames sent with ``cookie`` (within the policy's caps)."""
    cookie: str | None = None
    """The caller's Cookie header, sent on the requests to the page's origin alone."""
    frame_bytes: int = 0
    """Bytes the frames fetched with ``cookie`` may still bring (``FRAME_BUDGET``)."""
    framing: set[asyncio.Task[FetchOutcome | None]] = field(default_factory=set)
    """The frames being fetched with ``cookie``: ended before ``frames`` is closed."""
    frame_turns: asyncio.Semaphore = field(
        default_factory=lambda: asyncio.Semaphore(FRAMES_AT_ONCE)
    )
    ended: bool = False
    """The render is over: no frame is fetched any more."""
    refused: list[str] = field(default_factory=list)
    answered: bool = False
    left_for: str | None = None
    sent: int = 0
    showing: asyncio.Future[Rendered] | None = None
    """The page being shown, stopped when it asks for more than ``MAX_REQUESTS`` or its
    renderer ends."""
    stopped: str | None = None
    """Why the page was stopped, as its render failure says."""


def _stop(visit: _Visit, reason: str) -> None:
    """Stop showing the page (the first reason given is the one told)."""
    if visit.stopped is None:
        visit.stopped = reason
    if visit.showing is not None:
        visit.showing.cancel()


class Browser:
    """One headless Chromium: ``async with Browser() as browser: await browser.render(...)``.

    ``executable`` as ``find_executable`` takes it. Entering raises ``BrowserUnavailable``
    when no browser can be launched; leaving closes every context, ends the process and
    closes the egress proxy started with it.
    With ``lazy=True`` entering launches nothing: the first ``render`` launches Chromium
    (once, however many pages ask at the same time), and when it cannot, that render and
    every later one raise the same ``BrowserUnavailable`` without trying again; when its
    Chromium goes away (killed, crashed), the next render launches another, so a browser
    a server keeps for its life outlives its Chromium. ``launches`` counts the Chromium
    processes this browser started.
    """

    def __init__(
        self, executable: str | None = None, max_pages: int = MAX_PAGES, *, lazy: bool = False
    ) -> None:
        self.executable = executable
        self.lazy = lazy
        self.max_pages = max_pages
        self.slots = asyncio.Semaphore(max_pages)
        self.launches = 0
        self._playwright: Playwright | None = None
        self._browser: PlaywrightBrowser | None = None
        self._proxy: EgressProxy | None = None
        self._open = False
        self._starting = asyncio.Lock()
        self._launching: asyncio.Task[None] | None = None
        self._unavailable: BrowserUnavailable | None = None
        self._root: tuple[PlaywrightBrowser, int, str] | None = None
        """The running Chromium, its main process and the marker it was launched with."""
        self._rendering = 0
        """Pages holding a slot: the renderers are watched only while there are any."""
        self._watching: asyncio.Task[None] | None = None
        self._ended: set[int] = set()
        """Renderers ended past ``MAX_RENDERER_MB`` still listed (each ended, and told, once)."""
        self._ended_at: float | None = None
        """When the last of them was ended (``time.monotonic``)."""

    async def __aenter__(self) -> Browser:
        self._open = True
        if not self.lazy:
            try:
                await self._launch()
            except BaseException:
                await self.close()
                raise
        return self

    @property
    def open_contexts(self) -> int:
        """How many pages' contexts are open now (0 when idle: each is closed when done)."""
        return len(self._browser.contexts) if self._browser is not None else 0

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the browser and its driver (nothing when already closed); a launch under
        way is let finish first, so what it started is ended too."""
        self._open = False
        launching, self._launching = self._launching, None
        if launching is not None:
            await asyncio.wait([launching])
        await self._end()

    async def _end(self) -> None:
        """End the Chromium, the driver and the proxy this browser runs (nothing when none
        runs), in that order, each even when ending the one before failed or was cancelled."""
        browser, self._browser = self._browser, None
        playwright, self._playwright = self._playwright, None
        proxy, self._proxy = self._proxy, None
        self._root = None
        self._unwatch()
        async with contextlib.AsyncExitStack() as ending:  # its callbacks run last first
            if proxy is not None:
                ending.push_async_callback(proxy.close)
            if playwright is not None:
                ending.push_async_callback(playwright.stop)
            if browser is not None:
                ending.push_async_callback(browser.close)

    async def _launch(self) -> None:
        """Start the proxy, the driver and Chromium; ``BrowserUnavailable`` when they cannot
        start."""
        executable = find_executable(self.executable)
        try:
            from playwright.async_api import Error, async_playwright
        except ImportError:
            raise BrowserUnavailable(f"rendering needs Playwright: {INSTALL}") from None
        self._proxy = EgressProxy(doors=self.max_pages)  # each page's door its share
        server = await self._proxy.start()
        playwright = self._playwright = await async_playwright().start()
        marker = f"--citesift-browser={secrets.token_hex(8)}"  # finds this launch's process
        try:
            self._browser = await playwright.chromium.launch(
                executable_path=executable,
                args=[*LAUNCH_ARGS, marker],
                timeout=LAUNCH_TIMEOUT * 1000,
                proxy={"server": server, "bypass": BYPASS},
            )
        except Error as error:
            await self._end()
            raise BrowserUnavailable(f"{executable} did not start: {error.message}") from None
        self.launches += 1
        root = find_descendant(marker)
        if root is not None:
            self._root = (self._browser, root, marker)

    @contextlib.contextmanager
    def _watched(self) -> Iterator[None]:
        """Watch the renderers while this page renders (the first page starts the watch, the
        last one ends it: an idle browser is never woken)."""
        self._rendering += 1
        if self._root is not None and (self._watching is None or self._watching.done()):
            self._watching = asyncio.ensure_future(self._watch(*self._root))
        try:
            yield
        finally:
            self._rendering -= 1
            if not self._rendering:
                self._unwatch()

    def _unwatch(self) -> None:
        """Stop watching the renderers, forgetting those ended (no page is left to tell)."""
        watching, self._watching = self._watching, None
        if watching is not None:
            watching.cancel()
        self._ended.clear()
        self._ended_at = None

    async def _watch(self, browser: PlaywrightBrowser, root: int, marker: str) -> None:
        """Every ``WATCH_EVERY`` s, end each renderer of the Chromium at ``root`` holding more
        than ``MAX_RENDERER_MB`` (its page crashes, and fails); stop for good once that
        Chromium is gone (``root`` may then be another program's process). The look (about
        5 ms of reading ``/proc``) runs on a thread of its own, never waiting behind the
        default executor's work (name lookups among it)."""
        loop = asyncio.get_running_loop()
        looking = ThreadPoolExecutor(1, thread_name_prefix="citesift-renderers")
        try:
            while browser.is_connected():
                await asyncio.sleep(WATCH_EVERY)
                held_by = await loop.run_in_executor(looking, renderer_memory, root, marker)
                if held_by is None:
                    break
                self._ended &= held_by.keys()  # gone ones: their pids may name new renderers
                for pid, held in held_by.items():
                    if held > MAX_RENDERER_MB << 20 and pid not in self._ended:
                        with contextlib.suppress(OSError):
                            os.kill(pid, signal.SIGKILL)
                            self._ended.add(pid)
                            self._ended_at = time.monotonic()
        finally:
            looking.shutdown(wait=False)
        if self._root is not None and self._root[0] is browser:
            self._root = None

    def _crashed(self, visit: _Visit) -> None:
        """The page's renderer ended: say so, and that it held too much when this browser
        ended a renderer just before (a frame's renderer, or one ended as its page closed,
        tells no page; a renderer's own end, at the script heap bound, is a crash)."""
        ended_at = self._ended_at
        if ended_at is not None and time.monotonic() - ended_at <= TOLD_WITHIN:
            _stop(visit, f"the page took more than {MAX_RENDERER_MB} MB of memory")
        else:
            _stop(visit, "the page crashed")

    async def _running(self) -> PlaywrightBrowser:
        """The running Chromium, launched now when lazy and not yet started (or gone)."""
        async with self._starting:
            if self.lazy and self._browser is not None and not self._browser.is_connected():
                self._launching = None  # Chromium went away (killed, crashed): start anew
                await self._end()
            if self._launching is None and self._browser is None and self.lazy and self._open:
                # The launch runs as a task of its own: a render cancelled meanwhile leaves
                # it to finish (the next render waits for that one), and ``close`` then ends
                # what it started.
                self._launching = asyncio.ensure_future(self._launch())
            if self._launching is not None and self._unavailable is None:
                try:
                    await asyncio.shield(self._launching)
                except BrowserUnavailable as error:
                    self._unavailable = error
            if self._unavailable is not None:
                raise BrowserUnavailable(str(self._unavailable))
            if self._browser is None:
                raise BrowserUnavailable("the browser is not running (use it in 'async with')")
            return self._browser

    async def render(
        self, snapshot: Snapshot, options: ScrapeOptions, policy: FetchPolicy, screenshot: bool
    ) -> Rendered:
        """The page of ``snapshot`` as the browser shows it after loading and ``wait_for``;
        ``TimeoutError`` past ``options.timeout`` (the page is closed then too),
        ``RenderFailed`` when the browser could not show it, ``BrowserUnavailable`` when
        there is no browser to show it."""
        browser = await self._running()
        from playwright.async_api import Error
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        try:
            return await self._render(browser, snapshot, options, policy, screenshot)
        except PlaywrightTimeout as error:
            raise TimeoutError(error.message.splitlines()[0] if error.message else "") from None
        except Error as error:
            raise RenderFailed(error.message.splitlines()[0] if error.message else "") from None

    async def _render(
        self,
        browser: PlaywrightBrowser,
        snapshot: Snapshot,
        options: ScrapeOptions,
        policy: FetchPolicy,
        screenshot: bool,
    ) -> Rendered:
        proxy = self._proxy
        if proxy is None:
            raise BrowserUnavailable("the browser is not running (use it in 'async with')")
        blocked = frozenset(k for name in options.block_resources for k in RESOURCE_KINDS[name])
        frames = Fetcher(LimiterRegistry(FRAME_LIMITER))  # connects only when a frame asks
        budget = FRAME_BUDGET * policy.max_body_bytes
        visit = _Visit(snapshot, policy, blocked, frames, _cookie(options.headers), budget)
        async with self.slots, proxy.door(policy, visit.refused.append) as door, frames:
            with self._watched():
                context = await browser.new_context(
                    viewport={"width": options.viewport[0], "height": options.viewport[1]},
                    user_agent=policy.identity.user_agent,
                    service_workers="block",
                    proxy={"server": door, "bypass": BYPASS},
                )
                try:
                    async with asyncio.timeout(options.timeout):
                        return await self._visit(context, visit, options, screenshot)
                finally:
                    await _end_frames(visit)
                    await context.close()

    async def _visit(
        self, context: BrowserContext, visit: _Visit, options: ScrapeOptions, screenshot: bool
    ) -> Rendered:
        async def route(route: Route, request: Request) -> None:
            await _answer(route, request, visit)

        async def socket(socket: WebSocketRoute) -> None:
            await _connect(socket, visit)

        await context.route("**/*", route)
        await context.route_web_socket("**/*", socket)
        page = await context.new_page()
        context.on("page", _close_popup)
        page.on("crash", lambda _: self._crashed(visit))
        counting = asyncio.ensure_future(_count_nodes(context, page, visit))
        visit.showing = asyncio.ensure_future(_show(page, visit, options, screenshot))
        try:
            return await visit.showing
        except asyncio.CancelledError:
            if _cancelling():
                raise  # the caller's cancellation, or the deadline
            await page.close()  # its requests end with it, not when the context is closed
            raise RenderFailed(visit.stopped or "the page was stopped") from None
        finally:
            counting.cancel()


async def _count_nodes(context: BrowserContext, page: Page, visit: _Visit) -> None:
    """Every ``WATCH_EVERY`` s, ask the page how many DOM nodes it holds; past
    ``MAX_DOM_NODES`` stop showing it (nothing more once the page is gone)."""
    from playwright.async_api import Error

    with contextlib.suppress(Error):
        session = await context.new_cdp_session(page)
        await session.send("Performance.enable")
        while True:
            await asyncio.sleep(WATCH_EVERY)
            metrics = await session.send("Performance.getMetrics")
            nodes = next((m["value"] for m in metrics["metrics"] if m["name"] == "Nodes"), 0)
            if nodes > MAX_DOM_NODES:
                _stop(visit, f"the page built more than {MAX_DOM_NODES:,} DOM nodes")
                return


async def _close_popup(popup: Page) -> None:
    """Close a window the page opened: what is read is the page, and a storm of windows
    would hold a renderer each until the render ends."""
    await popup.close()


async def _show(page: Page, visit: _Visit, options: ScrapeOptions, screenshot: bool) -> Rendered:
    """Load the page, wait as asked, and read what it shows (within the body cap)."""
    url = visit.snapshot.final_url
    await page.goto(url, wait_until="load", timeout=options.timeout * 1000)
    await _wait(page, options)
    cap = visit.policy.max_body_bytes
    html = await page.evaluate(PAGE_HTML, cap)
    # The script counted characters; a page within the cap in them may be past it in UTF-8
    # bytes. Half a surrogate pair, which a script may write and UTF-8 cannot hold, is U+FFFD.
    if not isinstance(html, str) or len((html := sanitise(html)).encode("utf-8")) > cap:
        raise RenderFailed(f"the rendered page is larger than the cap of {cap} bytes")
    shot = await _screenshot(page, options) if screenshot else None
    return Rendered(html, page.url, shot, tuple(visit.refused), visit.left_for)


async def _screenshot(page: Page, options: ScrapeOptions) -> bytes:
    """A PNG of the viewport, or of the whole page down to ``MAX_SHOT_SIDE``."""
    if not options.full_page:
        return await page.screenshot(type="png")
    size = await page.evaluate(SIZE_SCRIPT)
    width, height = (max(1, min(int(n), MAX_SHOT_SIDE)) for n in size)
    clip: FloatRect = {"x": 0, "y": 0, "width": width, "height": height}
    return await page.screenshot(full_page=True, clip=clip, type="png")


async def _wait(page: Page, options: ScrapeOptions) -> None:
    """Wait as ``wait_for`` asks: some milliseconds, or until its selector matches an element
    in the page (shown or not: what is read is the DOM, not what is painted)."""
    if isinstance(options.wait_for, str):
        await page.wait_for_selector(
            options.wait_for, state="attached", timeout=options.timeout * 1000
        )
    elif options.wait_for:
        await page.wait_for_timeout(options.wait_for)


async def _answer(route: Route, request: Request, visit: _Visit) -> None:
    """Answer the page's document from its snapshot, refuse what must not be contacted,
    pass the rest on without the caller's headers: Playwright would keep headers given to
    ``continue_`` on every redirect the request starts, so they could reach another host."""
    url = request.url
    if url.startswith(PASSED_SCHEMES):
        await route.continue_()
        return
    if request.resource_type in visit.blocked:
        await route.abort("blockedbyclient")
        return
    if request.is_navigation_request() and _main_frame(request):
        if visit.answered:  # the page leaving itself (204: it stays): what is read is the page
            if visit.left_for is None and url != visit.snapshot.final_url:
                visit.left_for = url
            await route.fulfill(status=NO_CONTENT)
            return
        visit.answered = True
        await route.fulfill(
            status=visit.snapshot.status, headers=_headers(visit.snapshot), body=visit.snapshot.body
        )
        return
    if _past_budget(visit):
        await route.abort("blockedbyclient")
        return
    if await _refused(url, visit):
        await route.abort("addressunreachable")
        return
    cookie = visit.cookie
    if (
        cookie is not None
        and request.resource_type in COOKIE_KINDS
        and same_origin(url, visit.snapshot.url)
    ):
        await _with_cookie(route, request, visit, cookie)
        return
    await route.continue_()


async def _with_cookie(route: Route, request: Request, visit: _Visit, cookie: str) -> None:
    """Answer a frame of the page's origin from a fetch sent with the caller's cookie (a
    browser's cookies have no port, so they would reach every port of the host): by the
    visit's own fetcher, under the policy's address rules, deadline and caps on body and
    inflated size (an answer Playwright fetched would be held whole and inflated with no
    cap), its redirect answered to the page as it came (the next hop passes the route again,
    without the cookie unless it is on the page's origin); an answer past a cap, or none in
    time, or past the render's ``FRAME_BUDGET``, fails the frame. A frame sent otherwise than
    by GET (a form's POST) goes without the cookie: rendering a page sends nothing in the
    caller's name. The fetch is a task of the visit's, ended with the render (whose
    context may then be closed before the frame is answered)."""
    from playwright.async_api import Error

    if request.method != "GET":
        await route.continue_()
        return
    outcome: FetchOutcome | None = None
    if not visit.ended:
        fetching = asyncio.ensure_future(_fetch_frame(request.url, cookie, visit))
        visit.framing.add(fetching)
        fetching.add_done_callback(visit.framing.discard)
        try:
            outcome = await fetching
        except asyncio.CancelledError:
            if _cancelling():
                raise
    with contextlib.suppress(Error):  # the render may have ended meanwhile, its context closed
        if isinstance(outcome, Snapshot):
            await route.fulfill(status=outcome.status, headers=_headers(outcome), body=outcome.body)
        elif isinstance(outcome, Skipped) and outcome.location is not None and outcome.status:
            await route.fulfill(status=outcome.status, headers={"location": outcome.location})
        else:
            await route.abort("failed")


async def _fetch_frame(url: str, cookie: str, visit: _Visit) -> FetchOutcome | None:
    """``url`` fetched with ``cookie`` under the policy's rules and caps, in its turn
    (``FRAMES_AT_ONCE``); None when less than a body cap is left of the render's budget."""
    async with visit.frame_turns:
        cap = visit.policy.max_body_bytes
        if visit.frame_bytes < cap:
            return None
        visit.frame_bytes -= cap
        policy = visit.policy.with_(
            headers=(("Cookie", cookie),),
            robots=False,
            max_redirects=0,
            error_pages=True,
            truncate=False,
        )
        outcome = await visit.frames.fetch(url, policy)
        visit.frame_bytes += cap - (len(outcome.body) if isinstance(outcome, Snapshot) else 0)
        return outcome


async def _end_frames(visit: _Visit) -> None:
    """End the frames being fetched for the render, and fetch none after: their fetcher is
    closed next, and a fetch left running would outlive the render up to its deadline."""
    visit.ended = True
    fetching = list(visit.framing)
    for task in fetching:
        task.cancel()
    await asyncio.gather(*fetching, return_exceptions=True)


def _cancelling() -> bool:
    """Whether the running task itself is being cancelled (by its caller, or a deadline),
    not only something it awaited."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _main_frame(request: Request) -> bool:
    """Whether ``request`` is for the page itself, not a frame inside it nor a pop-up (whose
    first request comes before its frame): the page's first such request is the one
    ``goto`` made, whatever spelling of the address it carries."""
    from playwright.async_api import Error

    try:
        return request.frame.parent_frame is None
    except Error:
        return False


def _past_budget(visit: _Visit) -> bool:
    """Count one more request of the page (a refused one counts: each costs an address
    check); past ``MAX_REQUESTS`` stop showing the page and say so."""
    if visit.sent >= MAX_REQUESTS:
        _stop(visit, f"the page asked for more than {MAX_REQUESTS} addresses")
        return True
    visit.sent += 1
    return False


async def _connect(socket: WebSocketRoute, visit: _Visit) -> None:
    """Pass a WebSocket on to its server (it counts among the page's requests: each holds a
    tunnel), unless the address rules refuse that server."""
    if _past_budget(visit):
        await socket.close(code=POLICY_VIOLATION, reason="too many requests")
        return
    if await _refused(socket.url, visit):
        await socket.close(code=POLICY_VIOLATION, reason="address refused")
        return
    socket.connect_to_server()


async def _refused(url: str, visit: _Visit) -> bool:
    """Whether the address rules refuse ``url`` (then it is noted among the refused)."""
    scheme, _, rest = url.partition(":")
    checked = SOCKET_SCHEMES[scheme.lower()] + rest if scheme.lower() in SOCKET_SCHEMES else url
    try:
        await visit.policy.check(checked)
    except AddressRefused:
        visit.refused.append(url)
        return True
    return False


def _cookie(headers: Mapping[str, str]) -> str | None:
    """The caller's Cookie header (several joined as one), or None when it gave none."""
    found = [text.strip() for name, text in headers.items() if name.lower() == "cookie"]
    return "; ".join(text for text in found if text) or None


def _headers(snapshot: Snapshot) -> dict[str, Any]:
    """The headers a fetched document or frame is answered with: its content type, charset
    included, and those of ``PASSED_HEADERS`` it came with."""
    kind = snapshot.content_type.split(";")[0].strip() or "text/html"
    charset = f"; charset={snapshot.charset}" if snapshot.charset else ""
    passed = {
        name.lower(): text for name, text in snapshot.headers if name.lower() in PASSED_HEADERS
    }
    return {**passed, "content-type": kind + charset}
