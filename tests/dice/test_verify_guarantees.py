"""verify.py says what an ok v2 roll proves (docs/fair-dice.md §What each kind of roll proves):
a roll whose opponent's link is ``absent`` or ``none`` (or the computer's without the human's
link) is ``ok`` with its weaker guarantee named, a fully witnessed roll is ``ok`` as before, an
ok record ends with the audit page's count of each kind, and the exit status is unchanged."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boardgammon.dice import verify
from boardgammon.dice.verify import entry_hash_v2, format_report, verify_document
from boardgammon.server.dice_record_v2 import GUARANTEES, roll_counts, roll_guarantee
from boardgammon.server.i18n import translator
from tests.dice.test_dice_v2_spec import v2_document

DOCS = Path(__file__).resolve().parents[2] / "docs" / "fair-dice.md"
HEAD = "3597e848d2f18196d784178b76026f38f102c6b331f25236e47d04cc6f4c0ebd"  # the k = 2 example

ABSENT_ROW = "     0  rol_0003  ok (opponent absent: server + roller inputs only)"
NONE_ROW = "     1  rol_0004  ok (no opponent device: server + roller inputs only)"
LIVE_ROW = "     2  rol_0005  ok"
SUMMARY = [
    "What these rolls prove:",
    "  1 rolls with both devices' entropy: neither player alone, nor the server with one of "
    "them, could foresee them; once the server had the opponent's link, it could at most have "
    "chosen between the roll with it and the roll without it.",
    "  1 rolls without the opponent's device's link (correspondence turns, which do not ask it, "
    "or live rolls it did not answer in time): the server and the roller together could have "
    "known them early.",
    "  1 rolls whose opponent had no chain: the server and the roller together could have known "
    "them early. That it had none is checked against the public log, where every chain anchor "
    "the server accepted is a leaf (verify.py --log).",
]


def _rehashed(document: dict) -> dict:
    prev = document["genesis"]
    for entry in document["rolls"]:
        entry["prev_hash"] = prev
        prev = entry["entry_hash"] = entry_hash_v2(document["match_id"], entry)
    document["chain_head"] = prev
    return document


def test_absent_and_none_rolls_say_their_guarantee():
    """The spec's k = 2 example: rol_0003 revealed ``absent``, rol_0004 ``none`` (seat 0 has no
    chain), rol_0005 with seat 1's link."""
    report = verify_document(v2_document("rol_0003"))
    assert report.ok
    assert [c.guarantee for c in report.checks] == ["opponent_absent", "no_opponent_device",
                                                     "live"]
    assert format_report(report) == [
        "mat_TESTVECTOR0001: 3 roll(s)", ABSENT_ROW, NONE_ROW, LIVE_ROW, *SUMMARY,
        f"OK: every revealed roll verifies; chain head {HEAD}",
    ]


def test_fully_witnessed_rolls_print_as_before():
    """The v2 example (a live roll with both devices' inputs, a void one): each row as it
    was, "ok" alone; the v1 example has no summary at all."""
    v2 = verify_document(v2_document("rol_0001"))
    lines = format_report(v2)
    assert lines[1:3] == ["     0  rol_0001  ok", "     1  rol_0002  never revealed"]
    assert lines[3] == "What these rolls prove:"
    assert lines[4].startswith("  1 rolls with both devices' entropy: ")
    assert lines[5].startswith("OK: ")  # the kinds the match has not are not listed
    text = DOCS.read_text(encoding="utf-8")
    v1 = next(b for b in re.findall(r"```json\n(.*?)```", text, re.DOTALL)
              if '"boardgammon-audit-v1"' in b)
    report = verify_document(json.loads(v1))
    assert format_report(report) == [
        "mat_TESTVECTOR0001: 3 roll(s)",
        "     0  rol_0001  ok",
        "     1  rol_0002  ok",
        "     2  rol_0003  never revealed",
        f"OK: every revealed roll verifies; chain head {report.chain_head}",
    ]
    assert report.counts is None and all(c.guarantee is None for c in report.checks)


def test_the_computers_rolls():
    """rol_0004 rolled by the computer (``roller_source`` server) with no chain of the human's:
    the server drew every input; rol_0005 by the computer with the human's link: ``ok`` as a
    fully witnessed roll (the server alone could not foresee it)."""
    document = copy.deepcopy(v2_document("rol_0003"))
    for entry in document["rolls"][1:]:
        entry["roller_source"] = "server"
    report = verify_document(_rehashed(document))
    assert report.ok
    lines = format_report(report)
    assert lines[1:4] == [ABSENT_ROW,
                          "     1  rol_0004  ok (server only: the server drew every input)",
                          LIVE_ROW]
    assert report.counts == {"live": 0, "computer": 1, "opponent_absent": 1,
                             "no_opponent_device": 0, "server_only": 1}
    assert "  1 rolls where the server drew every input." in lines


def test_a_failing_record_names_no_guarantees():
    """A record that fails: the rows that verify still say what they prove, no summary, the
    FAIL line last, exit status 1."""
    document = copy.deepcopy(v2_document("rol_0003"))
    document["rolls"][2]["dice"] = [6, 6]
    lines = format_report(verify_document(_rehashed(document)))
    assert lines[1:3] == [ABSENT_ROW, NONE_ROW]
    assert lines[3].startswith("     2  rol_0005  dice mismatch")
    assert "What these rolls prove:" not in lines
    assert lines[-1].startswith("FAIL: roll rol_0005 (#2): dice mismatch")


@pytest.mark.parametrize(("first", "status"), [("rol_0003", 0), ("rol_0001", 0)])
def test_the_copied_verifier_exits_0_for_weaker_rolls(tmp_path, first, status):
    """Copied out and run alone: an ok record with ``absent`` and ``none`` rolls exits 0 as
    before, its rows naming the guarantee."""
    copy_ = tmp_path / "verify.py"
    copy_.write_text(Path(verify.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(v2_document(first)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(copy_), str(path)], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == status, done.stdout + done.stderr
    if first == "rol_0003":
        assert done.stdout.splitlines()[1:4] == [ABSENT_ROW, NONE_ROW, LIVE_ROW]


def test_the_counts_are_the_audit_pages():
    """The kinds, their counting and their texts are the audit JSON's ``counts`` and the
    audit page's English texts, which verify.py copies to stay one file."""
    assert verify.GUARANTEES == GUARANTEES
    t = translator("en")
    assert verify.GUARANTEES_TITLE == t("counts.title")
    for kind in GUARANTEES:
        assert verify.GUARANTEE_COUNTS[kind].format(count=7) == t(f"counts.{kind}", count=7)
    for roller in ("client", "server"):
        for opponent in ("client", "absent", "none"):
            entry = {"roller_source": roller, "opponent_source": opponent}
            assert verify.roll_guarantee(entry) == roll_guarantee(entry)
    document = v2_document("rol_0003")
    assert verify_document(document).counts == roll_counts(document["rolls"])


def test_the_documented_output_is_the_verifiers():
    """docs/fair-dice.md §Checking shows verify.py's output for the k = 2 example."""
    text = DOCS.read_text(encoding="utf-8")
    shown = re.search(r"```text\n(\$ python3 verify\.py k2\.json\n.*?)```", text, re.DOTALL)
    assert shown is not None
    lines = shown.group(1).splitlines()[1:]
    assert lines == format_report(verify_document(v2_document("rol_0003")))
