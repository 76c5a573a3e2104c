"""Nothing lost: ``boardgammon serve`` killed with SIGKILL in the middle of live matches and
started again resumes every match in the same state with the same pending roll, and the time
the server was down is not charged to anyone's clock."""

from __future__ import annotations

import os
import signal
import time

import pytest
from gameplay import Http, free_port, http_live_match, http_players

from boardgammon.server.service_clock import DOWN_AFTER_S
from tests.helpers.actions import next_action
from tests.helpers.servers import serving

pytestmark = pytest.mark.slow

BULLET_DELAY = 5.0


def computer_answered(http: Http, match_id: str, within_s: float = 60.0) -> None:
    """Wait until the match waits for seat 0, the human (the computer has played its turn
    if it won the opening roll)."""
    deadline = time.monotonic() + within_s
    while http("GET", f"/api/matches/{match_id}")["turn"] != 0:
        assert time.monotonic() < deadline, "the computer did not answer"
        time.sleep(0.05)


def roll_or_play(http: Http, match_id: str, n: int) -> None:
    state = http("GET", f"/api/matches/{match_id}")
    http("POST", f"/api/matches/{match_id}/actions", next_action(state, f"r{n}"))


def test_sigkill_and_restart(tmp_path):
    # v1 dice: this test's players have no devices to reveal v2 links (the v2 match flow
    # has its own tests, test_match_dice_v2.py).
    env = {**os.environ, "BOARDGAMMON_BOT_DELAY": "0", "BOARDGAMMON_DICE": "v1",
           "BOARDGAMMON_DATABASE_URL": f"sqlite:///{tmp_path}/var/bg.sqlite3"}
    env.pop("BOARDGAMMON_REDIS_URL", None)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving([port], env, tmp_path) as (server,):
        players = http_players([base, base])
        live = http_live_match(players, length=3, clock="bullet")
        computer = players[0]("POST", "/api/matches/computer",
                              {"level": "easy", "length": 3})["match_id"]
        for n in range(7):
            turn = players[0]("GET", f"/api/matches/{live}")["turn"]
            roll_or_play(players[turn], live, n)
        roll_or_play(players[0], computer, 100)  # the opening roll against the computer
        computer_answered(players[0], computer)
        before = {m: players[0]("GET", f"/api/matches/{m}") for m in (live, computer)}
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
    time.sleep(DOWN_AFTER_S + BULLET_DELAY + 1.0)  # down for longer than the free delay
    with serving([port], env, tmp_path):
        after = {m: players[0]("GET", f"/api/matches/{m}") for m in (live, computer)}
    for match_id in (live, computer):
        a, b = before[match_id], after[match_id]
        for key in ("phase", "turn", "score", "board", "position_id", "dice", "cube",
                    "pending_roll", "rolls", "games", "legal_plays"):
            assert b[key] == a[key], (match_id, key)
    assert before[live]["pending_roll"] is not None or before[live]["dice"] is not None
    # The running seat's reserve: without the downtime credit it would have lost more than
    # a second (the server was down longer than the 5 s delay window).
    running = before[live]["clocks"]["running"]
    assert after[live]["clocks"]["running"] == running
    lost = before[live]["clocks"]["reserve"][running] - after[live]["clocks"]["reserve"][running]
    assert lost < 1.0
