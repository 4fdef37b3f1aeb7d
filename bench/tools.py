"""What every benchmark needs: its data where it says, and a shared evaluation tool imported
from its file, so the metric we report is its own."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import NoReturn

EXIT_MISSING = 2
"""The exit status when the data or a tool is not where the benchmark looks."""


def require_data(path: Path, what: str, holding: Sequence[str], option: str = "--data") -> Path:
    """``path``, when it is a folder holding a file for every name of ``holding`` (a name
    or a glob pattern such as ``*.html``); else say where ``what`` was expected and which
    option names another place, and exit."""
    missing = [name for name in holding if not any(p.is_file() for p in path.glob(name))]
    if not path.is_dir() or missing:
        lacking = f" (it has no {', '.join(missing)})" if path.is_dir() else ""
        _missing(f"no {what} in {path}{lacking}", option)
    return path


def load_tool(path: Path, name: str, option: str) -> ModuleType:
    """The module in ``path``, imported as ``name``; exits saying so when it cannot be
    (``option`` is the flag that names another file)."""
    if not path.is_file():
        _missing(f"no evaluation tool at {path}", option)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the evaluation tool at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _missing(what: str, option: str) -> NoReturn:
    """One line on standard error saying what is missing and how to name it; exit 2."""
    print(f"error: {what}; put it there or pass {option} PATH", file=sys.stderr)
    raise SystemExit(EXIT_MISSING)
