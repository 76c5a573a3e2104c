"""Settings of the whole suite: a test marked ``gnubg`` needs GNU Backgammon installed, and
hypothesis has no per-example deadline (speed is measured in ``benchmarks/``, never asserted:
its default 200 ms deadline made property tests fail on a loaded 2-core machine)."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.helpers.gnubg import gnubg_path

settings.register_profile("boardgammon", deadline=None)
settings.load_profile("boardgammon")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the tests marked ``gnubg`` (saying why) where the Debian package is not installed."""
    if gnubg_path() is not None:
        return
    skip = pytest.mark.skip(reason="gnubg (Debian package) is not installed")
    for item in items:
        if item.get_closest_marker("gnubg") is not None:
            item.add_marker(skip)
