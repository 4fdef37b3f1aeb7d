"""Firecrawl request bodies as strict pydantic models (an unknown key is a 400), and the
rule every route shares: a field citesift cannot honour is refused by name, never ignored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from pydantic.alias_generators import to_camel

from citesift.api.replies import Unsupported

Label = Annotated[str, StringConstraints(max_length=200)]
"""A caller's short label (``origin``, ``integration``): logged, never acted on."""
MAX_MILLISECONDS = 10 * 365 * 86_400_000
"""Ten years: the most a duration in milliseconds (a timeout, ``maxAge``) may say, so that
any one is a float of seconds (a whole number past it is a 400, not an overflow)."""
Milliseconds = Annotated[int, Field(le=MAX_MILLISECONDS)]
"""A duration a caller gives in milliseconds, as Firecrawl's bodies do."""


class FirecrawlBody(BaseModel):
    """A request body with Firecrawl's camelCase keys and no key it does not know."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=False)

    origin: Label | None = None
    integration: Label | None = None

    @field_validator("url", check_fields=False)
    @classmethod
    def _scheme(cls, url: str) -> str:
        """Firecrawl adds ``http://`` to an address without a scheme; so does citesift."""
        url = url.strip()
        return url if "://" in url else f"http://{url}"

    def refuse(self, only: Mapping[str, object], absent: tuple[str, ...] = ()) -> None:
        """``Unsupported`` for the first field given a value other than the one in ``only``
        (the value citesift honours), or given at all (and not empty) when in ``absent``."""
        for name, honoured in only.items():
            value = getattr(self, name)
            if value is not None and value != honoured:
                raise Unsupported([self._alias(name)], value, f"only {honoured!r} is")
        for name in absent:
            value = getattr(self, name)
            if value is not None and value != [] and value != {}:
                raise Unsupported([self._alias(name)], value)

    def _alias(self, name: str) -> str:
        return type(self).model_fields[name].alias or name
