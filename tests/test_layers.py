"""The layering of DESIGN.md, read from the source: which package may import which."""

import ast
from pathlib import Path

import pytest

import citesift

PACKAGE = Path(citesift.__file__).parent
OFFLINE = ("extract", "text", "index")
"""Stages that work on bytes and text they are handed, so never import the network."""
NETWORKED = ("citesift.net", "citesift.sources", "citesift.scrape")
FACES = ("citesift.cli", "citesift.api", "citesift.mcp")


def imported_modules(path: Path) -> set[str]:
    """Every ``citesift`` module named by an import statement in ``path``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name.startswith("citesift")}


def _within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


@pytest.mark.parametrize("stage", OFFLINE)
def test_offline_stages_never_import_the_network(stage: str) -> None:
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            n for n in imported_modules(path) if _within(n, NETWORKED)
        )
        for path in sorted((PACKAGE / stage).rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_nothing_below_the_faces_imports_a_face() -> None:
    below = [
        p
        for p in PACKAGE.rglob("*.py")
        if p.relative_to(PACKAGE).parts[0] not in ("cli", "api", "mcp.py")
    ]
    offenders = {
        str(path.relative_to(PACKAGE)): sorted(
            n for n in imported_modules(path) if _within(n, FACES)
        )
        for path in below
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_every_import_is_absolute() -> None:
    """A relative import would slip past the layer rules above, so the package has none."""
    relative = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level > 0
    )
    assert relative == []
