"""Import a shared evaluation tool from its file, so the metric we report is its own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_tool(path: Path, name: str) -> ModuleType:
    """The module in ``path``, imported as ``name``; exits saying so when it cannot be."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load the evaluation tool at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
