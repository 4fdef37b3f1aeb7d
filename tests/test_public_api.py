"""The public surface: a sorted ``__all__`` that matches what ``citesift`` exports."""

import citesift


def test_all_is_sorted_and_every_name_resolves() -> None:
    names = list(citesift.__all__)
    assert names == sorted(names)
    for name in names:
        assert hasattr(citesift, name), name
