"""The public surface: a sorted ``__all__`` that matches what ``citesift`` exports."""

import ast
import subprocess
import sys
from pathlib import Path

import citesift


def test_all_is_sorted_and_every_name_resolves() -> None:
    names = list(citesift.__all__)
    assert names == sorted(names)
    for name in names:
        assert hasattr(citesift, name), name


def test_every_name_imported_into_the_package_is_in_all() -> None:
    """A name imported in ``citesift/__init__.py`` but left out of ``__all__`` is a slip."""
    tree = ast.parse(Path(citesift.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("citesift")
        for alias in node.names
    }
    assert imported and imported <= set(citesift.__all__), imported - set(citesift.__all__)


def test_importing_the_package_loads_no_optional_reader_or_service() -> None:
    """Office readers, the browser driver, the web server, the database and cloud clients and
    the chat model's package load when first used, so every command starts without paying
    for them."""
    heavy = (
        *("docx", "pptx", "openpyxl", "playwright", "fastapi", "uvicorn", "psycopg", "boto3"),
        *("openai", "httpx2"),
    )
    code = f"import sys, citesift; print([m for m in {heavy!r} if m in sys.modules])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
