"""The public log over the API, on SQLite and PostgreSQL: every change of every roll is a leaf,
in the same transaction as the change; the signed head verifies with the published key and its
root is the RFC 9162 root of the leaves as served; every inclusion and consistency proof the
server gives verifies; the audit JSON carries a verifying inclusion proof for each change; bad
requests are refused with their codes and change nothing; the key file is made once, 0600."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from boardgammon.dice.transparency import (
    ProofError,
    check_log,
    cosigned_bytes,
    leaf_hash,
    root_of,
    signed_head_bytes,
    verify_consistency,
    verify_ed25519,
    verify_inclusion,
)
from boardgammon.server.dice_log import LogKey
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
    assert f"{len(leaves)} log entries included in the tree of size {len(leaves)}" in run.stdout
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
    assert "less than or equal to" in r.json()["error"]["message"]
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
