"""Voyage, Jina and Cohere rerankers against local stand-ins that answer well and badly."""

from __future__ import annotations

import asyncio
import copy
import json
import socket
import time
from collections.abc import Iterator

import pytest

from citesift.clients import NO_RETRY, ClientError, RetryPolicy
from citesift.errors import InvalidArgument
from citesift.index.rerankers.base import rerank_checked
from citesift.index.rerankers.bm25 import BM25Reranker
from citesift.index.rerankers.by_name import HTTP_RERANKERS, reranker_by_name
from citesift.index.rerankers.http import (
    CohereReranker,
    HTTPReranker,
    JinaReranker,
    VoyageReranker,
)
from citesift.model import Match
from openai_server import Received, Reply, ScriptedServer, serve_json

pytestmark = pytest.mark.timeout(30)
PROVIDERS = [VoyageReranker, JinaReranker, CohereReranker]
HITS = [
    Match("h0", None, "Bananas are a tropical fruit.", {"document_id": "d0"}),
    Match("h1", None, "Vitamin D and bone fractures in older adults.", {"document_id": "d1"}),
    Match("h2", None, "Vitamin D supplements reduce fractures.", {"document_id": "d2"}),
]
QUERY = "vitamin d fractures"


def overlap_answer(key: str) -> object:
    """A stand-in scoring each document by query words found per document word."""

    def answer(request: Received) -> Reply:
        words = set(request.json["query"].lower().split())
        results = [
            {"index": i, "relevance_score": _overlap(words, d)}
            for i, d in enumerate(request.json["documents"])
        ]
        return Reply({key: results})

    return answer


def _overlap(words: set[str], document: str) -> float:
    tokens = document.lower().rstrip(".").split()
    return len(words.intersection(tokens)) / len(tokens)


@pytest.fixture(params=PROVIDERS, ids=lambda cls: cls.api.label)
def stand_in(request: pytest.FixtureRequest) -> Iterator[tuple[type[HTTPReranker], ScriptedServer]]:
    cls = request.param
    with serve_json({cls.api.path: overlap_answer(cls.api.results_key)}) as server:
        yield cls, server


def _reranker(stand_in: tuple[type[HTTPReranker], ScriptedServer], **options) -> HTTPReranker:
    cls, server = stand_in
    options.setdefault("api_key", "test-key")
    return cls(base_url=server.url(""), **options)


def _script(stand_in, *replies: Reply) -> None:
    cls, server = stand_in
    server.script(cls.api.path, *replies)


def _results(stand_in, results: object) -> Reply:
    return Reply({stand_in[0].api.results_key: results})


def test_hits_come_back_rescored_best_first(stand_in) -> None:
    before = copy.deepcopy(HITS)
    out = _reranker(stand_in).rerank(QUERY, HITS, 3)
    assert [h.id for h in out] == ["h2", "h1", "h0"]
    assert [h.score for h in out] == pytest.approx([3 / 5, 3 / 8, 0.0])
    assert before == HITS and all(h.score is None for h in HITS)
    assert out[0].metadata == {"document_id": "d2"} and out[0].metadata is not HITS[2].metadata


def test_the_request_follows_the_provider_api(stand_in) -> None:
    cls, server = stand_in
    _reranker(stand_in, model="my-model").rerank(QUERY, HITS, 2)
    (sent,) = server.received(cls.api.path)
    assert sent.headers["authorization"] == "Bearer test-key"
    assert sent.json["model"] == "my-model" and sent.json["query"] == QUERY
    assert sent.json["documents"] == [h.content for h in HITS]
    assert sent.json[{"voyage": "top_k"}.get(cls.api.label, "top_n")] == 2


def test_cohere_uses_rerank_v2() -> None:
    assert CohereReranker.api.path == "/v2/rerank"
    assert VoyageReranker.api.results_key == "data" and JinaReranker.api.results_key == "results"


def test_no_hits_means_no_request(stand_in) -> None:
    assert _reranker(stand_in).rerank(QUERY, [], 5) == []
    assert stand_in[1].requests == []


@pytest.mark.parametrize(("top_k", "count"), [(1, 1), (2, 2), (1000, 3)])
def test_top_k_cuts_the_answer(stand_in, top_k: int, count: int) -> None:
    assert len(_reranker(stand_in).rerank(QUERY, HITS, top_k)) == count


@pytest.mark.parametrize("top_k", [0, -4, 1.5, float("nan"), 10**9])
def test_a_top_k_that_makes_no_sense_is_refused_before_any_request(stand_in, top_k) -> None:
    with pytest.raises(InvalidArgument, match="top_k must be"):
        _reranker(stand_in).rerank(QUERY, HITS, top_k)
    assert stand_in[1].requests == []


def test_a_non_ok_answer_quotes_at_most_200_characters(stand_in) -> None:
    _script(stand_in, Reply(raw=b"rate limited " + b"x" * 5000, status=429))
    with pytest.raises(ClientError, match=r"rerank: 429 rate limited x+$") as caught:
        _reranker(stand_in, retry=NO_RETRY).rerank(QUERY, HITS, 3)
    assert str(caught.value).count("x") == 200 - len("rate limited ")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>oops</html>", "invalid JSON"),
        (b"[]", "expected an array"),
        (b'{"unexpected": []}', "expected an array"),
        (b'{"data": {"index": 0}, "results": {"index": 0}}', "expected an array"),
    ],
)
def test_malformed_answers_are_errors(stand_in, body: bytes, message: str) -> None:
    _script(stand_in, Reply(raw=body))
    with pytest.raises(ClientError, match=message):
        _reranker(stand_in).rerank(QUERY, HITS, 3)


@pytest.mark.parametrize("index", [3, -1, 1.0, "0", True, None])
def test_an_index_outside_the_hits_is_an_error(stand_in, index: object) -> None:
    _script(stand_in, _results(stand_in, [{"index": index, "relevance_score": 0.5}]))
    with pytest.raises(ClientError, match=r"not in 0\.\.2"):
        _reranker(stand_in).rerank(QUERY, HITS, 3)


@pytest.mark.parametrize("score", ["NaN", "Infinity", "-Infinity", '"0.5"', "null", "true"])
def test_a_non_finite_score_is_an_error(stand_in, score: str) -> None:
    key = stand_in[0].api.results_key
    _script(
        stand_in, Reply(raw=f'{{"{key}": [{{"index": 0, "relevance_score": {score}}}]}}'.encode())
    )
    with pytest.raises(ClientError, match="non-finite score"):
        _reranker(stand_in).rerank(QUERY, HITS, 3)


def test_a_repeated_index_is_an_error(stand_in) -> None:
    repeated = [{"index": 1, "relevance_score": 0.9}, {"index": 1, "relevance_score": 0.2}]
    _script(stand_in, _results(stand_in, repeated))
    with pytest.raises(ClientError, match="twice"):
        _reranker(stand_in).rerank(QUERY, HITS, 3)


def test_a_partial_answer_returns_only_the_ranked_hits(stand_in) -> None:
    _script(stand_in, _results(stand_in, [{"index": 2, "relevance_score": 0.7}]))
    out = _reranker(stand_in).rerank(QUERY, HITS, 3)
    assert [(h.id, h.score) for h in out] == [("h2", 0.7)]


def test_an_oversized_answer_is_refused(stand_in) -> None:
    padding = json.dumps({stand_in[0].api.results_key: [], "pad": "x" * 5000}).encode()
    _script(stand_in, Reply(raw=padding))
    with pytest.raises(ClientError, match="exceeds 1000 bytes"):
        _reranker(stand_in, max_response_bytes=1000).rerank(QUERY, HITS, 3)


def test_a_slow_provider_times_out(stand_in) -> None:
    _script(stand_in, Reply(delay=2))
    with pytest.raises(ClientError, match=r"timed out after 0\.3s"):
        _reranker(stand_in, timeout=0.3).rerank(QUERY, HITS, 3)


def test_a_provider_that_never_answers_is_cut_at_the_timeout_the_message_states() -> None:
    """httpx's own read timeout (5 s) cut the call before, while the message said 30 s."""
    path = VoyageReranker.api.path
    with serve_json({path: lambda _: Reply(delay=8)}) as server:
        reranker = VoyageReranker(base_url=server.url(""), api_key="k", timeout=6, retry=NO_RETRY)
        started = time.monotonic()
        with pytest.raises(ClientError, match=r"^voyage rerank: timed out after 6s$"):
            reranker.rerank(QUERY, HITS, 3)
    assert 5.9 <= time.monotonic() - started < 7.5


def test_a_trickling_body_is_cut_at_the_deadline(stand_in) -> None:
    _script(stand_in, Reply({stand_in[0].api.results_key: [], "pad": "x" * 100}, pace=0.05))
    with pytest.raises(ClientError, match=r"timed out after 0\.5s"):
        _reranker(stand_in, timeout=0.5).rerank(QUERY, HITS, 3)


def test_a_dropped_connection_is_a_network_error(stand_in) -> None:
    _script(stand_in, Reply(drop=True))
    with pytest.raises(ClientError, match="network error"):
        _reranker(stand_in, retry=NO_RETRY).rerank(QUERY, HITS, 3)


def test_a_rate_limit_is_waited_out_as_retry_after_asks(stand_in) -> None:
    _script(stand_in, Reply({"error": "slow down"}, status=429, headers={"Retry-After": "1"}))
    started = time.monotonic()
    out = _reranker(stand_in, retry=RetryPolicy(attempts=2, backoff=0)).rerank(QUERY, HITS, 3)
    assert [h.id for h in out] == ["h2", "h1", "h0"] and len(stand_in[1].requests) == 2
    assert time.monotonic() - started >= 0.9


def test_server_errors_are_tried_again_a_bounded_number_of_times(stand_in) -> None:
    _script(stand_in, *[Reply({"error": "down"}, status=503)] * 3)
    policy = RetryPolicy(attempts=3, backoff=0.01)
    with pytest.raises(ClientError, match=r"rerank: 503 .*down"):
        _reranker(stand_in, retry=policy).rerank(QUERY, HITS, 3)
    assert len(stand_in[1].requests) == 3


def test_a_dropped_connection_is_tried_again(stand_in) -> None:
    _script(stand_in, Reply(drop=True))
    out = _reranker(stand_in, retry=RetryPolicy(attempts=2, backoff=0)).rerank(QUERY, HITS, 3)
    assert out[0].id == "h2"


def test_a_client_error_is_not_tried_again(stand_in) -> None:
    _script(stand_in, Reply({"error": "bad key"}, status=401))
    with pytest.raises(ClientError, match="401"):
        _reranker(stand_in).rerank(QUERY, HITS, 3)
    assert len(stand_in[1].requests) == 1


def test_a_retry_after_beyond_the_deadline_fails_at_once(stand_in) -> None:
    _script(stand_in, Reply({"error": "later"}, status=429, headers={"Retry-After": "3600"}))
    started = time.monotonic()
    with pytest.raises(ClientError, match="429"):
        _reranker(stand_in, timeout=5, retry=RetryPolicy(max_wait=60)).rerank(QUERY, HITS, 3)
    assert time.monotonic() - started < 2 and len(stand_in[1].requests) == 1


def test_rerank_works_inside_a_running_event_loop(stand_in) -> None:
    async def inside() -> list[Match]:
        return _reranker(stand_in).rerank(QUERY, HITS, 1)

    assert [h.id for h in asyncio.run(inside())] == ["h2"]


def test_a_refused_connection_is_a_network_error() -> None:
    with socket.socket() as bound:  # bound but never listening: connections to it are refused,
        bound.bind(("127.0.0.1", 0))  # and no other process can take the port meanwhile
        address = f"http://127.0.0.1:{bound.getsockname()[1]}"
        reranker = JinaReranker(base_url=address, api_key="k", retry=NO_RETRY)
        with pytest.raises(ClientError, match="jina rerank: network error"):
            reranker.rerank(QUERY, HITS, 3)


@pytest.mark.parametrize("base_url", ["not a url", "ftp://127.0.0.1", "http://[::1"])
def test_an_unusable_base_url_is_refused_at_once(base_url: str) -> None:
    with pytest.raises(InvalidArgument, match="base_url must be"):
        CohereReranker(base_url=base_url, api_key="k")


@pytest.mark.parametrize(
    ("option", "value"),
    [("timeout", 0), ("timeout", float("nan")), ("max_response_bytes", -1),
     ("max_response_bytes", 1.5), ("retry", "often")],
)  # fmt: skip
def test_absurd_bounds_are_refused(option: str, value: object) -> None:
    with pytest.raises((InvalidArgument, TypeError)):
        JinaReranker(api_key="k", **{option: value})


@pytest.mark.parametrize(
    "policy", [{"attempts": 0}, {"attempts": 11}, {"backoff": -1}, {"max_wait": float("inf")}]
)
def test_absurd_retry_policies_are_refused(policy: dict[str, float]) -> None:
    with pytest.raises(InvalidArgument):
        RetryPolicy(**policy)


def test_a_missing_key_fails_before_any_request(stand_in, monkeypatch) -> None:
    monkeypatch.delenv(stand_in[0].api.key_env, raising=False)
    with pytest.raises(ClientError, match=stand_in[0].api.key_env):
        _reranker(stand_in, api_key=None).rerank(QUERY, HITS, 3)
    assert stand_in[1].requests == []


def test_the_key_can_come_from_the_environment(stand_in, monkeypatch) -> None:
    monkeypatch.setenv(stand_in[0].api.key_env, "from-env")
    _reranker(stand_in, api_key=None).rerank(QUERY, HITS, 3)
    assert stand_in[1].requests[0].headers["authorization"] == "Bearer from-env"


def test_lone_surrogates_are_sent_replaced(stand_in) -> None:
    hits = [Match("s", None, "broken \ud800 text")]
    _reranker(stand_in).rerank("query \udfff", hits, 1)
    sent = stand_in[1].requests[0].json
    assert sent["query"] == "query \ufffd" and sent["documents"] == ["broken \ufffd text"]


def test_the_checked_rerank_path_accepts_the_answer(stand_in) -> None:
    out = rerank_checked(_reranker(stand_in), QUERY, list(HITS), 2)
    assert [h.id for h in out] == ["h2", "h1"]


@pytest.mark.parametrize("name", ["voyage", "jina", "cohere"])
def test_reranker_by_name_reaches_the_stand_in_with_the_env_key(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    cls = HTTP_RERANKERS[name]
    monkeypatch.setenv(f"CITESIFT_{name.upper()}_API_KEY", f"{name}-key")
    with serve_json({cls.api.path: overlap_answer(cls.api.results_key)}) as server:
        reranker = reranker_by_name(f" {name.upper()} ", base_url=server.url(""), model="m1")
        out = reranker.rerank(QUERY, HITS, 2)
        [request] = server.received(cls.api.path)
    assert isinstance(reranker, cls) and [h.id for h in out] == ["h2", "h1"]
    assert request.headers["authorization"] == f"Bearer {name}-key"
    assert request.json["model"] == "m1"


def test_reranker_by_name_prefers_the_given_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITESIFT_JINA_API_KEY", "from-env")
    assert reranker_by_name("jina", api_key="given").api_key == "given"
    assert reranker_by_name("jina").api_key == "from-env"


def test_reranker_by_name_defaults_and_refusals() -> None:
    assert isinstance(reranker_by_name(), BM25Reranker)
    with pytest.raises(ValueError, match="unknown reranker 'magic'"):
        reranker_by_name("magic")
    with pytest.raises(ValueError, match="local model directory"):
        reranker_by_name("cross-encoder")


@pytest.mark.parametrize("name", ["voyage", "jina", "cohere"])
def test_reranker_by_name_refuses_an_http_reranker_without_a_key(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in (f"CITESIFT_{name.upper()}_API_KEY", HTTP_RERANKERS[name].api.key_env):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ValueError, match=HTTP_RERANKERS[name].api.key_env):
        reranker_by_name(name)
