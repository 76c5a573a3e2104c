"""A requested roll voided and rolled again in the same game (a "busy" reroll,
``docs/fair-dice.md`` §The roll's life (v2)): the server's verdict, the audit page in each
language, ``verify.py`` (with the public log's leaves too) and the spec's independent verifier
fail it as ``void after request``; the honest voids (the game ends during the wait and the next
game opens, or the roll was never requested) pass them all."""

from __future__ import annotations

import json
import secrets

import pytest

from boardgammon.dice.verify import VOID_AFTER_REQUEST, verify_document
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.services import services
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device, play_match
from tests.server.test_audit_pages import client_for  # noqa: F401 (the fixture)


def rolled_again(db, kind: str, requested: bool = True) -> str:
    """A match of three rolls played honestly, then seat 1's normal roll committed,
    requested (when ``requested``) and voided, and a ``kind`` roll after it, revealed with
    its opponent's link and played. Every roll uses up one of its opponent's links."""
    devices = (Device(), Device())
    match_id = play_match(db, 3, devices)
    with db.sessions() as s:
        dropped = v2.commit_roll(s, match_id, 1, "normal")
        if requested:
            v2.request_roll(s, dropped.roll_id, dropped.commitment, secrets.token_bytes(16))
        devices[0].next_link()  # used up, whatever became of the roll
        v2.void_roll(s, dropped.roll_id)
        again = v2.commit_roll(s, match_id, 1, kind)
        v2.request_roll(s, again.roll_id, again.commitment, secrets.token_bytes(16))
        v2.mark_played(s, v2.contribute(s, again.roll_id, devices[0].next_link()).roll_id)
    return match_id


def leaves(client, document: dict) -> list[str]:
    size = document["log"]["head"]["tree_size"]
    return [e["leaf"] for e in client.get(f"/api/log/entries?start=0&count={size}").json()]


def test_a_requested_roll_voided_and_rolled_again_fails_every_verifier(
    client_for, database_url  # noqa: F811
):
    client = client_for(database_url)
    match_id = rolled_again(services(client.app).db, "normal")
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is False
    assert (document["failure"]["index"], document["failure"]["reason"]) == (
        3, VOID_AFTER_REQUEST)
    assert [r["verdict"] for r in document["rolls"]] == (
        ["ok"] * 3 + [VOID_AFTER_REQUEST, "ok"])
    assert "(#4, normal) of the same game follows it" in document["failure"]["detail"]
    report = verify_document(document, log_leaves=leaves(client, document))
    assert (report.failure.index, report.failure.verdict) == (3, VOID_AFTER_REQUEST)
    assert spec_verifier_v2.check(document)[3] == "bad: void after request"
    for lang, words in (("en", "voided after its request, yet its game rolled again"),
                        ("de", "nach der Anfrage verfallen, doch im selben Spiel neu gewürfelt"),
                        ("ja", "リクエスト後に無効化され、同じゲームで振り直された")):
        page = client.get(f"/audit/{match_id}?lang={lang}")
        assert page.status_code == 200 and words in page.text


@pytest.mark.parametrize(("kind", "requested"), [("opening", True), ("normal", False)],
                         ids=["game-ended-next-opens", "never-requested"])
def test_an_honest_void_passes_every_verifier(client_for, database_url, kind,  # noqa: F811
                                              requested):
    """The requested roll voided when its game ended (a resignation accepted during the wait
    for the link), the next game's opening roll after it; and a roll never requested, voided
    and committed again (a late anchor's)."""
    client = client_for(database_url)
    match_id = rolled_again(services(client.app).db, kind, requested)
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True, document["failure"]
    assert (document["rolls"][3]["requested_at"] is not None) == requested
    assert [r["verdict"] for r in document["rolls"]] == ["ok"] * 3 + ["never revealed", "ok"]
    assert verify_document(json.loads(json.dumps(document)),
                           log_leaves=leaves(client, document)).ok
    assert spec_verifier_v2.check(document) == ["ok"] * 3 + ["void", "ok"]
