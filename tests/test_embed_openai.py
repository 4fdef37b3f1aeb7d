"""OpenAIEmbedder against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import numpy as np
import pytest

from citesift.errors import ClientError, InvalidArgument
from citesift.index.embedders.base import Embedder, EmbeddingError
from citesift.index.embedders.cache import CachedEmbedder
from citesift.index.embedders.openai_compat import OpenAIEmbedder
from citesift.store.sqlite import SQLiteStore
from openai_server import Reply, ScriptedServer, seeded_vector, serve_openai

pytestmark = pytest.mark.timeout(30)
EMBEDDINGS = "/v1/embeddings"


@pytest.fixture
def api() -> Iterator[ScriptedServer]:
    with serve_openai(dim=8) as server:
        yield server


def _embedder(api: ScriptedServer, **options: object) -> OpenAIEmbedder:
    options.setdefault("dim", 8)
    return OpenAIEmbedder(api.base_url, "embed-small", max_retries=0, **options)


def test_vectors_come_back_normalised_in_input_order(api: ScriptedServer) -> None:
    embedder = _embedder(api)
    vectors = embedder.embed(["first", "second", "third"])
    expected = np.vstack([seeded_vector(t, 8) for t in ["first", "second", "third"]])
    assert isinstance(embedder, Embedder)
    assert vectors.dtype == np.float32 and np.allclose(vectors, expected, atol=1e-6)
    sent = api.received(EMBEDDINGS)[0].json
    assert sent == {
        "model": "embed-small",
        "input": ["first", "second", "third"],
        "encoding_format": "float",
    }


def test_requests_are_batched(api: ScriptedServer) -> None:
    _embedder(api, batch_size=2).embed(["a", "b", "c", "d", "e"])
    assert [len(r.json["input"]) for r in api.received(EMBEDDINGS)] == [2, 2, 1]


def test_answers_out_of_order_are_put_back_in_order(api: ScriptedServer) -> None:
    axis = [[0.0] * i + [2.0] + [0.0] * (7 - i) for i in range(2)]  # input i points along axis i
    data = [{"object": "embedding", "index": i, "embedding": axis[i]} for i in (1, 0)]
    api.script(EMBEDDINGS, Reply({"object": "list", "data": data, "model": "m"}))
    vectors = _embedder(api).embed(["x", "y"])
    assert vectors[0].tolist() == [1.0] + [0.0] * 7
    assert vectors[1].tolist() == [0.0, 1.0] + [0.0] * 6
    assert api.received(EMBEDDINGS)[0].json["input"] == ["x", "y"]


def test_without_dim_one_probe_learns_it(api: ScriptedServer) -> None:
    embedder = OpenAIEmbedder(api.base_url, "embed-small", max_retries=0)
    assert embedder.dim == 8 and len(api.received(EMBEDDINGS)) == 1
    assert embedder.name == f"openai:{api.base_url}#embed-small/8"


@pytest.mark.parametrize("dim", [0, -3, 1.5, float("nan"), True, 10**9])
def test_an_absurd_dim_is_refused(api: ScriptedServer, dim: object) -> None:
    with pytest.raises(ValueError, match="dim must be"):
        _embedder(api, dim=dim)


@pytest.mark.parametrize(
    "answer",
    [
        {"object": "list", "data": [], "model": "m"},
        {"object": "list", "data": [{"index": 0, "embedding": []}], "model": "m"},
        {"object": "list", "data": None, "model": "m"},
        {"object": "list", "data": [{"index": 0, "embedding": "abc"}], "model": "m"},
        ["not", "an", "object"],
    ],
)
def test_a_useless_probe_answer_is_an_embedding_error(api: ScriptedServer, answer: object) -> None:
    api.script(EMBEDDINGS, Reply(answer))
    with pytest.raises(EmbeddingError):
        OpenAIEmbedder(api.base_url, "embed-small", max_retries=0)


def test_the_key_is_sent_as_a_bearer_token(api: ScriptedServer) -> None:
    _embedder(api, api_key="sk-test").embed(["x"])
    assert api.received(EMBEDDINGS)[0].headers["authorization"] == "Bearer sk-test"


def test_empty_input_makes_no_request(api: ScriptedServer) -> None:
    assert _embedder(api).embed([]).shape == (0, 8)
    assert api.requests == []


def test_empty_strings_and_lone_surrogates_are_made_acceptable(api: ScriptedServer) -> None:
    _embedder(api).embed(["", "bad \ud800"])
    assert api.received(EMBEDDINGS)[0].json["input"] == [" ", "bad \ufffd"]


def test_a_server_error_is_a_client_error(api: ScriptedServer) -> None:
    api.script(EMBEDDINGS, Reply({"error": {"message": "overloaded"}}, status=503))
    with pytest.raises(ClientError, match=r"embeddings endpoint: 503 .*overloaded"):
        _embedder(api).embed(["x"])


def test_a_server_error_is_retried_within_the_bound(api: ScriptedServer) -> None:
    api.script(EMBEDDINGS, Reply({"error": "busy"}, status=429, headers={"Retry-After": "0"}))
    embedder = OpenAIEmbedder(api.base_url, "embed-small", dim=8, max_retries=1)
    assert embedder.embed(["x"]).shape == (1, 8) and len(api.received(EMBEDDINGS)) == 2


def test_a_dropped_connection_is_a_client_error(api: ScriptedServer) -> None:
    api.script(EMBEDDINGS, Reply(drop=True))
    with pytest.raises(ClientError, match="network error"):
        _embedder(api).embed(["x"])


def test_a_slow_server_times_out(api: ScriptedServer) -> None:
    api.script(EMBEDDINGS, Reply(delay=3))
    with pytest.raises(ClientError, match="timed out"):
        _embedder(api, timeout=0.5).embed(["x"])


def test_an_oversized_answer_is_refused(api: ScriptedServer) -> None:
    with pytest.raises(ClientError, match="exceeds 100 bytes"):
        _embedder(api, max_response_bytes=100).embed(["x"])


@pytest.mark.parametrize(
    "option", [{"max_retries": -1}, {"batch_size": 0}, {"timeout": -5}, {"base_url": "nowhere"}]
)
def test_absurd_options_are_refused_naming_them(api: ScriptedServer, option: dict) -> None:
    name = next(iter(option))
    args = {"base_url": api.base_url, "model": "m", "dim": 8, **option}
    with pytest.raises(InvalidArgument, match=f"{name} must be"):
        OpenAIEmbedder(**args)


def test_embedding_works_inside_a_running_event_loop(api: ScriptedServer) -> None:
    async def inside() -> np.ndarray:
        return _embedder(api).embed(["x"])

    assert asyncio.run(inside()).shape == (1, 8)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([[0.1] * 8], "shape"),
        ([[0.1] * 7, [0.1] * 7], "shape"),
        ([[float("nan")] * 8, [0.1] * 8], "non-finite"),
        ([["x"] * 8, [0.1] * 8], "malformed"),
    ],
)
def test_bad_vectors_are_refused(api: ScriptedServer, rows: list, message: str) -> None:
    data = [{"object": "embedding", "index": i, "embedding": r} for i, r in enumerate(rows)]
    api.script(
        EMBEDDINGS, Reply(raw=json.dumps({"object": "list", "data": data, "model": "m"}).encode())
    )
    with pytest.raises(EmbeddingError, match=message):
        _embedder(api).embed(["x", "y"])


def test_invalid_json_is_a_client_error(api: ScriptedServer) -> None:
    api.script(EMBEDDINGS, Reply(raw=b"{not json"))
    with pytest.raises(ClientError, match="invalid JSON"):
        _embedder(api).embed(["x"])


def test_caching_skips_the_endpoint_on_a_second_pass(api: ScriptedServer, tmp_path) -> None:
    with SQLiteStore(tmp_path / "c.db") as store:
        cached = CachedEmbedder(_embedder(api), store)
        first = cached.embed(["alpha", "beta"])
        second = cached.embed(["beta", "alpha"])
    assert len(api.received(EMBEDDINGS)) == 1
    assert np.array_equal(first[::-1], second)


def test_the_scripted_server_answers_chat_plain_and_streamed(api: ScriptedServer) -> None:
    import openai

    from openai_server import chat_reply

    client = openai.OpenAI(base_url=api.base_url, api_key="k", max_retries=0)
    messages = [{"role": "user", "content": "ping"}]
    echoed = client.chat.completions.create(model="m", messages=messages)
    assert echoed.choices[0].message.content == "echo: ping"
    api.script("/v1/chat/completions", chat_reply("two words here"))
    stream = client.chat.completions.create(model="m", messages=messages, stream=True)
    pieces = [c.choices[0].delta.content or "" for c in stream]
    assert "".join(pieces) == "two words here" and len(pieces) == 4
    api.script("/v1/chat/completions", chat_reply(tool_calls=[{"name": "f", "arguments": {}}]))
    called = client.chat.completions.create(model="m", messages=messages)
    assert called.choices[0].message.tool_calls[0].function.name == "f"
    assert called.choices[0].finish_reason == "tool_calls"
