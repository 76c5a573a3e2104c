"""Settings of the whole suite: a test marked ``gnubg`` needs GNU Backgammon installed."""

from __future__ import annotations

import pytest

from tests.helpers.gnubg import gnubg_path


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked ``gnubg`` (saying why) where the Debian package is not installed."""
    if gnubg_path() is not None:
        return
    skip = pytest.mark.skip(reason="gnubg (Debian package) is not installed")
    for item in items:
        if item.get_closest_marker("gnubg") is not None:
            item.add_marker(skip)
