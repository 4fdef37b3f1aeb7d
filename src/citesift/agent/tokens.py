"""Token counts without the model's tokenizer: about three UTF-8 bytes a token, and a clip
that keeps whole characters."""

from __future__ import annotations

BYTES_PER_TOKEN = 3


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8; a lone surrogate is counted as the three bytes it would take."""
    return text.encode("utf-8", "surrogatepass")


def model_tokens(text: str) -> int:
    """About how many tokens ``text`` costs a model: its UTF-8 bytes over three, rounded up."""
    return -(-len(_utf8(text)) // BYTES_PER_TOKEN)


def clip(text: str, tokens: int) -> str:
    """``text`` cut to at most ``tokens * 3`` UTF-8 bytes, at the last character boundary
    that fits (a character is kept whole or dropped whole)."""
    limit = max(tokens, 0) * BYTES_PER_TOKEN
    data = _utf8(text)
    if len(data) <= limit:
        return text
    cut = data[:limit]
    for drop in range(4):  # a UTF-8 character is at most four bytes
        try:
            return cut[: len(cut) - drop].decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            continue
    return ""  # unreachable for text that was encoded above
