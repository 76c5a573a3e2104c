"""``GET /api/audit/{match_id}`` serves a v2 record as ``boardgammon-audit-v2``; the verifier
downloaded from ``/audit/verify.py`` and the independent spec verifier both pass it."""

from __future__ import annotations

import subprocess
import sys

from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.services import services
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device, play_match
from tests.server.test_audit_pages import client_for  # noqa: F401 (the fixture)


def test_v2_record_over_the_api(client_for, database_url, tmp_path):  # noqa: F811
    client = client_for(database_url)
    # A match against the computer: seat 0 has a device, seat 1 (the computer) none.
    match_id = play_match(services(client.app).db, 10, (Device(), None))
    body = client.get(f"/api/audit/{match_id}").json()
    assert body["format"] == "boardgammon-audit-v2" and body["verified"] is True
    assert body["counts"]["computer"] == 5 and body["counts"]["no_opponent_device"] == 5
    assert spec_verifier_v2.check(body) == ["ok"] * 10
    (tmp_path / "verify.py").write_text(client.get("/audit/verify.py").text)
    (tmp_path / "audit.json").write_text(client.get(f"/api/audit/{match_id}").text)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "verify.py", "audit.json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    missing = client.get("/api/audit/mat_neverplayed")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_the_page_says_what_rolls_prove_once_one_is_revealed(client_for, database_url):  # noqa: F811
    # Before its first roll is revealed a match proves nothing yet: no heading over an empty
    # list (a new user's trial found one).
    client = client_for(database_url)
    db = services(client.app).db
    devices = (Device(), Device())
    match_id = play_match(db, 0, devices)
    with db.sessions() as s:
        roll = v2.commit_roll(s, match_id, 0, "opening")
    page = client.get(f"/audit/{match_id}?lang=en")
    assert page.status_code == 200, page.text
    assert 'id="counts' not in page.text and "What these rolls prove" not in page.text
    with db.sessions() as s:
        roll = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
        v2.contribute(s, roll.roll_id, devices[1].next_link())
    page = client.get(f"/audit/{match_id}?lang=en").text
    assert '<h2 id="counts-title">What these rolls prove</h2>' in page
    assert page.count('<li data-kind="') == 1
