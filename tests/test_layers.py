"""The layering of DESIGN.md, read from the source: every import of every module is held
against the table of which layer may import which."""

import ast
from pathlib import Path

import pytest

import citesift

PACKAGE = Path(citesift.__file__).parent

LEAVES = frozenset({"model", "errors", "encoding", "numbers", "checks"})
"""Modules any layer may import: the data model, the error tree and small helpers."""
FACES = frozenset({"cli", "api", "mcp_server", "settings", "__init__", "__main__"})
"""Parse, call the library, render: they may import anything (``__init__`` re-exports it all)."""
MAY_IMPORT: dict[str, frozenset[str]] = {
    "model": frozenset(),
    "errors": frozenset(),
    "encoding": LEAVES,
    "numbers": LEAVES,
    "checks": LEAVES,
    "net": LEAVES,
    "extract": LEAVES,
    "text": LEAVES,
    "store": LEAVES,
    "clients": LEAVES | {"net"},
    "sources": LEAVES | {"net", "extract", "text", "clients", "store"},
    "scrape": LEAVES | {"net", "extract", "text", "store", "sources", "clients"},
    "index": LEAVES | {"text", "store", "clients"},
    "verify": LEAVES | {"net", "extract", "text", "store", "sources", "index", "clients"},
    "agent": LEAVES | {"net", "extract", "text", "store", "sources", "index", "clients", "scrape"},
    "jobs": LEAVES | {"net", "store", "scrape", "agent"},
    "ingest": LEAVES | {"extract", "store", "sources", "index"},
}
"""DESIGN.md's layout table: the layers (besides its own) each layer may import."""


def layer_of_file(path: Path) -> str:
    """``net`` for ``net/fetch.py``, ``model`` for ``model.py``, ``__init__`` for the root."""
    first = path.relative_to(PACKAGE).parts[0]
    return first.removesuffix(".py")


def layer_of_module(name: str) -> str:
    """``net`` for ``citesift.net.fetch``; ``__init__`` for ``citesift`` itself."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imported_modules(path: Path) -> set[str]:
    """Every ``citesift`` module named by an import statement anywhere in ``path`` (inside
    functions and ``TYPE_CHECKING`` blocks too)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name == "citesift" or name.startswith("citesift.")}


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_layer_of_the_table() -> None:
    unknown = {layer_of_file(path) for path in MODULES} - MAY_IMPORT.keys() - FACES
    assert unknown == set(), "add the new layer to DESIGN.md's table and to MAY_IMPORT"


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_a_layer_imports_only_what_the_table_allows(layer: str) -> None:
    allowed = MAY_IMPORT[layer] | {layer}
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            name for name in imported_modules(path) if layer_of_module(name) not in allowed
        )
        for path in MODULES
        if layer_of_file(path) == layer
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_table_is_the_design() -> None:
    """The rules DESIGN.md states in words hold in the table above."""
    low = ("net", "extract", "text", "store")
    assert all(MAY_IMPORT[layer] == LEAVES for layer in low)
    assert all("net" not in MAY_IMPORT[layer] for layer in ("extract", "text", "index"))
    assert all(not (MAY_IMPORT[layer] & FACES) for layer in MAY_IMPORT)


def test_every_import_is_absolute() -> None:
    """A relative import would slip past the layer rules above, so the package has none."""
    relative = sorted(
        str(path.relative_to(PACKAGE))
        for path in MODULES
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level > 0
    )
    assert relative == []
