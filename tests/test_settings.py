"""The settings a face builds its sources from: identity, store and limits, outside the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from citesift.errors import CitesiftError, ConfigError, InvalidArgument
from citesift.settings import Settings, load_settings, source_setup
from citesift.sources import PageLimits
from citesift.sources.files import FileRefused, file_document

CONTACT = "https://example.org/contact"


def test_a_missing_or_unusable_contact_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="contact is required"):
        source_setup(Settings())
    with pytest.raises(ConfigError):
        source_setup(Settings(contact="Mozilla/5.0"))


def test_offline_needs_no_contact_and_opens_the_named_store(tmp_path: Path) -> None:
    with source_setup(Settings(offline=True, store=str(tmp_path / "s.db"))) as setup:
        assert setup.store is not None and setup.access()["offline"] is True
    assert (tmp_path / "s.db").exists()


def test_sources_take_the_bounds_and_access_the_settings_name() -> None:
    settings = load_settings({"contact": CONTACT, "deadline": 2.5, "robots": False}, environ={})
    with source_setup(settings) as setup:
        assert setup.store is None
        assert setup.web_pages("page").mode == "page"
        assert setup.limits(PageLimits()) == PageLimits(deadline=2.5)
        with pytest.raises(ValueError, match="page_path"):
            setup.wikipedia("https://en.wikipedia.org", "no-key")


def test_a_refused_file_is_a_citesift_error(tmp_path: Path) -> None:
    binary = tmp_path / "x.txt"
    binary.write_bytes(b"a\x00b")
    with pytest.raises(FileRefused, match="NUL") as refused:
        file_document(binary)
    assert isinstance(refused.value, CitesiftError)


@pytest.mark.parametrize(("name", "value"), [("deadline", float("nan")), ("max_redirects", -1)])
def test_a_bound_that_makes_no_sense_is_refused_before_any_store_is_opened(
    tmp_path: Path, name: str, value: float
) -> None:
    chosen = Settings(contact="me@example.org", store=str(tmp_path / "s.db"), **{name: value})
    with pytest.raises(InvalidArgument, match=f"^{name} must be"):
        source_setup(chosen)
    assert not (tmp_path / "s.db").exists()


def test_the_sources_of_one_setup_share_one_fetcher_keeping_blocks_in_the_store(
    tmp_path: Path,
) -> None:
    chosen = Settings(contact="me@example.org", store=str(tmp_path / "s.db"))
    with source_setup(chosen) as setup:
        pages, wiki = setup.web_pages(), setup.wikipedia("https://en.wikipedia.org", "/{key}")
        saving = [pages.fetcher, wiki.fetcher]  # each saves its snapshots in the store
        assert [getattr(f, "inner", None) for f in saving] == [setup.fetcher] * 2
        setup.fetcher.limiters.limiter_for("example.org").block("120")
    with source_setup(chosen) as later:  # another run: the block is still there
        assert 110 < later.fetcher.blocked_seconds("https://example.org/") <= 120
