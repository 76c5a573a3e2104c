"""Audit routes: the page in three languages, the JSON, the "Verify it yourself" programs (run
here), and the rule that an unrevealed seed never leaves the server in any response, page, log
line or error message."""

from __future__ import annotations

import html
import json
import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from boardgammon.dice import new_match_id, verify
from boardgammon.server import dice_record as record
from boardgammon.server.app import create_app
from boardgammon.server.services import services
from boardgammon.server.settings import Settings
from boardgammon.server.tables import DiceRoll

ENTROPY = bytes(range(0xA0, 0xB0))


@pytest.fixture
def client_for():
    """Start an app on a database URL; yields a function url -> TestClient (started)."""
    clients = []

    def start(url: str) -> TestClient:
        client = TestClient(create_app(Settings(database_url=url)))
        client.__enter__()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.__exit__(None, None, None)


def sessions(client: TestClient):
    return services(client.app).db.sessions()


def seed_match(client: TestClient) -> tuple[str, list[record.Roll]]:
    """A match with two played rolls, one void (never revealed) and one pending."""
    match_id = new_match_id()
    rolls = []
    with sessions(client) as session:
        for seat in (0, 1):
            roll = record.commit_roll(session, match_id, seat)
            record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
            rolls.append(record.mark_played(session, roll.roll_id))
        void = record.commit_roll(session, match_id, 0)
        rolls.append(record.void_roll(session, void.roll_id))
        rolls.append(record.commit_roll(session, match_id, 0))
    return match_id, rolls


def page_block(page: str, block_id: str) -> str:
    found = re.search(rf'<pre id="{block_id}"><code>(.*?)</code></pre>', page, re.DOTALL)
    assert found, f"no {block_id} block on the page"
    return html.unescape(found.group(1))


def test_json_lists_every_roll_with_recomputed_verdicts(client_for, sqlite_url):
    client = client_for(sqlite_url)
    match_id, rolls = seed_match(client)
    body = client.get(f"/api/audit/{match_id}").json()
    assert body["format"] == "boardgammon-audit-v1" and body["verified"] is True
    assert [r["roll_id"] for r in body["rolls"]] == [r.roll_id for r in rolls]
    assert [r["verdict"] for r in body["rolls"]] == ["ok", "ok", "never revealed", "pending"]
    assert body["chain_head"] == rolls[-1].entry_hash
    for entry in body["rolls"][2:]:
        assert entry["server_seed"] is None and entry["dice"] is None
        assert entry["client_entropy"] is None and len(entry["commitment"]) == 64
    assert body["rolls"][0]["dice"] == list(rolls[0].dice)
    assert verify.verify_document(body).ok


def test_page_shows_rolls_and_verdicts_in_three_languages(client_for, sqlite_url):
    client = client_for(sqlite_url)
    match_id, rolls = seed_match(client)
    expected = {
        "en": ("Dice record of match", "verified", "pending: only the commitment is public"),
        "de": ("Würfelprotokoll des Matches", "bestätigt", "offen: nur die Festlegung"),
        "ja": ("のダイス記録", "検証済み", "コミットメントのみ公開"),
    }
    for lang, phrases in expected.items():
        page = client.get(f"/audit/{match_id}?lang={lang}")
        assert page.status_code == 200
        assert f'<html lang="{lang}">' in page.text
        for phrase in phrases:
            assert phrase in page.text
    assert '<html lang="de">' in client.get(
        f"/audit/{match_id}", headers={"Accept-Language": "de-CH,de;q=0.9,en;q=0.5"}
    ).text
    assert '<html lang="en">' in client.get(f"/audit/{match_id}?lang=xx").text
    page = client.get(f"/audit/{match_id}").text
    played = re.search(rf'<tr id="{rolls[0].roll_id}">.*?</tr>', page, re.DOTALL).group(0)
    assert f'<td class="dice">{rolls[0].dice[0]}-{rolls[0].dice[1]}</td>' in played
    pending = re.search(rf'<tr id="{rolls[3].roll_id}">.*?</tr>', page, re.DOTALL).group(0)
    # Not yet revealed: no dice, no source.
    assert len(re.findall(r'<td [^>]*>–</td>', pending)) == 2
    assert rolls[-1].entry_hash in page
    # Every full value is one link away, in the roll's row: its proof (JSON).
    for roll, seed in ((rolls[0], rolls[0].server_seed.hex()), (rolls[3], None)):
        link = re.search(rf'<tr id="{roll.roll_id}">.*?<a class="log-proof" href="([^"]+)">',
                         page, re.DOTALL).group(1)
        entry = client.get(link).json()["roll"]
        assert (entry["roll_id"], entry["commitment"]) == (roll.roll_id, roll.commitment)
        assert entry["server_seed"] == seed


def test_page_reports_a_tampered_record(client_for, sqlite_url):
    client = client_for(sqlite_url)
    match_id, rolls = seed_match(client)
    with sessions(client) as session:
        session.execute(
            update(DiceRoll).where(DiceRoll.roll_id == rolls[1].roll_id)
            .values(die2=rolls[1].dice[1] % 6 + 1)
        )
        session.commit()
    page = client.get(f"/audit/{match_id}?lang=de").text
    assert f"Prüfung FEHLGESCHLAGEN bei Wurf {rolls[1].roll_id}: Würfel stimmen nicht" in page
    body = client.get(f"/api/audit/{match_id}").json()
    assert body["verified"] is False and body["failure"]["reason"] == "dice mismatch"


def test_unknown_and_malformed_match(client_for, sqlite_url):
    client = client_for(sqlite_url)
    missing = client.get("/api/audit/mat_doesnotexist")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert missing.json()["error"]["message"] == "no match 'mat_doesnotexist'"
    page = client.get("/audit/mat_doesnotexist?lang=ja")
    assert page.status_code == 404 and "対戦 mat_doesnotexist はありません。" in page.text
    bad = client.get("/api/audit/mat_a;drop")
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_request"


def _run_python(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-S", str(path)], capture_output=True, text=True)


def test_verify_it_yourself_python_program(client_for, sqlite_url, tmp_path):
    client = client_for(sqlite_url)
    match_id, rolls = seed_match(client)
    program = page_block(client.get(f"/audit/{match_id}").text, "verify-roll")
    assert rolls[0].server_seed.hex() in program and rolls[0].roll_id in program
    path = tmp_path / "check.py"
    path.write_text(program)
    ok = _run_python(path)
    assert ok.returncode == 0, ok.stderr
    assert f"ok: the commitment and the dice {rolls[0].dice[0]}-{rolls[0].dice[1]}" in ok.stdout
    d1, d2 = rolls[0].dice
    path.write_text(program.replace(f"dice = ({d1}, {d2})", f"dice = ({d1 % 6 + 1}, {d2})"))
    assert "dice mismatch" in _run_python(path).stderr
    path.write_text(program.replace(rolls[0].commitment, "0" * 64))
    wrong = _run_python(path)
    assert wrong.returncode == 1 and "commitment mismatch" in wrong.stderr


@pytest.mark.skipif(shutil.which("openssl") is None, reason="the openssl command is not installed")
def test_verify_it_yourself_openssl_commands(client_for, sqlite_url):
    client = client_for(sqlite_url)
    match_id, rolls = seed_match(client)
    script = page_block(client.get(f"/audit/{match_id}").text, "verify-openssl")
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True).stdout
    lines = out.split()
    assert rolls[0].commitment in out
    assert lines[-2:] == [str(rolls[0].dice[0]), str(rolls[0].dice[1])]


def test_verify_it_yourself_whole_match(client_for, sqlite_url, tmp_path):
    client = client_for(sqlite_url)
    match_id, _ = seed_match(client)
    page = client.get(f"/audit/{match_id}").text
    command = page_block(page, "verify-match")
    assert f"/api/audit/{match_id}" in command and "/audit/verify.py" in command
    source = client.get("/audit/verify.py")
    assert source.headers["content-type"].startswith("text/x-python")
    assert source.text == Path(verify.__file__).read_text()
    # Linked to download, not shown on the page (its 34 KB were a fifth of a 60-roll page).
    link = 'href="http://testserver/audit/verify.py" download="verify.py">'
    assert f'<a id="verifier-source" {link}' in page and 'id="verifier-source"><code>' not in page
    (tmp_path / "verify.py").write_text(source.text)
    (tmp_path / "audit.json").write_text(client.get(f"/api/audit/{match_id}").text)
    result = subprocess.run(
        [sys.executable, "-I", "-S", "verify.py", "audit.json"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_page_without_revealed_roll_has_no_program(client_for, sqlite_url):
    client = client_for(sqlite_url)
    match_id = new_match_id()
    with sessions(client) as session:
        record.commit_roll(session, match_id, 0)
    page = client.get(f"/audit/{match_id}").text
    assert 'id="verify-roll"' not in page and 'id="verify-openssl"' not in page
    assert "appears here once the match's first roll is revealed" in html.unescape(page)


def test_unrevealed_seed_never_leaves_the_server(client_for, database_url, caplog):
    caplog.set_level(logging.DEBUG)
    # SQL echo, as an administrator debugging the server would switch on.
    caplog.set_level(logging.INFO, logger="sqlalchemy.engine")
    client = client_for(database_url)
    match_id, rolls = seed_match(client)
    secrets_held = []
    with sessions(client) as session:
        for roll in rolls[2:]:
            secrets_held.append(bytes.fromhex(session.get(DiceRoll, roll.roll_id).server_seed))
        pending = rolls[3]
        shown = []
        refusals = [
            lambda: record.reveal_roll(session, pending.roll_id, "e" * 64, ENTROPY),
            lambda: record.reveal_roll(session, rolls[2].roll_id, rolls[2].commitment, ENTROPY),
            lambda: record.commit_roll(session, match_id, 1),
            lambda: record.mark_played(session, pending.roll_id),
            lambda: record.reveal_roll(session, pending.roll_id, pending.commitment, b"short"),
        ]
        for refuse in refusals:
            with pytest.raises(record.DiceRecordError) as refused:
                refuse()
            shown.append(str(refused.value))
        shown += [repr(record.get_roll(session, pending.roll_id)),
                  repr(session.get(DiceRoll, pending.roll_id)),
                  json.dumps(record.audit_document(session, match_id))]
    for path in (f"/api/audit/{match_id}", "/audit/verify.py", "/api/audit/mat_x",
                 "/audit/mat_x", "/api/audit/bad!"):
        shown.append(client.get(path).text)
    for lang in ("en", "de", "ja"):
        shown.append(client.get(f"/audit/{match_id}?lang={lang}").text)
    shown.append(caplog.text)
    assert "INSERT INTO dice_rolls" in caplog.text  # the SQL log was captured
    everything = "\n".join(shown)
    for seed in secrets_held:
        for form in (seed.hex(), seed.hex().upper(), repr(seed), str(list(seed))):
            assert form not in everything
