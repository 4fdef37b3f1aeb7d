"""The API's guard over real HTTP: keys, the per-client rate, body bounds, the schema, and
the refusal to listen off loopback without a key."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from citesift.api.config import ServeConfig
from citesift.cli import app
from citesift.errors import InvalidArgument
from local_site import page
from servers import MisbehavingServer, Query, Request
from serving import CONTACT, running

pytestmark = pytest.mark.timeout(60)
EXTRACT = {"urls": ["http://127.0.0.1:9/"], "prompt": "When did it open?"}
"""An extract the test servers answer 501 (they have no model), past the guard."""


def test_without_keys_any_caller_on_loopback_is_served() -> None:
    with running() as base:
        schema = httpx.get(f"{base}/openapi.json", headers={"Authorization": "Bearer anything"})
        assert schema.status_code == 200
        assert schema.json()["info"]["title"] == "citesift"
        assert "swagger" in httpx.get(f"{base}/docs").text.lower()


def test_without_keys_a_foreign_host_or_origin_is_refused_the_local_names_served() -> None:
    """A page of another site that rebinds its name to 127.0.0.1 sends its own Host; a page
    read in the operator's browser sends its Origin: neither reaches a keyless server."""
    with running() as base:
        port = base.rsplit(":", 1)[1]
        schema = f"{base}/openapi.json"
        for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
            refused = httpx.get(schema, headers={"Host": host})
            assert refused.status_code == 403, host
            assert refused.json()["code"] == "FOREIGN_HOST"
            assert "is not this server's" in refused.json()["error"]
        for origin in ("http://evil.example", "null", f"http://evil.example:{port}"):
            refused = httpx.post(f"{base}/v2/extract", json=EXTRACT, headers={"Origin": origin})
            assert refused.status_code == 403 and "Origin" in refused.json()["error"], origin
        for host in ("127.0.0.1", f"localhost:{port}", f"[::1]:{port}", "LOCALHOST"):
            assert httpx.get(schema, headers={"Host": host}).status_code == 200, host
        own = {"Origin": f"http://localhost:{port}"}
        assert httpx.post(f"{base}/v2/extract", json=EXTRACT, headers=own).status_code == 501
    with running(ServeConfig(port=0, api_keys=("k-one",))) as base:  # a key guards instead
        keyed = {"Host": "search.example", "Authorization": "Bearer k-one"}
        assert httpx.get(f"{base}/openapi.json", headers=keyed).status_code == 200


def test_with_keys_a_caller_needs_one_of_them() -> None:
    with running(ServeConfig(port=0, api_keys=("k-one", "k-two"))) as base:
        url = f"{base}/v2/extract"
        missing = httpx.post(url, json=EXTRACT)
        wrong = httpx.post(url, json=EXTRACT, headers={"Authorization": "Bearer k-three"})
        assert missing.status_code == wrong.status_code == 401
        assert missing.json() == {"success": False, "error": "Unauthorized: Invalid token"}
        right = httpx.post(url, json=EXTRACT, headers={"Authorization": "Bearer k-two"})
        assert right.status_code == 501  # past the guard: no model to extract with
        assert httpx.get(f"{base}/openapi.json").status_code == 200  # the schema stays open


def test_a_client_past_its_rate_is_answered_429_with_retry_after() -> None:
    with running(ServeConfig(port=0, rate_per_minute=3)) as base:
        answers = [httpx.get(f"{base}/openapi.json") for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert answers[-1].json()["success"] is False
    assert 1 <= int(answers[-1].headers["retry-after"]) <= 20


def test_each_key_has_its_own_rate() -> None:
    config = ServeConfig(port=0, api_keys=("k-one", "k-two"), rate_per_minute=1)
    with running(config) as base:

        def ask(key: str) -> int:
            headers = {"Authorization": f"Bearer {key}"}
            return httpx.post(f"{base}/v2/extract", json=EXTRACT, headers=headers).status_code

        assert [ask("k-one"), ask("k-one"), ask("k-two")] == [501, 429, 501]


def test_a_body_over_the_bound_is_refused_before_it_is_read_whole() -> None:
    with running(ServeConfig(port=0, max_body_bytes=4096)) as base:
        declared = httpx.post(f"{base}/v2/extract", content=b"{" + b" " * 5000 + b"}")

        def chunks() -> object:
            for _ in range(100):
                yield b" " * 1000

        streamed = httpx.post(f"{base}/v2/extract", content=chunks())  # type: ignore[arg-type]
        small = httpx.post(f"{base}/v2/extract", json=EXTRACT)
    assert declared.status_code == streamed.status_code == 413
    assert declared.json()["code"] == "PAYLOAD_TOO_LARGE"
    assert small.status_code == 501  # under the bound: on to the route


SURROGATE_BODIES = [
    ("/v2/scrape", b'{"url": "http://127.0.0.1:9/\\ud800"}', ["url"]),
    ("/v2/crawl", b'{"url": "http://a.test/", "includePaths": ["\\ud800"]}', ["includePaths", 0]),
    ("/v2/crawl", b'{"url": "http://a.test/", "excludePaths": ["a\\uDFFF"]}', ["excludePaths", 0]),
    ("/v2/batch/scrape", b'{"urls": ["\\ud800"], "ignoreInvalidURLs": true}', ["urls", 0]),
    ("/citesift/verify/claim", b'{"claim": "x", "sentences": ["ok", "\\udc00"]}', ["sentences", 1]),
    ("/v2/scrape", b'{"url": "http://127.0.0.1:9/", "\\ud800": 1}', ["\\ud800"]),
    ("/v2/scrape", b'{"url": "http://127.0.0.1:9/\xed\xa0\x80"}', ["url"]),  # not UTF-8
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "field"), SURROGATE_BODIES)
def test_a_lone_surrogate_in_any_json_string_is_a_400_naming_its_field(
    path: str, body: bytes, field: list[str | int]
) -> None:
    """No encoder can write half of a UTF-16 pair: it is refused before any route reads it
    (a crawl kept it in its job's JSON and failed with a 500)."""
    json_type = {"Content-Type": "application/json"}
    escaped = b'["\\\\ud800\\ud83d\\ude00"]'  # an escaped backslash, then a pair
    with running() as base:
        refused = httpx.post(base + path, content=body, headers=json_type)
        crawl = b'{"url": "http://127.0.0.1:9/", "limit": -1, "excludePaths": %s}'
        kept = httpx.post(f"{base}/v2/crawl", content=crawl % escaped, headers=json_type)
    assert refused.status_code == 400, refused.text
    detail = refused.json()["details"][0]
    assert detail["path"] == field and detail["code"] == "string_unicode"
    assert "lone surrogate" in detail["message"]
    assert kept.status_code == 400 and kept.json()["details"][0]["path"] == ["limit"]


def test_a_body_of_a_million_values_is_walked_for_surrogates_in_time() -> None:
    """The walk builds a path only for the string it refuses: half a million numbers before
    one lone surrogate are read in well under 2 s (a path per value took 3.8 s of the
    loop's time)."""
    items = b"0," * ((1 << 20) // 2 - 40)
    body = b'{"url": "http://127.0.0.1:9/", "formats": [' + items + b'"\\ud800"]}'
    with running() as base:
        began = time.perf_counter()
        refused = httpx.post(
            f"{base}/v2/scrape", content=body, headers={"Content-Type": "application/json"}
        )
        took = time.perf_counter() - began
    assert refused.status_code == 400, refused.text
    assert refused.json()["details"][0]["path"] == ["formats", (1 << 20) // 2 - 40]
    assert took < 2.0


def test_a_body_not_sent_whole_in_time_is_answered_408_and_the_connection_closed() -> None:
    """uvicorn bounds no body's time: a client declaring 100 bytes and sending one would
    hold a connection for ever."""
    with running(ServeConfig(port=0, body_seconds=0.5)) as base:
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                b"POST /v2/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
            )
            started = time.monotonic()
            answer = b""
            while chunk := sock.recv(65536):  # until the server closes the connection
                answer += chunk
            waited = time.monotonic() - started
        whole = httpx.post(f"{base}/v2/extract", json=EXTRACT)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408") and b"connection: close" in head.lower()
    assert b'"REQUEST_TIMEOUT"' in body and 0.4 < waited < 5
    assert whole.status_code == 501  # a body sent in time goes on to the route
    with pytest.raises(InvalidArgument, match="body_seconds"):
        ServeConfig(body_seconds=0)


def test_a_route_the_server_is_not_set_up_for_says_what_to_set_and_an_unknown_one_is_404() -> None:
    with running() as base:
        extract = httpx.post(f"{base}/v2/extract", json=EXTRACT)
        status = httpx.get(f"{base}/v2/extract/some-id")
        unknown = httpx.get(f"{base}/v2/nothing-here")
    assert extract.status_code == 501 and "set model" in extract.json()["error"]
    assert status.status_code == 404 and status.json()["error"] == "Job not found"
    assert unknown.status_code == 404 and unknown.json()["success"] is False


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7", "::", "example.org"])
def test_listening_off_loopback_needs_a_key(host: str) -> None:
    with pytest.raises(InvalidArgument, match="api_keys"):
        ServeConfig(host=host)
    assert ServeConfig(host=host, api_keys=("a-key",)).api_keys == ("a-key",)


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "[::1]", "localhost", "127.8.9.10"])
def test_loopback_needs_no_key(host: str) -> None:
    assert ServeConfig(host=host).api_keys == ()


def test_serve_refuses_to_start_off_loopback_without_a_key_naming_the_option() -> None:
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--contact", CONTACT])
    assert result.exit_code == 64
    # the option typed, and the variable that may hold the keys instead
    assert "error: --api-key (or CITESIFT_SERVE_API_KEY) must be at least one key" in result.stderr
    assert "api_keys" not in result.stderr and "not loopback" in result.stderr
    assert "not ()" not in result.stderr
    limited = CliRunner().invoke(app, ["serve", "--rate-limit", "0", "--contact", CONTACT])
    assert limited.exit_code == 64 and "error: --rate-limit must be" in limited.stderr


def test_serve_reads_its_keys_from_the_environment() -> None:
    args = ["serve", "--host", "0.0.0.0", "--contact", CONTACT]
    result = CliRunner().invoke(app, args, env={"CITESIFT_SERVE_API_KEY": "k-one é"})
    assert result.exit_code == 64  # the second key read, and refused before listening
    assert "error: --api-key (or CITESIFT_SERVE_API_KEY) must be printable" in result.stderr
    # the bad key named by its place, no key shown, the good one least of all
    assert "key 2 of 2 has a non-ASCII character" in result.stderr
    assert "k-one" not in result.stderr and "é" not in result.stderr


def test_serve_refuses_to_start_without_a_contact() -> None:
    result = CliRunner().invoke(app, ["serve", "--port", "0"])
    assert result.exit_code == 64
    assert "contact" in result.stderr


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("", "is empty"),
        ("has space", "has a space or a control character"),
        ("tab\there", "has a space or a control character"),
        ("é", "has a non-ASCII character"),
        ("k" * 513, "is longer than 512 characters"),
    ],
    ids=["empty", "space", "tab", "non-ascii", "long"],
)
def test_an_unusable_key_is_refused_by_its_place_never_shown(key: str, problem: str) -> None:
    with pytest.raises(InvalidArgument, match="api_keys") as refused:
        ServeConfig(api_keys=("good-key", key))
    assert str(refused.value).endswith(f"key 2 of 2 {problem}")
    assert "good-key" not in str(refused.value) and (not key or key not in str(refused.value))


@pytest.mark.parametrize("in_flight", [1, 2])
def test_scrapes_running_at_once_are_bounded_by_the_servers_slots(
    server: MisbehavingServer, in_flight: int
) -> None:
    running_now = [0]
    most = [0]
    lock = threading.Lock()

    def slow_page(request: Request, query: Query) -> None:
        with lock:
            running_now[0] += 1
            most[0] = max(most[0], running_now[0])
        time.sleep(1.0)
        with lock:
            running_now[0] -= 1
        request.answer(200, page("Slow", []), {"Content-Type": "text/html; charset=utf-8"})

    server.route("/slow", slow_page)
    with running(ServeConfig(port=0, max_in_flight=in_flight)) as base:

        def scrape(_: int) -> int:
            body = {"url": server.url("/slow")}
            return httpx.post(f"{base}/v2/scrape", json=body, timeout=30).status_code

        with ThreadPoolExecutor(3) as pool:
            statuses = list(pool.map(scrape, range(3)))
    assert statuses == [200, 200, 200]
    assert most[0] == in_flight


def test_the_serve_command_listens_until_stopped(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-c", "from citesift.cli import main; main()", "serve"]
    given = ["--port", str(port), "--contact", CONTACT, "--api-key", "k-one"]
    process = subprocess.Popen(
        [*command, *given], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        answer = None
        deadline = time.monotonic() + 30
        while answer is None and time.monotonic() < deadline and process.poll() is None:
            try:
                answer = httpx.post(f"http://127.0.0.1:{port}/v2/crawl", json={})
            except httpx.TransportError:
                time.sleep(0.1)
        assert answer is not None and answer.status_code == 401
    finally:
        process.terminate()
        _, err = process.communicate(timeout=15)
    assert b"Uvicorn running" in err and b"Finished server process" in err  # shut down cleanly


BLOCKED_IMPORTS = """
import sys
class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "uvicorn", "starlette"):
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, Blocked())
import citesift
from citesift.cli import main
main()
"""


def test_without_the_serve_extra_citesift_imports_and_serve_says_what_to_install() -> None:
    command = [sys.executable, "-c", BLOCKED_IMPORTS, "serve", "--contact", CONTACT]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 64
    assert "pip install 'citesift[serve]'" in done.stderr
