"""One chat completion from an OpenAI-compatible API: messages in, the reply's text out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citesift.clients.endpoint import Endpoint
from citesift.clients.exchange import post_json_sync
from citesift.errors import ClientError, invalid

ROLES = frozenset({"system", "user", "assistant"})


def chat_sync(
    endpoint: Endpoint,
    model: str,
    messages: Sequence[dict[str, str]],
    *,
    temperature: float = 0.0,
    max_tokens: int = 512,
) -> str:
    """The text of the first choice ``model`` answers to ``messages`` at ``endpoint``;
    a ``ClientError`` when the API fails or answers something else than a completion."""
    if not isinstance(model, str) or not model.strip():
        raise invalid("model", model, "a model name")
    if not messages or not all(
        isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str)
        for m in messages
    ):
        raise invalid("messages", messages, "a list of {role, content} messages")
    payload = {
        "model": model,
        "messages": list(messages),
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    return _reply_text(post_json_sync(endpoint, "chat/completions", payload), endpoint.label)


def _reply_text(answer: Any, label: str) -> str:
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ClientError(f"{label}: the answer holds no chat completion") from exc
    if not isinstance(content, str):
        raise ClientError(f"{label}: the chat completion has no text")
    return content
