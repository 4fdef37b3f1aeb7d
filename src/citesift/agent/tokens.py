"""Token counts: the model's own tokenizer when one is at hand offline, else about three
UTF-8 bytes a token; clips always keep whole characters."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer

from citesift.errors import invalid

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


class TokenCounter(Protocol):
    """How prompts are measured and cut: ``count`` tokens, ``clip`` to a number of them
    (always on a character boundary)."""

    def count(self, text: str) -> int: ...

    def clip(self, text: str, tokens: int) -> str: ...


class ByteEstimate:
    """The estimate used when the model's tokenizer is not at hand: three bytes a token."""

    def count(self, text: str) -> int:
        return model_tokens(text)

    def clip(self, text: str, tokens: int) -> str:
        return clip(text, tokens)


BYTE_ESTIMATE = ByteEstimate()


class TokenizerFile:
    """A model's own tokenizer, read offline from its ``tokenizer.json`` (the Hugging Face
    ``tokenizers`` format): exact counts, and clips that end where a token ends."""

    def __init__(self, path: str | Path) -> None:
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as error:  # the library raises its own untyped exceptions
            raise invalid("tokenizer", str(path), f"a readable tokenizer.json ({error})") from None
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer

    def _offsets(self, text: str) -> list[tuple[int, int]]:
        # a lone surrogate becomes "?" one for one, so offsets still index ``text``
        safe = text.encode("utf-8", "replace").decode("utf-8")
        encoding = self.tokenizer.encode(safe, add_special_tokens=False)
        return list(encoding.offsets)

    def count(self, text: str) -> int:
        return len(self._offsets(text))

    def clip(self, text: str, tokens: int) -> str:
        offsets = self._offsets(text)
        if len(offsets) <= tokens:
            return text
        return text[: offsets[tokens - 1][1]] if tokens > 0 else ""
