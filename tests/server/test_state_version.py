"""``state.version`` orders a match's states (docs/api.md §state): every action and every dice
record change raises it, over HTTP and over the WebSocket alike, so a client that keeps the
state with the largest version never goes back to an older one (issue 22: a late HTTP answer
overwrote the newer states the socket had brought, and the page froze)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient

from tests.server.gameplay import Player, live_match, make_app, step


def _without_clock(state: dict) -> dict:
    return {k: v for k, v in state.items() if k != "clocks"}


def test_every_change_of_a_match_raises_its_version_on_http_and_on_the_socket(database_url):
    with TestClient(make_app(database_url)) as client:
        ann, bob = Player.register(client, "ann"), Player.register(client, "bob")
        match_id = live_match(ann, bob)
        first = ann.state(match_id)
        by_seat = {p["seat"]: p["username"] for p in first["players"]}
        players = {seat: ann if name == "ann" else bob for seat, name in by_seat.items()}
        # Nothing changed: the same version and the same state (the clocks' as_of aside).
        again = ann.state(match_id)
        assert again["version"] == first["version"]
        assert _without_clock(again) == _without_clock(first)
        answers = [first["version"]]
        socket_versions: list[int] = []
        path = f"/ws/matches/{match_id}"
        with ThreadPoolExecutor(max_workers=1) as pool, \
                client.websocket_connect(path, headers=ann.headers) as socket:

            def socket_reaches(version: int) -> None:
                while not socket_versions or socket_versions[-1] < version:
                    message = pool.submit(socket.receive_json).result(30)
                    if message["type"] == "state":
                        socket_versions.append(message["state"]["version"])

            socket_reaches(first["version"])
            for _ in range(30):
                state = step(players, match_id)
                assert state["version"] > answers[-1], (state["phase"], answers)
                answers.append(state["version"])
                assert ann.state(match_id)["version"] >= state["version"]
                socket_reaches(state["version"])
                if state["phase"] == "match_over":
                    break
        # A socket's states come newest last: each one's version above the one before.
        assert socket_versions == sorted(set(socket_versions)), socket_versions
        assert len(answers) > 10
