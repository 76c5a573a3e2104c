"""The client's v2 dice check (web/fairdice.js) in Chromium: the spec's v2 vectors, agreement with
the Python reference on random inputs (with and without the opponent's link), hash chains the
device makes that the server's check accepts, and the verdicts on tampered v2 entries."""

from __future__ import annotations

import random

import pytest

from boardgammon.dice.verify import chain_link, commitment, derive_dice_v2

pytestmark = pytest.mark.browser

MATCH, ROLL = "mat_TESTVECTOR0001", "rol_0001"
SEED, ENTROPY, LINK = bytes(range(32)), bytes(range(0xA0, 0xB0)), bytes(range(0xB0, 0xD0))


def run(page, body: str, arg=None):
    return page.evaluate(
        "async (arg) => { const fd = await import('/static/fairdice.js');" + body + "}", arg
    )


def test_v2_vectors(module_page):
    got = run(
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
    got = run(
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
    chain = run(module_page, "return await fd.newChain(20);")
    links = [bytes.fromhex(x) for x in chain["links"]]
    assert len(links) == 21 and chain["anchor"] == chain["links"][0]
    assert all(chain_link(links[i]) == links[i - 1] for i in range(1, 21))
    other = run(module_page, "return await fd.newChain(1);")
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
        ({}, {"link_sent_for": "rol_0000"}, ["link_reused"]),
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
    verdict = run(
        module_page,
        "return await fd.checkRollV2(arg.match, arg.roll, arg.known);",
        {"match": MATCH, "roll": roll, "known": known},
    )
    assert verdict["problems"] == problems
    assert verdict["ok"] is (problems == [])
    if not problems:
        assert verdict["checked"] == ["commitment", "link", "dice", "promise", "entropy"]


def test_v2_roll_without_the_opponents_link(module_page):
    verdict = run(
        module_page,
        "return await fd.checkRollV2(arg.match, arg.roll, null);",
        {"match": MATCH, "roll": _entry(None)},
    )
    assert verdict == {"ok": True, "problems": [], "checked": ["commitment", "dice"]}


def test_a_link_asked_for_again_is_marked_reused_for_the_rolls_check(module_page):
    # The server asked for a link this device had sent already, for a roll that did not use it
    # (revealed "absent" or voided after the link arrived): the server knew the new roll's
    # third input before it committed the seed, so the roll cannot claim the live guarantee.
    links = [chain_link(LINK).hex(), LINK.hex()]
    known = run(
        module_page,
        """const dc = await import('/static/dicechain.js');
        const chain = new dc.DeviceChain("mat_reuse");
        chain.links = arg.links;
        chain.post = () => Promise.resolve({});
        const known = {};
        const ask = (roll_id) => chain.answer({ you: 1, pending_roll: { roll_id, seat: 0,
            state: "requested", opponent_prev_link: arg.links[0] } }, known);
        await ask("rol_a");
        await ask("rol_b");
        return known;""",
        {"links": links},
    )
    assert known == {"rol_a": {"link": links[1]},
                     "rol_b": {"link": links[1], "link_sent_for": "rol_a"}}
