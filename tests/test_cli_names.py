"""The command line mirrors the Python API word for word: each option of a command that
calls a library function is spelled as that function's parameter (``--max-depth`` for
``max_depth``) and defaults to what the parameter defaults to, apart from the few options
only a command has (where it writes, how it prints, whom it says it is)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest
from typer.main import get_command

from citesift import (
    ScrapeOptions,
    aresearch,
    check_citations,
    crawl,
    create_rag,
    extract_document,
    index_add,
    map_site,
    scrape,
)
from citesift.cli import app
from citesift.index.rag import Rag
from citesift.scrape.crawl import acrawl

READING = {"allow_private", "contact", "store", "offline", "deadline"}
"""The options every command that reads has: they make the setup the function is given."""
COMMANDS: dict[str, tuple[tuple[Callable[..., Any] | type, ...], set[str]]] = {
    "crawl": ((crawl, acrawl), READING | {"out"}),
    "search": ((create_rag, Rag.search), {"output", "rerank_key", "rerank_url", "rerank_model"}),
    "index add": ((index_add,), READING),
    "map": ((map_site,), READING | {"output"}),
    "research": ((aresearch,), READING | {"out", "output"}),
    "scrape": ((scrape, ScrapeOptions), READING | {"output", "screenshot"}),
    "check": ((check_citations,), READING | {"document", "output"}),
    "extract": ((extract_document,), {"file", "output", "sample"}),
}
"""Each command, the functions (or options class) it calls, and the options only it has:
``rerank_*`` build the reranker ``rerank`` names (``reranker_by_name``'s ``api_key``,
``base_url`` and ``model``, named for what they belong to beside the search's own)."""


def parameters(calls: tuple[Callable[..., Any] | type, ...]) -> dict[str, Any]:
    """Every parameter of ``calls`` with its default (``inspect.Parameter.empty`` if none)."""
    found: dict[str, Any] = {}
    for called in calls:
        if dataclasses.is_dataclass(called):
            for field in dataclasses.fields(called):
                found.setdefault(field.name, field.default)
            continue
        for name, parameter in inspect.signature(called).parameters.items():
            found.setdefault(name, parameter.default)
    return found


def command(path: str) -> Any:
    """The click command ``citesift PATH`` runs (its group's, for ``index add``)."""
    found: Any = get_command(app)
    for word in path.split():
        found = found.commands[word]
    return found


def plain(value: Any) -> str:
    """A default as text: an enum member as its value, so ``never`` matches ``"never"``."""
    return str(getattr(value, "value", value))


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_option_is_named_and_defaults_as_the_python_parameter(name: str) -> None:
    calls, own = COMMANDS[name]
    python = parameters(calls)
    for param in command(name).params:
        assert param.name is not None
        if param.name in own:
            continue
        assert param.name in python, f"citesift {name} {param.opts[0]}: no such parameter"
        if param.param_type_name == "option":
            assert param.opts[0] == "--" + param.name.replace("_", "-"), param.opts
            given, default = param.default, python[param.name]
            if given is not None and default is not inspect.Parameter.empty:
                assert plain(given) == plain(default), f"citesift {name} {param.opts[0]}"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_the_options_only_a_command_has_are_its_own(name: str) -> None:
    """The list of options a command alone has holds none of the function's parameters
    (save those that make its setup) and no option the command lacks."""
    calls, own = COMMANDS[name]
    options = {param.name for param in command(name).params}
    assert own - READING <= options
    assert not (own - READING) & set(parameters(calls))
