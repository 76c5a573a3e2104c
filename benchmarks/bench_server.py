"""Load test of the game server on loopback: concurrent live matches played by scripted
clients over WebSocket, against an echo WebSocket on the same server in the same run.

A server (``boardgammon serve``, SQLite in a temporary folder) runs in a subprocess. Each
match has two guest players, each with its own WebSocket; whenever a player's state says it
is their turn they roll (fresh entropy) or play the first legal play. Latency is from sending
an action to receiving its ``ack`` (sent after the action is committed and broadcast). The
reference: the same number of clients each sending frames to ``/ws/echo`` one after another.
Bounded: :data:`ACTIONS_PER_MATCH` actions per match and :data:`TIME_LIMIT_S` seconds.

``BENCH_SERVER_MATCHES`` changes the number of matches and ``BENCH_SERVER_DATABASE_URL`` the
database (e.g. a PostgreSQL URL; its tables must be empty or absent). Prints actions per
second, p50/p99 latency of both, and the ratio. Target (issue 6): p99
under 50 ms with 200 concurrent matches on a 2-core machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import httpx

MATCHES = int(os.environ.get("BENCH_SERVER_MATCHES", "200"))
ACTIONS_PER_MATCH = 12
ECHOES_PER_CLIENT = 12
TIME_LIMIT_S = 120.0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _create_match(http: httpx.AsyncClient, gate: asyncio.Semaphore
                        ) -> tuple[str, list[str]]:
    async with gate:  # setting up is not measured: keep it gentle
        tokens = [_ok(await http.post("/api/auth/guest"))["token"] for _ in range(2)]
        seek = _ok(await http.post("/api/seeks", json={"length": 5},
                                   headers={"Authorization": f"Bearer {tokens[0]}"}))
        answer = _ok(await http.post(f"/api/seeks/{seek['id']}/accept",
                                     headers={"Authorization": f"Bearer {tokens[1]}"}))
        return answer["match_id"], tokens


def _ok(response: httpx.Response) -> dict:
    if response.status_code >= 300:
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text}")
    return response.json()


async def _player(url: str, budget: list[int], latencies: list[float], stop: float) -> None:
    import websockets

    async with websockets.connect(url, max_size=2**22) as ws:
        sent_at: dict[str, float] = {}
        state: dict | None = None
        n = 0
        while time.monotonic() < stop and (budget[0] > 0 or sent_at):
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), stop - time.monotonic()))
            except TimeoutError:
                return
            if message["type"] in ("ack", "error") and message.get("action_id") in sent_at:
                started = sent_at.pop(message["action_id"])
                if message["type"] == "ack":
                    latencies.append(time.perf_counter() - started)
            elif message["type"] == "state":
                state = message["state"]
            # One action in flight per player; act on the newest state once it is answered.
            if sent_at or budget[0] <= 0 or state is None or state["turn"] != state["you"]:
                continue
            if state["phase"] in ("opening", "roll") and state["pending_roll"]:
                roll = state["pending_roll"]
                action = {"type": "roll", "roll_id": roll["roll_id"],
                          "commitment": roll["commitment"], "entropy": os.urandom(16).hex()}
            elif state["phase"] == "play" and state["legal_plays"]:
                action = {"type": "play", "play": state["legal_plays"][0]["notation"]}
            else:
                continue
            n += 1
            action["action_id"] = f"{id(ws)}-{n}"
            budget[0] -= 1
            state = None
            sent_at[action["action_id"]] = time.perf_counter()
            await ws.send(json.dumps({"type": "action", "action": action}))


async def _echo_client(url: str, latencies: list[float]) -> None:
    import websockets

    async with websockets.connect(url) as ws:
        for i in range(ECHOES_PER_CLIENT):
            start = time.perf_counter()
            await ws.send(json.dumps({"type": "ping", "n": i}))
            await ws.recv()
            latencies.append(time.perf_counter() - start)


async def _run(port: int) -> None:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        gate = asyncio.Semaphore(8)
        created = await asyncio.gather(*(_create_match(http, gate) for _ in range(MATCHES)))
    echo: list[float] = []
    start = time.perf_counter()
    await asyncio.gather(*(_echo_client(f"ws://127.0.0.1:{port}/ws/echo", echo)
                           for _ in range(2 * MATCHES)))
    echo_s = time.perf_counter() - start
    actions: list[float] = []
    stop = time.monotonic() + TIME_LIMIT_S
    start = time.perf_counter()
    await asyncio.gather(*(
        _player(f"ws://127.0.0.1:{port}/ws/matches/{match_id}?token={token}", budget, actions,
                stop)
        for match_id, tokens in created
        for budget in [[ACTIONS_PER_MATCH]] for token in tokens))
    actions_s = time.perf_counter() - start
    ms = 1000.0
    print(f"{MATCHES} concurrent live matches, {2 * MATCHES} WebSocket clients")
    print(f"  match actions: {len(actions)} in {actions_s:.1f} s = "
          f"{len(actions) / actions_s:.0f} actions/s; latency p50 "
          f"{_percentile(actions, 0.5) * ms:.1f} ms, p99 {_percentile(actions, 0.99) * ms:.1f} ms")
    print(f"  echo reference: {len(echo)} frames in {echo_s:.1f} s = {len(echo) / echo_s:.0f}/s; "
          f"latency p50 {_percentile(echo, 0.5) * ms:.1f} ms, "
          f"p99 {_percentile(echo, 0.99) * ms:.1f} ms")
    if actions and echo:
        print(f"  ratio p99 action / p99 echo: "
              f"{_percentile(actions, 0.99) / _percentile(echo, 0.99):.1f}x; "
              f"mean {statistics.mean(actions) / statistics.mean(echo):.1f}x")
        print(f"  target p99 < 50 ms: {'met' if _percentile(actions, 0.99) < 0.05 else 'not met'}")


def main() -> None:
    port = _free_port()
    with tempfile.TemporaryDirectory() as folder:
        database = os.environ.get("BENCH_SERVER_DATABASE_URL",
                                  f"sqlite:///{folder}/bench.sqlite3")
        print(f"database: {database.split('://')[0]}")
        env = {**os.environ, "BOARDGAMMON_DATABASE_URL": database,
               "BOARDGAMMON_LOGIN_BURST": str(4 * MATCHES)}
        env.pop("BOARDGAMMON_REDIS_URL", None)
        server = subprocess.Popen(
            [sys.executable, "-m", "boardgammon.cli", "serve", "--port", str(port)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/api/options", timeout=1)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.2)
            asyncio.run(_run(port))
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
