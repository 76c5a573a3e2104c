"""The audit page offers a filled-in "Verify it yourself" program for every revealed roll
(issue #25: it was filled in for the first roll only): each row links to its program (served
by ``/api/audit/{match_id}/rolls/{roll_id}/verify.py``, not embedded: that made a 60-roll page
870 KB), each runs alone with the standard library, passes on its own roll and fails when that
roll's dice are changed."""

from __future__ import annotations

import re
import subprocess
import sys

from boardgammon.dice import new_match_id
from boardgammon.server import dice_record as record
from tests.server.test_audit_pages import ENTROPY, client_for, page_block, sessions  # noqa: F401


def test_every_revealed_row_has_its_program(client_for, sqlite_url, tmp_path):  # noqa: F811
    client = client_for(sqlite_url)
    match_id = new_match_id()
    rolls = []
    with sessions(client) as session:
        for k in range(4):
            roll = record.commit_roll(session, match_id, k % 2)
            record.reveal_roll(session, roll.roll_id, roll.commitment, ENTROPY)
            rolls.append(record.mark_played(session, roll.roll_id))
        void = record.commit_roll(session, match_id, 0)
        record.void_roll(session, void.roll_id)
    for lang, words in (
        ("en", "This roll&#39;s program"),
        ("de", "Programm dieses Wurfs"),
        ("ja", "このロールのプログラム"),
    ):
        page = client.get(f"/audit/{match_id}?lang={lang}").text
        assert page.count('<a id="verify-roll-') == 4 and words in page
    assert f'id="verify-roll-{void.roll_id}"' not in page
    for roll in rolls:
        link = re.search(rf'<a id="verify-roll-{roll.roll_id}" href="([^"]+)">', page)
        assert link is not None
        answer = client.get(link.group(1))
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/x-python; charset=utf-8"
        program = answer.text
        path = tmp_path / f"{roll.roll_id}.py"
        path.write_text(program)
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(path)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert f"the dice {roll.dice[0]}-{roll.dice[1]} of {roll.roll_id} verify" in done.stdout
        d1, d2 = roll.dice
        path.write_text(program.replace(f"dice = ({d1}, {d2})", f"dice = ({d1 % 6 + 1}, {d2})"))
        failed = subprocess.run(
            [sys.executable, "-I", "-S", str(path)], capture_output=True, text=True
        )
        assert failed.returncode == 1 and "dice mismatch" in failed.stderr
    # The first roll's is also in "Verify it yourself", the same text.
    assert page_block(page, "verify-roll") == client.get(
        f"/api/audit/{match_id}/rolls/{rolls[0].roll_id}/verify.py").text
