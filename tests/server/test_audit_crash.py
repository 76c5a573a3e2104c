"""Nothing is lost in a crash: a process commits a roll and is killed (SIGKILL) before the reveal;
after a restart the same roll reveals, matching the commitment sent before the crash, and a
process killed right after revealing leaves dice that every later reveal returns unchanged."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys

from boardgammon.dice import new_match_id
from boardgammon.dice.verify import derive_dice
from boardgammon.server import dice_record as record
from boardgammon.server.db import open_database

WORKER = """
import sys, time
from boardgammon.server import dice_record as record
from boardgammon.server.db import open_database

url, action, arg, *rest = sys.argv[1:]
db = open_database(url)
with db.sessions() as session:
    if action == "commit":
        roll = record.commit_roll(session, arg, 0)
    else:
        roll = record.reveal_roll(session, arg, rest[0], bytes.fromhex(rest[1]))
seed = roll.server_seed.hex() if roll.server_seed else "-"
dice = "-".join(map(str, roll.dice)) if roll.dice else "-"
print(roll.roll_id, roll.commitment, roll.nonce, seed, dice, flush=True)
time.sleep(120)  # still "running" when it is killed
"""


def run_then_kill(*args: str) -> list[str]:
    """Run the worker until it has reported, then SIGKILL it; return its report."""
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, *args], stdout=subprocess.PIPE, text=True
    )
    try:
        line = worker.stdout.readline().split()
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=30)
        worker.stdout.close()
    assert worker.returncode == -signal.SIGKILL
    assert len(line) == 5, f"the worker reported {line!r}"
    return line


def test_killed_between_commit_and_reveal_loses_nothing(database_url):
    match_id = new_match_id()
    roll_id, commitment, nonce, seed, dice = run_then_kill(database_url, "commit", match_id)
    assert (seed, dice) == ("-", "-")
    entropy = bytes(range(16))
    _, _, _, seed, dice = run_then_kill(database_url, "reveal", roll_id, commitment, entropy.hex())
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
    expected = derive_dice(bytes.fromhex(seed), match_id, roll_id, int(nonce), entropy)
    assert dice == f"{expected[0]}-{expected[1]}"
    db = open_database(database_url)
    try:
        with db.sessions() as session:
            again = record.reveal_roll(session, roll_id, commitment, bytes(16))
            assert again.dice == expected and again.client_entropy == entropy
            assert [r.roll_id for r in record.match_rolls(session, match_id)] == [roll_id]
            assert record.audit_document(session, match_id)["verified"]
    finally:
        db.dispose()
