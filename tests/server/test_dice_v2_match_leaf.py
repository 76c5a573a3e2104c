"""The public log states how each v2 match is played (``docs/fair-dice.md`` §The public log,
Match leaf): one leaf, ``mode`` ``live``, ``correspondence`` or ``computer``, written with the
match's first roll. Before (2026-12-05) nothing in the record or the log said it, so a reader
could not tell a correspondence match's ``absent`` rolls, which every turn has, from a live
device that did not answer. The audit JSON lists the leaf with its inclusion proof, the page
and both checkers say the mode, ``verify.py --log`` reads it from the log itself, and
``transparency.py --scan`` fails a document that leaves it out."""

from __future__ import annotations

import copy
import json
import time

import pytest
from gameplay import Player, live_match
from test_match_dice_v2 import Device, client, past_opening, wall  # noqa: F401

from boardgammon.dice import transparency, verify
from boardgammon.server.services import services
from tests.dice import spec_verifier_v2
from tests.helpers.dice_v2 import Device as DeviceV2
from tests.helpers.dice_v2 import play_match


def entries(client) -> list[str]:  # noqa: F811
    return [e["leaf"] for e in client.get("/api/log/entries?start=0&count=1000").json()]


def played_live(client, names: tuple[str, str] = ("ann", "bob"), **seek) -> str:  # noqa: F811
    """A match between two devices, its opening rolled (at least one roll committed)."""
    ann, bob = Player.register(client, names[0]), Player.register(client, names[1])
    match_id = live_match(ann, bob, **seek)
    devices = {0: Device(ann), 1: Device(bob)}
    for device in devices.values():
        device.register(match_id)
    players = {0: ann, 1: bob}
    if seek.get("mode") != "correspondence":
        past_opening(players, devices, match_id)
        return match_id
    # A correspondence turn asks no device for its link: each roll is revealed at once.
    while (state := ann.state(match_id))["phase"] == "opening":
        r = players[state["turn"]].roll(match_id)
        assert r.status_code == 200, r.text
    return match_id


@pytest.mark.parametrize("lang", ["en", "de", "ja"])
def test_a_live_match_states_its_mode_once_with_its_first_roll(client, lang):  # noqa: F811
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True, document["failure"]
    stated = document["log"]["match"]
    fields = json.loads(stated["leaf"])
    # The server's wait for the link (BOARDGAMMON_LINK_WAIT, 3 s here) in whole ms.
    assert fields == {"at": fields["at"], "event": "match", "format": "boardgammon-log-v1",
                      "link_wait_ms": 3000, "match_id": match_id, "mode": "live"}
    first = document["rolls"][0]
    # Logged in the first roll's transaction, at its commitment time, just before its leaf.
    assert fields["at"] == verify.leaf_time(first["committed_at"])
    assert stated["index"] == first["log"][0]["index"] - 1
    log = entries(client)
    mine = [json.loads(leaf) for leaf in log]
    assert [f for f in mine if f["event"] == "match" and f["match_id"] == match_id] == [fields]
    # Both checkers and the spec's reading say the mode; the page too, in its language.
    lines = transparency.check_log(document)
    assert (f"it is a live match, where the server waits 3 s for the opponent's link before "
            f"it rolls without it, as its log entry {stated['index']} states") in " ".join(lines)
    # One roll's proof lists no match leaf, and says nothing of the mode (a new user's trial:
    # it said "a match from before 2026-12-05 has none" of a match minutes old).
    proof = client.get(f"/api/audit/{match_id}/rolls/{first['roll_id']}/proof").json()
    assert not [line for line in transparency.check_log(proof) if "mode" in line]
    assert transparency.check_match_complete(document, log[:document["log"]["head"]
                                                          ["tree_size"]])
    for leaves in (None, log[:document["log"]["head"]["tree_size"]]):
        report = verify.verify_document(document, log_leaves=leaves)
        proven = leaves is not None
        assert report.ok
        assert report.mode == verify.Mode("live", fields["at"], stated["index"], proven, 3000)
        said = "\n".join(verify.format_report(report))
        assert ("It is a live match, as the public log states" in said) is proven
        assert ("It is a live match, as the document's log entry" in said) is not proven
        assert ("Its server waits 3 s for the opponent's link before it rolls without it, as "
                "the same entry states") in said
    assert spec_verifier_v2.stated_mode(document) == "live"
    page = client.get(f"/audit/{match_id}?lang={lang}").text
    assert 'id="mode" data-mode="live"' in page
    words = {"en": "A live match", "de": "Ein Live-Match", "ja": "ライブ対戦"}[lang]
    assert words in page
    assert '<span id="link-wait" data-link-wait-ms="3000">' in page
    waits = {"en": "The server waits 3 s for the opponent&#39;s link",
             "de": "Der Server wartet 3 s auf das Glied des Gegners",
             "ja": "サーバーは相手のリンクを 3 秒待ってから"}[lang]
    assert waits in page


def test_a_correspondence_match_says_so(client):  # noqa: F811
    match_id = played_live(client, mode="correspondence", days=3)
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True, document["failure"]
    fields = json.loads(document["log"]["match"]["leaf"])
    # Its turns do not ask the opponent's device, so it states no wait for the link.
    assert fields["mode"] == "correspondence" and "link_wait_ms" not in fields
    # Its turns do not ask the opponent's device: every roll goes without the link.
    assert {r["opponent_source"] for r in document["rolls"] if r["dice"]} == {"absent"}
    assert verify.verify_document(document, log_leaves=entries(client)[
        :document["log"]["head"]["tree_size"]]).mode.mode == "correspondence"
    page = client.get(f"/audit/{match_id}").text
    assert 'data-mode="correspondence"' in page and 'id="link-wait"' not in page


def test_a_match_against_the_computer_says_so(client):  # noqa: F811
    ann = Player.register(client, "ann")
    r = ann.post("/api/matches/computer", {"level": "easy", "length": 1})
    assert r.status_code == 201, r.text
    match_id = r.json()["match_id"]
    Device(ann).register(match_id)
    for _ in range(100):  # the first roll is committed once ann's anchor is in
        answer = client.get(f"/api/audit/{match_id}")
        if answer.status_code == 200:
            break
        time.sleep(0.1)
    document = answer.json()
    assert json.loads(document["log"]["match"]["leaf"])["mode"] == "computer"
    assert 'data-mode="computer"' in client.get(f"/audit/{match_id}").text


def test_a_record_from_before_the_match_leaf_says_the_log_states_no_mode(client):  # noqa: F811
    # A v2 record whose match has no match leaf (rolled by the record's own functions, as the
    # server did before 2026-12-05): it verifies, and the page and verify.py say no mode.
    match_id = play_match(services(client.app).db, 2, (DeviceV2(), DeviceV2()))
    document = client.get(f"/api/audit/{match_id}").json()
    assert document["verified"] is True and document["log"]["match"] is None
    report = verify.verify_document(document, log_leaves=entries(client)[
        :document["log"]["head"]["tree_size"]])
    assert report.ok and report.mode is None
    assert "It is a" not in "\n".join(verify.format_report(report))
    assert "The public log states no mode for this match" in client.get(
        f"/audit/{match_id}").text


def test_a_document_that_hides_or_changes_the_mode_fails(client):  # noqa: F811
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    log = entries(client)[:document["log"]["head"]["tree_size"]]
    stated = document["log"]["match"]

    # Left out of the document: verify.py --log finds it in the log and fails the
    # document; the scan names it.
    hidden = copy.deepcopy(document)
    hidden["log"]["match"] = None
    assert verify.verify_document(hidden).mode is None
    report = verify.verify_document(hidden, log_leaves=log)
    assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
    assert (f"lists no log entry of the match's mode; the log's is entry {stated['index']}"
            in report.failure.detail)
    with pytest.raises(transparency.ProofError, match=r"the match's mode, live\) is not in"):
        transparency.check_match_complete(hidden, log)

    # Another mode written into the listed leaf (without the wait, which a correspondence
    # leaf never states): its inclusion proof no longer holds, and the log's own first leaf
    # is another.
    changed = copy.deepcopy(document)
    changed["log"]["match"]["leaf"] = stated["leaf"].replace('"live"', '"correspondence"')
    changed["log"]["match"]["leaf"] = changed["log"]["match"]["leaf"].replace(
        '"link_wait_ms":3000,', "")
    assert "link_wait_ms" not in changed["log"]["match"]["leaf"]
    with pytest.raises(transparency.ProofError, match="does not lead to the root"):
        transparency.check_log(changed)
    report = verify.verify_document(changed, log_leaves=log)
    assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
    assert f"the match's mode, is not the log's entry {stated['index']}" in report.failure.detail

    # A leaf of another kind listed as the mode: no statement of the match's mode.
    anchor = copy.deepcopy(document)
    anchor["log"]["match"] = document["log"]["anchors"][0]
    with pytest.raises(transparency.ProofError, match="no statement of this match's mode"):
        transparency.check_log(anchor)
    report = verify.verify_document(anchor)
    assert not report.ok and "log.match says 'anchor'" in report.failure.detail


@pytest.mark.parametrize(
    ("listed", "said"),
    [
        ("computer", "log.match is str, not a log entry"),
        ([{"index": 0}], "log.match is list, not a log entry"),
        ({"leaf": "{}"}, "log.match.index is None, not a leaf's index"),
        ({"index": False, "leaf": "{}"}, "log.match.index is False, not a leaf's index"),
        ({"index": 0.0, "leaf": "{}"}, "log.match.index is 0.0, not a leaf's index"),
        ({"index": -1, "leaf": "{}"}, "log.match.index is -1, not a leaf's index"),
        ({"index": 0, "leaf": 7}, "log.match.leaf is 7, not a leaf"),
        ({"index": 0, "leaf": "{"}, "log.match.leaf is not JSON"),
    ],
)
def test_a_malformed_mode_entry_is_named_never_a_traceback(client, listed, said):  # noqa: F811
    # A new user's trial (2026-12-05): verify.py --log raised AttributeError for a string or
    # a list, and passed an index of false or 0.0 that transparency.py refuses.
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    log = entries(client)[:document["log"]["head"]["tree_size"]]
    document["log"]["match"] = listed
    for leaves in (None, log):
        report = verify.verify_document(document, log_leaves=leaves)
        assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
        # Against the log, an entry that can be read is compared with the log's first.
        assert said in report.failure.detail or (
            leaves is not None and "as the match's mode; the log's first is entry"
            in report.failure.detail)
        shown = "\n".join(verify.format_report(report))
        assert "FAIL: (public log): log mismatch: " in shown
    with pytest.raises((transparency.DocumentError, transparency.ProofError)):
        transparency.check_log(document)


def test_transparency_checks_the_mode_entrys_event(client):  # noqa: F811
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    document["log"]["match"]["event"] = "anchor"
    with pytest.raises(transparency.ProofError, match="says 'anchor', its leaf 'match'"):
        transparency.check_log(document)


def test_what_a_second_trial_found_in_verify_py(client, tmp_path):  # noqa: F811
    """A second new user's trial (2026-12-05) of ``verify.py``: an entries file saved after
    the document (longer than its head) was a false FAIL; a rewritten record whose leaves were
    stripped, a foreign leaf listed as an anchor, a roll's leaf of another roll, and (with
    ``--log``) an anchor left out of the list all said OK; a malformed entries file was blamed
    on the audit document."""
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    size = document["log"]["head"]["tree_size"]
    path = tmp_path / "audit.json"

    def run(doc: dict, entries: object | None = None) -> tuple[int, list[str]]:
        path.write_text(json.dumps(doc))
        said: list[str] = []
        log = None
        if entries is not None:
            (tmp_path / "entries.json").write_text(json.dumps(entries))
            log = str(tmp_path / "entries.json")
        return verify.run(str(path), out=said.append, log=log), said

    later = played_live(client, ("cat", "dan"))  # the log grows after the document was fetched
    assert later != match_id
    saved = client.get("/api/log/entries?start=0&count=1000").json()
    assert len(saved) > size
    status, said = run(document, saved)
    assert status == 0, said
    assert said[-1] == (f"every roll and chain anchor of the match among the log's {size} "
                        "entries is in the record as logged")

    for entries, why in [
        ({"error": "start is required"}, "not a list of the log's entries"),
        (saved[:size - 1], f"the file holds {size - 1} entries; the document's signed head has "
                           f"{size}"),
        ([{**saved[0], "index": True}, *saved[1:]], "entry 0 of the file is not the log's entry 0"),
    ]:
        status, said = run(document, entries)
        assert status == 2 and said == [
            f"cannot read the public log's entries from {tmp_path / 'entries.json'}: "
            + said[0].split(": ", 1)[1]] and why in said[0], said

    # Leaves stripped from the rolls: without the log that is transparency.py's to fail (a v2
    # roll has leaves from its commitment on); with it, the document is not the log's.
    stripped = copy.deepcopy(document)
    for roll in stripped["rolls"]:
        roll["log"] = []
    assert run(stripped)[0] == 0
    status, said = run(stripped, saved)
    assert status == 1 and "the document lists log entries []" in said[-1]

    foreign = copy.deepcopy(document)
    foreign["log"]["anchors"].append(document["log"]["match"])
    status, said = run(foreign)
    assert status == 1 and "is no chain anchor of this match" in said[-1]

    other = client.get(f"/api/audit/{later}").json()["rolls"][0]
    swapped = copy.deepcopy(document)
    swapped["rolls"][0]["log"][0] = other["log"][0]
    status, said = run(swapped)
    assert status == 1 and f"names roll {other['roll_id']} (seq 0) of match {later}" in said[-1]

    left_out = copy.deepcopy(document)
    dropped = left_out["log"]["anchors"].pop()
    assert run(left_out)[0] == 0  # without the log, the list is the document's word
    status, said = run(left_out, saved)
    assert status == 1 and "the document lists anchor leaves" in said[-1]
    assert str(dropped["index"]) in said[-1]


def test_a_live_leaf_without_its_wait_since_it_is_stated_fails_both_checkers(client):  # noqa: F811
    """A live match's leaf logged since 2026-12-06 (UTC) states its wait: one without it
    cannot be read, by transparency (before its proof, which the change breaks too) and by
    verify.py; the same leaf dated before stays readable."""
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    stated = document["log"]["match"]
    at = json.loads(stated["leaf"])["at"]
    stated["leaf"] = stated["leaf"].replace('"link_wait_ms":3000,', "").replace(
        f'"at":"{at}"', '"at":"2026-12-06T00:00:01+00:00"')
    with pytest.raises(transparency.ProofError,
                       match=rf"log entry {stated['index']}, the match's mode, logged at "
                             r"2026-12-06T00:00:01\+00:00, states no wait for the opponent's"):
        transparency.check_log(document)
    report = verify.verify_document(document)
    assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
    assert "states no wait for the opponent's link" in report.failure.detail


@pytest.mark.parametrize("wait", ["-1", "3000.5", "true", '"3000"'])
def test_a_stated_wait_that_is_no_whole_ms_fails_both_checkers(client, wait):  # noqa: F811
    """A match leaf whose ``link_wait_ms`` is not an integer >= 0 cannot be read: transparency
    names it (before its proof, which the change breaks too), verify.py fails the document as a
    ``log mismatch``."""
    match_id = played_live(client)
    document = client.get(f"/api/audit/{match_id}").json()
    stated = document["log"]["match"]
    stated["leaf"] = stated["leaf"].replace('"link_wait_ms":3000', f'"link_wait_ms":{wait}')
    with pytest.raises(transparency.ProofError,
                       match=rf"log entry {stated['index']} states the link wait .*, not whole "
                             r"milliseconds \(an integer >= 0\)"):
        transparency.check_log(document)
    report = verify.verify_document(document)
    assert not report.ok and report.failure.verdict == verify.LOG_MISMATCH
    assert "not whole milliseconds" in report.failure.detail
