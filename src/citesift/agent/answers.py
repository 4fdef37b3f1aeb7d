"""The checks a finish must pass before it is taken: its data against the schema, its cited
ids against the evidence, its pointers against its data. Each failure is the sentence the
model is shown in its correction turn."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any

import regex
from jsonschema import Draft202012Validator, SchemaError, ValidationError, validators
from referencing.exceptions import Unresolvable

from citesift.agent.actions import MAX_NESTING, Finish, deeper_than
from citesift.agent.provenance import resolves
from citesift.errors import invalid

MAX_LISTED = 5
"""How many schema errors, unknown ids or pointers one correction names."""
MAX_STEPS = 100_000
"""Keywords one check of data against the schema may apply: a schema whose branches
multiply at each level (an ``anyOf`` of references to itself) is cut off there, not run
for ever."""
CHECK_SECONDS = 2.0
"""Seconds the patterns of one check may take in all: a pattern that backtracks without
end on the string it is given (``^(a|a)*$``) is cut off there."""
UNCHECKABLE = (
    "`data` cannot be checked against the schema: the check of it takes too long, refers "
    "to itself without end or to a schema it does not hold"
)
Keyword = Callable[..., Iterator[ValidationError] | None]


class _TooCostly(Exception):
    """A check past ``MAX_STEPS`` keywords."""


@dataclass
class SchemaCheck:
    """A JSON Schema and the validator of its draft, each of whose checks applies at most
    ``MAX_STEPS`` keywords."""

    validator: Draft202012Validator
    left: int = MAX_STEPS
    deadline: float = 0.0

    def errors(self, data: object) -> list[ValidationError]:
        """Where ``data`` breaks the schema, in path order; ``_TooCostly`` (or
        ``RecursionError``) when the check cannot be made within its bounds."""
        self.left = MAX_STEPS
        self.deadline = time.monotonic() + CHECK_SECONDS
        return sorted(self.validator.iter_errors(data), key=lambda e: list(e.path))

    def pattern(
        self, validator: Draft202012Validator, pattern: str, instance: object, _: object
    ) -> Iterator[ValidationError]:
        """The ``pattern`` keyword, matched within the check's time."""
        if validator.is_type(instance, "string") and not self._found(pattern, str(instance)):
            yield ValidationError(f"{instance!r} does not match {pattern!r}")

    def pattern_properties(
        self,
        validator: Draft202012Validator,
        patterns: dict[str, object],
        instance: object,
        _: object,
    ) -> Iterator[ValidationError]:
        """The ``patternProperties`` keyword, its names matched within the check's time."""
        if not isinstance(instance, dict) or not validator.is_type(instance, "object"):
            return
        for pattern, subschema in patterns.items():
            for name, value in instance.items():
                if self._found(pattern, name):
                    yield from validator.descend(value, subschema, path=name, schema_path=pattern)

    def _found(self, pattern: str, text: str) -> bool:
        """Whether ``pattern`` is found in ``text`` (``re``'s syntax, by the ``regex``
        engine, which can stop a search); ``_TooCostly`` past the check's time."""
        left = max(self.deadline - time.monotonic(), 0.001)
        try:
            return regex.search(pattern, text, timeout=left) is not None
        except (TimeoutError, regex.error):
            raise _TooCostly from None

    def counted(self, keyword: Keyword) -> Keyword:
        """``keyword`` spending one step of the check each time it is applied."""

        def apply(*args: Any) -> Iterator[ValidationError] | None:
            self.left -= 1
            if self.left < 0:
                raise _TooCostly
            return keyword(*args)

        return apply


def schema_validator(schema: object) -> SchemaCheck | None:
    """The check of data against ``schema`` (its own ``$schema`` draft, else 2020-12), or
    None for no schema; ``InvalidArgument`` when it is not a valid JSON Schema, nests past
    ``MAX_NESTING`` levels or cannot check even ``null`` within its bound."""
    if schema is None:
        return None
    if not isinstance(schema, dict | bool):
        raise invalid("schema", schema, "a JSON Schema (an object)")
    if deeper_than(schema, MAX_NESTING):
        raise invalid("schema", schema, f"a JSON Schema nesting {MAX_NESTING} levels at most")
    kind = validators.validator_for(schema, default=Draft202012Validator)
    try:
        kind.check_schema(schema)
    except SchemaError as error:
        raise invalid("schema", schema, f"a valid JSON Schema ({error.message})") from None
    except RecursionError:
        raise invalid("schema", schema, "a JSON Schema that can be checked") from None
    check = SchemaCheck(kind(schema))
    keywords: dict[str, Keyword] = dict(kind.VALIDATORS)
    keywords |= {"pattern": check.pattern, "patternProperties": check.pattern_properties}
    counted = {name: check.counted(keyword) for name, keyword in keywords.items()}
    check.validator = validators.extend(kind, counted)(schema)
    try:
        check.errors(None)  # a schema that refers to itself without end never ends here
    except (_TooCostly, RecursionError, Unresolvable):
        why = "a JSON Schema that can be checked, referring only to itself"
        raise invalid("schema", schema, why) from None
    return check


def finish_problem(
    finish: Finish, check: SchemaCheck | None, evidence_ids: Collection[str]
) -> str | None:
    """Why ``finish`` cannot be taken, in words for the model, or None when it can."""
    problems: list[str] = []
    if check is not None:
        try:
            errors = check.errors(finish.data)
        except (_TooCostly, RecursionError, Unresolvable):  # never fetched: refs stay inside
            errors = []
            problems.append(UNCHECKABLE)
        for error in errors[:MAX_LISTED]:
            where = "/" + "/".join(str(p) for p in error.path)
            problems.append(f"`data` at {where!s} does not match the schema: {error.message}")
    unknown = sorted({i for ids in finish.sources.values() for i in ids} - set(evidence_ids))
    if unknown:
        problems.append("`sources` cites unknown evidence ids: " + ", ".join(unknown[:MAX_LISTED]))
    absent = [p for p in finish.sources if not resolves(finish.data, p)]
    if absent:
        listed = ", ".join(repr(p) for p in absent[:MAX_LISTED])
        problems.append("`sources` names pointers that do not exist in `data`: " + listed)
    return "; ".join(problems) or None
