"""No message shows a secret: a header's value, a key, a token, a webhook, or the password or
secret query parameters of a URL, on every surface an error reaches (the Python API, the
command line's standard error, the HTTP API's 400 body, the MCP server's error text), while
it still says what is wrong; nor does the repr of a value holding a key."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from citesift import ScrapeOptions, scrape
from citesift.api.config import ServeConfig
from citesift.cli import app
from citesift.clients import ChatClient
from citesift.clients.endpoint import Endpoint
from citesift.clients.exchange import excerpt, post_json, request
from citesift.clients.search import BraveSearch
from citesift.errors import ClientError, ConfigError, InvalidArgument, LoadError, masked, shown
from citesift.net import FetchPolicy
from citesift.settings import Settings, load_settings
from citesift.sources.loaders.github import GitHubRepo
from citesift.sources.loaders.urls import load_urls_sync
from citesift.store import open_store
from citesift.store.jobs import JobStore
from openai_server import Reply, serve_openai
from servers import TEST_IDENTITY, MisbehavingServer
from serving import LOCAL, running
from test_mcp import World, _text, stdio, world  # noqa: F401 - a fixture

pytestmark = pytest.mark.timeout(120)
SECRET = "sk-live-4f9Qz7"
"""The key every test hides somewhere; it must show nowhere."""
BAD_VALUES = [f"Bearer {SECRET}\nX-Injected: 1", f"Bearer {SECRET}\u00e9", f"Bearer {SECRET}\x7f"]
"""Header values no header can carry: a second line, a non-ASCII and a control character."""
SECRET_URLS = [
    f"ftp://alice:{SECRET}@files.example/a",
    f"ftp://{SECRET}@files.example/a",
    f"ftp://files.example/a?x=1&api_key={SECRET}",
    f"ftp://files.example/a?X-Amz-Signature={SECRET}&X-Amz-Credential={SECRET}",
    f"ftp://files.example/a#access_token={SECRET}",
]
"""URLs of a scheme no fetch takes, each carrying the secret in another part."""


def refused(make: Any) -> str:
    """The message of the ``InvalidArgument`` ``make()`` raises."""
    with pytest.raises(InvalidArgument) as caught:
        make()
    return str(caught.value)


@pytest.mark.parametrize("value", BAD_VALUES, ids=["newline", "non-ascii", "control"])
def test_a_header_value_no_header_can_carry_is_refused_by_name_never_shown(value: str) -> None:
    given = {"Accept-Language": "fr", "Authorization": value}
    for message in (
        refused(lambda: FetchPolicy(TEST_IDENTITY, headers=given)),
        refused(lambda: FetchPolicy(TEST_IDENTITY, headers=tuple(given.items()))),
        refused(lambda: ScrapeOptions(headers=given)),
        refused(lambda: Endpoint("http://127.0.0.1:9/", "API", headers=tuple(given.items()))),
    ):
        assert SECRET not in message
        assert message.startswith("headers must be")
        assert "header 2 of 2: the value of Authorization is blank" in message


def test_a_header_name_holding_its_value_is_not_shown_either() -> None:
    """``'Authorization: Bearer …'`` given as a name (the value put in it by mistake)."""
    given = {f"Authorization: Bearer {SECRET}": "x"}
    for message in (
        refused(lambda: FetchPolicy(TEST_IDENTITY, headers=given)),
        refused(lambda: ScrapeOptions(headers=given)),
    ):
        assert SECRET not in message and "header 1 of 1: its name is not a header name" in message
    shape = refused(lambda: FetchPolicy(TEST_IDENTITY, headers=[("Cookie", SECRET, "x")]))
    assert SECRET not in shape and "(name, value) pairs" in shape


def test_a_tab_is_sound_in_a_header_value_never_in_its_name(server: MisbehavingServer) -> None:
    """HTTP allows a tab inside a value: it is sent as given; a name holding one is refused."""
    policy = FetchPolicy(TEST_IDENTITY, headers={"X-Note": "a\tb"}, accept="text/html;\tq=1")
    assert policy.headers == (("X-Note", "a\tb"),) and policy.accept == "text/html;\tq=1"
    endpoint = Endpoint(server.url("/"), "API", headers=(("X-Note", "a\tb"),))
    asyncio.run(request(endpoint, "GET", "ok"))
    assert [seen.headers["X-Note"] for seen in server.seen] == ["a\tb"]
    named = refused(lambda: FetchPolicy(TEST_IDENTITY, headers={"X\tNote": SECRET}))
    assert "header 1 of 1: its name is not a header name" in named and SECRET not in named


def test_a_header_a_fetch_sets_itself_is_still_named() -> None:
    message = refused(lambda: ScrapeOptions(headers={"User-Agent": SECRET}))
    assert "'User-Agent'" in message and SECRET not in message


@pytest.mark.parametrize("key", BAD_VALUES[:2], ids=["newline", "non-ascii"])
def test_a_key_no_header_can_carry_is_refused_unshown_before_any_request(key: str) -> None:
    for message in (
        refused(lambda: ChatClient("http://127.0.0.1:9/v1", "m", api_key=key)),
        refused(lambda: Endpoint("http://127.0.0.1:9/", "API", api_key=key)),
    ):
        assert SECRET not in message and message.startswith("api_key must be printable ASCII")
    brave = refused(lambda: BraveSearch(key, base_url="http://127.0.0.1:9/"))
    assert SECRET not in brave and "the value of X-Subscription-Token is blank" in brave


def test_a_key_with_a_trailing_newline_is_sent_without_it(server: MisbehavingServer) -> None:
    endpoint = Endpoint(server.url("/"), "API", api_key=f"{SECRET}\n")
    asyncio.run(request(endpoint, "GET", "ok"))
    assert [seen.headers["Authorization"] for seen in server.seen] == [f"Bearer {SECRET}"]


def test_a_token_asked_for_at_call_time_that_no_header_can_carry_fails_unshown(
    server: MisbehavingServer,
) -> None:
    """A loader's token function may answer anything: the call fails naming the header,
    never sending it and never quoting it (httpx's own error quotes the whole value)."""
    endpoint = Endpoint(server.url("/"), "Cloud Storage")
    headers = {"Authorization": BAD_VALUES[0]}
    with pytest.raises(ClientError) as caught:
        asyncio.run(request(endpoint, "GET", "o", headers=headers))
    assert SECRET not in str(caught.value)
    assert "Cloud Storage: a header cannot be sent, the value of Authorization" in str(caught.value)
    assert server.seen == []


def test_a_key_a_refusing_server_echoes_back_is_not_quoted() -> None:
    """A 401 quoting the key it refused (some APIs do) is quoted with the key written ***."""
    echo = {"error": {"message": f"Incorrect API key provided: {SECRET}", "code": "bad_key"}}
    with serve_openai() as api:
        api.script("/v1/embeddings", Reply(echo, status=401))
        api.script("/v1/chat/completions", Reply(echo, status=401))
        endpoint = Endpoint(api.base_url, "Embeddings", api_key=SECRET)
        with pytest.raises(ClientError) as embedding:
            asyncio.run(post_json(endpoint, "embeddings", {"input": ["tide"]}))
        chat = ChatClient(api.base_url, "m", api_key=SECRET, max_retries=0)
        with pytest.raises(ClientError) as chatting:
            asyncio.run(chat.complete("be brief", "hello", max_tokens=5))
    for said, label in ((str(embedding.value), "Embeddings"), (str(chatting.value), "chat")):
        assert SECRET not in said
        assert f"{label}" in said and "401" in said and "Incorrect API key provided: ***" in said


def test_a_short_key_a_server_echoes_back_is_hidden_but_a_short_header_value_is_kept() -> None:
    """Any key of 4 characters or more is hidden; a header's value only from 8 (a version)."""
    endpoint = Endpoint("http://127.0.0.1:9/", "API", api_key="k3y9x", headers=(("V", "2024"),))
    said = excerpt(b"Incorrect API key provided: k3y9x (API version 2024)", endpoint)
    assert said == "Incorrect API key provided: *** (API version 2024)"
    tiny = Endpoint("http://127.0.0.1:9/", "API", api_key="k")
    assert excerpt(b"unknown key", tiny) == "unknown key"


def test_masked_hides_every_secret_part_of_a_url_and_keeps_the_rest() -> None:
    for url in SECRET_URLS:
        assert SECRET not in masked(url) and "files.example/a" in masked(url)
    assert masked(f"https://alice:{SECRET}@h/p?q=tide&token={SECRET}") == (
        "https://alice:***@h/p?q=tide&token=***"
    )
    assert masked("https://h/p?q=tide&page=2") == "https://h/p?q=tide&page=2"
    assert masked(f"https://{SECRET}@github.com/o/r") == "https://***@github.com/o/r"
    assert masked("postgresql://reader@h/db?passfile=/p") == "postgresql://reader@h/db?passfile=/p"
    assert (
        masked(f"postgres:///db?PASSWORD={SECRET}&port=5") == "postgres:///db?PASSWORD=***&port=5"
    )
    assert masked(f"postgresql:///db?sslpassword={SECRET}#x") == (
        "postgresql:///db?sslpassword=***#x"
    )
    assert SECRET not in shown([f"postgresql://u:{SECRET}@db/x", f"x?password={SECRET}"])
    # a URL written into HTML (a server's error page quoting it) escapes its & as &amp;
    assert masked(f"https://h/p?q=1&amp;token={SECRET}&amp;page=2") == (
        "https://h/p?q=1&amp;token=***&amp;page=2"
    )


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (f"https://u:p@{SECRET}@h/x", "https://u:***@h/x"),
        (f"postgresql://u:p'{SECRET}@h/db", "postgresql://u:***@h/db"),
        (f'postgresql://u:p"{SECRET}@h/db', "postgresql://u:***@h/db"),
        (f"https://p@{SECRET}@h/x", "https://***@h/x"),
    ],
    ids=["at", "quote", "double-quote", "token-with-at"],
)
def test_masked_hides_a_password_holding_an_at_or_a_quote_up_to_the_host(
    url: str, kept: str
) -> None:
    """The user part ends at the last ``@`` before the path, as ``urlsplit`` reads it."""
    assert masked(url) == kept
    assert SECRET not in shown(url)


def test_masked_hides_a_parameter_by_the_words_of_its_name_not_by_a_word_inside_one() -> None:
    secret = [
        "api_key", "apiKey", "key", "X-Api-Key", "access_token", "pageToken", "client_secret",
        "PASSWORD", "sslpassword", "passwd", "sig", "X-Amz-Signature", "X-Goog-Credential",
        "session", "session_id", "JSESSIONID", "auth", "Authorization", "cookie",
    ]  # fmt: skip
    plain = ["author", "design", "keyword", "target_session_attrs", "monkey", "max_tokens",
             "code", "passfile", "page"]  # fmt: skip
    for name in secret:
        assert masked(f"https://h/p?q=1&{name}={SECRET}") == f"https://h/p?q=1&{name}=***", name
    for name in plain:
        assert masked(f"https://h/p?q=1&{name}=v") == f"https://h/p?q=1&{name}=v", name


@pytest.mark.parametrize("url", SECRET_URLS)
def test_a_refused_url_is_named_with_its_secrets_masked(url: str) -> None:
    message = refused(lambda: asyncio.run(scrape(url, identity=TEST_IDENTITY)))
    assert SECRET not in message and "url must be an http(s) URL with a host" in message
    assert "files.example/a" in message


def test_a_loader_names_a_refused_address_with_its_secrets_masked() -> None:
    with pytest.raises(LoadError) as caught:
        load_urls_sync([f"http://alice:{SECRET}@files.example/a"], ["https://files.example"],
                       FetchPolicy(TEST_IDENTITY))  # fmt: skip
    assert SECRET not in str(caught.value) and "alice:***@files.example/a" in str(caught.value)


def test_a_key_of_the_wrong_type_in_the_config_file_is_not_shown(tmp_path: Path) -> None:
    config = tmp_path / "citesift.toml"
    config.write_text(f'api_key = ["{SECRET}"]\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(environ={}, config=config)
    assert SECRET not in str(caught.value) and "api_key: expected str, got a list" in str(
        caught.value
    )


def test_no_repr_shows_a_key() -> None:
    values = [
        ServeConfig(api_keys=(SECRET,)),
        FetchPolicy(TEST_IDENTITY, headers={"Authorization": f"Bearer {SECRET}"}),
        ScrapeOptions(headers={"Cookie": f"session={SECRET}"}),
        Endpoint("https://api.example/", "API", api_key=SECRET, headers=(("X-Api-Key", SECRET),)),
        Settings(api_key=SECRET, search_key=SECRET),
        GitHubRepo("owner", "repo", token=SECRET),
    ]
    for value in values:
        assert SECRET not in repr(value), type(value).__name__


# The command line: standard error (and all it prints).


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner in an empty directory (conftest clears every ``CITESIFT_*`` setting)."""
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def cli(runner: CliRunner, command: str, *args: str) -> Any:
    given = [command, *args, "--allow-private", "--contact", "https://example.org/contact"]
    return runner.invoke(app, given, env={"CITESIFT_BROWSER": "/nonexistent/chromium"})


@pytest.mark.parametrize(
    ("header", "said"),
    [
        (f"Authorization Bearer {SECRET}", "header 1 has no ':'"),
        (f"Authorization: Bearer {SECRET}\u00e9", "the value of Authorization is blank"),
    ],
    ids=["no-colon", "non-ascii"],
)
def test_cli_scrape_names_a_bad_header_without_its_value(
    runner: CliRunner, server: MisbehavingServer, header: str, said: str
) -> None:
    ran = cli(runner, "scrape", server.url("/p"), "--headers", header)
    assert ran.exit_code == 64, ran.output
    assert SECRET not in ran.output and said in ran.output
    assert server.seen == []


@pytest.mark.parametrize("command", ["scrape", "fetch", "page"])
def test_cli_names_a_refused_url_with_its_secrets_masked(runner: CliRunner, command: str) -> None:
    ran = cli(runner, command, f"ftp://alice:{SECRET}@files.example/a?api_key={SECRET}")
    assert ran.exit_code == 64, ran.output
    assert SECRET not in ran.output and "alice:***@files.example/a" in ran.output


# The HTTP API: the 400 body.


def test_http_400_names_a_bad_header_or_an_unhonoured_secret_field_without_its_value(
    served: str,
) -> None:
    crawl_headers = {"headers": {"Authorization": f"Bearer {SECRET}"}}
    asked = [
        ("/v2/scrape", {"url": "https://example.org/", "headers": {"Cookie": BAD_VALUES[0]}}),
        ("/v2/map", {"url": "https://example.org/", "headers": {"Authorization": SECRET}}),
        ("/v2/crawl", {"url": "https://example.org/", "webhook": f"https://h/?token={SECRET}"}),
        ("/v2/crawl", {"url": "https://example.org/", "webhook": {"headers": {"X": SECRET}}}),
        ("/v2/scrape", {"url": f"ftp://alice:{SECRET}@files.example/a"}),
        ("/v2/crawl", {"url": "https://example.org/", "scrapeOptions": crawl_headers}),
    ]
    said = []
    for path, body in asked:
        answer = httpx.post(served + path, json=body, timeout=30)
        assert answer.status_code == 400, answer.text
        assert SECRET not in answer.text
        said.append(answer.json()["details"][0]["message"])
    assert "the value of Cookie is blank" in said[0]
    assert said[1] == "headers is not supported by citesift"
    assert said[2] == said[3] == "webhook is not supported by citesift"
    assert "alice:***@files.example" in said[4]
    assert said[5].startswith("headers is not supported by citesift: a crawl reads")


def test_a_batch_scrape_sends_its_headers_but_its_job_keeps_none_of_their_values(
    server: MisbehavingServer, tmp_path: Path
) -> None:
    kept_in = tmp_path / "store.db"
    body = {"urls": [server.url("/ok")], "headers": {"Authorization": f"Bearer {SECRET}"}}
    with running(settings=replace(LOCAL, store=str(kept_in))) as base:
        started = httpx.post(f"{base}/v2/batch/scrape", json=body, timeout=30).json()
        for _ in range(100):
            status = httpx.get(started["url"], timeout=30).json()["status"]
            if status != "scraping":
                break
            time.sleep(0.1)
    assert status == "completed"
    sent = [seen.headers.get("Authorization") for seen in server.seen if seen.path == "/ok"]
    assert sent == [f"Bearer {SECRET}"]
    with open_store(kept_in) as store:
        job = JobStore(store).get(started["id"])
    assert job is not None and job.request["headers"] == {"Authorization": "***"}
    assert job.request["urls"] == [server.url("/ok")]


# The MCP server: the error text of a tool call.


def test_mcp_names_a_refused_url_with_its_secrets_masked(world: World) -> None:  # noqa: F811
    async def scenario(client: Client) -> None:
        for tool in ("scrape", "map", "crawl"):
            url = f"ftp://alice:{SECRET}@files.example/a?access_token={SECRET}"
            answer = await client.call_tool(tool, {"url": url})
            assert answer.is_error and SECRET not in _text(answer), _text(answer)
            assert "an http(s) URL with a host" in _text(answer)
            assert "alice:***@files.example/a?access_token=***" in _text(answer)

    stdio(world, scenario)
