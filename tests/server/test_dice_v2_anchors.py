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
    LOG_MISMATCH,
    _log_root,
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
            assert t("log.anchor_seat", seat=seat) in page
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
