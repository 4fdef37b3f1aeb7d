"""Any OpenAI-compatible ``/chat/completions`` endpoint through the ``openai`` package, its
every request sent by the one client exchange (capped, deadline-bound, retried on 429/5xx
as ``Retry-After`` asks, within the call's time): a system and a user message in, the
reply's text and the token usage out. JSON mode is asked for, and dropped for good when the
server refuses it.

``openai`` is the ``citesift[openai]`` extra, imported on a client's first call: extractive
research and everything else run without it, and ``import citesift`` never loads it."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citesift.clients.endpoint import MAX_ATTEMPTS, Endpoint, RetryPolicy
from citesift.clients.exchange import excerpt
from citesift.errors import ClientError, invalid, written_number

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

LABEL = "chat endpoint"
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
INSTALL = "pip install 'citesift[openai]'"
NO_KEY = "none"
"""The key handed to the package when the endpoint has none (a local server): the package
insists on one, and the transport sends no ``Authorization`` header for it."""


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What the model answered, and the tokens the service counted (None when it did not
    say)."""

    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None = None


class ChatClient:
    """Chat completions from ``model`` at ``base_url`` through the ``openai`` package (the
    ``citesift[openai]`` extra; without it a call is a ``ClientError`` saying so).
    ``api_key`` defaults to ``$OPENAI_API_KEY`` (a local server needs none). ``timeout``
    bounds a call with its retries (``max_retries``, on 429/5xx); a caller's ``seconds``
    may shorten it further."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_RETRIES,
        json_mode: bool = True,
        temperature: float | None = 0.0,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise invalid("model", model, "a model name")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int):
            raise invalid("max_retries", max_retries, "a whole number")
        if not 0 <= max_retries < MAX_ATTEMPTS:
            raise invalid(
                "max_retries", max_retries, f"from 0 to {written_number(MAX_ATTEMPTS - 1)}"
            )
        key = api_key or os.environ.get("OPENAI_API_KEY") or None
        retry = RetryPolicy(attempts=max_retries + 1)
        self.endpoint = Endpoint(base_url, LABEL, key, timeout, retry=retry)
        self.model = model.strip()
        self.json_mode = json_mode
        self.temperature = temperature

    async def complete(
        self, system: str, user: str, *, max_tokens: int | None = None, seconds: float | None = None
    ) -> ChatReply:
        """The model's reply to ``system`` + ``user``, within ``seconds`` when given."""
        endpoint = self.endpoint
        if seconds is not None:
            if seconds <= 0:
                raise ClientError(f"{LABEL}: no time left for a call")
            endpoint = dataclasses.replace(endpoint, timeout=min(endpoint.timeout, seconds))
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
        asked = _Asked(self.model, messages, max_tokens, self.temperature)
        if self.json_mode:
            try:
                return await _ask(endpoint, asked, json_mode=True)
            except ClientError as error:
                if "response_format" not in str(error):
                    raise
                self.json_mode = False  # the server has no JSON mode: ask without it
        return await _ask(endpoint, asked, json_mode=False)


@dataclass(frozen=True, slots=True)
class _Asked:
    """What one completion asks for."""

    model: str
    messages: list[ChatCompletionMessageParam]
    max_tokens: int | None
    temperature: float | None


async def _ask(endpoint: Endpoint, asked: _Asked, *, json_mode: bool) -> ChatReply:
    """One completion through ``openai``, its requests sent by the exchange under
    ``endpoint``'s bounds; every failure a ``ClientError`` naming the endpoint."""
    try:
        import httpx2
        import openai
    except ImportError:
        raise ClientError(f"{LABEL}: a chat model needs the openai package: {INSTALL}") from None
    from citesift.clients.transport import ExchangeTransport

    omit = openai.omit
    async with httpx2.AsyncClient(transport=ExchangeTransport(endpoint), trust_env=False) as http:
        client = openai.AsyncOpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key or NO_KEY,
            max_retries=0,  # the exchange retries, within the call's deadline
            timeout=endpoint.timeout,
            http_client=http,
        )
        try:
            completion = await client.chat.completions.create(
                model=asked.model,
                messages=asked.messages,
                max_tokens=omit if asked.max_tokens is None else asked.max_tokens,
                temperature=omit if asked.temperature is None else asked.temperature,
                response_format={"type": "json_object"} if json_mode else omit,
            )
        except openai.APIStatusError as error:
            quoted = excerpt(error.response.content, endpoint)
            raise ClientError(f"{LABEL}: {error.status_code} {quoted}") from None
        except openai.APIConnectionError as error:
            if isinstance(error.__cause__, ClientError):  # the exchange's own words
                raise error.__cause__ from None
            raise ClientError(f"{LABEL}: network error: {error}") from error
        except (openai.OpenAIError, ValueError, RecursionError) as error:
            # RecursionError: JSON nested deeper than the parser's stack
            raise ClientError(f"{LABEL}: invalid JSON in the response") from error
    return _reply(completion)


def _reply(completion: object) -> ChatReply:
    """The first choice's text and the usage, or ``ClientError`` for a malformed answer (the
    package builds its objects from the answer unchecked, so each part is looked at)."""
    choices = getattr(completion, "choices", None)
    first = choices[0] if isinstance(choices, list) and choices else None
    content = getattr(getattr(first, "message", None), "content", None)
    if not isinstance(content, str):
        raise ClientError(f"{LABEL} sent a malformed answer: no message content")
    usage = getattr(completion, "usage", None)
    reason = getattr(first, "finish_reason", None)
    return ChatReply(
        content,
        _count(getattr(usage, "prompt_tokens", None)),
        _count(getattr(usage, "completion_tokens", None)),
        reason if isinstance(reason, str) else None,
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
