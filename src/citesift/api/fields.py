"""Firecrawl request bodies as strict pydantic models (an unknown key is a 400, a boolean
for a number too), and the rule every route shares: a field citesift cannot honour is
refused by name, never ignored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    StringConstraints,
    field_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from citesift.api.replies import UNSHOWN, Unsupported

Label = Annotated[str, StringConstraints(max_length=200)]
"""A caller's short label (``origin``, ``integration``): logged, never acted on."""
MAX_MILLISECONDS = 10 * 365 * 86_400_000
"""Ten years: the most a duration in milliseconds (a timeout, ``maxAge``) may say, so that
any one is a float of seconds (a whole number past it is a 400, not an overflow)."""
Milliseconds = Annotated[int, Field(le=MAX_MILLISECONDS)]
"""A duration a caller gives in milliseconds, as Firecrawl's bodies do."""


def _numbers_not_booleans(schema: object) -> object:
    """``schema`` (a pydantic core schema, walked whole) with each int and float schema
    refusing a boolean before it validates."""
    if isinstance(schema, list):
        return [_numbers_not_booleans(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    walked = {key: _numbers_not_booleans(value) for key, value in schema.items()}
    if walked.get("type") in ("int", "float"):
        return core_schema.no_info_before_validator_function(_not_boolean, cast(CoreSchema, walked))
    return walked


def _not_boolean(value: object) -> object:
    if isinstance(value, bool):
        raise PydanticCustomError("number_type", "Input should be a number, not true or false")
    return value


class RequestBody(BaseModel):
    """A request body of any route: a JSON ``true`` or ``false`` given for a number is a 400,
    never read as 1 or 0 (pydantic's lax mode would), in every number field of every body
    and of the bodies nested in it, which derive from it too (a plain ``BaseModel`` nested in
    one would not refuse them)."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: type[BaseModel], handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return cast(CoreSchema, _numbers_not_booleans(handler(source)))


class FirecrawlBody(RequestBody):
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
        (the value citesift honours), or given at all (and not empty) when in ``absent``:
        one of those is named, its value not shown (a webhook's or headers' may hold a key)."""
        for name, honoured in only.items():
            value = getattr(self, name)
            if value is not None and value != honoured:
                raise Unsupported([self._alias(name)], value, f"only {honoured!r} is")
        for name in absent:
            value = getattr(self, name)
            if value is not None and value != [] and value != {}:
                raise Unsupported([self._alias(name)], UNSHOWN)

    def _alias(self, name: str) -> str:
        return type(self).model_fields[name].alias or name
