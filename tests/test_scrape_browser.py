"""Rendering in the real headless Chromium: a page whose text only JavaScript writes, its
screenshot, the address rules on the browser's requests, deadlines, and no browser process
left behind, even when the command is killed mid-render."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from typer.testing import CliRunner

from chromium import BUSY, JS_PAGE, browsers_seen, chromium_pids, left_behind
from citesift.cli import app
from citesift.extract import strip_tags
from citesift.scrape.browser import WATCH_EVERY, Browser, find_executable
from citesift.scrape.page import scrape, scrape_sync
from citesift.scrape.result import ScrapeFailure, ScrapeResult
from citesift.store import SQLiteStore
from citesift.store.snapshots import snapshots_in
from servers import (
    TEST_IDENTITY,
    MisbehavingServer,
    Query,
    Request,
    Seen,
    loopback_policy,
    serve,
)
from test_scrape import RICH, page_route
from test_scrape_cli import CONTACT

find_executable()  # no Chromium here fails these tests, naming what is missing: never a pass

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]
FOREIGN = """<!doctype html><html><body><div id="app"></div>
<img src="http://10.255.255.1/pixel.png"><script>
new WebSocket("ws://10.255.255.2/feed");
document.getElementById("app").textContent = "Drawn with a picture from elsewhere.";
</script></body></html>"""
FETCHING = """<!doctype html><html><body><div id="root"></div><img src="/pixel.png"><script>
fetch("/data").then((answer) => answer.text()).then((text) => {
  document.getElementById("root").textContent = "Fetched: " + text;
  const done = document.createElement("p"); done.id = "done"; document.body.appendChild(done);
});</script></body></html>"""
FRAME = """const frame = (src) => new Promise((loaded) => {
  const shown = document.createElement("iframe"); shown.onload = loaded; shown.src = src;
  document.body.appendChild(shown);
});
"""
"""A script's helper: a promise of a frame of ``src`` loaded."""
NEVER = """<!doctype html><html><body><div id="root"></div><script>1</script></body></html>"""


def run(server: MisbehavingServer, path: str, *formats: str, **keywords: Any) -> Any:
    url = server.url(path)
    return scrape_sync(url, formats, identity=TEST_IDENTITY, policy=loopback_policy(), **keywords)


def test_a_page_only_javascript_writes_is_rendered_and_read(
    server: MisbehavingServer, tmp_path: Path, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)
    store = SQLiteStore(tmp_path / "store.db")
    result = run(
        server, "/js", "text", "blocks", "passages", "links", store=store, wait_for="#late"
    )
    assert isinstance(result, ScrapeResult), result
    assert result.render.decided and result.render.rendered and not result.render.unavailable
    assert "empty application root" in result.render.why
    assert result.timings["render"] > 0 and result.timings["total"] >= result.timings["render"]
    assert "the ferry left at noon" in result.formats["text"]
    assert "A late line arrived" in result.formats["text"]
    assert result.formats["links"] == [{"url": server.url("/next"), "text": "The next entry"}]
    static_id, rendered_id = result.snapshot_ids
    kept = snapshots_in(store)
    rendered = kept.get(rendered_id)
    assert kept.get(static_id) is not None and rendered is not None
    assert rendered.header("x-citesift-derived-from") == static_id
    html = rendered.body.decode("utf-8")
    for block in result.formats["blocks"]:  # spans refer to the rendered HTML kept
        assert block["text"].split()[0] in html[block["source_start"] : block["source_end"]]
    assert result.formats["passages"]
    for passage in result.formats["passages"]:
        assert passage["snapshot_id"] == rendered_id
        markup = html[passage["source_start"] : passage["source_end"]]
        assert passage["content"] in " ".join(strip_tags(markup).split())
    assert server.hits("/js") == 1  # the browser was answered from the fetched bytes
    again = run(server, "/js", "text", store=store, max_age=3600)
    assert not again.render.decided and "rendered before" in again.render.why
    assert "the ferry left at noon" in again.formats["text"] and server.hits("/js") == 1
    store.close()
    assert left_behind(own_tmp) == []


def test_a_rich_static_page_is_not_rendered(server: MisbehavingServer, own_tmp: str) -> None:
    page_route(server, "/rich", RICH)
    result = run(server, "/rich", "text")
    assert isinstance(result, ScrapeResult) and not result.render.rendered
    assert left_behind(own_tmp) == []  # no browser was even started


def test_a_screenshot_is_a_png_of_the_page_or_the_viewport(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)
    page_route(server, "/rich", RICH)
    whole = run(server, "/rich", "screenshot", viewport=(400, 300))
    assert whole.render.rendered and "screenshot" in whole.render.why
    png = whole.formats["screenshot"]
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert width == 400 and height > 300  # the whole page is taller than its viewport
    view = run(server, "/rich", "screenshot", viewport=(400, 300), full_page=False)
    shot = view.formats["screenshot"]
    assert (int.from_bytes(shot[16:20], "big"), int.from_bytes(shot[20:24], "big")) == (400, 300)


def test_the_browser_is_kept_from_addresses_a_fetch_would_refuse(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/foreign", FOREIGN)
    result = run(server, "/foreign", "text", render="always", wait_for=500)
    assert isinstance(result, ScrapeResult) and result.render.rendered
    assert "Drawn with a picture" in result.formats["text"]
    assert any("kept from 2 address" in warning for warning in result.warnings), result.warnings


def test_a_render_past_its_deadline_fails_and_leaves_no_browser(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/never", NEVER)
    started = time.monotonic()
    failure = run(server, "/never", "text", render="always", wait_for="#never", timeout=2)
    assert isinstance(failure, ScrapeFailure) and failure.code == "TIMEOUT"
    assert time.monotonic() - started < 20
    assert left_behind(own_tmp) == []


def test_one_browser_renders_many_pages_and_closes_one_past_its_deadline(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)
    page_route(server, "/never", NEVER)
    page_route(server, "/busy", BUSY)

    async def visit(browser: Browser, path: str, **keywords: Any) -> Any:
        url = server.url(path)
        policy = loopback_policy()
        return await scrape(
            url, ("text",), identity=TEST_IDENTITY, policy=policy, browser=browser, **keywords
        )

    async def many() -> tuple[list[Any], Any, int]:
        async with Browser(max_pages=2) as browser:
            stuck = visit(browser, "/never", render="always", wait_for="#never", timeout=3)
            busy = visit(browser, "/busy", render="always", timeout=3)
            calls = [stuck, busy, *(visit(browser, "/js") for _ in range(4))]
            started = chromium_pids(own_tmp)
            results = await asyncio.gather(*calls)
            assert len(started) == 1 and chromium_pids(own_tmp) == started  # one for all
            after = await visit(browser, "/js")  # the browser serves on after a page timed out
            return results, after, browser.open_contexts

    (stuck, busy, *done), after, still_open = asyncio.run(many())
    assert isinstance(stuck, ScrapeFailure) and stuck.code == "TIMEOUT"
    assert isinstance(busy, ScrapeFailure) and busy.code == "TIMEOUT"  # a script that never ends
    assert all("ferry left at noon" in r.formats["text"] for r in [*done, after])
    assert still_open == 0  # every page's context was closed, the timed out one too
    assert left_behind(own_tmp) == []


def test_resources_asked_blocked_are_not_loaded_and_headers_go_on_the_document_only(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/fetching", FETCHING)
    page_route(server, "/data", "the tide table", content_type="text/plain")
    result = run(
        server, "/fetching", "text", render="always", wait_for="#done",
        block_resources=("images",), headers={"X-Trace": "harbour-7"},
    )  # fmt: skip
    assert isinstance(result, ScrapeResult), result
    assert "Fetched: the tide table" in result.formats["text"]
    assert server.hits("/pixel.png") == 0
    document = [seen for seen in server.seen if seen.path == "/fetching"]
    assert [seen.headers.get("X-Trace") for seen in document] == ["harbour-7"]
    asked = [seen for seen in server.seen if seen.path == "/data"]
    assert [seen.headers.get("X-Trace") for seen in asked] == [None]
    assert asked[0].headers["User-Agent"] == TEST_IDENTITY.user_agent
    shown = run(server, "/fetching", "text", render="always", wait_for="#done")
    assert shown.render.rendered and server.hits("/pixel.png") == 1


def test_killing_the_command_mid_render_leaves_no_browser(
    server: MisbehavingServer, tmp_path: Path, own_tmp: str
) -> None:
    page_route(server, "/never", NEVER)
    command = [
        sys.executable, "-c", "from citesift.cli import main; main()", "scrape",
        server.url("/never"), "--render", "always", "--wait-for", "#never", "--timeout", "90",
        "--allow-private", "--contact", "https://example.org/contact",
    ]  # fmt: skip
    env = {**os.environ, "TMPDIR": own_tmp, "CITESIFT_HOME": str(tmp_path / "home")}
    with subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    ) as process:
        deadline = time.monotonic() + 60
        while not chromium_pids(own_tmp) and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.2)
        assert chromium_pids(own_tmp), "the browser never started"
        time.sleep(1)  # well into the render
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    deadline = time.monotonic() + 15
    while left_behind(own_tmp) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left_behind(own_tmp) == []


def test_the_command_renders_writes_a_screenshot_and_leaves_no_browser(
    server: MisbehavingServer, tmp_path: Path, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)
    shot = tmp_path / "page.png"
    given = [
        "scrape", server.url("/js"), "--format", "text", "--wait-for", "#late",
        "--screenshot", str(shot), "--viewport", "400x300", "--viewport-only",
        "--headers", "X-Trace: harbour-7", "--allow-private", "--contact", CONTACT,
    ]  # fmt: skip
    result = CliRunner().invoke(app, given, env={"CITESIFT_HOME": str(tmp_path / "home")})
    assert result.exit_code == 0, result.output
    assert "the ferry left at noon" in result.stdout and "A late line" in result.stdout
    assert "render: rendered: an empty application root" in result.stderr
    png = shot.read_bytes()
    assert png.startswith(b"\x89PNG") and (png[16:20], png[20:24]) == (
        (400).to_bytes(4, "big"),
        (300).to_bytes(4, "big"),
    )
    assert left_behind(own_tmp) == []


def test_a_lazy_browser_starts_once_for_many_pages_and_never_when_none_needs_it(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)
    page_route(server, "/rich", RICH)

    async def batch(browser: Browser, *paths: str) -> list[Any]:
        async with browser:
            calls = (
                scrape(server.url(path), ("text",), identity=TEST_IDENTITY,
                       policy=loopback_policy(), browser=browser)
                for path in paths
            )  # fmt: skip
            return await asyncio.gather(*calls)

    static_only = Browser(lazy=True)
    with browsers_seen(own_tmp) as seen:
        (rich,) = asyncio.run(batch(static_only, "/rich"))
    assert not rich.render.rendered and static_only.launches == 0 and not seen
    shared = Browser(lazy=True, max_pages=2)
    with browsers_seen(own_tmp) as seen:
        results = asyncio.run(batch(shared, "/js", "/rich", "/js", "/js"))
    assert [r.render.rendered for r in results] == [True, False, True, True]
    assert all("ferry left at noon" in r.formats["text"] for r in results[::2])
    assert shared.launches == 1 and len(seen) == 1  # the three renders started one browser
    assert left_behind(own_tmp) == []


def test_pages_are_read_as_served_when_a_lazy_browser_cannot_start(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    page_route(server, "/js", JS_PAGE)
    missing = str(tmp_path / "no-such-chromium")

    async def batch() -> tuple[list[Any], int]:
        async with Browser(missing, lazy=True) as browser:
            results = [
                await scrape(server.url("/js"), ("text",), identity=TEST_IDENTITY,
                             policy=loopback_policy(), browser=browser)
                for _ in range(2)
            ]  # fmt: skip
            return results, browser.launches

    results, launches = asyncio.run(batch())
    assert launches == 0
    for result in results:
        assert result.render.decided and result.render.unavailable and not result.render.rendered
        assert any(f"no browser executable at {missing}" in w for w in result.warnings)


async def js_page(server: MisbehavingServer, browser: Browser, **options: Any) -> Any:
    """The scrape of the page that JavaScript writes, through ``browser``."""
    return await scrape(
        server.url("/js"), ("text",), identity=TEST_IDENTITY, policy=loopback_policy(),
        browser=browser, **options,
    )  # fmt: skip


def test_a_render_cancelled_while_a_lazy_browser_starts_leaves_one_browser_serving(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)

    def page(browser: Browser) -> Coroutine[Any, Any, Any]:
        return js_page(server, browser)

    async def cancel_one() -> tuple[Any, int, bool]:
        async with Browser(lazy=True) as browser:
            first = asyncio.ensure_future(page(browser))
            deadline = time.monotonic() + 30
            while not chromium_pids(own_tmp) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)  # the process is there before the launch is done
            first.cancel()
            second = await page(browser)
            return second, browser.launches, first.cancelled()

    with browsers_seen(own_tmp) as seen:
        second, launches, cancelled = asyncio.run(cancel_one())
    assert cancelled and second.render.rendered and "ferry left at noon" in second.formats["text"]
    assert launches == 1 and len(seen) == 1
    assert left_behind(own_tmp) == []


def watchers() -> int:
    """How many looks at a browser's renderers run in this event loop now."""
    return sum(task.get_coro().__qualname__ == "Browser._watch" for task in asyncio.all_tasks())


def test_the_renderers_are_watched_only_while_a_page_renders(
    server: MisbehavingServer, own_tmp: str
) -> None:
    page_route(server, "/js", JS_PAGE)

    def page(browser: Browser) -> Coroutine[Any, Any, Any]:
        return js_page(server, browser, render="always", wait_for=1500)

    async def go() -> tuple[list[int], Any]:
        seen = []
        async with Browser() as browser:
            seen.append(watchers())  # launched, idle
            rendering = asyncio.ensure_future(asyncio.gather(page(browser), page(browser)))
            await asyncio.sleep(1.0)
            seen.append(watchers())  # two pages: one watch
            outcomes = await rendering
            await asyncio.sleep(3 * WATCH_EVERY)
            seen.append(watchers())  # idle again
            return seen, outcomes

    seen, outcomes = asyncio.run(go())
    assert all(isinstance(outcome, ScrapeResult) for outcome in outcomes), outcomes
    assert seen == [0, 1, 0]
    assert left_behind(own_tmp) == []


SHOWN = (
    "const doc = this.contentDocument, text = doc && doc.body ? doc.body.innerText : '';"
    " const said = document.createElement('p'); document.body.appendChild(said);"
    " said.textContent = 'The frame showed: ' + (text.trim().slice(0, 40) || 'nothing') + '.'"
    " + ' Its cookies: ' + ((doc && doc.cookie) || 'none') + '.';"
)
"""A frame's ``onload``: what it shows (a failed frame shows nothing the page may read), in
a paragraph of the page."""
FRAMES_AND_DATA = ("/redirect", "/app/frame", "/api/data")
"""Two frames on the page's origin (one redirected away), then a script's request."""


def test_the_callers_headers_go_only_on_the_pages_own_request_and_its_cookie_to_its_host(
    server: MisbehavingServer, own_tmp: str
) -> None:
    with serve() as other:
        page_route(other, "/data", "the other tide", content_type="text/plain")
        elsewhere = f"http://localhost:{other.port}/data"  # another host and port
        away = f"/redirect?to={quote(elsewhere, safe='')}"  # the page's origin sends it away
        page = FETCHING.replace("<script>", "<script>" + FRAME).replace(
            'fetch("/data")',
            f'frame("{elsewhere}").then(() => frame("{away}")).then(() => frame("/app/frame"))'
            '.then(() => fetch("/api/data"))',
        )
        page_route(server, "/app/both", page)
        page_route(server, "/app/frame", "<p>a frame</p>")
        page_route(server, "/api/data", "the tide table", content_type="text/plain")
        secrets = {"Authorization": "Bearer harbour-key", "Cookie": "session=tide"}
        result = scrape_sync(
            server.url("/app/both"), ("text",), identity=TEST_IDENTITY, render="always",
            policy=loopback_policy(resolver=lambda _: ["127.0.0.1"]), wait_for="#done",
            headers=secrets,
        )  # fmt: skip
    assert isinstance(result, ScrapeResult), result
    assert "the tide table" in result.formats["text"]
    document = [seen for seen in server.seen if seen.path == "/app/both"]
    assert len(document) == 1 and document[0].headers.get("Authorization") == "Bearer harbour-key"
    mine = [seen for seen in server.seen if seen.path.split("?")[0] in FRAMES_AND_DATA]
    assert [seen.path.split("?")[0] for seen in mine] == list(FRAMES_AND_DATA)
    assert all(header(seen, "Authorization") is None for seen in mine)  # only the document's
    assert all("session=tide" in (header(seen, "Cookie") or "") for seen in mine[:2])  # frames
    assert header(mine[2], "Cookie") is None  # a script's request: its body is not bounded
    theirs = [seen for seen in other.seen if seen.path == "/data"]
    assert len(theirs) == 2  # asked by the page and by the redirect, through the route
    assert all(header(s, "Authorization") is None and header(s, "Cookie") is None for s in theirs)


def test_the_callers_cookie_goes_to_the_pages_origin_only_not_another_port_of_its_host(
    server: MisbehavingServer, own_tmp: str
) -> None:
    """Cookies have no port: one the caller gives for 127.0.0.1:A must not reach
    127.0.0.1:B, whether the page asks B itself (a picture, a credentialed fetch) or its own
    origin redirects there; A's frames carry it, its pictures and scripts' requests not."""
    with serve() as other:
        page_route(other, "/data", "the other tide", content_type="text/plain")
        page_route(other, "/pixel.png", "not a picture", content_type="image/png")
        elsewhere = other.url("/data")  # the same host, another port
        away = f"/redirect?to={quote(elsewhere, safe='')}"
        page = (
            FETCHING.replace("<script>", "<script>" + FRAME)
            .replace(
                'fetch("/data")',
                f'frame("{elsewhere}").then(() => frame("{away}")).then(() => frame("/app/frame"))'
                '.then(() => fetch("/api/data"))',
            )
            .replace('<img src="/pixel.png">', f'<img src="{other.url("/pixel.png")}">')
        )
        page = page.replace("<script>", '<img src="/own.png"><script>', 1)
        page_route(server, "/own.png", "not a picture", content_type="image/png")
        page_route(server, "/app/ports", page)
        page_route(server, "/app/frame", "<p>a frame</p>")
        page_route(server, "/api/data", "the tide table", content_type="text/plain")
        result = scrape_sync(
            server.url("/app/ports"), ("text",), identity=TEST_IDENTITY, render="always",
            policy=loopback_policy(), wait_for="#done", headers={"Cookie": "session=tide"},
        )  # fmt: skip
    assert isinstance(result, ScrapeResult), result
    assert "the tide table" in result.formats["text"]
    mine = [seen for seen in server.seen if seen.path.split("?")[0] in FRAMES_AND_DATA]
    assert [seen.path.split("?")[0] for seen in mine] == list(FRAMES_AND_DATA)
    assert [header(seen, "Cookie") for seen in mine] == ["session=tide", "session=tide", None]
    pictures = [seen for seen in server.seen if seen.path == "/own.png"]
    assert len(pictures) == 1 and header(pictures[0], "Cookie") is None  # not a text's part
    theirs = [seen for seen in other.seen if seen.path in ("/data", "/pixel.png")]
    assert sorted(seen.path for seen in theirs) == ["/data", "/data", "/pixel.png"]
    assert all(header(seen, "Cookie") is None for seen in theirs)


def header(seen: Seen, name: str) -> str | None:
    """The header ``name`` a request carried, whatever the case it was sent in."""
    return next((v for k, v in seen.headers.items() if k.lower() == name.lower()), None)


@pytest.mark.parametrize("endless", ["/endless", "/gzip-bomb"])
def test_a_frame_sent_with_the_callers_cookie_is_read_within_the_fetchs_caps(
    server: MisbehavingServer, own_tmp: str, endless: str
) -> None:
    """A frame of the page's origin sent with the caller's Cookie that answers without end
    (or inflates to a gibibyte) is cut at the fetch's body cap within a few seconds and
    fails alone: the page loads and is read, long before its deadline (a frame Playwright
    fetched was held until then, whole), and nothing of the frame is shown."""
    page = (
        '<!doctype html><html><body><div id="root"></div>'
        f'<iframe src="{endless}" onload="{SHOWN}"></iframe><script>'
        'document.getElementById("root").textContent = "Drawn beside an endless frame.";'
        "</script></body></html>"
    )
    page_route(server, "/app/endless", page)
    began = time.monotonic()
    result = scrape_sync(
        server.url("/app/endless"), ("text",), identity=TEST_IDENTITY, render="always",
        policy=loopback_policy(max_body_bytes=2_000_000, deadline=25),
        headers={"Cookie": "session=tide"}, timeout=40,
    )  # fmt: skip
    took = time.monotonic() - began
    assert isinstance(result, ScrapeResult), result
    assert "Drawn beside an endless frame." in result.formats["text"]
    assert "The frame showed: nothing." in result.formats["text"]  # no part of it
    [frame] = [seen for seen in server.seen if seen.path == endless]
    assert header(frame, "Cookie") == "session=tide"
    assert took < 18  # the fetch's deadline is 25 s, the render's 40 s


def framing(*sources: str, text: str = "Drawn beside its frames.") -> str:
    """A page of frames of ``sources``, each saying what it showed (``SHOWN``), and ``text``."""
    frames = "".join(f'<iframe src="{src}" onload="{SHOWN}"></iframe>' for src in sources)
    return f"<!doctype html><html><body><p>{text}</p>{frames}</body></html>"


def test_a_frame_fetched_with_the_callers_cookie_keeps_the_headers_that_restrict_it(
    server: MisbehavingServer, own_tmp: str
) -> None:
    """Its Content-Security-Policy holds (its own script does not run), its Set-Cookie is
    dropped, and its Content-Disposition does not make it a download: it is shown."""
    body = b"<p>Static words.</p><script>document.body.append('Scripted words.')</script>"
    headers = {
        "Content-Type": "text/html", "Content-Security-Policy": "script-src 'none'",
        "Set-Cookie": "leaked=1", "Content-Disposition": "attachment; filename=frame.html",
    }  # fmt: skip
    server.route("/app/strict", lambda request, query: request.answer(200, body, headers))
    page_route(server, "/app/framed", framing("/app/strict"))
    result = scrape_sync(
        server.url("/app/framed"), ("text",), identity=TEST_IDENTITY, render="always",
        policy=loopback_policy(), headers={"Cookie": "session=tide"},
    )  # fmt: skip
    assert isinstance(result, ScrapeResult), result
    text = result.formats["text"]
    assert "The frame showed: Static words.. Its cookies: none." in text, text
    assert "Scripted words." not in text and "leaked" not in text
    [frame] = [seen for seen in server.seen if seen.path == "/app/strict"]
    assert header(frame, "Cookie") == "session=tide"  # fetched by citesift, with the cookie


def test_a_pages_frames_sent_with_the_callers_cookie_are_fetched_two_at_once_within_a_budget(
    server: MisbehavingServer, own_tmp: str
) -> None:
    """Twelve frames of 600 kB, each read under a 1 MB cap: two are fetched at a time, and
    the render's budget of four caps leaves the later ones failed, never fetched."""
    lock, inside, most = threading.Lock(), [0], [0]
    piece = b"<p>" + b"x" * 600_000 + b"</p>"

    def slow_piece(request: Request, query: Query) -> None:
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.3)
        with lock:
            inside[0] -= 1
        request.answer(200, piece, {"Content-Type": "text/html"})

    server.route("/app/piece", slow_piece)
    page_route(server, "/app/pieces", framing(*(f"/app/piece?n={n}" for n in range(12))))
    result = scrape_sync(
        server.url("/app/pieces"), ("text",), identity=TEST_IDENTITY, render="always",
        policy=loopback_policy(max_body_bytes=1_000_000), headers={"Cookie": "session=tide"},
    )  # fmt: skip
    assert isinstance(result, ScrapeResult), result
    assert "Drawn beside its frames." in result.formats["text"]
    fetched = server.hits("/app/piece")
    assert most[0] <= 2 and 4 <= fetched <= 6  # four caps of 1 MB: six of 600 kB at most
    assert result.formats["text"].count("The frame showed: nothing.") == 12 - fetched


def test_a_frame_still_fetched_when_its_render_ends_is_stopped_with_it(
    server: MisbehavingServer, own_tmp: str
) -> None:
    """Frames sent with the caller's Cookie answering a byte at a time hold the page's load
    past its deadline: the render fails then, and every frame's fetch ends with it, the
    ones in flight and the ones waiting their turn (none at the fetch's 30 s deadline),
    while the browser serves on."""
    ended: list[float] = []

    def trickle(request: Request, query: Query) -> None:
        request.start_chunked({"Content-Type": "text/html"})
        try:
            for _ in range(300):
                request.chunk(b" ")
                request.wfile.flush()
                time.sleep(0.1)
        finally:
            ended.append(time.monotonic())

    server.route("/app/trickle", trickle)
    page_route(server, "/app/held", framing(*(f"/app/trickle?n={n}" for n in range(4))))
    page_route(server, "/js", JS_PAGE)
    errors: list[dict[str, Any]] = []

    async def go() -> tuple[Any, float, Any]:
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))
        async with Browser() as browser:
            held = await scrape(
                server.url("/app/held"), ("text",), identity=TEST_IDENTITY, render="always",
                policy=loopback_policy(deadline=30), headers={"Cookie": "session=tide"},
                browser=browser, timeout=1.5,
            )  # fmt: skip
            failed_at = time.monotonic()
            await asyncio.sleep(1.5)
            return held, failed_at, await js_page(server, browser)

    held, failed_at, after = asyncio.run(go())
    assert isinstance(held, ScrapeFailure) and held.code == "TIMEOUT", held
    started = server.hits("/app/trickle")
    assert started >= 1 and len(ended) == started  # none fetched on
    assert all(end - failed_at < 1.5 for end in ended)
    assert isinstance(after, ScrapeResult) and "ferry left at noon" in after.formats["text"]
    assert errors == []
    assert left_behind(own_tmp) == []
