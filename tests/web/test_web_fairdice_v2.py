"""The client's v2 dice check (web/fairdice.js) in Chromium: the spec's v2 vectors, agreement with
the Python reference on random inputs (with and without the opponent's link), hash chains the
device makes that the server's check accepts, and the verdicts on tampered v2 entries."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from webpage import run_client

from boardgammon.dice.verify import chain_link, commitment, derive_dice_v2

pytestmark = pytest.mark.browser

MATCH, ROLL = "mat_TESTVECTOR0001", "rol_0001"
SEED, ENTROPY, LINK = bytes(range(32)), bytes(range(0xA0, 0xB0)), bytes(range(0xB0, 0xD0))
# The roller's input as the server fixes it with the request (roller_entropy_sha256).
PINNED = hashlib.sha256(ENTROPY).hexdigest()


def test_v2_vectors(module_page):
    got = run_client(
        module_page,
        """const d = (n, k, l) => fd.deriveDiceV2(arg.seed, arg.match, arg.roll, n, k, arg.e, l);
        return [await d(0, "normal", arg.link), await d(0, "normal", null),
                await d(0, "opening", arg.link), await d(29, "normal", arg.link),
                await fd.linkBefore(arg.link)];""",
        {"seed": SEED.hex(), "match": MATCH, "roll": ROLL, "e": ENTROPY.hex(), "link": LINK.hex()},
    )
    assert got == [[2, 4], [3, 6], [2, 5], [3, 2], chain_link(LINK).hex()]


def test_v2_agrees_with_python_reference(module_page):
    rng = random.Random(20261202)
    cases = []
    for i in range(120):
        seed, entropy = rng.randbytes(32), rng.randbytes(16)
        link = rng.randbytes(32) if i % 3 else None
        kind = "opening" if i % 5 == 0 else "normal"
        match_id = "mat_" + rng.randbytes(15).hex() if i % 10 else "mat_ü" + str(i)
        nonce = rng.choice([0, 29, rng.randrange(2**32), rng.randrange(2**53)])
        cases.append(
            {
                "seed": seed.hex(),
                "e": entropy.hex(),
                "link": link.hex() if link else None,
                "kind": kind,
                "match": match_id,
                "roll": f"rol_{i:04d}",
                "nonce": nonce,
                "dice": list(
                    derive_dice_v2(seed, match_id, f"rol_{i:04d}", nonce, kind, entropy, link)
                ),
            }
        )
    got = run_client(
        module_page,
        """const out = [];
        for (const c of arg) {
            out.push(await fd.deriveDiceV2(c.seed, c.match, c.roll, c.nonce, c.kind, c.e, c.link));
        }
        return out;""",
        cases,
    )
    assert got == [c["dice"] for c in cases]


def test_a_device_chain_links_as_the_server_checks(module_page):
    chain = run_client(module_page, "return await fd.newChain(20);")
    links = [bytes.fromhex(x) for x in chain["links"]]
    assert len(links) == 21 and chain["anchor"] == chain["links"][0]
    assert all(chain_link(links[i]) == links[i - 1] for i in range(1, 21))
    other = run_client(module_page, "return await fd.newChain(1);")
    assert other["anchor"] != chain["anchor"]


def _entry(link: bytes | None = LINK) -> dict:
    return {
        "roll_id": ROLL,
        "seat": 0,
        "nonce": 0,
        "kind": "normal",
        "server_seed": SEED.hex(),
        "commitment": commitment(SEED),
        "roller_entropy": ENTROPY.hex(),
        "roller_source": "client",
        "opponent_prev_link": chain_link(LINK).hex(),
        "opponent_entropy": link.hex() if link else None,
        "dice": list(derive_dice_v2(SEED, MATCH, ROLL, 0, "normal", ENTROPY, link)),
    }


@pytest.mark.parametrize(
    ("change", "known_change", "problems"),
    [
        ({}, {}, []),
        ({"opponent_entropy": "ab" * 32}, {}, ["link_mismatch", "dice_mismatch", "link_not_ours"]),
        ({"kind": "opening"}, {}, ["dice_mismatch"]),
        ({"dice": [6, 6]}, {}, ["dice_mismatch"]),
        ({"server_seed": "ff" * 32}, {}, ["commitment_mismatch", "dice_mismatch"]),
        ({}, {"entropy": "11" * 16}, ["entropy_not_ours"]),
        ({"kind": "other"}, {}, ["malformed"]),
        ({}, {"link_reused": True}, ["link_reused"]),
    ],
)
def test_v2_verdicts(module_page, change, known_change, problems):
    roll = _entry() | change
    known = {
        "nonce": 0,
        "commitment": commitment(SEED),
        "entropy": ENTROPY.hex(),
        "link": LINK.hex(),
    } | known_change
    verdict = run_client(
        module_page,
        "return await fd.checkRollV2(arg.match, arg.roll, arg.known);",
        {"match": MATCH, "roll": roll, "known": known},
    )
    assert verdict["problems"] == problems
    assert verdict["ok"] is (problems == [])
    if not problems:
        assert verdict["checked"] == ["commitment", "link", "dice", "promise", "entropy"]


def test_v2_roll_without_the_opponents_link(module_page):
    verdict = run_client(
        module_page,
        "return await fd.checkRollV2(arg.match, arg.roll, null);",
        {"match": MATCH, "roll": _entry(None)},
    )
    assert verdict == {"ok": True, "problems": [], "checked": ["commitment", "dice"],
                       "warnings": []}


REVEALED_AT = "2026-12-02T12:00:05.000000Z"
REVEALED_MS = 1_796_212_805_000  # the same instant, ms since the epoch


@pytest.mark.parametrize(
    ("sent_at", "problems", "warnings"),
    [
        (REVEALED_MS - 1, ["link_dropped"], []),  # left before the reveal: the server could
        (None, ["link_dropped"], []),  # have held it (or when it left is not known)
        (REVEALED_MS, [], ["link_late"]),  # left once the roll was revealed: late on our side
        (REVEALED_MS + 2000, [], ["link_late"]),
    ],
    ids=["before-reveal", "time-unknown", "at-reveal", "after-reveal"],
)
def test_a_link_sent_and_not_used(module_page, sent_at, problems, warnings):
    """This device sent its link for the roll, and the roll was revealed without it
    (``absent``): the server, holding the link, could have picked the outcome without it
    (``test_a_server_that_holds_the_link_back_picks_one_of_two_outcomes``), ✗ link_dropped;
    unless the link left only after the roll's ``revealed_at`` (this device's clock against
    the hashed time): then this device was late, ⚠ link_late (still ok)."""
    roll = _entry(None) | {"revealed_at": REVEALED_AT}
    known = {"nonce": 0, "commitment": commitment(SEED), "link": LINK.hex()}
    if sent_at is not None:
        known["link_sent_at"] = sent_at
    verdict = run_client(
        module_page,
        "return await fd.checkRollV2(arg.match, arg.roll, arg.known);",
        {"match": MATCH, "roll": roll, "known": known},
    )
    assert (verdict["problems"], verdict["warnings"]) == (problems, warnings)
    assert verdict["ok"] is (problems == [])
    assert verdict["checked"] == ["commitment", "dice", "promise"]


def _chain(length: int = 6) -> list[bytes]:
    links = [LINK]
    for _ in range(length):
        links.append(chain_link(links[-1]))
    return links[::-1]


def _stored_chain(page, match_id: str) -> list[str]:
    """This device's chain for ``match_id`` as the client keeps it once the server took its
    anchor (``bg.chain.<match_id>`` in localStorage, six links); its links, hex, anchor first."""
    links = [x.hex() for x in _chain(6)]
    page.evaluate("([key, store]) => localStorage.setItem(key, JSON.stringify(store))",
                  [f"bg.chain.{match_id}", {"seed": links[-1], "length": 6, "registered": True}])
    return links


def _accept_actions(page) -> list[dict]:
    """The page's posts to ``/api/matches/*/actions`` answered as a server that takes each
    (200, no events); the bodies posted, a list that grows."""
    posted: list[dict] = []

    def handle(route, request):
        posted.append(request.post_data_json)
        route.fulfill(status=200, content_type="application/json", body='{"events": []}')

    page.route("**/api/matches/*/actions", handle)
    return posted


def test_a_link_k_steps_beyond_the_fixed_one(module_page):
    """A roll after one that used up the opponent's x_1 without revealing it (``absent``) takes
    x_2: SHA-256 twice leads to the anchor. checkRollV2InRecord counts k = 2 from the record
    (advanceTally); the reused x_1 fails it, as does a record whose entries before the roll
    have a gap."""
    links = [x.hex() for x in _chain(3)]
    absent = {"seq": 0, "roll_id": "rol_0000", "seat": 0, "opponent_prev_link": links[0],
              "opponent_entropy": None, "state": "played"}

    def entry(link: str) -> dict:
        raw = bytes.fromhex(link)
        return _entry() | {"seq": 1, "opponent_prev_link": links[0], "opponent_entropy": link,
                           "dice": list(derive_dice_v2(SEED, MATCH, ROLL, 0, "normal", ENTROPY,
                                                       raw))}

    got = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        const chain = { links: null };
        const check = (roll, records) => dc.checkRollV2InRecord(arg.match, roll, null,
            records, chain, 0);
        const tally = dc.advanceTally(dc.startTally(), [arg.absent]);
        return [tally.steps[0] + 1, tally.steps[1] + 1,
                await fd.linkBeforeSteps(arg.links[2], 2),
                await check(arg.due, [arg.absent, arg.due]),
                await check(arg.reused, [arg.absent, arg.reused]),
                await check(arg.due, [arg.due])];""",
        {"match": MATCH, "absent": absent, "links": links, "due": entry(links[2]),
         "reused": entry(links[1])},
    )
    assert got[:3] == [2, 1, links[0]]
    assert got[3] == {"ok": True, "problems": [], "checked": ["commitment", "link", "dice",
                                                              "chain"], "warnings": []}
    assert got[4]["problems"] == ["link_mismatch"]
    # Seq 1 with nothing before it: a gap, and the k of the entries shown (1) fails too.
    assert got[5]["problems"] == ["link_mismatch", "link_chain_broken"]


def test_the_device_never_sends_a_link_twice_even_after_a_reload(module_page, static_url):
    """The device sends x_(position of opponent_prev_link + opponent_link_steps), stores the
    index before posting, resends only for the same roll, and after a reload still refuses a
    new roll that asks for an index it sent: that roll is marked link_reused, nothing posted."""
    links = _stored_chain(module_page, "mat_never")
    posted = _accept_actions(module_page)
    ask = """const dc = await import('/static/dicechain.js');
        const chain = new dc.DeviceChain("mat_never");
        await chain.ready;
        const known = JSON.parse(localStorage.getItem("known") || "{}");
        for (const [roll_id, prev, steps] of arg) {
            await chain.answer({ you: 1, pending_roll: { roll_id, seat: 0, state: "requested",
                opponent_prev_link: prev, opponent_link_steps: steps,
                roller_entropy_sha256: "PINNED" } }, known);
        }
        localStorage.setItem("known", JSON.stringify(known));
        return known;"""
    ask = ask.replace("PINNED", PINNED)
    run_client(module_page, ask, [["rol_a", links[0], 1], ["rol_b", links[1], 1]])
    module_page.reload()
    known = run_client(module_page, ask, [
        ["rol_b", links[1], 1],  # a retry of the same roll: the same link again
        ["rol_c", links[0], 2],  # asks for x_2 again, for another roll
        ["rol_d", links[0], 1],  # x_1 again
        ["rol_e", links[2], 1],  # x_3: new
    ])
    module_page.reload()
    known = run_client(module_page, ask, [["rol_f", links[2], 1], ["rol_g", links[3], 2]]) | known
    sent = [(p["roll_id"], p["link"]) for p in posted]
    assert all(p["type"] == "contribute" for p in posted)
    assert sent == [("rol_a", links[1]), ("rol_b", links[2]), ("rol_b", links[2]),
                    ("rol_e", links[3]), ("rol_g", links[5])]
    by_link: dict[str, set[str]] = {}
    for roll_id, link in sent:
        by_link.setdefault(link, set()).add(roll_id)
    assert all(len(rolls) == 1 for rolls in by_link.values())
    assert {r for r, k in known.items() if k.get("link_reused")} == {"rol_c", "rol_d", "rol_f"}
    stored = module_page.evaluate("() => JSON.parse(localStorage.getItem('bg.chain.mat_never'))")
    assert stored["highest"] == 5
    assert stored["sent"] == {"rol_a": 1, "rol_b": 2, "rol_e": 3, "rol_g": 5}


REFUSED = (400, {"error": {"code": "wrong_phase", "message": "refused"}})
EARLY, LATER = "2026-01-01T00:00:00.000000Z", "2999-01-01T00:00:00.000000Z"
REGISTERED = (409, {"error": {"code": "anchor_registered", "message": "registered already"}})
BUSY = (503, {"error": {"code": "unavailable", "message": "busy"}})


@pytest.mark.parametrize(
    ("answer", "requested_at", "problems"),
    [
        ((200, {"events": [{"type": "anchor", "seat": 1}]}), EARLY, ["chain_skipped"]),
        (REFUSED, EARLY, []),
        (REFUSED, LATER, ["anchor_refused"]),
        (REFUSED, None, ["anchor_refused"]),
        (REGISTERED, EARLY, []),
        (REGISTERED, LATER, ["anchor_silenced"]),
        (BUSY, LATER, []),
    ],
    ids=["accepted", "refused-after-the-request", "refused-before-the-request",
         "refused-time-unread", "registered-after-the-request", "registered-before-it",
         "unanswered-before-it"],
)
def test_a_roll_without_the_chain_the_server_accepted_is_flagged(module_page, answer,
                                                                  requested_at, problems):
    """Seat 1's device registered its anchor; the server accepted it (200), then revealed a
    roll of seat 0 as if seat 1 had no chain (``none``, no ``opponent_prev_link``): the server
    and the roller alone held every input. Where the device cannot place the roll's request
    before its anchor's leaf in the log (here the roll carries no leaves), it is ✗
    chain_skipped (test_web_anchor_log.py has the late anchor's honest ``none`` rolls, and
    tests/server/test_dice_v2_anchors.py the verifiers). The server takes a late anchor
    too, so an anchor refused (``wrong_phase``) is refused for nothing: a roll requested after
    it left (this device's clock against the hashed ``requested_at``), or at a time the device
    cannot read, shows ✗ anchor_refused (and only that: anchor_silenced would say the same);
    one requested before it left is the honest ``none``. Nor does 409 anchor_registered (no
    other chain in the record: the roll says ``none``) silence the device: a roll requested
    long after the anchor left shows ✗ anchor_silenced. A 5xx proves nothing (the server may
    never have had the anchor): no flag (test_web_anchor_silenced.py has the flight's
    tolerance, the held-back 200 and the time kept across a reload)."""
    status, body = answer

    def handle(route, request):
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    module_page.route("**/api/matches/*/actions", handle)
    roll = _entry(None) | {"seq": 0, "opponent_prev_link": None, "opponent_source": "none",
                           "requested_at": requested_at}
    verdict = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        localStorage.removeItem("bg.chain." + arg.match);
        const chain = new dc.DeviceChain(arg.match);
        await chain.register({ dice_protocol: "v2", you: 1, phase: "roll" });
        const again = new dc.DeviceChain(arg.match);  // a reload keeps what the server said
        await again.ready;
        return await dc.checkRollV2InRecord(arg.match, arg.roll, null, [arg.roll], again, 1);""",
        {"match": MATCH, "roll": roll},
    )
    assert verdict["problems"] == problems
    assert verdict["ok"] is (problems == [])


def test_a_roll_without_an_opponent_chain_needs_no_entries_before_it(module_page):
    """A roll whose opponent has no chain (``none``) has no k to count: its proof carries no
    entries before it, and the roll alone at seq 5 checks; a roll with a link fixed, alone at
    seq 5, does not (its k needs the entries back to the opponent's last revealed link)."""
    none = _entry(None) | {"seq": 5, "opponent_prev_link": None, "opponent_source": "none"}
    linked = _entry() | {"seq": 5}
    got = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        const check = (roll) => dc.checkRollV2InRecord(arg.match, roll, null, [roll],
            { links: null }, 0);
        return [await check(arg.none), await check(arg.linked)];""",
        {"match": MATCH, "none": none, "linked": linked},
    )
    assert got[0] == {"ok": True, "problems": [], "checked": ["commitment", "dice"],
                      "warnings": []}
    assert got[1]["problems"] == ["link_chain_broken"]


def test_two_tabs_of_one_device_never_send_a_link_twice(module_page):
    """Two pages of the match open on one device (one localStorage, a DeviceChain each, both
    loaded before either sent anything): a link one of them sent is not sent again by the
    other for another roll, which is marked link_reused instead."""
    links = _stored_chain(module_page, "mat_tabs")
    posted = _accept_actions(module_page)
    known = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        const tabs = [new dc.DeviceChain("mat_tabs"), new dc.DeviceChain("mat_tabs")];
        await Promise.all(tabs.map((t) => t.ready));
        const known = [{}, {}];
        const ask = (tab, roll_id) => tabs[tab].answer({ you: 1, pending_roll: { roll_id,
            seat: 0, state: "requested", opponent_prev_link: arg[0], opponent_link_steps: 1,
            roller_entropy_sha256: arg[arg.length - 1] } }, known[tab]);
        await ask(0, "rol_a");
        await ask(1, "rol_b");  // x_1 again, for another roll
        return known;""",
        [*links, PINNED],
    )
    assert [(p["roll_id"], p["link"]) for p in posted] == [("rol_a", links[1])]
    assert isinstance(known[0]["rol_a"].pop("link_sent_at"), int)  # when it left (ms)
    # A state without a game number: kept as null (checkVoided: "not moved").
    assert known == [{"rol_a": {"link": links[1], "roller_entropy_sha256": PINNED,
                                "game_number": None}},
                     {"rol_b": {"link_reused": True}}]
    stored = module_page.evaluate("() => JSON.parse(localStorage.getItem('bg.chain.mat_tabs'))")
    assert (stored["highest"], stored["sent"]) == (1, {"rol_a": 1})


def test_a_link_lost_on_its_way_is_sent_again(module_page):
    """The post of the link fails (503, then a dropped connection): the device sends the same
    link again, without another state, until the server takes it; a refusal (4xx) is not
    retried."""
    links = _stored_chain(module_page, "mat_lost")
    posted: list[dict] = []
    answers = iter([503, 0, 200, 400])

    def handle(route, request):
        posted.append(request.post_data_json)
        status = next(answers)
        if status == 0:
            route.abort()
        else:
            body = ('{"events": []}' if status == 200
                    else '{"error": {"code": "x", "message": "x"}}')
            route.fulfill(status=status, content_type="application/json", body=body)

    module_page.route("**/api/matches/*/actions", handle)
    got = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        const chain = new dc.DeviceChain("mat_lost");
        await chain.ready;
        const ask = (roll_id, prev) => chain.answer({ you: 1, pending_roll: { roll_id,
            seat: 0, state: "requested", opponent_prev_link: prev, opponent_link_steps: 1,
            roller_entropy_sha256: arg[arg.length - 1] } }, {});
        return [await ask("rol_a", arg[0]), await ask("rol_b", arg[1])];""",
        [*links, PINNED],
    )
    assert got == [{"events": []}, None]
    assert [(p["roll_id"], p["link"]) for p in posted] == [
        ("rol_a", links[1]), ("rol_a", links[1]), ("rol_a", links[1]), ("rol_b", links[2])]


def test_two_tabs_at_the_start_make_one_chain(module_page):
    """Two pages of a new match on one device, both loaded before either made its chain: the
    second to register takes the chain the first made and registered (one anchor posted, the
    stored chain unchanged), rather than making another that the server would refuse and that
    would replace the registered one in the store."""
    posted = _accept_actions(module_page)
    got = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        localStorage.removeItem("bg.chain.mat_start");
        const tabs = [new dc.DeviceChain("mat_start"), new dc.DeviceChain("mat_start")];
        await Promise.all(tabs.map((t) => t.ready));
        const state = { dice_protocol: "v2", you: 1, phase: "roll" };
        await tabs[0].register(state);
        const seed = JSON.parse(localStorage.getItem("bg.chain.mat_start")).seed;
        await tabs[1].register(state);
        return [seed, JSON.parse(localStorage.getItem("bg.chain.mat_start")).seed,
                tabs[0].links[0], tabs[1].links[0]];""",
    )
    assert got[0] == got[1] and got[2] == got[3]
    assert [p["type"] for p in posted] == ["anchor"] and posted[0]["anchor"] == got[2]


OTHER = bytes(range(0x10, 0x20))  # another roller entropy than ENTROPY
OTHER_PINNED = hashlib.sha256(OTHER).hexdigest()

# chain.answer for a request of seat 0's roll `arg.roll` (x_(arg.at + 1) due), `arg.pinned` its
# roller_entropy_sha256 (left out when undefined), with `known` as the page keeps it ("known"
# in localStorage); the server's answer and what was known after.
ASK = """const dc = await import('/static/dicechain.js');
    const chain = new dc.DeviceChain(arg.match);
    await chain.ready;
    const known = JSON.parse(localStorage.getItem("known") || "{}");
    const pending = { roll_id: arg.roll, seat: 0, state: "requested",
        opponent_prev_link: arg.prev, opponent_link_steps: 1 };
    if (arg.pinned !== undefined) pending.roller_entropy_sha256 = arg.pinned;
    const answered = chain.answer({ you: 1, pending_roll: pending }, known);
    const result = [answered === null ? "none" : await answered, known];
    localStorage.setItem("known", JSON.stringify(known));
    return result;"""


def _ask(page, match_id: str, roll_id: str, prev: str, pinned=...) -> list:
    arg = {"match": match_id, "roll": roll_id, "prev": prev}
    if pinned is not ...:
        arg["pinned"] = pinned
    return run_client(page, ASK, arg)


def _roll(links: list[str], roller: bytes = ENTROPY, link: str | None = None) -> dict:
    """Seat 0's roll revealed with ``roller`` as its entropy and this device's x_1 (``links``,
    from :func:`_stored_chain`) as the opponent's link: valid in every other way."""
    opponent = links[1] if link is None else link
    return _entry() | {
        "roller_entropy": roller.hex(), "opponent_prev_link": links[0],
        "opponent_entropy": opponent,
        "dice": list(derive_dice_v2(SEED, MATCH, ROLL, 0, "normal", roller,
                                    bytes.fromhex(opponent))),
    }


def _check(page, roll: dict, known: dict) -> dict:
    promised = {"nonce": 0, "commitment": commitment(SEED)}  # as match.js keeps with it
    return run_client(page, "return await fd.checkRollV2(arg.match, arg.roll, arg.known);",
                      {"match": MATCH, "roll": roll, "known": promised | known})


def test_the_link_leaves_only_once_the_rollers_input_is_fixed(module_page):
    """A request whose roller's input the server did not fix (no ``roller_entropy_sha256``,
    null, or not 64 hex characters) gets no link: the server, or a roller it sides with, could
    choose that input once the link is known. The roll is marked ``roller_unpinned``; the same
    roll asked with the hash then has its link, and the hash is kept (lowercase) in ``known``
    and with the chain before the link leaves."""
    links = _stored_chain(module_page, "mat_pin")
    posted = _accept_actions(module_page)
    for pinned in (..., None, "ab" * 31, "zz" * 32, PINNED + "00"):
        answer, known = _ask(module_page, "mat_pin", "rol_a", links[0], pinned)
        assert answer is None and known == {"rol_a": {"roller_unpinned": True}}
    assert posted == []
    answer, known = _ask(module_page, "mat_pin", "rol_a", links[0], PINNED.upper())
    assert answer == {"events": []}
    assert [(p["type"], p["roll_id"], p["link"]) for p in posted] == [
        ("contribute", "rol_a", links[1])]
    assert isinstance(known["rol_a"].pop("link_sent_at"), int)
    assert known == {"rol_a": {"link": links[1], "roller_entropy_sha256": PINNED,
                               "roller_unpinned": False, "game_number": None}}
    stored = module_page.evaluate("() => JSON.parse(localStorage.getItem('bg.chain.mat_pin'))")
    assert (stored["sent"], stored["rollers"]) == ({"rol_a": 1}, {"rol_a": PINNED})
    # Revealed with the roller's input fixed: checked; never asked with it: ✗ roller_unpinned.
    verdict = _check(module_page, _roll(links), known["rol_a"])
    assert verdict["problems"] == [] and verdict["checked"][-1] == "roller"
    verdict = _check(module_page, _entry(None), {"roller_unpinned": True})
    assert verdict["problems"] == ["roller_unpinned"] and verdict["ok"] is False


def test_a_roll_asked_again_with_other_roller_input_gets_no_link(module_page):
    """The link went for a roll whose roller's input the server fixed (its hash); the server
    asks again for the same roll with another hash (a restart, it could say): nothing is sent,
    not even the link already sent, after a reload too, and from a page that never saw the first
    request (a second tab: the hash is kept with the chain). The roll is marked
    ``roller_changed`` and its check fails ✗ roller_entropy_changed (once) whatever roller input
    it is revealed with; asked with the first hash, the same link goes again (a retry)."""
    links = _stored_chain(module_page, "mat_changed")
    posted = _accept_actions(module_page)
    _ask(module_page, "mat_changed", "rol_a", links[0], PINNED)
    module_page.reload()
    answer, known = _ask(module_page, "mat_changed", "rol_a", links[0], OTHER_PINNED)
    assert answer is None
    assert known["rol_a"]["roller_changed"] is True
    assert known["rol_a"]["roller_entropy_sha256"] == PINNED and known["rol_a"]["link"] == links[1]
    module_page.evaluate("() => localStorage.removeItem('known')")  # a page that saw nothing
    answer, other_tab = _ask(module_page, "mat_changed", "rol_a", links[0], OTHER_PINNED)
    assert answer is None and other_tab == {"rol_a": {"roller_changed": True}}
    assert [(p["roll_id"], p["link"]) for p in posted] == [("rol_a", links[1])]
    for roller in (ENTROPY, OTHER):
        for seen in (known["rol_a"], other_tab["rol_a"]):
            verdict = _check(module_page, _roll(links, roller), seen)
            assert verdict["problems"] == ["roller_entropy_changed"] and verdict["ok"] is False
    module_page.reload()
    answer, _ = _ask(module_page, "mat_changed", "rol_a", links[0], PINNED)
    assert answer == {"events": []}
    assert [(p["roll_id"], p["link"]) for p in posted] == [("rol_a", links[1])] * 2


@pytest.mark.parametrize(
    ("roller", "known", "problems"),
    [
        (ENTROPY, {"roller_entropy_sha256": PINNED}, []),
        (ENTROPY, {"roller_entropy_sha256": PINNED.upper()}, []),
        (OTHER, {"roller_entropy_sha256": PINNED}, ["roller_entropy_changed"]),
        (None, {"roller_entropy_sha256": PINNED}, ["malformed", "roller_entropy_changed"]),
        (ENTROPY, {"roller_entropy_sha256": PINNED, "roller_changed": True},
         ["roller_entropy_changed"]),
        (ENTROPY, {"roller_unpinned": True}, ["roller_unpinned"]),
        (ENTROPY, {}, []),
    ],
    ids=["fixed", "fixed-uppercase", "changed", "none", "asked-again", "unpinned", "no-hash"],
)
def test_the_revealed_roller_input_is_the_one_fixed(module_page, roller, known, problems):
    """checkRollV2 holds a roll to the roller's input the server fixed (its SHA-256) before
    this device's link left: the same input is checked (``roller``); another one, or none,
    fails ✗ roller_entropy_changed, though every other check of the roll passes."""
    links = [x.hex() for x in _chain(6)]
    roll = _roll(links, roller or ENTROPY) | ({"roller_entropy": None} if roller is None else {})
    verdict = _check(module_page, roll, {"link": links[1]} | known)
    assert verdict["problems"] == problems
    assert verdict["ok"] is (problems == [])
    if roller is not None:
        fixed = "roller_entropy_sha256" in known and roller == ENTROPY
        assert verdict["checked"] == ["commitment", "link", "dice", "promise"] + (
            ["roller"] if fixed else [])


def test_a_link_refused_as_wrong_phase_goes_again_for_the_same_roll(module_page):
    """The server refuses the link as ``wrong_phase`` (no roll waits for it): a later request of
    the same roll, with the same roller hash, has the same link again, and one with another
    hash none; another refusal, and a link lost three times on its way (503), are not sent
    again for that roll by this page, as before."""
    links = _stored_chain(module_page, "mat_phase")
    posted: list[dict] = []
    wrong = '{"error": {"code": "wrong_phase", "message": "no roll waits for your link"}}'
    answers = iter([(400, wrong), (200, '{"events": []}'),
                    (400, '{"error": {"code": "x", "message": "x"}}'),
                    (503, "{}"), (503, "{}"), (503, "{}")])

    def handle(route, request):
        posted.append(request.post_data_json)
        status, body = next(answers)
        route.fulfill(status=status, content_type="application/json", body=body)

    module_page.route("**/api/matches/*/actions", handle)
    got = run_client(
        module_page,
        """const dc = await import('/static/dicechain.js');
        const chain = new dc.DeviceChain("mat_phase");
        await chain.ready;
        const known = {};
        const ask = async (roll_id, prev, pinned) => {
            const answered = chain.answer({ you: 1, pending_roll: { roll_id, seat: 0,
                state: "requested", opponent_prev_link: prev, opponent_link_steps: 1,
                roller_entropy_sha256: pinned } }, known);
            return answered === null ? "none" : await answered;
        };
        const [x0, x1, x2] = arg.links;
        return [await ask("rol_a", x0, arg.pinned), await ask("rol_a", x0, arg.other),
                await ask("rol_a", x0, arg.pinned), await ask("rol_a", x0, arg.pinned),
                await ask("rol_b", x1, arg.pinned), await ask("rol_b", x1, arg.pinned),
                await ask("rol_c", x2, arg.pinned), await ask("rol_c", x2, arg.pinned),
                known];""",
        {"links": links, "pinned": PINNED, "other": OTHER_PINNED},
    )
    assert got[:8] == [None, None, {"events": []}, "none", None, "none", None, "none"]
    assert got[8]["rol_a"]["roller_changed"] is True
    assert [(p["roll_id"], p["link"]) for p in posted] == [
        ("rol_a", links[1]), ("rol_a", links[1]), ("rol_b", links[2]),
        ("rol_c", links[3]), ("rol_c", links[3]), ("rol_c", links[3])]
