"""The public log over the API, on SQLite and PostgreSQL: every change of every roll is a leaf,
in the same transaction as the change; the signed head verifies with the published key and its
root is the RFC 9162 root of the leaves as served; every inclusion and consistency proof the
server gives verifies; the audit JSON carries a verifying inclusion proof for each change; bad
requests are refused with their codes and change nothing; the key file is made once, 0600.
And the checker, ``transparency.py``: input that is no document exits 2 naming the problem, a
document is checked by its content whatever its label says, and ``--scan`` checks the document
against the server's newest signed head (SQLite: the checker is the same on both)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from boardgammon.dice import transparency, verify
from boardgammon.dice.transparency import (
    DocumentError,
    ProofError,
    check_log,
    cosigned_bytes,
    head_bytes,
    leaf_hash,
    root_of,
    signed_head_bytes,
    verify_consistency,
    verify_ed25519,
    verify_inclusion,
)
from boardgammon.server.dice_log import LogKey
from boardgammon.server.services import services
from tests.helpers.dice_v2 import Device, play_match
from tests.helpers.servers import serving_in_thread
from tests.server.gameplay import Player, live_match, make_app, step


@pytest.fixture
def client(database_url, tmp_path, monkeypatch):
    # The key's default place, ./var/log-signing-key.pem, under this test's folder.
    monkeypatch.chdir(tmp_path)
    with TestClient(make_app(database_url)) as client:
        yield client


def played(client: TestClient, steps: int) -> tuple[dict[int, Player], str]:
    players = {0: Player.register(client, "alice"), 1: Player.register(client, "bob")}
    match_id = live_match(players[0], players[1])
    for _ in range(steps):
        step(players, match_id)
    return players, match_id


def get(client: TestClient, path: str, status: int = 200):
    r = client.get(path)
    assert r.status_code == status, r.text
    return r.json()


def all_leaves(client: TestClient) -> list[str]:
    return [e["leaf"] for e in get(client, "/api/log/entries?start=0&count=1000")]


def test_every_change_of_every_roll_is_a_leaf_under_a_signed_head(client, tmp_path):
    players, match_id = played(client, 9)
    audit = get(client, f"/api/audit/{match_id}")
    leaves = all_leaves(client)
    key = bytes.fromhex(get(client, "/api/log/public-key")["public_key"])
    head = get(client, "/api/log/head")
    assert head["tree_size"] == len(leaves)
    assert verify_ed25519(key, bytes.fromhex(head["signature"]), signed_head_bytes(head))
    assert bytes.fromhex(head["root_hash"]) == root_of([leaf_hash(x.encode()) for x in leaves])
    # Each roll's entries say its states in order: committed, then revealed and played (or
    # void); the newest is the roll's state now.
    expected = {
        "played": ["committed", "revealed", "played"],
        "void": ["committed", "void"],
        "revealed": ["committed", "revealed"],
        "committed": ["committed"],
    }
    for roll in audit["rolls"]:
        events = [entry["leaf"] for entry in roll["log"]]
        assert [leaf.split('"event":"')[1].split('"')[0] for leaf in events] == expected[
            roll["state"]
        ]
    assert sum(len(r["log"]) for r in audit["rolls"]) == len(leaves)
    assert len(audit["rolls"]) >= 5
    # The audit JSON's proofs verify against its head, signature checked.
    assert audit["log"]["head"]["tree_size"] == len(leaves)
    lines = check_log(audit)
    assert "signature verified" in lines[0]
    # The checker as served, copied out and run on the standard library alone (-I -S: no
    # PYTHONPATH, no site packages, so no cryptography): it checks the signature all the
    # same, by its own RFC 8032 arithmetic (it said "not checked" until an audit showed the
    # standard library is enough), and a head signed by another key fails.
    checker = tmp_path / "transparency.py"
    checker.write_text(client.get("/audit/transparency.py").text)
    saved = tmp_path / "audit.json"

    def run_checker(document: dict) -> subprocess.CompletedProcess:
        saved.write_text(json.dumps(document))
        return subprocess.run([sys.executable, "-I", "-S", str(checker), str(saved)],
                              capture_output=True, text=True, timeout=60, check=False)

    run = run_checker(audit)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"signature verified with the document's key {audit['log']['public_key']}" in run.stdout
    size = len(leaves)
    assert f"{size} log entries of its rolls included in the tree of size {size}" in run.stdout
    forged = json.loads(json.dumps(audit))
    forged["log"]["public_key"] = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    run = run_checker(forged)
    assert run.returncode == 1 and "signature does not verify" in run.stdout, run.stdout
    bent = json.loads(json.dumps(audit))
    bent["rolls"][0]["log"][0]["inclusion_path"][0] = "00" * 32
    run = run_checker(bent)
    assert run.returncode == 1 and run.stdout.startswith("FAILED: leaf"), run.stdout
    # A roll rewritten after its last leaf (entropy, dice and chain re-hashed) is caught.
    rewritten = {**audit["rolls"][0], "entry_hash": "ee" * 32}
    with pytest.raises(ProofError, match="its last log entry says"):
        check_log({**audit, "rolls": [rewritten, *audit["rolls"][1:]]})
    # A leaf rewritten in the document no longer verifies.
    entry = audit["rolls"][1]["log"][0]
    entry["leaf"] = entry["leaf"].replace('"seat":', '"seat": ')
    with pytest.raises(ProofError):
        check_log(audit)


def test_the_checker_given_the_published_key_refuses_a_head_signed_by_another(
        client, tmp_path):
    """A document whose head a second key signed verifies with the key it carries; given the
    key published at the fixed address (``--key``), the checker refuses it, the served file
    run on the standard library alone as a user would."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    _, match_id = played(client, 5)
    audit = get(client, f"/api/audit/{match_id}")
    published = get(client, "/api/log/public-key")["public_key"]
    assert audit["log"]["public_key"] == published
    other = Ed25519PrivateKey.generate()
    forged = json.loads(json.dumps(audit))
    head = forged["log"]["head"]
    head["signature"] = other.sign(signed_head_bytes(head)).hex()
    forged["log"]["public_key"] = other.public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw).hex()
    assert "signature verified" in check_log(forged)[0]  # its own key: nothing to see
    with pytest.raises(ProofError, match="is not the key given"):
        check_log(forged, published)
    assert "(the key given)" in check_log(audit, published.upper())[0]
    checker = tmp_path / "transparency.py"
    checker.write_text(client.get("/audit/transparency.py").text)

    def run_checker(document: dict, *args: str) -> subprocess.CompletedProcess:
        saved = tmp_path / "audit.json"
        saved.write_text(json.dumps(document))
        return subprocess.run([sys.executable, "-I", "-S", str(checker), str(saved), *args],
                              capture_output=True, text=True, timeout=60, check=False)

    run = run_checker(forged, "--key", published)
    assert run.returncode == 1 and "is not the key given" in run.stdout, run.stdout
    run = run_checker(audit, "--key", published)
    assert run.returncode == 0 and "(the key given)" in run.stdout, run.stdout + run.stderr
    run = run_checker(forged)
    assert run.returncode == 0 and "or give that key as --key" in run.stdout
    run = run_checker(audit, "--key", "zz" * 32)
    assert run.returncode == 2 and "64 hex digits" in run.stderr


def test_every_proof_the_server_gives_verifies(client):
    played(client, 5)
    leaves = all_leaves(client)
    n = len(leaves)
    assert n >= 7
    # The log's first page without a start (a plain GET, as a new user's curl makes it).
    assert [e["leaf"] for e in get(client, "/api/log/entries")] == leaves[:100]
    assert get(client, "/api/log/entries?count=2") == get(client,
                                                           "/api/log/entries?start=0&count=2")
    hashes = [leaf_hash(x.encode()) for x in leaves]
    for size in range(1, n + 1):
        root = root_of(hashes[:size])
        for index in range(size):
            proof = get(client, f"/api/log/proof/inclusion?index={index}&tree_size={size}")
            assert proof["leaf"] == leaves[index]
            path = [bytes.fromhex(p) for p in proof["inclusion_path"]]
            verify_inclusion(index, size, hashes[index], path, root)
        for first in range(1, size + 1):
            proof = get(client, f"/api/log/proof/consistency?first={first}&second={size}")
            path = [bytes.fromhex(p) for p in proof["consistency_path"]]
            verify_consistency(first, size, root_of(hashes[:first]), root, path)


def test_bad_requests_are_refused_and_change_nothing(client):
    players, match_id = played(client, 2)
    while players[0].state(match_id)["pending_roll"] is None:  # a tied opening roll, say
        step(players, match_id)
    n = get(client, "/api/log/head")["tree_size"]
    assert (
        get(client, f"/api/log/proof/inclusion?index={n}&tree_size={n}", 422)["error"]["code"]
        == "invalid_request"
    )
    assert (
        get(client, f"/api/log/proof/inclusion?index=0&tree_size={n + 1}", 404)["error"]["message"]
        == f"the log has {n} entries, not {n + 1}"
    )
    assert (
        get(client, "/api/log/proof/consistency?first=3&second=2", 422)["error"]["code"]
        == "invalid_request"
    )
    assert (
        get(client, "/api/log/proof/consistency?first=0&second=2", 422)["error"]["code"]
        == "invalid_request"
    )
    assert (
        get(client, "/api/log/proof/inclusion?index=-1&tree_size=2", 422)["error"]["code"]
        == "invalid_request"
    )
    # A reveal refused (the commitment is not the one issued) adds no leaf.
    seat = players[0].state(match_id)["turn"]
    r = players[seat].act(
        match_id,
        "roll",
        **players[seat].roll_action(players[seat].state(match_id), commitment="00" * 32),
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "commitment_mismatch"
    assert len(all_leaves(client)) == n
    # A co-signature that does not verify is refused and not stored.
    witness = LogKey.load_or_create(Path("witness.pem"))
    head = get(client, "/api/log/head")
    body = {
        "tree_size": head["tree_size"],
        "witness_key": witness.public_key.hex(),
        "signature": witness.sign(b"something else").hex(),
    }
    r = client.post("/api/log/witness", json=body)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_signature"
    assert get(client, "/api/log/witnesses") == []
    r = client.post("/api/log/witness", json={**body, "tree_size": n + 50})
    assert r.status_code == 404
    # A good one is stored (twice is once) and shown with its head.
    body["signature"] = witness.sign(cosigned_bytes(head)).hex()
    for _ in range(2):
        r = client.post("/api/log/witness", json=body)
        assert r.status_code == 201, r.text
    shown = get(client, "/api/log/witnesses")
    assert [(s["head"], s["witness_key"]) for s in shown] == [(head, body["witness_key"])]


def test_the_key_is_made_once_owner_only_and_kept(database_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with TestClient(make_app(database_url)) as client:
        first = get(client, "/api/log/public-key")["public_key"]
    path = tmp_path / "var" / "log-signing-key.pem"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert list(path.parent.glob(".log-signing-key.pem.*")) == []
    with TestClient(make_app(database_url)) as client:
        assert get(client, "/api/log/public-key")["public_key"] == first
    os.chmod(path, 0o644)
    with pytest.raises(PermissionError, match="chmod 600"):
        LogKey.load_or_create(path)


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_the_audit_page_and_fair_show_the_head_the_proofs_and_the_key(client, lang):
    _, match_id = played(client, 3)
    audit = get(client, f"/api/audit/{match_id}")
    page = client.get(f"/audit/{match_id}?lang={lang}")
    assert page.status_code == 200
    head = audit["log"]["head"]
    assert f'<td class="hex" id="log-root-hash">{head["root_hash"]}</td>' in page.text
    assert f'<td class="hex" id="log-signature">{head["signature"]}</td>' in page.text
    # The signing time as people read it, UTC, with the signed milliseconds beside it.
    signed = datetime.fromtimestamp(head["timestamp"] / 1000, UTC)
    assert (f'<td id="log-timestamp">{signed:%Y-%m-%d %H:%M:%S}.{head["timestamp"] % 1000:03d} '
            f'UTC <span class="ms">({head["timestamp"]} ms)</span></td>') in page.text
    # Each roll's row links to its leaves' proofs (the page shows them when it is opened).
    logged = [r for r in audit["rolls"] if r["log"]]
    assert page.text.count('<a class="log-proof"') == len(logged) == len(audit["rolls"])
    for roll in logged:
        url = f"/api/audit/{match_id}/rolls/{roll['roll_id']}/proof"
        assert f'href="{url}"' in page.text
        assert get(client, url)["roll"]["log"] == roll["log"]
    assert "python3 transparency.py" in page.text
    key = get(client, "/api/log/public-key")["public_key"]
    fair = client.get(f"/fair?lang={lang}")
    assert f"<code>{key}</code>" in fair.text
    checker = client.get("/audit/transparency.py")
    assert checker.status_code == 200 and "def verify_consistency" in checker.text


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", f"/api/log/entries?start={2**63}&count=1", None),
        ("GET", f"/api/log/entries?start={2**63 - 1}&count=2", None),
        ("GET", f"/api/log/proof/inclusion?index=0&tree_size={2**64}", None),
        ("GET", f"/api/log/proof/consistency?first=1&second={10**30}", None),
        ("POST", "/api/log/witness", {"tree_size": 10**23}),
    ],
)
def test_numbers_beyond_any_log_are_refused_not_a_server_error(client, method, path, body):
    # An index or size no 64-bit database column holds was passed on to SQL and came back as
    # a 500 (SQLite: "Python int too large to convert to SQLite INTEGER").
    if body is not None:
        body = {**body, "witness_key": "ab" * 32, "signature": "00" * 64}
    r = client.request(method, path, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid_request"
    assert f"expected at most {2**62}, got " in r.json()["error"]["message"]
    assert get(client, "/api/log/witnesses") == []


@pytest.mark.parametrize("content", [b"not a key\n", b""])
def test_a_key_file_that_holds_no_key_is_refused_naming_the_file_and_the_setting(
    tmp_path, content
):
    # cryptography's own "Unable to load PEM file. See https://cryptography.io/…" named
    # neither the file nor what to do.
    path = tmp_path / "log-signing-key.pem"
    path.write_bytes(content)
    os.chmod(path, 0o600)
    with pytest.raises(ValueError, match="BOARDGAMMON_LOG_KEY") as caught:
        LogKey.load_or_create(path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == content


# The checker's input, its labels and its scan (an outside audit of transparency.py, issue #25).


def run_main(capsys, *args: str) -> tuple[int, str, str]:
    """``transparency.main(args)``: its exit status, standard output and standard error."""
    status = transparency.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def check_file(tmp_path, capsys, document: object, *args: str) -> tuple[int, str, str]:
    saved = tmp_path / "document.json"
    saved.write_text(json.dumps(document))
    return run_main(capsys, str(saved), *args)


@pytest.fixture
def documents(sqlite_url, tmp_path, monkeypatch) -> dict:
    """A v1 match's audit document, a v2 match's, and the proof of the v2 match's second
    roll, as the server serves them."""
    monkeypatch.chdir(tmp_path)
    with TestClient(make_app(sqlite_url)) as client:
        _, v1_match = played(client, 5)
        v2_match = play_match(services(client.app).db, 4, (Device(), Device()))
        v2 = get(client, f"/api/audit/{v2_match}")
        proof = get(client, f"/api/audit/{v2_match}/rolls/{v2['rolls'][1]['roll_id']}/proof")
        return {"v1": get(client, f"/api/audit/{v1_match}"), "v2": v2, "proof": proof}


def without(document: dict, path: tuple) -> dict:
    """A deep copy of ``document`` without the field at ``path`` (keys and list indexes)."""
    copy = json.loads(json.dumps(document))
    *parents, last = path
    node = copy
    for key in parents:
        node = node[key]
    del node[last]
    return copy


def replaced(document: dict, path: tuple, value: object) -> dict:
    copy = json.loads(json.dumps(document))
    *parents, last = path
    node = copy
    for key in parents:
        node = node[key]
    node[last] = value
    return copy


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: without(d, ("rolls",)), "rolls is missing (an array of rolls)"),
        (lambda d: without(d, ("match_id",)), "match_id is missing"),
        (lambda d: without(d, ("log",)), "log is missing (an object (the log section))"),
        (lambda d: without(d, ("log", "head", "tree_size")), "log.head.tree_size is missing"),
        (lambda d: without(d, ("rolls", 1, "log", 0, "inclusion_path")),
         "rolls[1].log[0].inclusion_path is missing (an array of hashes)"),
        (lambda d: without(d, ("rolls", 0, "seat")), "rolls[0].seat is missing"),
        (lambda d: replaced(d, ("log",), []), "log is an array, not an object (the log section)"),
        (lambda d: replaced(d, ("rolls", 0), 5), "rolls[0] is 5, not an object (a roll)"),
        (lambda d: replaced(d, ("log", "head", "root_hash"), "zz"),
         "log.head.root_hash is the string 'zz', not a hash (64 hex digits)"),
        (lambda d: replaced(d, ("log", "head", "tree_size"), 2**64),
         f"log.head.tree_size is {2**64}, not an integer >= 0"),
        (lambda d: replaced(d, ("rolls", 1, "log", 0, "index"), "0"),
         "rolls[1].log[0].index is the string '0', not a leaf's index"),
        (lambda d: replaced(d, ("rolls", 1, "log", 0, "inclusion_path"), ["00"]),
         "rolls[1].log[0].inclusion_path[0] is the string '00', not a hash (64 hex digits)"),
        (lambda d: replaced(d, ("log", "public_key"), None),
         "log.public_key is null, not an Ed25519 key (64 hex digits)"),
    ],
)
def test_a_field_missing_or_malformed_exits_2_naming_it(documents, tmp_path, capsys, change,
                                                        said):
    """Found by an outside audit: a missing key said ``FAILED: 'rolls'`` with exit status 1
    (the status of a failed check), a malformed hash ``FAILED: non-hexadecimal number``."""
    status, out, err = check_file(tmp_path, capsys, change(documents["v1"]))
    assert (status, out) == (2, ""), out + err
    assert err.startswith("not a document this checker reads (") and said in err, err
    assert err.count("\n") == 1
    with pytest.raises(DocumentError, match=re.escape(said)):
        check_log(change(documents["v1"]))


def test_a_document_is_checked_by_its_content_not_its_label(documents, tmp_path, capsys):
    """Found by an outside audit: the checker chose its rules by the document's ``format``,
    so a v2 document labelled v1 (or with a label it did not know) was checked by v1's
    rules, which pass a roll whose leaves do not begin with its commitment. A label that the
    fields contradict, or that the checker does not know, is refused (exit status 2)."""
    v1, v2, proof = documents["v1"], documents["v2"], documents["proof"]
    assert check_file(tmp_path, capsys, v1)[0] == check_file(tmp_path, capsys, v2)[0] == 0
    assert check_file(tmp_path, capsys, proof)[0] == 0
    # The first roll's commitment leaf taken away: the v2 rules fail it ...
    stripped = json.loads(json.dumps(v2))
    stripped["rolls"][0]["log"] = stripped["rolls"][0]["log"][1:]
    status, out, _ = check_file(tmp_path, capsys, stripped)
    assert status == 1 and "has no log entry of its commitment" in out, out
    # ... labelled v1, or with a label the checker does not know, it passed (exit 0): now
    # refused, naming what contradicts the label.
    refused = [
        ({**stripped, "format": "boardgammon-audit-v3"},
         "format is the string 'boardgammon-audit-v3', not one of boardgammon-audit-v1, "
         "boardgammon-audit-v2, boardgammon-roll-proof-v1"),
        ({**stripped, "format": "boardgammon-audit-v1"},
         "its format is boardgammon-audit-v1, but its dice_spec is the string "
         "'boardgammon-dice-v2', not 'boardgammon-dice-v1'"),
        ({**stripped, "format": "boardgammon-audit-v1", "dice_spec": "boardgammon-dice-v1",
          "record_spec": "boardgammon-record-v1"},
         "its format is boardgammon-audit-v1, but it holds anchors, counts, which only a "
         "boardgammon-audit-v2 document has"),
        ({k: v for k, v in stripped.items() if k not in ("anchors", "counts", "dice_spec",
                                                         "record_spec")}
         | {"format": "boardgammon-audit-v1"},
         f"its format is boardgammon-audit-v1, but roll {v2['rolls'][0]['roll_id']} "
         "(rolls[0]) holds kind, roller_entropy, roller_source, opponent_prev_link, "
         "opponent_entropy, opponent_source, requested_at, opponent_at, the fields of a "
         "boardgammon-audit-v2 roll"),
        ({**v1, "format": "boardgammon-audit-v2", "dice_spec": "boardgammon-dice-v2",
          "record_spec": "boardgammon-record-v2"},
         f"its format is boardgammon-audit-v2, but roll {v1['rolls'][0]['roll_id']} "
         "(rolls[0]) holds client_entropy, entropy_source, the fields of a "
         "boardgammon-audit-v1 roll"),
        ({**proof, "record_format": "boardgammon-audit-v1",
          "roll": {**proof["roll"], "log": proof["roll"]["log"][1:]}},
         f"its record_format is boardgammon-audit-v1, but roll {proof['roll']['roll_id']} "
         "(roll) holds kind"),
        ({**proof, "record_format": "boardgammon-audit-v9"},
         "record_format is the string 'boardgammon-audit-v9', not one of "
         "boardgammon-audit-v1, boardgammon-audit-v2"),
        ({**v1, "rolls": [{k: v for k, v in roll.items() if k != "entropy_source"}
                          for roll in v1["rolls"]]},
         f"its format is boardgammon-audit-v1, but roll {v1['rolls'][0]['roll_id']} "
         "(rolls[0]) lacks entropy_source, which every boardgammon-audit-v1 roll has"),
    ]
    for document, said in refused:
        status, out, err = check_file(tmp_path, capsys, document)
        assert (status, out) == (2, ""), out + err
        assert said in err and err.count("\n") == 1, err
    # Rewritten whole into a v1 document's fields, its leaves still say what it is: a v1
    # roll is never requested.
    as_v1 = {k: v for k, v in stripped.items() if k not in ("anchors", "counts")} | {
        "format": "boardgammon-audit-v1", "dice_spec": "boardgammon-dice-v1",
        "record_spec": "boardgammon-record-v1",
        "rolls": [{k: v for k, v in roll.items()
                   if k not in transparency.OWN_ROLL_FIELDS["boardgammon-audit-v2"]}
                  | {"client_entropy": roll["roller_entropy"], "entropy_source": "client"}
                  for roll in stripped["rolls"]],
    }
    status, out, _ = check_file(tmp_path, capsys, as_v1)
    first = stripped["rolls"][0]["log"][0]
    assert status == 1 and out == (
        f"FAILED: log entry {first['index']} of roll {v2['rolls'][0]['roll_id']} says "
        "'requested', which a v1 roll never is (committed, revealed, played, void)\n"), out


class Front:
    """A server in front of the real one, as a dishonest or broken server would answer:
    ``scripted`` maps a path (without its query) to an answer, ``(status, JSON or bytes)``,
    or ``None`` to close the connection without one; every other request is the real
    server's answer."""

    def __init__(self, upstream: str) -> None:
        self.upstream, self.url = upstream, ""
        self.scripted: dict[str, tuple[int, object] | None] = {}

    @contextmanager
    def serving(self) -> Iterator[Front]:
        front = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 -- the name http.server calls
                path = self.path.split("?")[0]
                if path in front.scripted:
                    answer = front.scripted[path]
                    if answer is None:
                        self.close_connection = True
                        return
                    status, body = answer
                    data = body if isinstance(body, bytes) else json.dumps(body).encode()
                else:
                    try:
                        with urllib.request.urlopen(front.upstream + self.path,
                                                    timeout=30) as real:
                            status, data = real.status, real.read()
                    except urllib.error.HTTPError as exc:
                        status, data = exc.code, exc.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()


@pytest.fixture
def served(sqlite_url, tmp_path, monkeypatch) -> Iterator[str]:
    """A real server (uvicorn, SQLite) that signs a head whenever the log grew: its URL."""
    monkeypatch.chdir(tmp_path)  # the log key's default place, ./var/
    with serving_in_thread(make_app(sqlite_url, log_head_interval_s=0.0)) as port:
        yield f"http://127.0.0.1:{port}"


def signed(key: LogKey, size: int, root: bytes, timestamp: int) -> dict:
    """A head as the server's key would sign it (a server showing a history of its choice)."""
    return {"format": "boardgammon-log-head-v1", "tree_size": size, "timestamp": timestamp,
            "root_hash": root.hex(),
            "signature": key.sign(head_bytes(size, timestamp, root)).hex()}


def test_a_check_that_holds_says_verify_py_checks_the_dice(documents, tmp_path, capsys):
    """Found by a new user's trial: ``transparency.py`` checks the log (the signed head, the
    leaves' proofs, that each roll's last leaf names its entry hash), not the dice, so a
    document whose dice were rewritten, its leaves and proofs left as they were, passes it (by
    design: ``verify.py`` checks the dice), and its output did not say what it left out. Now a
    check that holds ends with one line that says so, with the command to run; that command,
    run as it reads, fails the rewritten document. A roll's proof names its match's document."""
    forged = json.loads(json.dumps(documents["v2"]))
    roll = next(r for r in forged["rolls"] if r["dice"])
    roll["dice"] = [die % 6 + 1 for die in roll["dice"]]
    (tmp_path / "audit.json").write_text(json.dumps(forged))
    for module in (transparency, verify):  # both copied out, as the audit page serves them
        shutil.copy(module.__file__, tmp_path / Path(module.__file__).name)

    def alone(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-I", "-S", *args], capture_output=True,
                              text=True, timeout=60, cwd=tmp_path, check=False)

    run = alone("transparency.py", "audit.json")
    assert run.returncode == 0 and run.stderr == "", run.stdout + run.stderr
    said = ("the dice and the record's hashes are not checked here but by verify.py "
            "(GET /audit/verify.py): ")
    assert run.stdout.endswith(f"\n{said}python3 verify.py audit.json\n"), run.stdout
    command = shlex.split(run.stdout.splitlines()[-1].removeprefix(said))
    assert command[:2] == ["python3", "verify.py"]
    checked = alone(*command[1:])
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"FAIL: roll {roll['roll_id']} " in checked.stdout
    # The same last line for a v1 document; a roll's proof points at its match's document.
    status, out, _ = check_file(tmp_path, capsys, documents["v1"])
    assert status == 0 and out.endswith(f"\n{said}python3 verify.py "
                                        f"{tmp_path / 'document.json'}\n"), out
    status, out, _ = check_file(tmp_path, capsys, documents["proof"])
    match_id = documents["proof"]["match_id"]
    assert status == 0 and out.endswith(
        f"\n{said}python3 verify.py https://…/api/audit/{match_id}\n"), out
    assert transparency.dice_left_to_verify(
        f"https://example.org/api/audit/{match_id}/rolls/rol_x/proof", documents["proof"]
    ).endswith(f": python3 verify.py https://example.org/api/audit/{match_id}")
    # A check that fails does not end with it.
    bent = json.loads(json.dumps(documents["v2"]))
    bent["rolls"][0]["log"][0]["inclusion_path"][0] = "00" * 32
    status, out, _ = check_file(tmp_path, capsys, bent)
    assert status == 1 and "verify.py" not in out, out


def test_the_scan_checks_the_document_against_the_servers_newest_head(served, tmp_path,
                                                                       capsys):
    """Found by an outside audit: ``--scan`` read the log only up to the head the document
    carries, so a server that served an older document (its own head older too) hid every
    later change of the match, and nothing compared the document's head with the log's
    newest. Now the scan fetches the newest signed head, checks it with the same key and
    the consistency proof from the document's head to it, and reads the log up to it."""
    with httpx.Client(base_url=served, timeout=30) as client:
        players = {0: Player.register(client, "alice"), 1: Player.register(client, "bob")}
        match_id = live_match(players[0], players[1])
        for _ in range(3):
            step(players, match_id)
        stale = client.get(f"/api/audit/{match_id}").json()
        for _ in range(4):
            step(players, match_id)
        document = client.get(f"/api/audit/{match_id}").json()
        # The log grows with another match's changes after the document was fetched.
        others = {0: Player.register(client, "carol"), 1: Player.register(client, "dave")}
        other = live_match(others[0], others[1])
        for _ in range(2):
            step(others, other)
        newest = client.get("/api/log/head").json()
        leaves = [e["leaf"] for e in client.get("/api/log/entries?start=0&count=1000").json()]
    size, ours = newest["tree_size"], document["log"]["head"]["tree_size"]
    assert stale["log"]["head"]["tree_size"] < ours < size == len(leaves)
    key = LogKey.load_or_create(Path("var/log-signing-key.pem"))
    hashes = [leaf_hash(leaf.encode()) for leaf in leaves]
    later = next(e["index"] for r in document["rolls"] for e in r["log"]
                 if e["index"] >= stale["log"]["head"]["tree_size"])
    fields = json.loads(leaves[later])
    checker = tmp_path / "transparency.py"
    checker.write_text(httpx.get(f"{served}/audit/transparency.py").text)

    def alone(url: str) -> subprocess.CompletedProcess:
        """The served checker with ``--scan``, on the standard library alone."""
        return subprocess.run([sys.executable, "-I", "-S", str(checker), "--scan", url],
                              capture_output=True, text=True, timeout=120, check=False)

    with Front(served).serving() as front:
        url = f"{front.url}/api/audit/{match_id}"
        front.scripted[f"/api/audit/{match_id}"] = (200, document)
        run = alone(url)
        assert run.returncode == 0, run.stdout + run.stderr
        assert (f"newest tree head: size {size}, root {newest['root_hash']}, signature "
                "verified with the same key") in run.stdout
        assert (f"it extends the document's head of size {ours}: consistency proof verified"
                in run.stdout)
        assert (f"every one of the match's log entries among the {size} is in the document"
                in run.stdout)
        # An older document, whose own head is older too: every leaf it holds is proven, but
        # the log's newest history holds the match's later changes.
        front.scripted[f"/api/audit/{match_id}"] = (200, stale)
        run = alone(url)
        assert run.returncode == 1, run.stdout + run.stderr
        assert (f"FAILED: log entry {later} ({fields['event']} of roll {fields['roll_id']}, "
                f"seq {fields['seq']}) is not in the document: it was logged after the "
                f"document's head (size {stale['log']['head']['tree_size']})") in run.stdout
        front.scripted[f"/api/audit/{match_id}"] = (200, document)
        # Another history under the same key: the newest head's root is not the log's.
        forked = [leaf_hash(b"rewritten"), *hashes[1:]]
        front.scripted["/api/log/head"] = (200, signed(key, size, root_of(forked),
                                                       newest["timestamp"]))
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and (
            f"\nFAILED: two histories: the server's newest tree head (size {size}, root "
            f"{root_of(forked).hex()}) does not extend the document's head (size {ours}, "
            f"root {document['log']['head']['root_hash']}): the proof does not lead to the "
            f"root of size {size}\n") in out, out
        # A log that shrank below the document's head.
        front.scripted["/api/log/head"] = (200, signed(key, ours - 1, root_of(hashes[:ours - 1]),
                                                       newest["timestamp"]))
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and (f"the server's newest tree head has size {ours - 1}, smaller "
                                f"than the document's head (size {ours})") in out, out
        # The newest head signed by another key.
        other_key = LogKey.load_or_create(tmp_path / "other.pem")
        front.scripted["/api/log/head"] = (200, signed(other_key, size,
                                                       bytes.fromhex(newest["root_hash"]),
                                                       newest["timestamp"]))
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and (f"FAILED: the server's newest tree head (size {size}) does "
                                "not verify with the log's key") in out, out
        front.scripted["/api/log/head"] = (200, {"tree_size": "many"})
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and ("FAILED: the server's newest tree head is malformed: "
                                "head.tree_size is the string 'many'") in out, out
        del front.scripted["/api/log/head"]
        # A consistency proof refused (a 4xx) between two heads the key signed, or no proof.
        front.scripted["/api/log/proof/consistency"] = (404, {"error": {"code": "not_found"}})
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and ("FAILED: the server refuses the consistency proof between two "
                                "heads its key signed") in out, out
        front.scripted["/api/log/proof/consistency"] = (200, {"consistency_path": "none"})
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and (f"the server's consistency proof from size {ours} to size "
                                f"{size} is no proof") in out, out
        del front.scripted["/api/log/proof/consistency"]
        # The leaves up to the newest head, withheld.
        front.scripted["/api/log/entries"] = (200, [])
        status, out, _ = run_main(capsys, "--scan", url)
        assert status == 1 and (f"FAILED: the server serves 0 log entries for its head of "
                                f"size {size}") in out, out
        del front.scripted["/api/log/entries"]
        # A server whose log cannot be read: exit status 2 and what failed, no traceback.
        front.scripted["/api/log/head"] = (503, b"busy")
        run = alone(url)
        assert (run.returncode, "Traceback" in run.stderr) == (2, False), run.stderr
        assert run.stderr == (f"cannot read the server's log: GET {front.url}/api/log/head: "
                              "the server answered HTTP 503 Service Unavailable\n")
        front.scripted["/api/log/head"] = (503, {"error": {"code": "unavailable",
                                                           "message": "the log is busy"}})
        status, _, err = run_main(capsys, "--scan", url)
        assert status == 2 and err == (
            f"cannot read the server's log: GET {front.url}/api/log/head: the server answered "
            "HTTP 503 Service Unavailable: unavailable: the log is busy\n"), err
        front.scripted["/api/log/head"] = None  # the connection closed, no answer
        status, _, err = run_main(capsys, "--scan", url)
        assert status == 2 and err == (
            f"cannot read the server's log: GET {front.url}/api/log/head: Remote end closed "
            "connection without response\n"), err
        front.scripted["/api/log/head"] = (200, b"<html>busy</html>")
        status, _, err = run_main(capsys, "--scan", url)
        assert status == 2 and err.startswith(
            f"cannot read the server's log: GET {front.url}/api/log/head: Expecting value"), err
    # No server at all: the document cannot be loaded.
    status, _, err = run_main(capsys, "--scan", url)
    host = url.split("/")[2]
    assert status == 2 and err == f"cannot load {url}: no answer from {host}: Connection refused\n"
    with pytest.raises(SystemExit) as refused:
        transparency.main(["--scan", f"{served}/proof.json"])
    assert refused.value.code == 2
    assert "give the match's audit URL (https://…/api/audit/mat_…)" in capsys.readouterr().err
