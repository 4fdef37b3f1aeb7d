"""The checks a finish must pass before it is taken: its data against the schema, its cited
ids against the evidence, its pointers against its data. Each failure is the sentence the
model is shown in its correction turn."""

from __future__ import annotations

from collections.abc import Collection

from jsonschema import Draft202012Validator, SchemaError, validators

from citesift.agent.actions import Finish
from citesift.agent.provenance import resolves
from citesift.errors import invalid

MAX_LISTED = 5
"""How many schema errors, unknown ids or pointers one correction names."""


def schema_validator(schema: object) -> Draft202012Validator | None:
    """A validator for ``schema`` (its own ``$schema`` draft, else 2020-12), or None for no
    schema; ``InvalidArgument`` when it is not a valid JSON Schema."""
    if schema is None:
        return None
    if not isinstance(schema, dict | bool):
        raise invalid("schema", schema, "a JSON Schema (an object)")
    kind = validators.validator_for(schema, default=Draft202012Validator)
    try:
        kind.check_schema(schema)
    except SchemaError as error:
        raise invalid("schema", schema, f"a valid JSON Schema ({error.message})") from None
    return kind(schema)


def finish_problem(
    finish: Finish, validator: Draft202012Validator | None, evidence_ids: Collection[str]
) -> str | None:
    """Why ``finish`` cannot be taken, in words for the model, or None when it can."""
    problems: list[str] = []
    if validator is not None:
        errors = sorted(validator.iter_errors(finish.data), key=lambda e: list(e.path))
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
