"""What a test does when a service it needs (PostgreSQL, Redis) is not there: skip on a
developer's machine, fail in CI (``CI`` set, as ``.ci/run`` runs), where every such service is
started, so that a CI whose database did not come up cannot pass with those tests skipped."""

from __future__ import annotations

import os

import pytest


def service_missing(what: str) -> None:
    """Skip the calling test, or fail it in CI, saying which service is missing and why."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} (CI must run these tests)", pytrace=False)
    pytest.skip(what)
