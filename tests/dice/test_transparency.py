"""The public log's Merkle tree against RFC 9162 §2.1: the tree hash of its recursion, the
RFC's worked shape of proofs (the seven-leaf example of RFC 6962 §2.1.3, which RFC 9162 keeps),
and properties over every size: each inclusion and consistency proof verifies, and a changed
leaf, index, size, root or proof does not."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardgammon.dice.transparency import (
    LogUnreadable,
    ProofError,
    anchor_leaf_bytes,
    consistency_path,
    head_bytes,
    inclusion_path,
    leaf_bytes,
    leaf_hash,
    match_leaf_bytes,
    node_hash,
    root_of,
    scan,
    verify_consistency,
    verify_inclusion,
)


def tree(n: int) -> tuple[list[bytes], object]:
    """``n`` leaf hashes and a subtree function over them, by the RFC's recursion."""
    hashes = [leaf_hash(i.to_bytes(4, "big")) for i in range(n)]
    return hashes, lambda lo, hi: root_of(hashes[lo:hi])


def test_hashes_are_domain_separated_sha256():
    assert leaf_hash(b"") == hashlib.sha256(b"\x00").digest()
    inner = hashlib.sha256(b"\x01" + b"a" * 32 + b"b" * 32).digest()
    assert node_hash(b"a" * 32, b"b" * 32) == inner
    assert root_of([]) == hashlib.sha256(b"").digest()
    assert root_of([b"x" * 32]) == b"x" * 32


def test_seven_leaf_example_of_the_rfc():
    # RFC 9162 §2.1.5 draws the tree of d0…d6: k = 4 at the top, then 2, then 1.
    hashes, subtree = tree(7)
    a, b, c, d, e, f, g = hashes
    h = node_hash
    assert root_of(hashes) == h(h(h(a, b), h(c, d)), h(h(e, f), g))
    # The audit path of d0 is [b, h(c, d), h(h(e, f), g)]; of d3 [c, h(a, b), h(h(e, f), g)];
    # of d4 [f, g, h(h(a, b), h(c, d))]; of d6 [h(e, f), h(h(a, b), h(c, d))].
    assert inclusion_path(0, 7, subtree) == [b, h(c, d), h(h(e, f), g)]
    assert inclusion_path(3, 7, subtree) == [c, h(a, b), h(h(e, f), g)]
    assert inclusion_path(4, 7, subtree) == [f, g, h(h(a, b), h(c, d))]
    assert inclusion_path(6, 7, subtree) == [h(e, f), h(h(a, b), h(c, d))]
    # Consistency proofs of the same example: 3 → 7 is [c, d, h(a, b), h(h(e, f), g)];
    # 4 → 7 is [h(h(e, f), g)]; 6 → 7 is [h(e, f), g, h(h(a, b), h(c, d))].
    assert consistency_path(3, 7, subtree) == [c, d, h(a, b), h(h(e, f), g)]
    assert consistency_path(4, 7, subtree) == [h(h(e, f), g)]
    assert consistency_path(6, 7, subtree) == [h(e, f), g, h(h(a, b), h(c, d))]


sizes = st.integers(min_value=1, max_value=70)


@given(sizes, st.data())
def test_every_inclusion_proof_verifies_and_a_changed_one_fails(size, data):
    hashes, subtree = tree(size)
    root = root_of(hashes)
    index = data.draw(st.integers(0, size - 1))
    path = inclusion_path(index, size, subtree)
    verify_inclusion(index, size, hashes[index], path, root)
    with pytest.raises(ProofError):
        verify_inclusion(index, size, leaf_hash(b"tampered"), path, root)
    if size > 1:
        with pytest.raises(ProofError):
            verify_inclusion((index + 1) % size, size, hashes[index], path, root)
    # (A path can fit more than one size, 3 and 4 for leaf 0, say: the signed head binds the
    # size to the root.) A leaf beyond the size never verifies.
    with pytest.raises(ProofError):
        verify_inclusion(index, index, hashes[index], path, root)
    with pytest.raises(ProofError):
        verify_inclusion(index, size, hashes[index], path, leaf_hash(b"other root"))
    if path:
        at = data.draw(st.integers(0, len(path) - 1))
        bent = path[:at] + [leaf_hash(b"bent")] + path[at + 1 :]
        with pytest.raises(ProofError):
            verify_inclusion(index, size, hashes[index], bent, root)
        with pytest.raises(ProofError):
            verify_inclusion(index, size, hashes[index], path[:-1], root)
    with pytest.raises(ProofError):
        verify_inclusion(index, size, hashes[index], [*path, root], root)


@given(sizes, sizes)
def test_every_consistency_proof_verifies_and_a_rewritten_history_fails(a, b):
    first, second = min(a, b), max(a, b)
    hashes, subtree = tree(second)
    first_root, second_root = root_of(hashes[:first]), root_of(hashes)
    proof = consistency_path(first, second, subtree)
    verify_consistency(first, second, first_root, second_root, proof)
    # A history rewritten below ``first``: the old root no longer follows.
    rewritten = [*hashes]
    rewritten[first - 1] = leaf_hash(b"rewritten")
    with pytest.raises(ProofError):
        verify_consistency(
            first,
            second,
            first_root,
            root_of(rewritten),
            consistency_path(first, second, lambda lo, hi: root_of(rewritten[lo:hi])),
        )
    if first < second:
        with pytest.raises(ProofError):
            verify_consistency(first, second, leaf_hash(b"x"), second_root, proof)
        with pytest.raises(ProofError):
            verify_consistency(first, second, first_root, leaf_hash(b"x"), proof)
        with pytest.raises(ProofError):
            verify_consistency(first, second, first_root, second_root, proof[:-1])
    else:
        assert proof == []
    # A shrunk tree has no consistency proof from the larger size.
    if first < second:
        with pytest.raises(ValueError):
            consistency_path(second, first, subtree)
        with pytest.raises(ProofError):
            verify_consistency(second, first, second_root, first_root, proof)


def test_leaf_and_head_encodings_are_the_spec_test_vectors():
    roll = {
        "match_id": "mat_test",
        "roll_id": "rol_test",
        "seq": 0,
        "nonce": 7,
        "seat": 1,
        "commitment": "ab" * 32,
        "entry_hash": "cd" * 32,
    }
    leaf = leaf_bytes("committed", roll, "2026-12-02T13:00:00+00:00")
    assert leaf == (
        b'{"at":"2026-12-02T13:00:00+00:00","commitment":"'
        + b"ab" * 32
        + b'","entry_hash":"'
        + b"cd" * 32
        + b'","event":"committed",'
        b'"format":"boardgammon-log-v1","match_id":"mat_test","nonce":7,'
        b'"roll_id":"rol_test","seat":1,"seq":0}'
    )
    assert leaf_hash(leaf).hex() == (
        "a48e060f4faafec83967ed40ae4934a7726974d0d6acc4b7df68caf3f85116a1"
    )
    signed = head_bytes(3, 1_764_680_400_000, bytes(range(32)))
    assert len(signed) == 72
    assert signed.hex() == (
        "626f61726467616d6d6f6e2d6c6f672d686561642d7631"
        "00"
        "0000000000000003"
        "0000019adf25fc80"
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    )
    with pytest.raises(ValueError):
        leaf_bytes("rewritten", roll, "2026-12-02T13:00:00+00:00")


# The test data of Certificate Transparency's reference implementation (RFC 6962's tree, which
# RFC 9162 keeps): eight leaves, the root of each prefix, and some of its proofs.
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    bytes(range(0x50, 0x58)),
    bytes(range(0x60, 0x70)),
]
CT_ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]


def test_certificate_transparency_reference_vectors():
    hashes = [leaf_hash(leaf) for leaf in CT_LEAVES]

    def subtree(lo, hi):
        return root_of(hashes[lo:hi])

    assert [root_of(hashes[:n]).hex() for n in range(1, 9)] == CT_ROOTS
    assert [p.hex() for p in inclusion_path(0, 8, subtree)] == [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ]
    assert [p.hex() for p in consistency_path(6, 8, subtree)] == [
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ]
    assert [p.hex() for p in consistency_path(2, 5, subtree)] == [
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ]


ANCHOR_LEAF_HASH = "192b9b42ab21cd82a8da887f1989f8db2d5edb71ea464bbca6f97d1928d67e9d"


def test_an_anchor_leaf_is_the_spec_test_vector():
    anchor = "ddcf8eaa91361b80872c2d7d18be0d5f4bb307aba1edc3582b0c3a7ffdfb4fa2"
    leaf = anchor_leaf_bytes("mat_test", 1, anchor, "2026-12-02T13:00:00+00:00")
    assert leaf == (
        b'{"anchor":"' + anchor.encode() + b'","at":"2026-12-02T13:00:00+00:00",'
        b'"event":"anchor","format":"boardgammon-log-v1","match_id":"mat_test","seat":1}'
    )
    assert leaf_hash(leaf).hex() == ANCHOR_LEAF_HASH
    # Every field that matters is in the hash: another seat, anchor, match or time differs.
    for other in [
        anchor_leaf_bytes("mat_test", 0, anchor, "2026-12-02T13:00:00+00:00"),
        anchor_leaf_bytes("mat_test", 1, "00" * 32, "2026-12-02T13:00:00+00:00"),
        anchor_leaf_bytes("mat_tesu", 1, anchor, "2026-12-02T13:00:00+00:00"),
        anchor_leaf_bytes("mat_test", 1, anchor, "2026-12-02T13:00:01+00:00"),
    ]:
        assert leaf_hash(other).hex() != ANCHOR_LEAF_HASH


MATCH_LEAF_HASH = "7b85d29aa79d8ffee2fdfa49db7691ae5976e97622e351b800adad43945e6d56"


def test_a_match_leaf_is_the_spec_test_vector():
    leaf = match_leaf_bytes("mat_test", "live", "2026-12-02T13:00:00+00:00")
    assert leaf == (b'{"at":"2026-12-02T13:00:00+00:00","event":"match",'
                    b'"format":"boardgammon-log-v1","match_id":"mat_test","mode":"live"}')
    assert leaf_hash(leaf).hex() == MATCH_LEAF_HASH
    for other in [
        match_leaf_bytes("mat_test", "correspondence", "2026-12-02T13:00:00+00:00"),
        match_leaf_bytes("mat_tesu", "live", "2026-12-02T13:00:00+00:00"),
        match_leaf_bytes("mat_test", "live", "2026-12-02T13:00:01+00:00"),
    ]:
        assert leaf_hash(other).hex() != MATCH_LEAF_HASH
    with pytest.raises(ValueError, match="mode 'blitz' is none of live, correspondence"):
        match_leaf_bytes("mat_test", "blitz", "2026-12-02T13:00:00+00:00")


MATCH_LEAF_WAIT_HASH = "837e25381a18882b89865e6b36b922d228d9b1c8dd1be23fee7da5c1ab46097b"


def test_a_match_leaf_with_the_link_wait_is_the_spec_test_vector():
    leaf = match_leaf_bytes("mat_test", "live", "2026-12-02T13:00:00+00:00", 3000)
    assert leaf == (b'{"at":"2026-12-02T13:00:00+00:00","event":"match",'
                    b'"format":"boardgammon-log-v1","link_wait_ms":3000,"match_id":"mat_test",'
                    b'"mode":"live"}')
    assert leaf_hash(leaf).hex() == MATCH_LEAF_WAIT_HASH
    assert leaf_hash(match_leaf_bytes("mat_test", "computer", "2026-12-02T13:00:00+00:00",
                                      3000)).hex() != MATCH_LEAF_WAIT_HASH
    assert leaf_hash(match_leaf_bytes("mat_test", "live", "2026-12-02T13:00:00+00:00",
                                      2999)).hex() != MATCH_LEAF_WAIT_HASH
    # 0 is a wait stated (the server rolls without the link at once), not one left out.
    assert b'"link_wait_ms":0,' in match_leaf_bytes("mat_test", "live", "2026-12-02T13:00:00Z", 0)


@pytest.mark.parametrize(
    ("mode", "wait", "said"),
    [
        ("live", -1, "whole milliseconds (an integer >= 0), got -1"),
        ("live", 2.5, "whole milliseconds (an integer >= 0), got 2.5"),
        ("live", True, "whole milliseconds (an integer >= 0), got True"),
        ("correspondence", 3000, "a correspondence match waits for no link"),
    ],
)
def test_a_match_leaf_refuses_a_wait_it_cannot_state(mode, wait, said):
    with pytest.raises(ValueError, match=re.escape(said)):
        match_leaf_bytes("mat_test", mode, "2026-12-02T13:00:00+00:00", wait)


def test_the_spec_states_these_vectors():
    spec = (Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md").read_text("utf-8")
    for vector in [
        *CT_ROOTS,
        "a48e060f4faafec83967ed40ae4934a7726974d0d6acc4b7df68caf3f85116a1",
        ANCHOR_LEAF_HASH,
        MATCH_LEAF_HASH,
        MATCH_LEAF_WAIT_HASH,
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "626f61726467616d6d6f6e2d6c6f672d686561642d7631` `00` `0000000000000003` `0000019adf25fc80",
    ]:
        assert vector in spec


CHECKER = Path(__file__).resolve().parents[2] / "src" / "boardgammon" / "dice" / "transparency.py"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[]", "the document is an array, not a JSON object"),
        ('"x"', "the document is the string 'x', not a JSON object"),
        ("3", "the document is 3, not a JSON object"),
        ("null", "the document is null, not a JSON object"),
        ("{}", "format is missing (one of boardgammon-audit-v1, boardgammon-audit-v2, "
         "boardgammon-roll-proof-v1)"),
        ('{"format": "boardgammon-audit-v1", "rolls": [], "log": {}',
         "cannot load"),  # cut short
        ("", "cannot load"),
        ("[" * 100_000, "cannot load"),  # deeper than the JSON reader goes
    ],
)
def test_input_that_is_no_document_exits_2_with_one_line_not_a_traceback(tmp_path, text, said):
    """Found by an outside audit: a document that was JSON but no object (``[]``, ``"x"``,
    ``3``) ended in a traceback and exit status 1, the status of a failed check. Run as
    users run it, on the standard library alone."""
    saved = tmp_path / "audit.json"
    saved.write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-I", "-S", str(CHECKER), str(saved)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stdout == "" and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1 and said in run.stderr, run.stderr


class _Refusing(BaseHTTPRequestHandler):
    """Answers every GET 404 with the API's JSON error (docs/api.md §Errors)."""

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        program = self.path.endswith("/verify.py")  # a roll's program, given by mistake
        body = (b"print('ok')\n" if program else json.dumps(
            {"error": {"code": "not_found", "message": "no match 'mat_nosuch'"}}).encode())
        self.send_response(200 if program else 404)
        self.send_header("Content-Type", "text/x-python" if program else "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing():
    """A server that answers as :class:`_Refusing` does, and a port nothing listens on:
    ``(its port, the free port)``."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        free = closed.getsockname()[1]
    yield server.server_port, free
    server.shutdown()


@pytest.mark.parametrize("script", ["transparency.py", "verify.py"])
def test_a_url_that_cannot_be_read_is_said_in_words(script, refusing):
    """A 404 with the API's error is named by its code and message, a closed port by its
    reason, not as ``HTTP Error 404`` or ``<urlopen error [Errno 111] …>``, and a roll's program
    given for the audit document as such, not as JSON that fails to parse; exit status 2."""
    answering, free = refusing
    for port, said in (
            (answering,
             "the server answered HTTP 404 Not Found: not_found: no match 'mat_nosuch'"),
            (free, f"no answer from 127.0.0.1:{free}: Connection refused"),
            (answering, "this URL is a program (run it: python3 FILE)")):
        url = f"http://127.0.0.1:{port}/api/audit/mat_nosuch"
        if "program" in said:
            url += "/rolls/rol_1/verify.py"
            said = (f"{said}{', not an audit document' if script == 'transparency.py' else ''}"
                    "; the JSON of a match's dice record is at /api/audit/MATCH_ID")
        run = subprocess.run([sys.executable, "-I", "-S", str(CHECKER.parent / script), url],
                             capture_output=True, text=True, timeout=60, check=False)
        assert run.returncode == 2, run.stdout + run.stderr
        opening = ("cannot load" if script == "transparency.py"
                   else "cannot read an audit document from")
        assert run.stdout + run.stderr == f"{opening} {url}: {said}\n"


def test_a_log_that_cannot_be_read_for_the_scan_is_said_in_words(refusing):
    """--scan reads the server's log after the document: a refusal there is named as the
    document's is (the API's error code and message), a closed port by its reason, each after
    the URL asked; not the raw JSON body or ``<urlopen error [Errno 111] …>``."""
    answering, free = refusing
    for port, said, status in (
            (answering,
             "the server answered HTTP 404 Not Found: not_found: no match 'mat_nosuch'",
             404),
            (free, f"no answer from 127.0.0.1:{free}: Connection refused", None)):
        with pytest.raises(LogUnreadable) as refused:
            scan(f"http://127.0.0.1:{port}/api/audit/mat_nosuch", {})
        assert str(refused.value) == f"GET http://127.0.0.1:{port}/api/log/head: {said}"
        assert refused.value.status == status
