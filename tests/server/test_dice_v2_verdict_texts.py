"""Every verdict the verifier gives has its text on the audit page in each language: the page
looks ``verdict.<reason>`` up, and a reason without a text was a server error (500) for the
very record the page exists to expose (``left unresolved`` until 2026-12-04; ``chain
skipped`` and ``anchor missing``, which the server's verdict names since it judges with the
log, and ``void after request``)."""

from __future__ import annotations

import pytest

from boardgammon.dice import verify
from boardgammon.server.i18n import LANGUAGES, MESSAGES

VERDICTS = (
    "ok",
    "pending",
    "never revealed",
    verify.SEED_MISSING,
    verify.COMMITMENT_MISMATCH,
    verify.DICE_MISMATCH,
    verify.CHAIN_BROKEN,
    verify.MALFORMED,
    verify.LEFT_UNRESOLVED,
    verify.LINK_MISMATCH,
    verify.VOID_AFTER_REVEAL,
    verify.VOID_AFTER_REQUEST,
    verify.CHAIN_SKIPPED,
    verify.ANCHOR_MISSING,
    verify.ABSENT_TOO_EARLY,
    verify.LOG_MISMATCH,
)


def test_the_list_holds_every_reason_the_verifier_names():
    """The module's docstring names every failure reason (``run``'s exit status 1)."""
    doc = " ".join((verify.__doc__ or "").split())
    for reason in VERDICTS[3:]:
        assert f"``{reason}``" in doc


@pytest.mark.parametrize("language", list(LANGUAGES))
@pytest.mark.parametrize("verdict", VERDICTS)
def test_each_verdict_has_its_text_in_each_language(language, verdict):
    text = MESSAGES[language].get(f"verdict.{verdict}")
    assert isinstance(text, str) and text
