"""After an outage the clocks resume with the delay window fresh (issue 21, 1): a player who
had used up the delay before PostgreSQL was cut gets a whole delay again once it is back, the
reserve as it stood before the cut, and a deadline that moved by as much; a second process
(after a restart, replaying the record) charges the same."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from gameplay import Player, Wall, live_match, make_app
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from boardgammon.server.services import services
from boardgammon.server.tables import MatchRow
from tests.helpers.tcp_proxy import CuttableProxy


@pytest.fixture
def proxy():
    with CuttableProxy(("127.0.0.1", 5432)) as p:
        yield p


def _deadline(client: TestClient, match_id: str) -> float:
    with services(client.app).db.sessions() as s:
        return s.execute(select(MatchRow.deadline_t).where(MatchRow.id == match_id)).scalar_one()


def test_the_delay_window_is_fresh_after_an_outage(postgres_url, proxy):
    """Bullet (5 s delay, 30 s reserve): 20 s before the cut (5 s delay, 15 s of the reserve),
    45 s cut, then 4 s: inside the fresh delay, so nothing more is charged (without the fresh
    window 4 s more would be); the stored deadline is 5 + 15 s after the resumption."""
    url = postgres_url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
    wall = Wall()
    with TestClient(make_app(url, wall), raise_server_exceptions=False) as client:
        game = services(client.app).game
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob, clock="bullet")
        assert ann.state(match_id)["clocks"]["running"] == 0
        wall.advance(20.0)
        client.portal.call(game.tick)
        proxy.cut()
        for _ in range(45):
            wall.advance(1.0)
            with pytest.raises(OperationalError):
                client.portal.call(game.tick)
        proxy.restore()
        wall.advance(1.0)
        client.portal.call(game.tick)  # the heartbeat that notes the resumption
        # Every second since the last heartbeat before the cut is credited: service time
        # resumes there.
        assert game.clock.resumes == [game.clock.now()]
        wall.advance(4.0)
        client.portal.call(game.tick)
        clocks = ann.state(match_id)["clocks"]
        assert clocks["reserve"][0] == pytest.approx(15.0, abs=0.01), clocks
        assert clocks["delay_left"] == pytest.approx(1.0, abs=0.01), clocks
        assert _deadline(client, match_id) == pytest.approx(game.clock.resumes[0] + 20.0)
        wall.advance(3.0)  # 2 s past the fresh delay
        clocks = ann.state(match_id)["clocks"]
        assert clocks["reserve"][0] == pytest.approx(13.0, abs=0.01), clocks
        assert ann.state(match_id)["phase"] != "match_over"

    # Another process replays the match from its record and the resumptions: the same charge.
    with TestClient(make_app(url, wall), raise_server_exceptions=False) as client:
        clocks = Player(client, "ann", ann.token).state(match_id)["clocks"]
        assert clocks["reserve"][0] == pytest.approx(13.0, abs=0.01), clocks
