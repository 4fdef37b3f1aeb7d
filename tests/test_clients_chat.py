"""The chat client against a scripted OpenAI-compatible server: replies and usage, retries
on 429/5xx, JSON mode dropped when the server has none, malformed and refused answers."""

from __future__ import annotations

import asyncio
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
