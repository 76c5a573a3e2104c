"""``make bench-soak``: live matches on two server processes sharing PostgreSQL and Redis, for a
bounded time, then a count of what was lost (issue 21). Not in CI; loopback only.

``python -m benchmarks.soak [--matches 8] [--seconds 120] [--think 0.5] [--json FILE]``

Two ``boardgammon serve`` processes run on a fresh schema of the PostgreSQL database
(``--postgres``, a libpq conninfo; the schema is dropped afterwards) and on Redis
(``--redis``), both on this machine. ``--matches`` pairs of guests play 1-point matches, each
pair starting a new one when its match ends, until ``--seconds`` have passed; then every
action in flight is waited for (up to :data:`GRACE_S`). In each pair, seat 0 is connected to
one process and acts over its WebSocket, seat 1 to the other and acts over HTTP (it hears the
match on a WebSocket of its own); the processes swap from one pair to the next. A player
thinks a random 0 to ``--think`` seconds (uniform) before each action, rolls with fresh
entropy or plays the first legal play. New matches roll v1 dice: the scripted players have no
device to reveal v2 links.

The report: acknowledged actions (an ``ack`` frame or an HTTP 200), **losses** (acknowledged
actions whose ``action_id`` is not in the match log afterwards, read from the database),
errors by kind (refusals, HTTP statuses, exceptions, actions never answered), the latency from
sending an action to its acknowledgement (p50, p99), and each process's memory (RSS of its
process group, in MB) after start-up and at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from tests.helpers.processes import group_members
from tests.helpers.servers import serving

POSTGRES = "host=127.0.0.1 port=5432 dbname=test user=postgres"
REDIS = "redis://127.0.0.1:6379/0"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
GRACE_S = 30.0
"""Seconds after the end that actions in flight have to be answered (then: errors)."""


@dataclass
class Tally:
    """What the players saw, all pairs together."""

    latencies: list[float] = field(default_factory=list)
    acked: list[tuple[str, str]] = field(default_factory=list)
    channels: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    finished: int = 0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def _action(state: dict, action_id: str) -> dict | None:
    """The action the match waits for from this player (roll or first legal play), if any."""
    pending = state.get("pending_roll")
    if state["phase"] in ("opening", "roll") and pending:
        return {"type": "roll", "action_id": action_id, "roll_id": pending["roll_id"],
                "commitment": pending["commitment"], "entropy": os.urandom(16).hex()}
    if state["phase"] == "play" and state["legal_plays"]:
        return {"type": "play", "action_id": action_id,
                "play": state["legal_plays"][0]["notation"]}
    return None


async def _player(match_id: str, token: str, port: int, via_http: bool, http: httpx.AsyncClient,
                  tally: Tally, stop: float, think: float) -> bool:
    """One seat of one match until it is over (``True``), or the soak's end and nothing is in
    flight (``False``)."""
    import websockets

    bearer = {"Authorization": f"Bearer {token}"}
    channel = "http" if via_http else "ws"
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/matches/{match_id}",
                                  additional_headers=bearer, max_size=2**22) as ws:
        state: dict | None = None
        acted_on = -1  # the version of the state last acted on
        in_flight: dict[str, float] = {}
        n = 0
        while True:
            if state is not None and state["phase"] == "match_over" and not in_flight:
                return True
            now = time.monotonic()
            if now >= stop and not in_flight:
                return False
            if now >= stop + GRACE_S:
                tally.errors[f"{channel}: never answered"] += len(in_flight)
                return False
            if (state is not None and not in_flight and now < stop
                    and state["version"] > acted_on and state["turn"] == state["you"]):
                n += 1
                action = _action(state, f"{token[:8]}-{n}")
                if action is not None:
                    acted_on = state["version"]
                    await asyncio.sleep(random.uniform(0, think))
                    started = time.perf_counter()
                    if not via_http:
                        in_flight[action["action_id"]] = started
                        await ws.send(json.dumps({"type": "action", "action": action}))
                    else:
                        try:
                            r = await http.post(
                                f"http://127.0.0.1:{port}/api/matches/{match_id}/actions",
                                json=action, headers=bearer)
                        except httpx.HTTPError as exc:
                            tally.errors[f"http: {type(exc).__name__}"] += 1
                            continue
                        if r.status_code == 200:
                            tally.latencies.append(time.perf_counter() - started)
                            tally.acked.append((match_id, action["action_id"]))
                            tally.channels[channel] += 1
                            answer = r.json()["state"]
                            if answer["version"] > state["version"]:
                                state = {**answer, "you": state["you"]}
                            continue
                        tally.errors[f"http {r.status_code}: "
                                     f"{r.json().get('code', '?') if r.content else ''}"] += 1
                    continue
            try:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
            except TimeoutError:
                continue
            kind = frame["type"]
            if kind == "state":
                if state is None or frame["state"]["version"] > state["version"]:
                    state = frame["state"]
            elif kind in ("ack", "error") and frame.get("action_id") in in_flight:
                started = in_flight.pop(frame["action_id"])
                if kind == "ack":
                    tally.latencies.append(time.perf_counter() - started)
                    tally.acked.append((match_id, frame["action_id"]))
                    tally.channels[channel] += 1
                else:
                    tally.errors[f"ws error: {frame.get('code', '?')}"] += 1
            elif kind == "error":
                tally.errors[f"ws error: {frame.get('code', '?')}"] += 1


async def _withdraw_open_seeks(http: httpx.AsyncClient, port: int, token: str) -> None:
    """Withdraw the guest's open seeks (one left by a failed accept would make every later post
    a 409 duplicate_seek); errors are the caller's to count, so they are ignored here."""
    headers = {"Authorization": f"Bearer {token}"}
    try:
        r = await http.get(f"http://127.0.0.1:{port}/api/lobby", headers=headers)
        for seek in r.json().get("mine", []) if r.status_code == 200 else []:
            await http.delete(f"http://127.0.0.1:{port}/api/seeks/{seek['id']}", headers=headers)
    except httpx.HTTPError:
        pass


async def _pair(n: int, ports: list[int], tally: Tally, stop: float, think: float) -> None:
    """Two guests playing match after match until the end: seat 0 on one process over
    WebSocket, seat 1 on the other over HTTP (which process is which alternates with ``n``)."""
    ws_port, http_port = ports[n % 2], ports[1 - n % 2]
    async with httpx.AsyncClient(timeout=30) as http:
        tokens = []
        for port in (ws_port, http_port):
            r = await http.post(f"http://127.0.0.1:{port}/api/auth/guest")
            r.raise_for_status()
            tokens.append(r.json()["token"])
        while time.monotonic() < stop:
            try:
                r = await http.post(f"http://127.0.0.1:{ws_port}/api/seeks", json={"length": 1},
                                    headers={"Authorization": f"Bearer {tokens[0]}"})
                r.raise_for_status()
                r = await http.post(f"http://127.0.0.1:{http_port}/api/seeks/"
                                    f"{r.json()['id']}/accept",
                                    headers={"Authorization": f"Bearer {tokens[1]}"})
                r.raise_for_status()
                match_id = r.json()["match_id"]
                over = await asyncio.gather(
                    _player(match_id, tokens[0], ws_port, False, http, tally, stop, think),
                    _player(match_id, tokens[1], http_port, True, http, tally, stop, think))
            except Exception as exc:  # noqa: BLE001 - counted, and the pair goes on
                tally.errors[f"{type(exc).__name__}"] += 1
                await _withdraw_open_seeks(http, ws_port, tokens[0])  # else the next is a duplicate
                await asyncio.sleep(1.0)
                continue
            tally.finished += all(over)


def _rss_mb(pid: int) -> float:
    """Resident memory of process group ``pid`` (every member), in MB."""
    total_kb = 0
    for member in group_members(pid):
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
        except OSError:
            pass  # ended meanwhile
    return total_kb / 1024


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.soak",
        description="Live matches on two server processes (PostgreSQL + Redis, loopback "
                    "only) for a bounded time; reports actions, losses, errors, latency and "
                    "memory.")
    parser.add_argument("--matches", type=int, default=8, help="matches at a time (default 8)")
    parser.add_argument("--seconds", type=float, default=120.0,
                        help="how long players act (default 120; at most 3600)")
    parser.add_argument("--think", type=float, default=0.5,
                        help="most seconds a player waits before an action (default 0.5)")
    parser.add_argument("--postgres", default=POSTGRES, help=f"libpq conninfo ({POSTGRES})")
    parser.add_argument("--redis", default=REDIS, help=f"Redis URL ({REDIS})")
    parser.add_argument("--json", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    if not 1 <= args.matches <= 200:
        parser.error("--matches is 1 to 200")
    if not 0 < args.seconds <= 3600:
        parser.error("--seconds is more than 0 and at most 3600")
    if not 0 <= args.think <= 60:
        parser.error("--think is 0 to 60")
    from psycopg.conninfo import conninfo_to_dict

    if conninfo_to_dict(args.postgres).get("host") not in LOOPBACK:
        parser.error(f"--postgres must name a loopback host ({', '.join(LOOPBACK)})")
    if urlsplit(args.redis).hostname not in LOOPBACK:
        parser.error(f"--redis must name a loopback host ({', '.join(LOOPBACK)})")
    return args


def soak(args: argparse.Namespace) -> dict:
    """Run the soak; the report (also printed)."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
    from sqlalchemy.engine import URL

    info = conninfo_to_dict(args.postgres)
    schema = f"bg_soak_{secrets.token_hex(6)}"
    url = URL.create("postgresql+psycopg", username=str(info.get("user", "postgres")),
                     password=str(info["password"]) if "password" in info else None,
                     host=str(info["host"]), port=int(info.get("port", 5432)),
                     database=str(info.get("dbname", "postgres")),
                     query={"options": f"-csearch_path={schema}"})
    _services_or_exit(args)
    with psycopg.connect(args.postgres, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        with tempfile.TemporaryDirectory() as folder:
            env = {**os.environ, "BOARDGAMMON_DATABASE_URL": url.render_as_string(False),
                   "BOARDGAMMON_REDIS_URL": args.redis, "BOARDGAMMON_DICE": "v1",
                   "BOARDGAMMON_BOT_DELAY": "0",
                   "BOARDGAMMON_LOGIN_BURST": str(4 * args.matches + 10)}
            env.pop("BOARDGAMMON_TEST_EXIT_AFTER_COMMIT", None)
            ports = [_free_port(), _free_port()]
            with serving(ports, env, Path(folder)) as servers:
                rss_start = [_rss_mb(s.process.pid) for s in servers]
                tally = Tally()
                stop = time.monotonic() + args.seconds
                began = time.perf_counter()
                asyncio.run(_all_pairs(args.matches, ports, tally, stop, args.think))
                took = time.perf_counter() - began
                rss_end = [_rss_mb(s.process.pid) for s in servers]
                alive = [s.process.poll() is None for s in servers]
        with psycopg.connect(args.postgres, options=f"-csearch_path={schema}") as conn:
            logged = set(conn.execute(
                "SELECT match_id, action_id FROM match_log WHERE action_id IS NOT NULL"))
    finally:
        with psycopg.connect(args.postgres, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    losses = [a for a in tally.acked if a not in logged]
    report = {
        "matches": args.matches, "seconds": args.seconds, "think_s": args.think,
        "elapsed_s": round(took, 1), "actions": len(tally.acked),
        "actions_ws": tally.channels["ws"], "actions_http": tally.channels["http"],
        "matches_finished": tally.finished, "losses": len(losses),
        "errors": sum(tally.errors.values()), "errors_by_kind": dict(tally.errors),
        "p50_ms": round(_percentile(tally.latencies, 0.5) * 1000, 1),
        "p99_ms": round(_percentile(tally.latencies, 0.99) * 1000, 1),
        "processes": [{"port": p, "rss_start_mb": round(a, 1), "rss_end_mb": round(b, 1),
                       "alive_at_end": up}
                      for p, a, b, up in zip(ports, rss_start, rss_end, alive, strict=True)],
    }
    _print(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return report


def _services_or_exit(args: argparse.Namespace) -> None:
    """Exit with one line saying which service does not answer, before any work."""
    import psycopg
    import redis

    try:
        psycopg.connect(args.postgres, connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        raise SystemExit(f"benchmarks.soak: PostgreSQL ({args.postgres}) does not answer: "
                         f"{str(exc).strip()}") from None
    try:
        redis.Redis.from_url(args.redis, socket_connect_timeout=3).ping()
    except redis.RedisError as exc:
        raise SystemExit(f"benchmarks.soak: Redis ({args.redis}) does not answer: {exc}"
                         ) from None


async def _all_pairs(matches: int, ports: list[int], tally: Tally, stop: float,
                     think: float) -> None:
    await asyncio.gather(*(_pair(n, ports, tally, stop, think) for n in range(matches)))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _print(r: dict) -> None:
    print(f"soak: {r['matches']} matches at a time on 2 processes (PostgreSQL + Redis), "
          f"{r['seconds']:g} s, think 0-{r['think_s']:g} s")
    print(f"  actions acknowledged: {r['actions']} ({r['actions_ws']} over WebSocket, "
          f"{r['actions_http']} over HTTP) in {r['elapsed_s']} s; "
          f"matches finished: {r['matches_finished']}")
    print(f"  losses (acknowledged, missing from the match log): {r['losses']}")
    print(f"  errors: {r['errors']} {r['errors_by_kind'] or ''}".rstrip())
    print(f"  latency, action to acknowledgement: p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms")
    for p in r["processes"]:
        print(f"  process on port {p['port']}: RSS {p['rss_start_mb']} MB after start-up, "
              f"{p['rss_end_mb']} MB at the end"
              f"{'' if p['alive_at_end'] else ' (it had EXITED before the end)'}")


def main(argv: list[str]) -> int:
    report = soak(_arguments(argv))
    return 1 if report["losses"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
