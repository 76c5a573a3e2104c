"""The v2 spec (docs/fair-dice.md §Version 2): its test vectors and its example document, checked
against the package's derivation and verifier and against the independent verifier written from
the spec (tests/dice/spec_verifier_v2.py); the verifier module still runs alone and reads both
formats."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boardgammon.dice import verify
from boardgammon.dice.verify import (
    LINK_MISMATCH,
    chain_link,
    chain_link_steps,
    derive_dice_v2,
    dice_prefix_v2,
    entry_hash_v2,
    hmac_sha256,
    opponent_link_steps,
    verify_document,
)
from tests.dice import spec_verifier_v2

DOCS = Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md"
SEED = bytes(range(32))
ENTROPY = bytes(range(0xA0, 0xB0))
LINK = bytes(range(0xB0, 0xD0))
MATCH, ROLL = "mat_TESTVECTOR0001", "rol_0001"


def v2_document(first_roll: str) -> dict:
    """The spec's v2 audit document whose first roll is ``first_roll``."""
    text = DOCS.read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.DOTALL)]
    return next(
        b for b in blocks
        if b["format"] == "boardgammon-audit-v2" and b["rolls"][0]["roll_id"] == first_roll
    )


def v2_example() -> dict:
    return v2_document("rol_0001")


@pytest.mark.parametrize(
    ("nonce", "kind", "link", "length", "block0", "dice"),
    [
        (0, "normal", LINK, 131, "f769dbc6", (2, 4)),
        (0, "normal", None, 99, "c28fd7f3", (3, 6)),
        (0, "opening", LINK, 132, "49462cf7", (2, 5)),
        (29, "normal", LINK, 131, "08f730eb", (3, 2)),
    ],
)
def test_vectors(nonce, kind, link, length, block0, dice):
    prefix = dice_prefix_v2(MATCH, ROLL, nonce, kind, ENTROPY, link)
    assert len(prefix) == length
    assert hmac_sha256(SEED, prefix + bytes(4)).hex().startswith(block0)
    assert derive_dice_v2(SEED, MATCH, ROLL, nonce, kind, ENTROPY, link) == dice
    assert spec_verifier_v2.dice(SEED, MATCH, ROLL, nonce, kind, ENTROPY, link or b"") == dice
    text = DOCS.read_text(encoding="utf-8")
    assert f"`{block0}…`" in text and f"**{dice[0]}-{dice[1]}**" in text


def test_the_prefix_and_anchor_are_as_written():
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    written = re.search(r"The prefix of the first row, in hex: `([0-9a-f ]+)`", text).group(1)
    assert bytes.fromhex(written) == dice_prefix_v2(MATCH, ROLL, 0, "normal", ENTROPY, LINK)
    assert chain_link(LINK).hex() in text
    assert chain_link(LINK) == hashlib.sha256(LINK).digest()


def test_the_example_document_verifies_both_ways():
    document = v2_example()
    report = verify_document(document, expected_head=document["chain_head"])
    assert report.ok, report.failure
    assert [c.verdict for c in report.checks] == ["ok", "never revealed"]
    assert spec_verifier_v2.check(document) == ["ok", "void"]
    for entry in document["rolls"]:
        assert entry["entry_hash"] == entry_hash_v2(MATCH, entry)
        assert entry["entry_hash"] == spec_verifier_v2.entry_hash(MATCH, entry)


def test_the_entry_hashes_after_each_change_are_the_specs():
    """§The record (v2), A roll's leaves: the example's rolls as they stood after each change,
    as the spec's table gives them, by the package and by the spec's own reading."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("**A roll's leaves (v2).**"):text.index("### Checking the anchors")]
    table = dict(re.findall(r"\| `(\w+)` \| `([0-9a-f]{64})`", section))
    void_roll = re.findall(r"`([0-9a-f]{64})`\)", section)
    expected = [
        [("committed", table["committed"]), ("requested", table["requested"]),
         ("revealed", table["revealed"]), ("played", table["played"])],
        [("committed", void_roll[0]),
         ("void", next(h for h in re.findall(r"[0-9a-f]{64}", text) if h.startswith("73929834")))],
    ]
    document = v2_example()
    for entry, changes in zip(document["rolls"], expected, strict=True):
        assert verify.roll_changes(entry) == [change for change, _ in changes]
        assert spec_verifier_v2.changes(entry) == [change for change, _ in changes]
        for change, hashed in changes:
            assert entry_hash_v2(MATCH, verify.entry_after(entry, change)) == hashed
            assert spec_verifier_v2.entry_hash(
                MATCH, spec_verifier_v2.as_it_stood(entry, change)) == hashed
        assert changes[-1][1] == entry["entry_hash"]  # the last change is the roll as it is
    with pytest.raises(ValueError, match="has no change 'revealed'"):
        verify.entry_after(document["rolls"][1], "revealed")


def test_the_k2_vector_verifies_both_ways():
    """§Test vectors (v2), a link two steps on: x_1 used up by an absent roll, x_2 due next."""
    document = v2_document("rol_0003")
    x1 = chain_link(LINK)
    x0 = chain_link(x1)
    text = " ".join(DOCS.read_text(encoding="utf-8").split())
    assert f"`x_0` = SHA-256(`x_1`) = `{x0.hex()}`" in text
    assert document["anchors"] == [None, x0.hex()]
    assert chain_link_steps(LINK, 2) == x0
    assert opponent_link_steps(document["rolls"]) == [1, None, 2]
    assert spec_verifier_v2.steps(document) == [1, None, 2]
    assert [e["opponent_link_steps"] for e in document["rolls"]] == [1, None, 2]
    seeds = [bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))]
    links = [None, None, LINK]
    for entry, seed, link, dice in zip(document["rolls"], seeds, links, [(6, 5), (1, 2), (5, 4)],
                                       strict=True):
        assert entry["server_seed"] == seed.hex()
        assert derive_dice_v2(seed, MATCH, entry["roll_id"], entry["nonce"], "normal", ENTROPY,
                              link) == dice == tuple(entry["dice"])
        assert f"**{dice[0]}-{dice[1]}**" in text
    report = verify_document(document, expected_head=document["chain_head"])
    assert report.ok, report.failure
    assert spec_verifier_v2.check(document) == ["ok", "ok", "ok"]
    # x_1 in the third roll (one step: the link the absent roll used up), dice and hashes
    # rewritten to fit it: both verifiers refuse it.
    forged = copy.deepcopy(document)
    entry = forged["rolls"][2]
    entry["opponent_entropy"] = x1.hex()
    entry["dice"] = list(derive_dice_v2(seeds[2], MATCH, entry["roll_id"], entry["nonce"],
                                        "normal", ENTROPY, x1))
    prev = forged["genesis"]
    for e in forged["rolls"]:
        e["prev_hash"] = prev
        prev = e["entry_hash"] = entry_hash_v2(MATCH, e)
    forged["chain_head"] = prev
    failure = verify_document(forged).failure
    assert failure is not None and (failure.index, failure.verdict) == (2, LINK_MISMATCH)
    assert spec_verifier_v2.check(forged)[2] == "bad: link"


@pytest.mark.parametrize("field", ["committed_at", "state", "kind", "opponent_source", "seq"])
def test_a_changed_field_fails_the_example(field):
    document = v2_example()
    entry = document["rolls"][0]
    entry[field] = {
        "committed_at": "2026-12-02T11:59:59.000000Z",
        "state": "revealed",
        "kind": "opening",
        "opponent_source": "absent",
        "seq": 1,
    }[field]
    assert not verify_document(document).ok
    assert any(v.startswith("bad") for v in spec_verifier_v2.check(document))


def test_the_copied_verifier_reads_v1_and_v2(tmp_path):
    """verify.py, copied out of the package, checks both documented examples (exit 0) and
    names a tampered v2 roll (exit 1)."""
    copy = tmp_path / "verify.py"
    copy.write_text(Path(verify.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    text = DOCS.read_text(encoding="utf-8")
    for index, block in enumerate(re.findall(r"```json\n(.*?)```", text, re.DOTALL)):
        path = tmp_path / f"doc{index}.json"
        path.write_text(block, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-I", str(copy), str(path)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    document = v2_example()
    document["rolls"][0]["dice"] = [6, 6]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-I", str(copy), str(bad)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 1 and "rol_0001" in done.stdout and "dice mismatch" in done.stdout


@pytest.mark.parametrize(
    ("index", "field", "value"),
    [
        (0, "roller_source", "nobody"),  # hashed, so re-hashed: only the value is wrong
        (2, "roller_source", None),
        (2, "opponent_link_steps", 2.0),  # not hashed: a float is not the integer k
        (2, "opponent_link_steps", True),
        (0, "opponent_link_steps", True),  # == 1 in Python, and no integer either
    ],
)
def test_a_forged_k2_document_fails_both_verifiers(index, field, value):
    """The k = 2 vector with one field forged and the hashes made to fit it again: both the
    package's verifier and the independent one refuse it."""
    forged = copy.deepcopy(v2_document("rol_0003"))
    forged["rolls"][index][field] = value
    prev = forged["genesis"]
    for e in forged["rolls"]:
        e["prev_hash"] = prev
        prev = e["entry_hash"] = entry_hash_v2(MATCH, e)
    forged["chain_head"] = prev
    assert not verify_document(forged).ok
    assert spec_verifier_v2.check(forged)[index].startswith("bad")


def _rehashed(document: dict) -> dict:
    prev = document["genesis"]
    for e in document["rolls"]:
        e["prev_hash"] = prev
        prev = e["entry_hash"] = entry_hash_v2(MATCH, e)
    document["chain_head"] = prev
    return document


# The k = 2 vector's first roll (revealed absent, then played) as it stood at each open state.
OPEN = {
    "requested": {"state": "requested", "server_seed": None, "opponent_source": None,
                  "dice": None, "revealed_at": None, "played_at": None},
    "committed": {"state": "committed", "server_seed": None, "roller_entropy": None,
                  "roller_source": None, "opponent_source": None, "dice": None,
                  "requested_at": None, "revealed_at": None, "played_at": None},
    "revealed": {"state": "revealed", "played_at": None},
}


@pytest.mark.parametrize("state", list(OPEN))
def test_a_roll_left_open_with_rolls_after_it_fails_both_verifiers(state):
    """A server that rolls again after a request (the dice it saw coming were not to its
    liking) and leaves the first roll ``requested`` instead of voiding it (a void after the
    request is on record, with its time): the k = 2 vector with its first roll still open and
    the two rolls after it, hashes made to fit. Only a record's last roll may be open; an
    earlier one fails as ``left unresolved`` in both verifiers (it was "pending" before)."""
    forged = copy.deepcopy(v2_document("rol_0003"))
    forged["rolls"][0].update(OPEN[state])
    _rehashed(forged)
    report = verify_document(forged)
    assert [c.verdict for c in report.checks] == [verify.LEFT_UNRESOLVED, "ok", "ok"]
    assert (report.failure.index, report.failure.roll_id) == (0, "rol_0003")
    assert f"still {state}, yet roll rol_0004 (#1) follows it" in report.failure.detail
    assert spec_verifier_v2.check(forged) == ["bad: left unresolved", "ok", "ok"]


@pytest.mark.parametrize("state", ["requested", "committed"])
def test_the_last_roll_may_be_pending(state):
    """The same open states on the record's last roll: the roll in progress, pending."""
    document = copy.deepcopy(v2_document("rol_0003"))
    last = document["rolls"][2]
    last.update(OPEN[state] | {"opponent_entropy": None, "opponent_at": None})
    _rehashed(document)
    report = verify_document(document)
    assert report.ok, report.failure
    assert [c.verdict for c in report.checks] == ["ok", "ok", "pending"]
    assert spec_verifier_v2.check(document) == ["ok", "ok", "pending"]


# The k = 2 vector's first roll voided where it stood after its request (the roller's entropy
# in, nothing revealed; `absent` was not yet decided, so no opponent source either), and as
# it stood before any request (the roll a late anchor voids and commits again).
VOID_REQUESTED = {"state": "void", "server_seed": None, "opponent_source": None, "dice": None,
                  "revealed_at": None, "played_at": None,
                  "voided_at": "2026-12-02T12:00:05.000000Z"}
VOID_UNREQUESTED = VOID_REQUESTED | {"roller_entropy": None, "roller_source": None,
                                     "requested_at": None,
                                     "voided_at": "2026-12-02T12:00:01.000000Z"}


def _as_opening(entry: dict) -> None:
    """``entry`` (a revealed roll of the k = 2 vector) as an opening roll: kind and dice."""
    entry["kind"] = "opening"
    opponent = entry["opponent_entropy"]
    entry["dice"] = list(derive_dice_v2(
        bytes.fromhex(entry["server_seed"]), MATCH, entry["roll_id"], entry["nonce"], "opening",
        bytes.fromhex(entry["roller_entropy"]), bytes.fromhex(opponent) if opponent else None))


def test_a_roll_voided_after_its_request_and_rolled_again_fails_both_verifiers(tmp_path, capsys):
    """A "busy" reroll on record: the server takes the roller's request (its entropy, and with
    the opponent's link the dice, may be in), voids the roll and rolls a normal roll of the
    same game. A requested roll is voided only when its game or the match ends, so the next
    roll, if any, is the next game's opening roll: both verifiers fail the void as ``void
    after request`` (it was "never revealed" before), and ``verify.py`` exits 1."""
    forged = copy.deepcopy(v2_document("rol_0003"))
    forged["rolls"][0].update(VOID_REQUESTED)
    _rehashed(forged)
    report = verify_document(forged)
    assert [c.verdict for c in report.checks] == [verify.VOID_AFTER_REQUEST, "ok", "ok"]
    assert (report.failure.index, report.failure.roll_id) == (0, "rol_0003")
    assert "yet roll rol_0004 (#1, normal) of the same game follows it" in report.failure.detail
    assert spec_verifier_v2.check(forged) == ["bad: void after request", "ok", "ok"]
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert verify.main([str(path)]) == 1
    assert "FAIL: roll rol_0003 (#0): void after request: " in capsys.readouterr().out


def test_a_requested_opening_roll_voided_and_rolled_again_fails_both_verifiers():
    """No game ends before its opening roll is played (no cube, no resignation yet), so a
    requested opening roll is voided only when the match ends: any roll after it, an opening
    one too, is the same game's reroll."""
    forged = copy.deepcopy(v2_document("rol_0003"))
    _as_opening(forged["rolls"][0])
    forged["rolls"][0].update(VOID_REQUESTED)
    _as_opening(forged["rolls"][1])
    _rehashed(forged)
    report = verify_document(forged)
    assert [c.verdict for c in report.checks] == [verify.VOID_AFTER_REQUEST, "ok", "ok"]
    assert "yet roll rol_0004 (#1, opening)" in report.failure.detail
    assert spec_verifier_v2.check(forged) == ["bad: void after request", "ok", "ok"]


def test_a_requested_roll_voided_when_its_game_ends_passes_both_verifiers():
    """The honest voids after a request: the match ends during the wait for the link (a
    flag, a forfeit) and nothing follows; or, in records made before 2026-12-04, when a
    resignation could still be offered and accepted during the wait, the game ended and the
    next game began with its opening roll, after which the game's normal rolls came (still
    accepted: the verifiers cannot tell it from an `opening` label on a reroll of the same
    game, which the devices that sent input for the roll flag)."""
    document = copy.deepcopy(v2_document("rol_0003"))
    document["rolls"][0].update(VOID_REQUESTED)
    _as_opening(document["rolls"][1])
    _rehashed(document)
    report = verify_document(document)
    assert report.ok, report.failure
    assert [c.verdict for c in report.checks] == ["never revealed", "ok", "ok"]
    assert spec_verifier_v2.check(document) == ["void", "ok", "ok"]
    ended = copy.deepcopy(v2_document("rol_0003"))
    ended["rolls"][2].update(VOID_REQUESTED | {
        "opponent_entropy": None, "opponent_at": None,
        "voided_at": "2026-12-02T12:00:25.000000Z"})
    _rehashed(ended)
    assert verify_document(ended).ok
    assert spec_verifier_v2.check(ended) == ["ok", "ok", "void"]


def test_a_roll_voided_before_its_request_may_be_rolled_again():
    """The late anchor's void (docs/fair-dice.md §Checking the anchors (v2)): a roll
    committed and never requested (no ``requested_at``: no input had left for it) is voided
    and committed again, a normal roll of the same game after it. Both verifiers pass it."""
    document = copy.deepcopy(v2_document("rol_0003"))
    document["rolls"][0].update(VOID_UNREQUESTED)
    _rehashed(document)
    report = verify_document(document)
    assert report.ok, report.failure
    assert [c.verdict for c in report.checks] == ["never revealed", "ok", "ok"]
    assert spec_verifier_v2.check(document) == ["void", "ok", "ok"]


def _stating(document: dict, leaf: str) -> dict:
    """``document`` with ``leaf`` listed as its match leaf (``log.match``, as the audit JSON
    lists it; its inclusion proof is transparency.py's to check, not the verifiers')."""
    document["log"] = {"match": {"index": 0, "event": "match", "leaf": leaf}}
    return document


def _match_leaf(mode: str, wait: int | str | None) -> str:
    """The spec's match leaf of the k = 2 vector's match, written out as §The public log's
    test vector writes it, stating ``wait`` (``link_wait_ms``, left out where ``None``)."""
    stated = "" if wait is None else f'"link_wait_ms":{wait},'
    return ('{"at":"2026-12-02T12:00:00+00:00","event":"match","format":"boardgammon-log-v1",'
            f'{stated}"match_id":"{MATCH}","mode":"{mode}"}}')


def test_an_absent_roll_revealed_before_the_stated_wait_fails_both_verifiers(tmp_path, capsys):
    """The k = 2 vector's first roll is ``absent``, revealed exactly 3 s after its request
    (12:00:02 → 12:00:05). Its match leaf stating 3000 ms: both verifiers pass it, and
    verify.py says the wait. Revealed a microsecond sooner (the record rewritten, hashes made
    to fit), or under a leaf stating 3001 ms, both fail it as ``absent too early``: the server
    did not wait for the link as long as it said it would."""
    honest = _stating(copy.deepcopy(v2_document("rol_0003")), _match_leaf("live", 3000))
    report = verify_document(honest)
    assert report.ok, report.failure
    assert report.mode == verify.Mode("live", "2026-12-02T12:00:00+00:00", 0, False, 3000)
    assert ("Its server waits 3 s for the opponent's link before it rolls without it"
            in "\n".join(verify.format_report(report)))
    assert spec_verifier_v2.stated_wait(honest) == 3000
    assert spec_verifier_v2.check(honest) == ["ok", "ok", "ok"]

    early = copy.deepcopy(honest)
    early["rolls"][0]["revealed_at"] = "2026-12-02T12:00:04.999999Z"
    _rehashed(early)
    report = verify_document(early)
    assert [c.verdict for c in report.checks] == [verify.ABSENT_TOO_EARLY, "ok", "ok"]
    assert (report.failure.index, report.failure.roll_id) == (0, "rol_0003")
    assert report.failure.detail == (
        "the roll was revealed without the opponent's link at 2026-12-02T12:00:04.999999Z, "
        "2.999999 s after its request at 2026-12-02T12:00:02.000000Z; the public log's entry 0 "
        "states that the server waits 3 s for the link in this match before it rolls without "
        "it, so it did not wait as it said")
    assert spec_verifier_v2.check(early) == ["bad: absent too early", "ok", "ok"]
    path = tmp_path / "early.json"
    path.write_text(json.dumps(early))
    assert verify.main([str(path)]) == 1
    assert "FAIL: roll rol_0003 (#0): absent too early: " in capsys.readouterr().out

    longer = _stating(copy.deepcopy(v2_document("rol_0003")), _match_leaf("computer", 3001))
    assert verify_document(longer).failure.verdict == verify.ABSENT_TOO_EARLY
    assert spec_verifier_v2.check(longer) == ["bad: absent too early", "ok", "ok"]


@pytest.mark.parametrize(("mode", "wait"), [("live", None), ("correspondence", None),
                                            ("live", 0)])
def test_a_leaf_that_states_no_longer_wait_checks_none(mode, wait):
    """A leaf without ``link_wait_ms`` (a correspondence match, whose turns are revealed at
    once, or a leaf written before the wait was stated) states no wait: an ``absent`` roll
    revealed at once passes both verifiers, as it did before; a wait of 0 ms is met by any."""
    document = copy.deepcopy(v2_document("rol_0003"))
    document["rolls"][0]["revealed_at"] = document["rolls"][0]["requested_at"]
    _stating(_rehashed(document), _match_leaf(mode, wait))
    report = verify_document(document)
    assert report.ok, report.failure
    assert report.mode is not None and report.mode.link_wait_ms == wait
    said = "\n".join(verify.format_report(report))
    assert ("Its server waits" in said) is (wait is not None)
    assert spec_verifier_v2.stated_wait(document) == wait
    assert spec_verifier_v2.check(document) == ["ok", "ok", "ok"]


@pytest.mark.parametrize("wait", ["-1", "3000.0", "true", '"3000"', "null"])
def test_a_wait_that_is_no_whole_ms_is_a_leaf_that_cannot_be_read(wait):
    document = _stating(copy.deepcopy(v2_document("rol_0003")), _match_leaf("live", wait))
    report = verify_document(document)
    assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
    # The value as the leaf spells it (JSON), never Python's repr (None, True, '3000').
    assert (f"log entry 0, the match's mode, states the link wait {wait}, not "
            "whole milliseconds (an integer >= 0)") == report.failure.detail
    with pytest.raises(AssertionError, match="is no whole ms"):
        spec_verifier_v2.check(document)


@pytest.mark.parametrize(("at", "readable"), [("2026-12-05T23:59:59.999999+00:00", True),
                                               ("2026-12-06T00:00:00+00:00", False),
                                               ("2026-12-06T08:59:59+09:00", True),
                                               ("2027-01-01T00:00:00+00:00", False)])
def test_a_live_leaf_logged_since_the_wait_was_stated_must_state_it(at, readable):
    """Leaves written before the wait was stated stay valid without ``link_wait_ms``; a live
    (or computer) match's leaf logged from 2026-12-06 (UTC) on that leaves it out cannot be
    read, else a server could write leaves without it and have no wait checked (a new
    user's trial). 08:59:59 at +09:00 is a second before midnight UTC."""
    document = copy.deepcopy(v2_document("rol_0003"))
    leaf = _match_leaf("live", None).replace('"at":"2026-12-02T12:00:00+00:00"', f'"at":"{at}"')
    _stating(document, leaf)
    report = verify_document(document)
    if readable:
        assert report.ok, report.failure
        assert spec_verifier_v2.stated_wait(document) is None
    else:
        assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
        assert report.failure.detail == (
            f"log entry 0, the match's mode, logged at {at}, states no wait for the "
            "opponent's link; every live match's leaf logged since 2026-12-06T00:00:00+00:00 "
            "states it")
        with pytest.raises(AssertionError, match="since 2026-12-06 states its wait"):
            spec_verifier_v2.stated_wait(document)


def test_a_correspondence_leaf_that_states_a_wait_cannot_be_read():
    """A correspondence match's turns wait for no link, so its leaf states none (found by a
    new user's trial: a tampered leaf saying both passed, and the report then said the
    match was correspondence and that its server waits 3 s)."""
    document = _stating(copy.deepcopy(v2_document("rol_0003")),
                        _match_leaf("correspondence", 3000))
    report = verify_document(document)
    assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
    assert report.failure.detail == ("log entry 0 states a link wait for a correspondence "
                                     "match, whose turns wait for no link")
    with pytest.raises(AssertionError, match="a correspondence match states no wait"):
        spec_verifier_v2.check(document)
