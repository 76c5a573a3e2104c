"""The verifier: every kind of tampering is caught with the right reason, the module runs alone
with nothing but the standard library, and ``boardgammon audit verify`` exits 0 / 1 / 2."""

from __future__ import annotations

import ast
import copy
import functools
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from boardgammon.cli import app as cli_app
from boardgammon.dice import verify
from boardgammon.dice.verify import GENESIS, commitment, derive_dice, entry_hash, verify_document

MATCH = "mat_verifytests01"
# Rolls 0-4 and 6 played, roll 5 void (never revealed), roll 7 pending.
STATES = ["played"] * 5 + ["void", "played", "committed"]


def _seed(i: int) -> bytes:
    return hashlib.sha256(b"seed %d" % i).digest()


def _entropy(i: int) -> bytes:
    return hashlib.sha256(b"entropy %d" % i).digest()[:16]


def rehash(document: dict) -> dict:
    """Recompute every dice, prev_hash, entry_hash and the head, as a forger rewriting it would."""
    prev = GENESIS
    for entry in document["rolls"]:
        revealed = entry["state"] in verify.REVEALED_STATES
        seed = bytes.fromhex(entry["server_seed"]) if revealed else None
        entropy = bytes.fromhex(entry["client_entropy"]) if revealed else None
        if revealed:
            entry["dice"] = list(
                derive_dice(seed, MATCH, entry["roll_id"], entry["nonce"], entropy)
            )
        entry["prev_hash"] = prev
        dice = tuple(entry["dice"]) if entry["dice"] else None
        prev = entry["entry_hash"] = entry_hash(
            prev, MATCH, entry["roll_id"], entry["nonce"], entry["seat"], entry["commitment"],
            seed, entropy, entry["entropy_source"], dice,
        )
    document["chain_head"] = prev
    return document


def make_document() -> dict:
    rolls = []
    for i, state in enumerate(STATES):
        revealed = state in verify.REVEALED_STATES
        rolls.append({
            "seq": i,
            "roll_id": f"rol_{i:04d}",
            "nonce": 100 + 7 * i,
            "seat": i % 2,
            "state": state,
            "commitment": commitment(_seed(i)),
            "server_seed": _seed(i).hex() if revealed else None,
            "client_entropy": _entropy(i).hex() if revealed else None,
            "entropy_source": ("server" if i == 3 else "client") if revealed else None,
            "dice": [0, 0] if revealed else None,
        })
    document = {
        "format": verify.AUDIT_FORMAT,
        "dice_spec": verify.DICE_SPEC,
        "record_spec": verify.RECORD_SPEC,
        "match_id": MATCH,
        "genesis": GENESIS,
        "rolls": rolls,
    }
    return rehash(document)


def _other_entropy_changing_dice(entry: dict) -> str:
    """Entropy that gives different dice for this entry (so the tamper is not a 1-in-36 no-op)."""
    seed = bytes.fromhex(entry["server_seed"])
    for k in range(100):
        candidate = hashlib.sha256(b"forged %d" % k).digest()[:16]
        if derive_dice(seed, MATCH, entry["roll_id"], entry["nonce"], candidate) != tuple(
            entry["dice"]
        ):
            return candidate.hex()
    raise AssertionError("no entropy changes the dice")


def _other_nonce_changing_dice(entry: dict) -> int:
    seed, entropy = bytes.fromhex(entry["server_seed"]), bytes.fromhex(entry["client_entropy"])
    return next(
        n for n in range(entry["nonce"] + 1, entry["nonce"] + 100)
        if derive_dice(seed, MATCH, entry["roll_id"], n, entropy) != tuple(entry["dice"])
    )


def tamper_seed(doc):
    doc["rolls"][2]["server_seed"] = _seed(99).hex()


def tamper_entropy(doc):
    doc["rolls"][2]["client_entropy"] = _other_entropy_changing_dice(doc["rolls"][2])


def tamper_entropy_and_dice(doc):
    # A forger who also "fixes" the dice: the roll itself checks out, its entry hash does not.
    entry = doc["rolls"][2]
    entry["client_entropy"] = _other_entropy_changing_dice(entry)
    entry["dice"] = list(derive_dice(_seed(2), MATCH, entry["roll_id"], entry["nonce"],
                                     bytes.fromhex(entry["client_entropy"])))


def tamper_nonce(doc):
    doc["rolls"][2]["nonce"] = _other_nonce_changing_dice(doc["rolls"][2])


def tamper_dice(doc):
    d1, d2 = doc["rolls"][2]["dice"]
    doc["rolls"][2]["dice"] = [d1 % 6 + 1, d2]


def tamper_order(doc):
    doc["rolls"][2], doc["rolls"][3] = doc["rolls"][3], doc["rolls"][2]


def tamper_delete(doc):
    del doc["rolls"][2]


def tamper_delete_last(doc):
    del doc["rolls"][-1]


def tamper_seed_missing(doc):
    doc["rolls"][2]["server_seed"] = None


def tamper_seat(doc):
    doc["rolls"][2]["seat"] = 1 - doc["rolls"][2]["seat"]


def tamper_hide_revealed_roll(doc):
    entry = doc["rolls"][2]
    entry.update(state="void", server_seed=None, client_entropy=None, entropy_source=None,
                 dice=None)


def tamper_entropy_source(doc):
    doc["rolls"][3]["entropy_source"] = "client"


def tamper_malformed_seed(doc):
    doc["rolls"][2]["server_seed"] = "zz" * 32


def tamper_leave_committed(doc):
    # Roll 5 left open instead of void, roll 6 rolled after it: re-hashed, so the chain holds.
    doc["rolls"][5]["state"] = "committed"
    rehash(doc)


def tamper_leave_revealed(doc):
    # Revealed, never played, and the match rolled again: its dice were known.
    doc["rolls"][5].update(state="revealed", server_seed=_seed(5).hex(),
                           client_entropy=_entropy(5).hex(), entropy_source="client", dice=[0, 0])
    rehash(doc)


TAMPERS = [
    (tamper_seed, "rol_0002", verify.COMMITMENT_MISMATCH),
    (tamper_entropy, "rol_0002", verify.DICE_MISMATCH),
    (tamper_entropy_and_dice, "rol_0002", verify.CHAIN_BROKEN),
    (tamper_nonce, "rol_0002", verify.DICE_MISMATCH),
    (tamper_dice, "rol_0002", verify.DICE_MISMATCH),
    (tamper_order, "rol_0003", verify.CHAIN_BROKEN),
    (tamper_delete, "rol_0003", verify.CHAIN_BROKEN),
    (tamper_delete_last, "(chain head)", verify.CHAIN_BROKEN),
    (tamper_seed_missing, "rol_0002", verify.SEED_MISSING),
    (tamper_seat, "rol_0002", verify.CHAIN_BROKEN),
    (tamper_hide_revealed_roll, "rol_0002", verify.CHAIN_BROKEN),
    (tamper_entropy_source, "rol_0003", verify.CHAIN_BROKEN),
    (tamper_malformed_seed, "rol_0002", verify.MALFORMED),
    (tamper_leave_committed, "rol_0005", verify.LEFT_UNRESOLVED),
    (tamper_leave_revealed, "rol_0005", verify.LEFT_UNRESOLVED),
]
TAMPER_IDS = [tamper.__name__ for tamper, _, _ in TAMPERS]


def test_untampered_document_verifies():
    report = verify_document(make_document())
    assert report.ok
    assert [c.verdict for c in report.checks] == ["ok"] * 5 + ["never revealed", "ok", "pending"]
    assert report.chain_head == make_document()["chain_head"] != GENESIS


@pytest.mark.parametrize(("tamper", "roll_id", "reason"), TAMPERS, ids=TAMPER_IDS)
def test_tampering_is_detected_with_the_right_reason(tamper, roll_id, reason):
    document = make_document()
    tamper(document)
    failure = verify_document(document).failure
    assert failure is not None
    assert (failure.roll_id, failure.verdict) == (roll_id, reason)


def test_rewritten_chain_is_caught_only_by_the_published_head():
    published_head = make_document()["chain_head"]
    forged = make_document()
    tamper_entropy(forged)
    rehash(forged)  # dice, links and head all recomputed: internally consistent
    assert verify_document(forged).ok
    failure = verify_document(forged, expected_head=published_head).failure
    assert (failure.roll_id, failure.verdict) == ("(chain head)", verify.CHAIN_BROKEN)
    assert published_head in failure.detail


def test_only_the_last_roll_may_be_left_open():
    """A roll before the record's last that is still committed or revealed fails as ``left
    unresolved``, naming the roll after it (the server starts a roll only once the one before
    it is played or void); the same roll as the record's last is pending."""
    document = make_document()
    tamper_leave_committed(document)
    report = verify_document(document)
    assert [c.verdict for c in report.checks] == (
        ["ok"] * 5 + [verify.LEFT_UNRESOLVED, "ok", "pending"])
    assert (report.failure.index, report.failure.roll_id) == (5, "rol_0005")
    assert "still committed, yet roll rol_0006 (#6) follows it" in report.failure.detail
    document["rolls"] = document["rolls"][:6]
    rehash(document)
    report = verify_document(document)
    assert report.ok and report.checks[-1].verdict == "pending"


def test_unknown_format_is_refused():
    document = make_document() | {"dice_spec": "boardgammon-dice-v2"}
    with pytest.raises(ValueError, match="boardgammon-dice-v1"):
        verify_document(document)


def test_verifier_imports_only_the_standard_library():
    tree = ast.parse(Path(verify.__file__).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module.split(".")[0])
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}


def _write(tmp_path: Path, document: dict, name: str = "audit.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_verifier_runs_alone_when_copied(tmp_path):
    alone = tmp_path / "verify.py"
    shutil.copy(verify.__file__, alone)
    good = _write(tmp_path, make_document(), "good.json")
    bad_doc = make_document()
    tamper_dice(bad_doc)
    bad = _write(tmp_path, bad_doc, "bad.json")
    # -I -S: no site-packages, no environment, no current-directory imports beyond the script.
    run = functools.partial(subprocess.run, capture_output=True, text=True, cwd=tmp_path)
    ok = run([sys.executable, "-I", "-S", str(alone), str(good)])
    assert ok.returncode == 0, ok.stderr
    assert "OK: every revealed roll verifies" in ok.stdout
    failed = run([sys.executable, "-I", "-S", str(alone), str(bad)])
    assert failed.returncode == 1
    assert "FAIL: roll rol_0002 (#2): dice mismatch" in failed.stdout


runner = CliRunner()


@pytest.mark.parametrize(("tamper", "roll_id", "reason"), TAMPERS, ids=TAMPER_IDS)
def test_cli_names_first_failing_roll(tmp_path, tamper, roll_id, reason):
    document = make_document()
    tamper(document)
    result = runner.invoke(cli_app, ["audit", "verify", str(_write(tmp_path, document))])
    assert result.exit_code == 1
    # A failure of the record as a whole, such as its chain head, names no roll.
    where = roll_id if roll_id.startswith("(") else f"roll {roll_id} "
    assert f"FAIL: {where}" in result.output
    assert f": {reason}: " in result.output


def test_cli_accepts_a_good_document_and_checks_the_head(tmp_path):
    document = make_document()
    path = str(_write(tmp_path, document))
    result = runner.invoke(cli_app, ["audit", "verify", path])
    assert result.exit_code == 0, result.output
    assert document["chain_head"] in result.output
    wrong_head = runner.invoke(cli_app, ["audit", "verify", path, "--head", "ab" * 32])
    assert wrong_head.exit_code == 1
    assert "chain broken" in wrong_head.output


def test_cli_unreadable_input_exits_2(tmp_path):
    missing = runner.invoke(cli_app, ["audit", "verify", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "cannot read an audit document" in missing.output
    not_audit = runner.invoke(cli_app, ["audit", "verify", str(_write(tmp_path, {"a": 1}))])
    assert not_audit.exit_code == 2


# Found by a new user's trial: ``--head 00`` (no chain head at all) failed as a head that does
# not match, ``FAIL: (chain head): chain broken: … the published head is 00``, exit
# status 1, as if the record had been rewritten. A malformed head is an argument error.
@pytest.mark.parametrize(
    "head",
    ["00", "", "ab" * 31, "ab" * 33, "zz" * 32, " " + "ab" * 32, "0x" + "ab" * 31, "ab" * 500],
    ids=["00", "empty", "short", "long", "not-hex", "space", "0x", "huge"],
)
def test_a_malformed_head_is_an_argument_error(tmp_path, capsys, head):
    path = str(_write(tmp_path, make_document()))
    assert verify.main([path, "--head", head]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith("argument --head: expected the chain head published at the end of "
                          "the match, 64 hex digits; got "), err
    # The same from the package's command, which runs the verifier's run().
    result = runner.invoke(cli_app, ["audit", "verify", path, "--head", head])
    assert result.exit_code == 2 and "chain broken" not in result.output
    assert "argument --head: expected the chain head" in result.output


def test_a_well_formed_head_that_does_not_match_still_fails_the_chain(tmp_path, capsys):
    document = make_document()
    alone = tmp_path / "verify.py"
    shutil.copy(verify.__file__, alone)
    path = str(_write(tmp_path, document))
    assert verify.main([path, "--head", "ab" * 32]) == 1
    out, err = capsys.readouterr()
    assert err == "" and out.splitlines()[-1] == (
        f"FAIL: (chain head): chain broken: the rolls hash to chain head "
        f"{document['chain_head']}, the published head is {'ab' * 32}")
    # Hex digits in either case are a head: the record's own, in capitals, verifies.
    assert verify.main([path, "--head", document["chain_head"].upper()]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("OK: every revealed roll")
    # The file copied out and run alone: the malformed head is one line on standard error.
    run = functools.partial(subprocess.run, capture_output=True, text=True, cwd=tmp_path)
    malformed = run([sys.executable, "-I", "-S", str(alone), path, "--head", "00"])
    assert (malformed.returncode, malformed.stdout) == (2, ""), malformed.stdout
    assert malformed.stderr == ("argument --head: expected the chain head published at the end "
                                "of the match, 64 hex digits; got '00' (2 characters)\n")
    wrong = run([sys.executable, "-I", "-S", str(alone), path, "--head", "ab" * 32])
    assert wrong.returncode == 1 and wrong.stderr == "" and "chain broken" in wrong.stdout


SRC = Path(verify.__file__).resolve().parents[2]


def test_python_m_runs_the_verifier_without_a_warning(tmp_path):
    """Found by a new user's trial: ``python -m boardgammon.dice.verify FILE`` printed runpy's
    RuntimeWarning (``'boardgammon.dice.verify' found in sys.modules after import of package
    'boardgammon.dice', but prior to execution``): the package imported the verifier to give
    its names. Now it imports it when one of them is first asked for."""
    path = str(_write(tmp_path, make_document()))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-W", "error", "-m", "boardgammon.dice.verify", path],
                         capture_output=True, text=True, cwd=tmp_path, env=env, check=False)
    assert run.returncode == 0 and run.stderr == "", run.stdout + run.stderr
    assert "OK: every revealed roll verifies" in run.stdout


def test_the_package_does_not_import_the_verifier():
    """``import boardgammon.dice`` gives the IDs and leaves the verifier unloaded (so that
    ``python -m boardgammon.dice.verify`` runs it fresh); its names come from the module."""
    code = (
        "import sys\n"
        "import boardgammon.dice as dice\n"
        "assert 'boardgammon.dice.verify' not in sys.modules\n"
        "from boardgammon.dice import *\n"
        "assert new_match_id().startswith('mat_')\n"
        "from boardgammon.dice.verify import DICE_SPEC, derive_dice\n"
        "assert DICE_SPEC == 'boardgammon-dice-v1' and callable(derive_dice)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                         text=True, env=env, check=False)
    assert run.returncode == 0 and run.stderr == "", run.stderr


@pytest.fixture
def served(tmp_path):
    """An HTTP server on a free port serving tmp_path."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_cli_reads_a_url(tmp_path, served):
    _write(tmp_path, make_document(), "good.json")
    bad = make_document()
    tamper_order(bad)
    _write(tmp_path, copy.deepcopy(bad), "bad.json")
    assert runner.invoke(cli_app, ["audit", "verify", f"{served}/good.json"]).exit_code == 0
    failed = runner.invoke(cli_app, ["audit", "verify", f"{served}/bad.json"])
    assert failed.exit_code == 1 and "rol_0003" in failed.output
    assert runner.invoke(cli_app, ["audit", "verify", f"{served}/missing.json"]).exit_code == 2


DOCS = Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md"


def test_documented_example_verifies_with_its_chain_vectors():
    text = DOCS.read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)```", text, re.DOTALL).group(1)
    document = json.loads(block)
    report = verify_document(document, expected_head=document["chain_head"])
    assert report.ok, report.failure
    assert [c.verdict for c in report.checks] == ["ok", "ok", "never revealed"]
    assert report.chain_head == "6f84fc3e014df53e05f5f9fb6f8d35e1b76710334fe3b67bde9c2719c128f0d3"
    first = document["rolls"][0]
    assert first["entry_hash"] == entry_hash(
        GENESIS, "mat_TESTVECTOR0001", "rol_0001", 0, 0,
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        bytes(range(32)), bytes(range(0xA0, 0xB0)), "client", (1, 4),
    ) == "a9773d0407741152eebd0bbd76391adb1ca4217e6c0b526ff80ed17ca4f53f8e"
    for vector in ("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
                   "`54cf40b5…`", "`ffaed23b…`", "`0029a470…`", "`855ee305…`"):
        assert vector in text


def _documented_example() -> dict:
    return json.loads(re.search(r"```json\n(.*?)```", DOCS.read_text("utf-8"), re.DOTALL).group(1))


@pytest.mark.parametrize(
    ("field", "value"),
    [("nonce", False), ("seat", False), ("dice", [True, 4]), ("dice", [1, 4, 1])],
    ids=["nonce-false", "seat-false", "die-true", "three-dice"],
)
def test_json_booleans_and_extra_dice_are_malformed(field, value):
    # The example's first roll has nonce 0, seat 0 and dice 1-4: false and true hash exactly
    # like 0 and 1, so without a type check these forgeries verified as "ok".
    document = _documented_example()
    document["rolls"][0][field] = value
    failure = verify_document(document).failure
    assert (failure.roll_id, failure.verdict) == ("rol_0001", verify.MALFORMED)
    assert str(value) in failure.detail


def test_an_entry_that_is_not_an_object_is_malformed():
    document = make_document()
    document["rolls"][3] = ["rol_0003"]
    failure = verify_document(document).failure
    assert (failure.index, failure.roll_id, failure.verdict) == (3, "#3", verify.MALFORMED)
    assert "got list" in failure.detail


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "a JSON object, got list"),
        ("null", "a JSON object, got NoneType"),
        (json.dumps(make_document() | {"rolls": {}}), "rolls is a dict, not a list"),
        ("[" * 100_000 + "]" * 100_000, "recursion"),
    ],
    ids=["list", "null", "rolls-object", "nested-too-deep"],
)
def test_cli_documents_that_are_not_audit_documents_exit_2(tmp_path, text, message):
    # These raised AttributeError or RecursionError: a traceback and exit status 1.
    path = tmp_path / "odd.json"
    path.write_text(text)
    result = runner.invoke(cli_app, ["audit", "verify", str(path)])
    assert result.exit_code == 2, result.output
    assert "cannot read an audit document" in result.output and message in result.output


class _HtmlHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the http.server hook's name)
        body = b"<!doctype html><title>Dice record</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_cli_names_a_web_page_url_instead_of_a_json_error():
    # The result screen links the audit *page*; pasting it used to say "Expecting value:
    # line 1 column 1 (char 0)".
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HtmlHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/audit/mat_x"
        result = runner.invoke(cli_app, ["audit", "verify", url])
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 2
    assert "is a web page, not an audit document" in result.output
    assert "/api/audit/MATCH_ID" in result.output


def test_cli_help_states_each_exit_status_on_its_own_line():
    # Typer's rich help keeps the docstring's line breaks: a sentence wrapped in the source
    # came out broken mid-phrase ("commitment" / "mismatch") in every terminal.
    result = runner.invoke(cli_app, ["audit", "verify", "--help"], env={"COLUMNS": "120"})
    lines = {line.strip(" │") for line in result.output.splitlines()}
    assert {
        "Exit status 0: verified.",
        "Exit status 1: a roll fails; the output names the first and why (e.g. dice mismatch).",
        "Exit status 2: the document cannot be read, or --head is not 64 hex digits.",
    } <= lines


# Found by a new user's trial: ``verify.py audit.json --log`` said "cannot read an audit
# document from audit.json: --log without a file reads the log of the source URL's server",
# blaming a document that is fine. The fault is the arguments: an entries file or a URL.
@pytest.mark.parametrize("source", ["file", "-"])
def test_log_without_a_file_or_url_is_an_argument_error(tmp_path, capsys, monkeypatch, source):
    path = str(_write(tmp_path, make_document()))
    if source == "-":
        monkeypatch.setattr(sys, "stdin", io.StringIO(Path(path).read_text(encoding="utf-8")))
    given = path if source == "file" else "-"
    assert verify.main([given, "--log"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, (out, err)
    assert "cannot read an audit document" not in err
    named = repr(path) if source == "file" else "standard input"
    assert err == ("argument --log: needs the log's entries file (--log ENTRIES_FILE: a JSON "
                   "list of the log's entries from index 0, as GET /api/log/entries?start=0&"
                   "count=N serves them, N at most 1000 a page) or an http(s) URL as the "
                   f"source, whose server's log it then reads; the source is {named}\n")


@pytest.mark.parametrize(
    ("document", "said"),
    [([], "not an audit document: a JSON object, got list"),
     ({"format": "boardgammon-audit-v2", "log": None},
      "the document has no signed head to read the log up to (log.head.tree_size is None)")],
)
def test_a_document_without_a_head_is_blamed_not_the_entries_file(tmp_path, document, said):
    # A new user's trial (2026-12-05): with --log FILE, a document that is no audit document,
    # or has no signed head, was reported as "cannot read the public log's entries from FILE".
    path, entries = tmp_path / "audit.json", tmp_path / "entries.json"
    path.write_text(json.dumps(document))
    entries.write_text("[]")
    lines: list[str] = []
    assert verify.run(str(path), out=lines.append, log=str(entries)) == 2
    assert lines == [f"cannot read an audit document from {path}: {said}"]
