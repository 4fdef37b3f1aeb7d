"""Any OpenAI-compatible ``/chat/completions`` endpoint through the one client exchange
(capped, deadline-bound, retried on 429/5xx): a system and a user message in, the reply's
text and the token usage out. JSON mode is asked for, and dropped for good when the
server refuses it."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from citesift.clients.endpoint import MAX_ATTEMPTS, Endpoint, RetryPolicy
from citesift.clients.exchange import post_json
from citesift.errors import ClientError, invalid

LABEL = "chat endpoint"
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
JSON_MODE = {"type": "json_object"}


@dataclass(frozen=True, slots=True)
class ChatReply:
    """What the model answered, and the tokens the service counted (None when it did not
    say)."""

    content: str
    prompt_tokens: int | None
    completion_tokens: int | None
    finish_reason: str | None = None


class ChatClient:
    """Chat completions from ``model`` at ``base_url``. ``api_key`` defaults to
    ``$OPENAI_API_KEY`` (a local server needs none). ``timeout`` bounds a call with its
    retries; a caller's ``deadline`` may shorten it further."""

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
            raise invalid("max_retries", max_retries, f"from 0 to {MAX_ATTEMPTS - 1}")
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
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
        }
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        if self.temperature is not None:
            payload["temperature"] = self.temperature
        if self.json_mode:
            try:
                return _reply(await post_json(endpoint, "chat/completions", {
                    **payload, "response_format": JSON_MODE,
                }))  # fmt: skip
            except ClientError as error:
                if "response_format" not in str(error):
                    raise
                self.json_mode = False  # the server has no JSON mode: ask without it
        return _reply(await post_json(endpoint, "chat/completions", payload))


def _reply(answer: Any) -> ChatReply:
    """The first choice's text and the usage, or ``ClientError`` for a malformed answer."""
    choices = answer.get("choices") if isinstance(answer, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise ClientError(f"{LABEL} sent a malformed answer: no message content")
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    reason = first.get("finish_reason") if isinstance(first, dict) else None
    return ChatReply(
        content,
        _count(usage.get("prompt_tokens")),
        _count(usage.get("completion_tokens")),
        reason if isinstance(reason, str) else None,
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
