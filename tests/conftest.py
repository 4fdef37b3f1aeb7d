"""Shared test fixtures: paths to the recorded data beside the project."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
WIKIPEDIA_FIXTURES = SHARED / "fixtures" / "wikipedia"


@pytest.fixture
def wikipedia_fixtures() -> Path:
    """The recorded Wikipedia responses; tests that need them skip when they are absent."""
    if not WIKIPEDIA_FIXTURES.is_dir():
        pytest.skip("recorded Wikipedia fixtures are not beside the project")
    return WIKIPEDIA_FIXTURES
