"""An independent verifier of ``boardgammon-audit-v2`` documents, written from
``docs/fair-dice.md`` alone: it imports nothing from ``boardgammon`` (the tests check that), so
a reading of the spec that differs from the package's shows up as a disagreement.

``check(document, leaves=None) -> list[str]``: one verdict per roll (``ok``, ``pending``,
``void``; ``pending`` only for the last roll, an earlier one still open is ``"bad: left
unresolved"``, a void one requested with a roll of its game after it ``"bad: void after
request"``) or the first problem found, as ``"bad: <why>"``, then one ``"bad: …"`` for the
record as a whole where it fails. ``leaves``: the public log up to the document's signed head
(§The public log), read by the caller; every anchor leaf of the match there must be the
record's anchor of its seat, and a roll whose request is a later leaf of the log than it must
take a link of that chain (§Checking the anchors (v2): by the leaves' places, not their
times). A seat's chain is ``null`` in the rolls before its first use (a late anchor), then
continued by every roll with that seat as the opponent.
Each leaf of a roll (from ``leaves``, else the document's ``log``) must carry in ``at`` the
record's time of its change (``"bad: log time"``); a roll's leaves, where it has any, must be
exactly its changes in the order of its life (``"bad: log changes"``), each with the entry hash
of the roll as it stood after that change (``"bad: log hash"``; §The record (v2), A roll's
leaves).
Where the match leaf states the server's wait for the opponent's link (``link_wait_ms``, §The
public log, Match leaf), a roll revealed without the link (``absent``) less than that many
milliseconds after its request (``revealed_at`` − ``requested_at``) is ``"bad: absent too
early"``; a leaf without it (a correspondence match, a leaf from before) checks no wait.
``steps(document) -> list``: the ``k`` of each roll (§Terms (v2): every roll whose opponent has
a chain uses up one of its links).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
from datetime import datetime


def _lp(data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + data


def _raw(value: str | None) -> bytes:
    return bytes.fromhex(value) if value is not None else b""


def _txt(value: str | None) -> bytes:
    return value.encode("ascii") if value is not None else b""


def dice(
    seed: bytes, match_id: str, roll_id: str, nonce: int, kind: str, roller: bytes, opponent: bytes
) -> tuple[int, int]:
    """Spec §Derivation v2: HMAC-SHA256 blocks keyed by the seed; bytes ≥ 252 skipped."""
    prefix = (
        _lp(b"boardgammon-dice-v2")
        + _lp(match_id.encode())
        + _lp(roll_id.encode())
        + struct.pack(">Q", nonce)
        + _lp(kind.encode())
        + _lp(roller)
        + _lp(opponent)
    )
    found: list[int] = []
    block = 0
    while len(found) < 2:
        digest = hmac.new(seed, prefix + struct.pack(">I", block), hashlib.sha256).digest()
        found += [b % 6 + 1 for b in digest if b < 252]
        block += 1
    return found[0], found[1]


def entry_hash(match_id: str, e: dict) -> str:
    """Spec §The record, v2: the entry hash."""
    die1, die2 = e["dice"] if e["dice"] is not None else (0, 0)
    parts = [
        _lp(b"boardgammon-record-v2"),
        _lp(_txt(e["prev_hash"])),
        _lp(match_id.encode()),
        _lp(e["roll_id"].encode()),
        struct.pack(">IQB", e["seq"], e["nonce"], e["seat"]),
        _lp(_txt(e["kind"])),
        _lp(_txt(e["state"])),
        _lp(_txt(e["commitment"])),
        _lp(_raw(e["server_seed"])),
        _lp(_raw(e["roller_entropy"])),
        _lp(_txt(e["roller_source"])),
        _lp(_raw(e["opponent_prev_link"])),
        _lp(_raw(e["opponent_entropy"])),
        _lp(_txt(e["opponent_source"])),
        bytes([die1, die2]),
    ]
    for key in (
        "committed_at",
        "requested_at",
        "opponent_at",
        "revealed_at",
        "played_at",
        "voided_at",
    ):
        parts.append(_lp(_txt(e[key])))
    return hashlib.sha256(b"".join(parts)).hexdigest()


def steps(document: dict) -> list:
    """How many SHA-256 steps lead from each roll's opponent link to its opponent_prev_link:
    one, plus one for each earlier roll with the same opponent (holding a chain) since that
    opponent's last revealed link, whatever became of that roll; None without a chain."""
    out: list = []
    rolls = document["rolls"]
    for index, e in enumerate(rolls):
        if e["opponent_prev_link"] is None:
            out.append(None)
            continue
        k = 1
        for before in reversed(rolls[:index]):
            if before["seat"] != e["seat"] or before["opponent_prev_link"] is None:
                continue
            if before["opponent_entropy"] is not None:
                break
            k += 1
        out.append(k)
    return out


def _mth(hashes: list[bytes]) -> bytes:
    """RFC 9162 §2.1.1 over leaf hashes, by its recursion."""
    if len(hashes) == 1:
        return hashes[0]
    k = 1
    while k * 2 < len(hashes):
        k *= 2
    return hashlib.sha256(b"\x01" + _mth(hashes[:k]) + _mth(hashes[k:])).digest()


def log_root(leaves: list[str]) -> str:
    """Spec §The public log, Tree: the root of the leaves as given (hex)."""
    if not leaves:
        return hashlib.sha256(b"").hexdigest()
    return _mth([hashlib.sha256(b"\x00" + leaf.encode()).digest() for leaf in leaves]).hex()


def registered(document: dict, leaves: list[str] | None) -> dict:
    """The anchor leaves of the match: ``{seat: (anchor, place in the log, at)}``, the first of
    each seat, from the document's ``log.anchors`` or, given the log's leaves, from those
    (whose root must be the signed head's)."""
    if leaves is None:
        found = [(a["index"], a["leaf"]) for a in document.get("log", {}).get("anchors", [])]
    else:
        head = document["log"]["head"]
        assert head["tree_size"] == len(leaves) and log_root(leaves) == head["root_hash"]
        found = list(enumerate(leaves))
    seats: dict = {}
    for place, leaf in sorted(found):
        fields = json.loads(leaf)
        if fields["event"] == "anchor" and fields["match_id"] == document["match_id"]:
            seats.setdefault(fields["seat"], (fields["anchor"], place, fields["at"]))
    return seats


def match_leaf(document: dict, leaves: list[str] | None = None) -> dict | None:
    """Spec §The public log, Match leaf: the fields of the match's first match leaf (in the
    log when given, else the one the document lists); ``None`` where there is none."""
    listed = document.get("log", {}).get("match")
    found = leaves if leaves is not None else ([listed["leaf"]] if listed else [])
    for leaf in found:
        fields = json.loads(leaf)
        if fields.get("event") == "match" and fields.get("match_id") == document["match_id"]:
            return fields
    return None


def stated_mode(document: dict, leaves: list[str] | None = None) -> str | None:
    """How the match is played, as its match leaf states it; ``None`` without one."""
    fields = match_leaf(document, leaves)
    return fields["mode"] if fields is not None else None


def stated_wait(document: dict, leaves: list[str] | None = None) -> int | None:
    """The server's wait for the opponent's link (whole ms) the match leaf states: a JSON
    integer >= 0 (a leaf with anything else is asserted away: it cannot be read); ``None``
    where the leaf states none (correspondence, a leaf from before) or there is no leaf."""
    fields = match_leaf(document, leaves)
    if fields is not None and fields["mode"] != "correspondence" and (
            datetime.fromisoformat(fields["at"]) >= datetime.fromisoformat(
                "2026-12-06T00:00:00+00:00")):
        assert "link_wait_ms" in fields, "a live match's leaf since 2026-12-06 states its wait"
    if fields is None or "link_wait_ms" not in fields:
        return None
    wait = fields["link_wait_ms"]
    assert type(wait) is int and wait >= 0, f"link_wait_ms {wait!r} is no whole ms"
    assert fields.get("mode") != "correspondence", "a correspondence match states no wait"
    return wait


def waited_us(e: dict) -> int:
    """Microseconds from the roll's ``requested_at`` to its ``revealed_at`` (record times,
    ``YYYY-MM-DDTHH:MM:SS.ffffffZ``, UTC)."""
    spelled = "%Y-%m-%dT%H:%M:%S.%fZ"
    gap = datetime.strptime(e["revealed_at"], spelled) - datetime.strptime(e["requested_at"],
                                                                          spelled)
    return (gap.days * 86400 + gap.seconds) * 1_000_000 + gap.microseconds


# Spec §The record (v2), Times in the log: the record's time of the change a leaf stands for.
EVENT_TIMES = {"committed": "committed_at", "requested": "requested_at",
               "revealed": "revealed_at", "played": "played_at", "void": "voided_at"}


# Spec §The record (v2), A roll's leaves: what each change sets, beside the state.
SETS = {"committed": ["committed_at"],
        "requested": ["roller_entropy", "roller_source", "requested_at"],
        "revealed": ["server_seed", "opponent_entropy", "opponent_source", "dice",
                     "opponent_at", "revealed_at"],
        "played": ["played_at"], "void": ["voided_at"]}


def changes(e: dict) -> list[str]:
    """The roll's changes in the order of its life: one per time the record holds."""
    return [change for change in ("committed", "requested", "revealed", "played", "void")
            if e[EVENT_TIMES[change]] is not None]


def as_it_stood(e: dict, change: str) -> dict:
    """The entry right after ``change``: its state, the later changes' fields null."""
    life = changes(e)
    stood = {**e, "state": change}
    for later in life[life.index(change) + 1:]:
        for key in SETS[later]:
            stood[key] = None
    return stood


def log_time(record_time: str) -> str:
    """The leaf's ``at`` for a record time: ``…SS.ffffffZ`` as ``…SS.ffffff+00:00``, the
    fraction left out where it is ``000000``."""
    day_and_second, fraction = record_time[:19], record_time[19:26]
    return day_and_second + ("" if fraction == ".000000" else fraction) + "+00:00"


def roll_leaves(document: dict, e: dict, leaves: list[str] | None) -> list[tuple[int, dict]]:
    """The roll's leaves with their places in the log: from the log when given, else the ones
    the document lists."""
    if leaves is None:
        return [(entry["index"], json.loads(entry["leaf"])) for entry in e.get("log", [])]
    found = [(place, json.loads(leaf)) for place, leaf in enumerate(leaves)]
    return [(place, f) for place, f in found
            if f.get("match_id") == document["match_id"] and f.get("roll_id") == e["roll_id"]]


def as_record_time(value) -> str | None:
    """Spec §Checking the anchors (v2): a record time, or a leaf's ``at`` (``…+00:00``, the
    fraction left out where it is ``000000``) turned into one; ``None`` for any other
    spelling. Record times sort as the instants they name."""
    if not isinstance(value, str):
        return None
    if value.endswith("+00:00") and len(value) in (25, 32):
        value = value[:-6] + ("" if len(value) == 32 else ".000000") + "Z"
    shape = "dddd-dd-ddTdd:dd:dd.ddddddZ"
    if len(value) != len(shape):
        return None
    for char, wanted in zip(value, shape, strict=True):
        if not (char in "0123456789" if wanted == "d" else char == wanted):
            return None
    return value


def requested_after(requested_at: str, asked: int | None, anchor: tuple) -> bool:
    """Spec §Checking the anchors (v2), chain skipped: whether a roll was requested after
    its opponent's anchor ``(anchor, place, at)``: by the places in the log where the
    request has one (``asked``), else by the times, the request not before the anchor's
    ``at`` (or either time unreadable)."""
    if asked is not None:
        return asked > anchor[1]
    asked_at, accepted = as_record_time(requested_at), as_record_time(anchor[2])
    return asked_at is None or accepted is None or not asked_at < accepted


def check(document: dict, leaves: list[str] | None = None) -> list[str]:
    assert document["format"] == "boardgammon-audit-v2"
    match_id = document["match_id"]
    chains = list(document["anchors"])  # what each seat's next link must hash to
    used = [False, False]  # whether a roll fixed a link of each seat's chain yet
    logged = registered(document, leaves)
    wait = stated_wait(document, leaves)
    prev = "0" * 64
    verdicts = []
    for index, (e, k) in enumerate(zip(document["rolls"], steps(document), strict=True)):
        verdict = _check(match_id, index, e, prev, chains, used, k)
        opponent = logged.get(1 - e["seat"])
        own = roll_leaves(document, e, leaves)
        # Where the roll was requested: its first leaf after the commitment's.
        asked = min((place for place, f in own if f["event"] != "committed"), default=None)
        if (
            not verdict.startswith("bad")
            and opponent is not None
            and e["opponent_prev_link"] is None
            and e["requested_at"] is not None
            and requested_after(e["requested_at"], asked, opponent)
        ):
            verdict = "bad: chain skipped"
        for _, fields in own:
            recorded = e.get(EVENT_TIMES.get(fields["event"], ""))
            if not verdict.startswith("bad") and (
                recorded is None or fields["at"] != log_time(recorded)
            ):
                verdict = "bad: log time"
        # §The public log: the log came before v2 dice, so every v2 roll read against the log
        # has leaves from its commitment on.
        if (own or leaves is not None) and not verdict.startswith("bad"):
            if [f["event"] for _, f in own] != changes(e):
                verdict = "bad: log changes"
            elif any(f["entry_hash"] != entry_hash(match_id, as_it_stood(e, f["event"]))
                     for _, f in own):
                verdict = "bad: log hash"
        if (
            not verdict.startswith("bad")
            and index < len(document["rolls"]) - 1
            and e["state"] not in ("played", "void")
        ):
            # §The roll's life (v2): the next roll starts only after this one is played or
            # void, so only the last roll may still be open.
            verdict = "bad: left unresolved"
        if (
            not verdict.startswith("bad")
            and e["state"] == "void"
            and e["requested_at"] is not None
            and _same_game_rolls_on(e, document["rolls"][index + 1:])
        ):
            # §The roll's life (v2): a requested roll is voided only when its game or the
            # match ends, so the next roll, if any, is the next game's opening roll.
            verdict = "bad: void after request"
        if (
            not verdict.startswith("bad")
            and wait is not None
            and e["opponent_source"] == "absent"
            and waited_us(e) < wait * 1000
        ):
            # §The public log, Match leaf: an absent roll waited at least the stated wait.
            verdict = "bad: absent too early"
        verdicts.append(verdict)
        prev = entry_hash(match_id, e)
    if document["chain_head"] != prev:
        verdicts.append("bad: head")
    if any(document["anchors"][seat] != anchor for seat, (anchor, *_) in logged.items()):
        verdicts.append("bad: anchor missing")
    return verdicts


def _same_game_rolls_on(e: dict, later: list[dict]) -> bool:
    """Whether the roll after ``e`` is of ``e``'s game: after a normal roll, a normal roll
    (the next game begins with an opening roll); after an opening roll, any roll."""
    return bool(later) and (e["kind"] == "opening" or later[0]["kind"] == "normal")


def _check(match_id: str, index: int, e: dict, prev: str, chains: list, used: list,
           k) -> str:
    if e["seq"] != index:
        return "bad: seq"
    if e["prev_hash"] != prev or e["entry_hash"] != entry_hash(match_id, e):
        return "bad: chain"
    opponent = 1 - e["seat"]
    if e["opponent_prev_link"] is not None or used[opponent]:
        if e["opponent_prev_link"] != chains[opponent]:
            return "bad: opponent chain"
        used[opponent] = True
    shown = e.get("opponent_link_steps", k)
    if shown != k or (shown is not None and type(shown) is not int):  # JSON: no 1.0, no true
        return "bad: steps"
    link = e["opponent_entropy"]
    if link is not None:
        reached = bytes.fromhex(link)
        for _ in range(k or 1):
            reached = hashlib.sha256(reached).digest()
        if reached.hex() != e["opponent_prev_link"]:
            return "bad: link"
        chains[opponent] = link
    if e["state"] == "void":
        return (
            "void"
            if e["server_seed"] is None and link is None and e["dice"] is None
            else "bad: void after reveal"
        )
    if e["state"] in ("committed", "requested"):
        return "pending" if e["server_seed"] is None and e["dice"] is None else "bad: early"
    if e["roller_source"] not in ("client", "server"):
        return "bad: roller source"
    seed = bytes.fromhex(e["server_seed"])
    if hashlib.sha256(seed).hexdigest() != e["commitment"]:
        return "bad: commitment"
    expected_source = "client" if link else ("absent" if e["opponent_prev_link"] else "none")
    if e["opponent_source"] != expected_source:
        return "bad: opponent source"
    got = dice(
        seed,
        match_id,
        e["roll_id"],
        e["nonce"],
        e["kind"],
        bytes.fromhex(e["roller_entropy"]),
        _raw(link),
    )
    return "ok" if list(got) == e["dice"] else "bad: dice"
