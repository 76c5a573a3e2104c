"""Chain anchors in the public log (issue #25, ``docs/fair-dice.md`` §The public log, anchor
leaf): a server that accepted a device's anchor and then leaves it out of the record, rolling
``none`` for that seat, is caught by the package's verifier and by the independent one, both
reading the log; an honest match, over the API too, passes both."""

from __future__ import annotations

import html
import json
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import delete

from boardgammon.dice import new_match_id
from boardgammon.dice.transparency import (
    ProofError,
    check_log,
    check_match_complete,
    leaf_hash,
    verify_inclusion,
)
from boardgammon.dice.verify import (
    ANCHOR_MISSING,
    CHAIN_SKIPPED,
    LINK_MISMATCH,
    LOG_MISMATCH,
    _log_root,
    derive_dice_v2,
    entry_hash_v2,
    run,
    verify_document,
)
from boardgammon.server import dice_log
from boardgammon.server import dice_record_v2 as v2
from boardgammon.server.i18n import translator
from boardgammon.server.services import services
from boardgammon.server.tables import DiceAnchor
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device, play_match
from tests.server.test_audit_pages import client_for  # noqa: F401 (the fixture)

KEY = dice_log.LogKey(Ed25519PrivateKey.generate())


def audit(db, match_id: str) -> dict:
    with db.sessions() as s:
        return dice_log.with_log(s, KEY, v2.audit_document(s, match_id))


def leaves(db, size: int) -> list[str]:
    """The whole log up to ``size``, as ``GET /api/log/entries`` serves it."""
    with db.sessions() as s:
        return [
            e["leaf"]
            for start in range(0, size, dice_log.MAX_ENTRIES)
            for e in dice_log.entries(s, start, dice_log.MAX_ENTRIES)
        ][:size]


def whole_log(db, document: dict) -> list[str]:
    return leaves(db, document["log"]["head"]["tree_size"])


def dishonest_match(db, rolls: int = 6) -> str:
    """Both devices register their anchors (accepted, so logged); then the server forgets
    seat 1's and rolls every roll of seat 0 without seat 1's links (``none``)."""
    match_id, devices = new_match_id(), (Device(), Device())
    with db.sessions() as s:
        for seat, device in enumerate(devices):
            v2.register_anchor(s, match_id, seat, device.anchor)
        s.execute(delete(DiceAnchor).where(DiceAnchor.match_id == match_id,
                                           DiceAnchor.seat == 1))
        s.commit()
        for k in range(rolls):
            seat = k % 2
            roll = v2.commit_roll(s, match_id, seat, "opening" if k == 0 else "normal")
            roll = v2.request_roll(s, roll.roll_id, roll.commitment, bytes(16))
            if seat == 1:
                roll = v2.contribute(s, roll.roll_id, devices[0].next_link())
            else:
                roll = v2.reveal_without_opponent(s, roll.roll_id)
                assert roll.opponent_source == "none"
            v2.mark_played(s, roll.roll_id)
    return match_id


def late_anchor_match(db, request: str) -> tuple[str, int]:
    """Seat 1's device registers its anchor only during the match's third roll (seat 0's,
    committed without the chain); seven rolls, seats alternating. ``request`` says when that
    roll was requested: ``"before"`` the anchor came (it goes on without the chain: honest),
    ``"after"`` it (the server took the anchor and rolled without it: chain skipped), or
    ``"after, dated before"`` (its request a later leaf of the log than the anchor's, its
    ``requested_at`` written earlier than the anchor's time). From the fifth roll on seat 0's
    rolls take seat 1's links. Returns the ID and the third roll's ``seq``."""
    match_id, devices = new_match_id(), (Device(), Device())
    times = iter(datetime(2026, 12, 4, 12, 0, tzinfo=UTC) + timedelta(seconds=i)
                 for i in range(200))
    with db.sessions() as s:
        v2.register_anchor(s, match_id, 0, devices[0].anchor, now=next(times))
        for k in range(7):
            seat = k % 2
            roll = v2.commit_roll(s, match_id, seat, "opening" if k == 0 else "normal",
                                  now=next(times))
            entropy = bytes(16)
            if k != 2:
                roll = v2.request_roll(s, roll.roll_id, roll.commitment, entropy,
                                       now=next(times))
            elif request == "before":
                roll = v2.request_roll(s, roll.roll_id, roll.commitment, entropy,
                                       now=next(times))
                v2.register_anchor(s, match_id, 1, devices[1].anchor, now=next(times))
            else:
                dated = next(times)
                v2.register_anchor(s, match_id, 1, devices[1].anchor, now=next(times))
                roll = v2.request_roll(s, roll.roll_id, roll.commitment, entropy,
                                       now=dated if request == "after, dated before"
                                       else next(times))
            if roll.opponent_prev_link is not None:
                roll = v2.contribute(s, roll.roll_id, devices[1 - seat].next_link(),
                                     now=next(times))
            else:
                roll = v2.reveal_without_opponent(s, roll.roll_id, now=next(times))
            assert (roll.opponent_source == "none") == (seat == 0 and k <= 2)
            v2.mark_played(s, roll.roll_id, now=next(times))
    return match_id, 2


def rechained(document: dict, start: int) -> dict:
    """``document`` with the entries from ``start`` on hashed and chained anew (a server that
    rewrites its record consistently: only the published head or the log tells)."""
    rolls = [dict(r) for r in document["rolls"]]
    for index in range(start, len(rolls)):
        if index:
            rolls[index]["prev_hash"] = rolls[index - 1]["entry_hash"]
        rolls[index]["entry_hash"] = entry_hash_v2(document["match_id"], rolls[index])
    return {**document, "rolls": rolls, "chain_head": rolls[-1]["entry_hash"]}


def test_a_late_anchor_after_a_roll_already_requested_passes_every_verifier(database):
    """The roll requested before the anchor came keeps going without it (``none``); the
    chain is ``null`` until its first use, then continued: the server's verdict, verify.py
    (with and without the log) and the spec's verifier pass. The old rule (the anchor from
    the first roll on) failed it as an opponent link mismatch."""
    match_id, _ = late_anchor_match(database, "before")
    document = audit(database, match_id)
    log = whole_log(database, document)
    assert document["verified"] is True, document["failure"]
    assert [r["opponent_source"] for r in document["rolls"]] == [
        "none", "client", "none", "client", "client", "client", "client"]
    assert verify_document(document).ok and verify_document(document, log_leaves=log).ok
    for leaves_given in (None, log):
        assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document,
                                                                             leaves_given))


@pytest.mark.parametrize("request_", ["after", "after, dated before"])
def test_a_roll_requested_after_a_late_anchors_leaf_must_take_its_chain(database, request_):
    """The server took seat 1's late anchor, then let the roll it had committed without it be
    requested and revealed ``none`` (no void, no new commitment): chain skipped, judged by the
    leaves' order, in the server's verdict, verify.py (the document's leaves, or the whole
    log) and the spec's verifier, also where the roll's ``requested_at`` is dated before the
    anchor (the old rule compared times, and passed that roll; it failed the record anyway,
    at its first roll, as an opponent link mismatch, since the anchor was due from the
    start)."""
    match_id, skipped = late_anchor_match(database, request_)
    document = audit(database, match_id)
    log = whole_log(database, document)
    assert (document["verified"], document["failure"]["reason"],
            document["failure"]["index"]) == (False, CHAIN_SKIPPED, skipped)
    for leaves_given in (None, log):
        failure = verify_document(document, log_leaves=leaves_given).failure
        assert failure is not None and (failure.index, failure.verdict) == (skipped,
                                                                             CHAIN_SKIPPED)
        assert "seat 1's chain anchor" in failure.detail and "log entry" in failure.detail
        verdicts = spec_verifier_v2.check(document, leaves_given)
        assert verdicts[skipped] == "bad: chain skipped"
        assert not any(v.startswith("bad") for v in verdicts[:skipped])


@pytest.mark.parametrize(
    ("request_", "anchor_at", "skipped"),
    [("before", None, []), ("after", None, [2]), ("before", "yesterday", [0, 2])],
    ids=["requested-before", "requested-after", "anchor-time-unreadable"],
)
def test_without_the_requests_places_the_times_judge_a_late_anchor(database, request_,
                                                                   anchor_at, skipped):
    """A document whose rolls list no leaves, read without the log: a roll's request has no
    place, so both verifiers compare its ``requested_at`` with the anchor leaf's ``at``; a
    ``none`` roll requested not before the anchor (the late anchor's third roll, requested
    after it), or every ``none`` roll where the anchor's time cannot be read, is chain
    skipped, not passed unjudged (before this, both passed every roll here)."""
    match_id, _ = late_anchor_match(database, request_)
    document = audit(database, match_id)
    for entry in document["rolls"]:
        entry.pop("log")
    if anchor_at is not None:
        for listed in document["log"]["anchors"]:
            fields = json.loads(listed["leaf"])
            if fields["seat"] == 1:
                listed["leaf"] = json.dumps({**fields, "at": anchor_at})
    report = verify_document(document)
    assert [c.index for c in report.checks if c.failed] == skipped
    assert {c.verdict for c in report.checks if c.failed} <= {CHAIN_SKIPPED}
    assert all("requested_at" in c.detail for c in report.checks if c.failed)
    verdicts = spec_verifier_v2.check(document)
    assert [i for i, v in enumerate(verdicts) if v.startswith("bad")] == skipped
    assert {v for v in verdicts if v.startswith("bad")} <= {"bad: chain skipped"}


def test_a_chain_once_used_must_be_continued(database):
    """After a seat's chain was first used, a roll with that seat as the opponent that fixes
    no link of it (rewritten as ``none``, its dice derived anew and the record re-chained) is
    an opponent link mismatch in both verifiers; the old rule caught it the same way."""
    match_id, _ = late_anchor_match(database, "before")
    document = audit(database, match_id)
    last = len(document["rolls"]) - 1
    entry = dict(document["rolls"][last])
    assert entry["seat"] == 0 and entry["opponent_prev_link"] is not None
    entry.update(opponent_prev_link=None, opponent_entropy=None, opponent_at=None,
                 opponent_source="none", opponent_link_steps=None)
    entry["dice"] = list(derive_dice_v2(
        bytes.fromhex(entry["server_seed"]), match_id, entry["roll_id"], entry["nonce"],
        entry["kind"], bytes.fromhex(entry["roller_entropy"]), None))
    document["rolls"][last] = entry
    forged = rechained(document, last)
    forged.pop("log")
    failure = verify_document(forged).failure
    assert failure is not None and (failure.index, failure.verdict) == (last, LINK_MISMATCH)
    assert spec_verifier_v2.check(forged)[last] == "bad: opponent chain"


def test_a_rows_program_judges_a_late_anchor_by_the_logs_order(
    client_for, database_url, tmp_path  # noqa: F811
):
    client = client_for(database_url)
    for request_, verdict in (("before", "ok: "), ("after, dated before",
                                                   "FAILED: chain skipped")):
        match_id, skipped = late_anchor_match(services(client.app).db, request_)
        roll_id = client.get(f"/api/audit/{match_id}").json()["rolls"][skipped]["roll_id"]
        program = client.get(f"/api/audit/{match_id}/rolls/{roll_id}/verify.py").text
        (tmp_path / "roll.py").write_text(program)
        done = subprocess.run([sys.executable, "-I", "-S", "roll.py"], capture_output=True,
                              text=True, cwd=tmp_path)
        assert (done.stderr + done.stdout).startswith(verdict), done.stderr + done.stdout


def test_each_accepted_anchor_is_a_leaf_written_with_it(database):
    match_id, device = new_match_id(), Device()
    with database.sessions() as s:
        before = dice_log.size(s)
        v2.register_anchor(s, match_id, 0, device.anchor, commit=False)
        s.rollback()  # the anchor refused after all: no leaf either
        assert dice_log.size(s) == before and v2.anchors(s, match_id) == [None, None]
        v2.register_anchor(s, match_id, 0, device.anchor)
        with pytest.raises(v2.AnchorRegistered):
            v2.register_anchor(s, match_id, 0, Device().anchor)
        assert dice_log.size(s) == before + 1
        leaf = json.loads(dice_log.entries(s, before, 1)[0]["leaf"])
    assert {k: leaf[k] for k in ("event", "format", "match_id", "seat", "anchor")} == {
        "event": "anchor",
        "format": "boardgammon-log-v1",
        "match_id": match_id,
        "seat": 0,
        "anchor": device.anchor.hex(),
    }


def test_the_audit_document_proves_each_anchor_under_its_head(database):
    devices = (Device(), Device())
    match_id = play_match(database, 6, devices, absent_every=3)
    document = audit(database, match_id)
    logged = document["log"]["anchors"]
    assert [json.loads(e["leaf"])["anchor"] for e in logged] == [d.anchor.hex() for d in devices]
    head = document["log"]["head"]
    for entry in logged:
        verify_inclusion(entry["index"], head["tree_size"], leaf_hash(entry["leaf"].encode()),
                         [bytes.fromhex(h) for h in entry["inclusion_path"]],
                         bytes.fromhex(head["root_hash"]))
    check_log(document)
    log = whole_log(database, document)
    check_match_complete(document, log)
    # Honest, with absent rolls (their links used up): both verifiers pass, with the log.
    assert verify_document(document, log_leaves=log).ok
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(document, log))
    # Left out of the document, an anchor leaf is still in the log: --scan names it.
    with pytest.raises(ProofError, match=f"log entry {logged[1]['index']}"):
        check_match_complete({**document, "log": {**document["log"], "anchors": logged[:1]}}, log)
    # A listed anchor leaf that is not the seat's anchor in the record fails the log check.
    forged = {**document, "anchors": [document["anchors"][0], "00" * 32]}
    with pytest.raises(ProofError, match="anchor"):
        check_log(forged)


def test_a_server_that_drops_an_accepted_anchor_and_rolls_none_is_caught(database):
    match_id = dishonest_match(database)
    document = audit(database, match_id)
    log = whole_log(database, document)
    # The record alone, the anchor's leaf left out of it too, hides the hole ...
    hidden = {**document, "log": {**document["log"], "anchors": []}}
    assert hidden["anchors"][1] is None and verify_document(hidden).ok
    assert not any(v.startswith("bad") for v in spec_verifier_v2.check(hidden))
    # ... the log does not: the first roll of seat 0 requested after it took no link.
    for shown in (document, hidden):
        failure = verify_document(shown, log_leaves=log).failure
        assert failure is not None and (failure.index, failure.verdict) == (0, CHAIN_SKIPPED)
        assert "seat 1's chain anchor" in failure.detail and "public log entry" in failure.detail
        assert spec_verifier_v2.check(shown, log)[0] == "bad: chain skipped"
    # Where the document lists the leaf, it fails without reading the log.
    assert verify_document(document).failure.verdict == CHAIN_SKIPPED
    # Leaves that are not the signed head's (one left out) prove nothing.
    failure = verify_document(hidden, log_leaves=log[:-1]).failure
    assert failure is not None and failure.verdict == LOG_MISMATCH
    with pytest.raises(AssertionError):
        spec_verifier_v2.check(hidden, log[:-1])


def test_an_anchor_left_out_before_any_roll_used_it_is_missing(database):
    # Seat 1 registered; the server forgot it and seat 1 only rolled since (its chain was
    # never due): no roll is wrong, but the record lacks the anchor the log holds.
    match_id, device = new_match_id(), Device()
    with database.sessions() as s:
        v2.register_anchor(s, match_id, 1, device.anchor)
        s.execute(delete(DiceAnchor).where(DiceAnchor.match_id == match_id))
        s.commit()
        roll = v2.commit_roll(s, match_id, 1, "normal")
        v2.void_roll(s, roll.roll_id)
    document = audit(database, match_id)
    failure = verify_document(document, log_leaves=whole_log(database, document)).failure
    assert failure is not None and failure.verdict == ANCHOR_MISSING
    assert spec_verifier_v2.check(document, whole_log(database, document))[-1] == (
        "bad: anchor missing"
    )


def test_the_stack_root_agrees_with_the_rfc_recursion(database):
    play_match(database, 3, (Device(), Device()))
    with database.sessions() as s:
        size = dice_log.size(s)
    log = leaves(database, size)
    with database.sessions() as s:
        for n in range(size + 1):
            assert _log_root(log[:n]) == dice_log.root(s, n)


def test_an_honest_match_over_the_api_passes_both_verifiers_with_the_log(
    client_for, database_url, tmp_path  # noqa: F811
):
    client = client_for(database_url)
    match_id = play_match(services(client.app).db, 8, (Device(), Device()), absent_every=4)
    document = client.get(f"/api/audit/{match_id}").json()
    size = document["log"]["head"]["tree_size"]
    log = [e["leaf"] for start in range(0, size, 1000)
           for e in client.get(f"/api/log/entries?start={start}&count=1000").json()][:size]
    assert len(document["log"]["anchors"]) == 2
    assert spec_verifier_v2.check(document, log) == ["ok"] * 8
    proofs = client.get(f"/api/audit/{match_id}/anchors").json()
    assert proofs["anchors"] == document["log"]["anchors"]
    # The downloaded verifier, alone, with the log's entries in a file.
    (tmp_path / "verify.py").write_text(client.get("/audit/verify.py").text)
    (tmp_path / "audit.json").write_text(json.dumps(document))
    (tmp_path / "log.json").write_text(json.dumps([{"index": i, "leaf": leaf}
                                                   for i, leaf in enumerate(log)]))
    done = subprocess.run(
        [sys.executable, "-I", "-S", "verify.py", "audit.json", "--log", "log.json"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every roll and chain anchor of the match" in done.stdout
    # The page lists each seat's anchor with its leaf, and how to check them all, in each
    # language.
    for lang in ("en", "de", "ja"):
        page = html.unescape(client.get(f"/audit/{match_id}?lang={lang}").text)
        t = translator(lang)
        for entry in document["log"]["anchors"]:
            seat, anchor = json.loads(entry["leaf"])["seat"], json.loads(entry["leaf"])["anchor"]
            assert f'data-anchor-seat="{seat}"' in page and anchor in page
            # A record without a match has no players: the row names the seat.
            assert t("log.anchor_seat", seat=seat) in page
            # The leaf's place is said, not left a bare number.
            assert f'{t("log.entry_n", index=entry["index"])}: {t("log.event.anchor")}' in page
        assert "verify.py" in page and "--log</code>" in page
    # The same document with seat 1's anchor and its leaf taken out, and the log: caught.
    document["anchors"][1] = None
    document["log"]["anchors"] = document["log"]["anchors"][:1]
    (tmp_path / "audit.json").write_text(json.dumps(document))
    lines: list[str] = []
    assert run(str(tmp_path / "audit.json"), log=str(tmp_path / "log.json"),
               out=lines.append) == 1
    assert f"FAIL: roll {document['rolls'][0]['roll_id']} (#0): opponent link mismatch" in (
        lines[-1]
    )


def test_a_rows_program_catches_a_roll_that_skipped_a_logged_anchor(
    client_for, database_url, tmp_path  # noqa: F811
):
    client = client_for(database_url)
    match_id = dishonest_match(services(client.app).db, rolls=2)
    document = client.get(f"/api/audit/{match_id}").json()
    for entry, verdict in zip(document["rolls"], ("FAILED: chain skipped", "ok: "), strict=True):
        program = client.get(f"/api/audit/{match_id}/rolls/{entry['roll_id']}/verify.py").text
        (tmp_path / "roll.py").write_text(program)
        done = subprocess.run([sys.executable, "-I", "-S", "roll.py"], capture_output=True,
                              text=True, cwd=tmp_path)
        assert (done.stderr + done.stdout).startswith(verdict), done.stderr + done.stdout


def test_verify_py_reads_the_log_from_the_documents_server(database):
    """``python3 verify.py URL --log`` pages through ``GET /api/log/entries`` (1000 at a
    time) of the server that serves the document: a stand-in server here, serving a record
    whose accepted anchor was left out, then the same with the anchor's leaf not in its log."""
    match_id = dishonest_match(database)
    document = audit(database, match_id)
    document["log"]["anchors"] = []
    log = whole_log(database, document)
    served = {"log": log}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (the standard library's name)
            url = urlsplit(self.path)
            if url.path == f"/api/audit/{match_id}":
                body = document
            else:
                query = parse_qs(url.query)
                start, count = int(query["start"][0]), int(query["count"][0])
                assert count <= 1000
                body = [{"index": i, "leaf": leaf} for i, leaf in
                        enumerate(served["log"][start:start + count], start)]
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/api/audit/{match_id}"
        lines: list[str] = []
        assert run(url, out=lines.append) == 0  # the record alone looks whole
        lines.clear()
        assert run(url, log="", out=lines.append) == 1
        assert lines[-1].startswith(f"FAIL: roll {document['rolls'][0]['roll_id']} (#0): "
                                    f"{CHAIN_SKIPPED}: seat 1's chain anchor")
        # A log served without the anchor's leaf no longer makes the signed head.
        served["log"] = [leaf for leaf in log if json.loads(leaf)["event"] != "anchor"]
        lines.clear()
        assert run(url, log="", out=lines.append) == 1
        assert LOG_MISMATCH in lines[-1]
    finally:
        server.shutdown()


def test_a_rows_program_names_a_hex_value_of_the_wrong_shape(
    client_for, database_url, tmp_path  # noqa: F811
):
    """A new user's trial (2026-12-06): a roll's program edited to a roller entropy of 31 hex
    characters or with a non-hex one ended in a traceback, and one of 17 bytes in "the dice
    are …" only; each is named now."""
    client = client_for(database_url)
    match_id, skipped = late_anchor_match(services(client.app).db, "before")
    roll = client.get(f"/api/audit/{match_id}").json()["rolls"][skipped]
    program = client.get(f"/api/audit/{match_id}/rolls/{roll['roll_id']}/verify.py").text
    entropy = roll["roller_entropy"]
    assert f"{entropy!r}" in program
    for edited in (entropy[:31], "zz" + entropy[2:], entropy + "ab"):
        (tmp_path / "roll.py").write_text(program.replace(f"{entropy!r}", f"{edited!r}", 1))
        done = subprocess.run([sys.executable, "-I", "-S", "roll.py"], capture_output=True,
                              text=True, cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.strip() == (
            f"FAILED: roller_entropy is not 16 bytes in hex (32 characters 0-9, a-f): "
            f"{edited!r}"), done.stderr
