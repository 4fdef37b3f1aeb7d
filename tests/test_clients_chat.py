"""The chat client against a scripted OpenAI-compatible server: the openai package speaking
through the one exchange, replies and usage, retries on 429/5xx as Retry-After asks within
the time left, the answer's cap, JSON mode dropped when the server has none, malformed and
refused answers."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from citesift.clients import ChatClient, ChatReply, ClientError, RetryPolicy
from citesift.errors import InvalidArgument
from openai_server import Reply, ScriptedServer, chat_reply, serve_openai

CHAT = "/v1/chat/completions"


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai() as running:
        yield running


def ask(client: ChatClient, seconds: float | None = None) -> ChatReply:
    return asyncio.run(client.complete("be brief", "hello", max_tokens=50, seconds=seconds))


def test_a_reply_brings_its_text_and_the_usage_the_service_counted(api: ScriptedServer) -> None:
    api.script(CHAT, chat_reply('{"action": "finish"}'))
    reply = ask(ChatClient(api.base_url, "m1", api_key="k"))
    assert reply.content == '{"action": "finish"}'
    assert (reply.prompt_tokens, reply.completion_tokens) == (1, 1)
    sent = api.received(CHAT)[0]
    assert sent.headers["authorization"] == "Bearer k"
    assert sent.json["model"] == "m1" and sent.json["max_tokens"] == 50
    assert sent.json["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in sent.json["messages"]] == ["system", "user"]


def test_429_and_5xx_are_tried_again(api: ScriptedServer) -> None:
    api.script(
        CHAT,
        Reply({"error": "slow down"}, status=429, headers={"Retry-After": "0"}),
        Reply({"error": "oops"}, status=503),
        chat_reply("ok"),
    )
    client = ChatClient(api.base_url, "m", max_retries=2)
    client.endpoint = replace(client.endpoint, retry=RetryPolicy(3, backoff=0.01))
    assert ask(client).content == "ok"
    assert len(api.received(CHAT)) == 3


def test_json_mode_is_dropped_for_good_when_the_server_refuses_it(api: ScriptedServer) -> None:
    refusal = Reply({"error": {"message": "response_format is not supported"}}, status=400)
    api.script(CHAT, refusal, chat_reply("first"), chat_reply("second"))
    client = ChatClient(api.base_url, "m")
    assert ask(client).content == "first"
    assert ask(client).content == "second"
    formats = ["response_format" in r.json for r in api.received(CHAT)]
    assert formats == [True, False, False]


def test_a_refusal_or_a_malformed_answer_is_a_client_error(api: ScriptedServer) -> None:
    api.script(CHAT, Reply({"error": "no such key"}, status=401))
    with pytest.raises(ClientError, match="chat endpoint: 401"):
        ask(ChatClient(api.base_url, "m"))
    assert len(api.received(CHAT)) == 1
    api.script(CHAT, Reply({"choices": []}), Reply(raw=b"not json"))
    with pytest.raises(ClientError, match="no message content"):
        ask(ChatClient(api.base_url, "m"))
    with pytest.raises(ClientError, match="invalid JSON"):
        ask(ChatClient(api.base_url, "m"))
    api.script(CHAT, Reply(raw=b'{"choices": ' + b"[" * 100_000))  # nested past the stack
    with pytest.raises(ClientError, match="invalid JSON"):
        ask(ChatClient(api.base_url, "m"))
    usage_free = Reply({"choices": [{"message": {"content": "hi"}}]})
    api.script(CHAT, usage_free)
    reply = ask(ChatClient(api.base_url, "m"))
    assert reply.prompt_tokens is None


def test_a_call_is_held_to_the_time_left(api: ScriptedServer) -> None:
    api.script(CHAT, Reply(chat_reply("late").json, delay=2.0))
    with pytest.raises(ClientError, match="timed out"):
        ask(ChatClient(api.base_url, "m", max_retries=0), seconds=0.3)
    with pytest.raises(ClientError, match="no time left"):
        ask(ChatClient(api.base_url, "m"), seconds=0)


def test_arguments_that_make_no_sense_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="model"):
        ChatClient("http://127.0.0.1:9/v1", " ")
    with pytest.raises(InvalidArgument, match="max_retries"):
        ChatClient("http://127.0.0.1:9/v1", "m", max_retries=-1)
    with pytest.raises(InvalidArgument, match="base_url"):
        ChatClient("file:///tmp", "m")


def test_the_openai_package_speaks_and_a_keyless_server_gets_no_key(
    api: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    api.script(CHAT, chat_reply("ok"))
    assert ask(ChatClient(api.base_url, "m")).content == "ok"
    sent = api.received(CHAT)[0]
    assert sent.headers["user-agent"].startswith("AsyncOpenAI/Python")
    assert "authorization" not in sent.headers


def test_retry_after_is_waited_for_within_the_time_left(api: ScriptedServer) -> None:
    slow_down = Reply({"error": "slow down"}, status=429, headers={"Retry-After": "1"})
    api.script(CHAT, slow_down, chat_reply("ok"))
    started = time.monotonic()
    assert ask(ChatClient(api.base_url, "m")).content == "ok"
    assert time.monotonic() - started >= 1.0
    api.script(CHAT, Reply({"error": "later"}, status=429, headers={"Retry-After": "30"}))
    started = time.monotonic()
    with pytest.raises(ClientError, match="chat endpoint: 429"):
        ask(ChatClient(api.base_url, "m"), seconds=5)
    assert time.monotonic() - started < 2  # a wait past the deadline is not begun
    assert len(api.received(CHAT)) == 3


def test_an_answer_past_the_cap_is_refused_unread(api: ScriptedServer) -> None:
    huge = chat_reply("x" * 5000)
    api.script(CHAT, huge)
    client = ChatClient(api.base_url, "m")
    client.endpoint = replace(client.endpoint, max_response_bytes=1000)
    with pytest.raises(ClientError, match="response exceeds 1000 bytes"):
        ask(client)


def test_without_the_openai_package_a_call_says_how_to_install_it(api: ScriptedServer) -> None:
    code = (
        "import asyncio, sys\n"
        "sys.modules['openai'] = None  # as if it were not installed\n"
        "from citesift.clients import ChatClient, ClientError\n"
        f"client = ChatClient({api.base_url!r}, 'm')\n"
        "try:\n"
        "    asyncio.run(client.complete('s', 'u'))\n"
        "except ClientError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'citesift[openai]'" in done.stdout
    assert api.received(CHAT) == []
