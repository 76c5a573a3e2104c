"""The device's storage for the dice (web/store.js) in Chromium: a localStorage full of old
matches' stores is cleaned, oldest finished matches first, so a live v2 roll still happens with
both devices' inputs; a storage full of something else keeps this match's inputs in the page
and says so; the order in which matches go; and a finished match whose store was dropped shows
no ✗ for it."""

from __future__ import annotations

import json
import re
import time

import pytest
from test_web_live import check_dice_verified
from webpage import new_page, press, register, seen

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DAY_MS = 24 * 3600 * 1000
WARNING = "This device's storage is full"
UNRELATED = {"bg.lang": "en", "bg.auto": "0", "bg.mute": "1", "bg.board.colours": "reversed"}

# Stores in the format match.js and dicechain.js write: `rolls` rolls (half this device's own,
# half where it sent its link), and the chain's seed with a link sent for every second roll.
# Some 50 K characters for 150 rolls, a long match's worth.
STORES_JS = """
  const now = Date.now();
  const rollsText = (tag, n) => {
    const out = {};
    for (let i = 0; i < n; i++) {
      const id = `rol_${tag}_${String(i).padStart(20, "0")}`;
      out[id] = i % 2 ? { nonce: i, commitment: "ab".repeat(32), link: "cd".repeat(32),
        link_sent_at: now, roller_entropy_sha256: "ef".repeat(32), game_number: 1 }
        : { nonce: i, commitment: "ab".repeat(32), entropy: "12".repeat(16), game_number: 1 };
    }
    return JSON.stringify(out);
  };
  const chainText = (tag, n) => {
    const sent = {}, rollers = {};
    for (let i = 1; i < n; i += 2) {
      const id = `rol_${tag}_${String(i).padStart(20, "0")}`;
      sent[id] = i;
      rollers[id] = "ef".repeat(32);
    }
    return JSON.stringify({ seed: "0f".repeat(32), length: 1024, registered: true,
      accepted: true, anchor_log: "ok", anchor_index: 3, highest: n, sent, rollers });
  };
  const fits = (key, text) => {
    try { localStorage.setItem(key, text); return true; } catch { return false; }
  };
"""

# Fill this origin's localStorage to its quota: `legacy` matches stored outside the index,
# `over` finished matches (the index's `used` one day apart, fake-00 oldest), then matches in
# progress used a minute ago (never dropped) until nothing fits, and a last one padded to the
# last character. Returns the matches in progress and the characters stored.
FILL_OLD_MATCHES = """async (arg) => {""" + STORES_JS + """
  for (let i = 0; i < arg.legacy; i++) {
    localStorage.setItem(`bg.rolls.legacy-${i}`, rollsText(`l${i}`, 150));
    localStorage.setItem(`bg.chain.legacy-${i}`, chainText(`l${i}`, 150));
  }
  const index = {};
  for (let i = 0; i < arg.over; i++) {
    const id = `fake-${String(i).padStart(2, "0")}`;
    index[id] = { used: now - (arg.over - i) * arg.day, over: true };
    localStorage.setItem(`bg.rolls.${id}`, rollsText(`f${i}`, 150));
    localStorage.setItem(`bg.chain.${id}`, chainText(`f${i}`, 150));
  }
  const live = [];
  for (let i = 0; i < 200; i++) {
    const id = `live-${String(i).padStart(3, "0")}`;
    index[id] = { used: now - 60_000, over: false };
    localStorage.setItem("bg.matches", JSON.stringify(index));
    if (!fits(`bg.rolls.${id}`, rollsText(`v${i}`, 600))) break;
    live.push(id);
  }
  const pad = "live-pad";
  index[pad] = { used: now - 60_000, over: false };
  localStorage.setItem("bg.matches", JSON.stringify(index));
  let lo = 0, hi = 1 << 20;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(`bg.rolls.${pad}`, JSON.stringify({ pad: "x".repeat(mid) }))) lo = mid;
    else hi = mid - 1;
  }
  localStorage.setItem(`bg.rolls.${pad}`, JSON.stringify({ pad: "x".repeat(lo) }));
  live.push(pad);
  let chars = 0;
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    chars += key.length + localStorage.getItem(key).length;
  }
  return { live, chars, full: !fits("bg.probe", "xx") };
}"""

# Fill the quota with one key no match owns ("other.blob"), to the last character.
FILL_OTHER = """async () => {
  const fits = (text) => {
    try { localStorage.setItem("other.blob", text); return true; } catch { return false; }
  };
  let lo = 0, hi = 1 << 24;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits("y".repeat(mid))) lo = mid;
    else hi = mid - 1;
  }
  fits("y".repeat(lo));
  let probe = true;
  try { localStorage.setItem("bg.probe", "xx"); } catch { probe = false; }
  return { size: lo, full: !probe };
}"""

STORED = """() => Object.fromEntries(Object.keys(localStorage).map(
  (k) => [k, k === "other.blob" ? localStorage.getItem(k).length : localStorage.getItem(k)]))"""


def set_unrelated(page) -> None:
    page.evaluate("(kv) => { for (const [k, v] of Object.entries(kv)) "
                  "localStorage.setItem(k, v); }", UNRELATED)


def live_match(browser, live_server, prepare) -> tuple:
    """Ann and bob registered, each page's storage prepared (``prepare(page)``, its result
    kept), then a 1-point live match between them: (ann, bob, match_id, [prepared])."""
    ann = new_page(browser, live_server)
    register(ann, "ann_store")
    bob = new_page(browser, live_server)
    register(bob, "bob_store")
    prepared = [prepare(ann), prepare(bob)]
    ann.wait_for_selector('form.create [data-action="post-seek"]')
    ann.select_option('form.create select[name="length"]', "1")
    ann.click('form.create [data-action="post-seek"]')
    join_url = ann.locator(".join-url code").inner_text()
    bob.goto(join_url)
    bob.click('section.join [data-action="accept"]')
    bob.wait_for_selector("svg.board")
    ann.wait_for_selector("svg.board", timeout=10_000)
    match_id = re.search(r"/match/([^/?#]+)", bob.url).group(1)
    return ann, bob, match_id, prepared


def roll_once(pages, live_server, match_id, limit_s: float = 60) -> tuple:
    """Whichever page offers Roll rolls, again after an opening roll of doubles (rolled
    again), until a roll is revealed that the match plays: (the page that rolled it, that roll
    as the audit document shows it, how many rolls were revealed)."""
    deadline = time.monotonic() + limit_s
    count = 0
    while time.monotonic() < deadline:
        for page in pages:
            if not seen(page)["roll"]:
                continue
            press(page, "roll")
            rolls = revealed(page, live_server, match_id, count + 1)
            count = len(rolls)
            if rolls[-1]["dice"][0] != rolls[-1]["dice"][1] or rolls[-1]["kind"] != "opening":
                return page, rolls[-1], count
        pages[0].wait_for_timeout(50)
    raise AssertionError("no page offered Roll")


def revealed(page, live_server, match_id, count: int) -> list:
    """The match's revealed rolls as the audit document shows them, once there are
    ``count``."""
    for _ in range(200):
        rolls = page.request.get(f"{live_server}/api/audit/{match_id}").json()["rolls"]
        shown = [r for r in rolls if r["dice"]]
        if len(shown) >= count:
            return shown
        page.wait_for_timeout(50)
    raise AssertionError(f"roll {count} was not revealed")


def test_a_full_storage_of_old_matches_is_cleaned_oldest_first(browser, live_server):
    """Both devices' storage is full: 3 matches stored outside the index (taken as in
    progress, used now), 20 finished matches (fake-00 oldest) and matches in progress used a
    minute ago. The live v2 roll happens with the roller's entropy and the opponent's link; the
    first failed save dropped the oldest finished matches in order, never one in progress (the
    3 outside the index included) nor another key; the match's own stores are kept. Once the
    match is over, a page opened on it after its stores were dropped shows every roll ✓, no ✗
    for the record it lacks."""
    def prepare(page):
        set_unrelated(page)
        return page.evaluate(FILL_OLD_MATCHES, {"legacy": 3, "over": 20, "day": DAY_MS})

    ann, bob, match_id, prepared = live_match(browser, live_server, prepare)
    for filled in prepared:
        assert filled["full"] and len(filled["live"]) >= 5, filled
    roller, roll, count = roll_once([ann, bob], live_server, match_id)
    assert roll["roller_source"] == "client" and roll["opponent_source"] == "client", roll
    fakes = [f"fake-{i:02d}" for i in range(20)]
    for page, filled in zip((ann, bob), prepared, strict=True):
        page.wait_for_function("(key) => localStorage.getItem(key) !== null",
                               arg=f"bg.rolls.{match_id}")
        stored = page.evaluate(STORED)
        legacy = [f"legacy-{i}" for i in range(3)]
        assert all(f"bg.rolls.{m}" in stored and f"bg.chain.{m}" in stored for m in legacy)
        kept = [f for f in fakes if f"bg.rolls.{f}" in stored]
        assert kept and len(kept) < 20, kept
        assert kept == fakes[20 - len(kept):]  # the oldest went: what is left is the newest
        assert all(f"bg.chain.{f}" in stored for f in kept)
        assert not any(f"bg.chain.{f}" in stored for f in fakes if f not in kept)
        assert all(f"bg.rolls.{m}" in stored for m in filled["live"])
        assert {k: stored[k] for k in UNRELATED} == UNRELATED
        index = page.evaluate("() => JSON.parse(localStorage.getItem('bg.matches'))")
        assert index[match_id]["over"] is False
        assert set(index) == set(kept) | set(filled["live"]) | set(legacy) | {match_id}
        assert not any(index[m]["over"] for m in legacy)
        page.wait_for_function("(k) => { const c = JSON.parse(localStorage.getItem(k));"
                               " return c.registered && c.accepted; }",
                               arg=f"bg.chain.{match_id}")
        assert page.locator(".storage-warning").is_hidden()
    known = roller.evaluate("(k) => JSON.parse(localStorage.getItem(k))", f"bg.rolls.{match_id}")
    assert known[roll["roll_id"]]["entropy"] == roll["roller_entropy"]
    other = bob if roller is ann else ann
    sent = other.evaluate("(k) => JSON.parse(localStorage.getItem(k))", f"bg.chain.{match_id}")
    assert roll["roll_id"] in sent["sent"]
    sizes = ann.evaluate("(id) => [localStorage.getItem('bg.rolls.' + id).length, "
                         "localStorage.getItem('bg.chain.' + id).length]", match_id)
    print(f"after one roll: bg.rolls {sizes[0]} chars, bg.chain {sizes[1]} chars")

    # The match ends (a resignation, accepted); ann's page then sees it over.
    on_turn = ann if ann.locator('[data-action="resign"]').count() else bob
    for page, action in ((on_turn, {"type": "resign", "points": 1}),
                         (other if on_turn is roller else roller, {"type": "accept_resign"})):
        for _ in range(100):
            answer = page.request.post(f"{live_server}/api/matches/{match_id}/actions",
                                       data={"action_id": f"a{time.monotonic_ns()}", **action})
            if answer.ok:
                break
            page.wait_for_timeout(100)
        assert answer.ok, answer.text()
    ann.wait_for_selector("section.result:not([hidden])")
    ann.wait_for_function("(id) => (JSON.parse(localStorage.getItem('bg.matches'))[id] || {})"
                          ".over === true", arg=match_id)
    ann.evaluate("(id) => { localStorage.removeItem('bg.rolls.' + id); "
                 "localStorage.removeItem('bg.chain.' + id); }", match_id)
    ann.reload()
    ann.wait_for_selector("section.result:not([hidden])")
    assert check_dice_verified(ann) == count
    assert ann.evaluate("(id) => localStorage.getItem('bg.chain.' + id)", match_id) is None
    ann.context.close()
    bob.context.close()


def test_a_storage_full_of_something_else_keeps_the_roll_in_the_page(browser, live_server):
    """Both devices' storage is full of a key no match owns: nothing can be dropped. Each
    page warns that a reload could lose this match's dice inputs, and the roll still happens
    with both devices' inputs (kept in the pages' memory); the other key is untouched."""
    ann, bob, match_id, prepared = live_match(browser, live_server,
                                              lambda page: page.evaluate(FILL_OTHER))
    for filled in prepared:
        assert filled["full"] and filled["size"] > 1_000_000, filled
    for page in (ann, bob):
        page.locator(".storage-warning").wait_for(state="visible")
        assert WARNING in page.locator(".storage-warning").inner_text()
        assert "reload" in page.locator(".storage-warning").inner_text().lower()
    roller, roll, _ = roll_once([ann, bob], live_server, match_id)
    assert roll["roller_source"] == "client" and roll["opponent_source"] == "client", roll
    for page, filled in zip((ann, bob), prepared, strict=True):
        stored = page.evaluate(STORED)
        assert stored["other.blob"] == filled["size"]
        assert f"bg.rolls.{match_id}" not in stored and f"bg.chain.{match_id}" not in stored
        assert page.locator(".storage-warning").is_visible()
        assert page.locator(".dice-alert").inner_text() == ""
    # The roller's entropy, kept in the page's memory (store.js), is the one revealed.
    kept = roller.evaluate("""async (key) => {
        const store = await import('/static/store.js');
        return store.readStored(key);
    }""", f"bg.rolls.{match_id}")
    assert kept[roll["roll_id"]]["entropy"] == roll["roller_entropy"]
    ann.context.close()
    bob.context.close()


EVICTION_SETUP = """async (arg) => {
  const store = await import('/static/store.js');
  localStorage.clear();
  const now = Date.now();
  const put = (id, used, over) => {
    if (used !== null) arg.index[id] = { used, over };
    localStorage.setItem(`bg.rolls.${id}`, JSON.stringify({ r: "x".repeat(1000) }));
    localStorage.setItem(`bg.chain.${id}`, JSON.stringify({ seed: "0f".repeat(32), length: 8 }));
  };
  arg.index = {};
  put("old-b", null);                                   // outside the index
  put("old-a", null);
  localStorage.setItem("bg.rolls.old-c", "{not json");  // outside the index, one key only
  put("over-new", now - 1000, true);
  put("over-old", now - 5 * 86_400_000, true);
  put("live-stale", now - 40 * 86_400_000, false);      // in progress, unused for 40 days
  put("live-recent", now - 3 * 86_400_000, false);      // in progress, used 3 days ago
  put("held", now - 9 * 86_400_000, true);              // over, but a page of this tab is on it
  localStorage.setItem("bg.matches", JSON.stringify(arg.index));
  localStorage.setItem("bg.lang", "de");
  localStorage.setItem("other.blob", "z");
  store.holdMatch("held");  // prunes: nothing beyond KEEP_MATCHES here
  const order = store.evictionOrder();
  return { order, keep: store.KEEP_MATCHES, corrupt: store.readStored("bg.rolls.old-c"),
           index: JSON.parse(localStorage.getItem("bg.matches")), now };
}"""


def test_the_order_in_which_matches_are_dropped(module_page):
    """Oldest first, whole matches: the finished ones by `used`, then a match in progress
    unused for 30 days; never one in progress used since, nor the match of an open page, nor
    a store found outside the index (it enters in progress, used now). Pruning keeps
    KEEP_MATCHES; a save that fails drops them in that order, and one that still fails is kept
    in memory and reported."""
    got = module_page.evaluate(EVICTION_SETUP, {})
    assert got["order"] == ["over-old", "over-new", "live-stale"]
    assert got["corrupt"] is None
    for old in ("old-a", "old-b", "old-c"):
        assert got["index"][old]["over"] is False
        assert got["now"] <= got["index"][old]["used"] <= got["now"] + 60_000
    keep = got["keep"]
    assert 20 <= keep <= 100

    # Pruning: KEEP_MATCHES + 3 finished matches more, one day apart: the 6 oldest droppable
    # go; the rest, the matches in progress (old-* included) and other keys stay.
    after = module_page.evaluate("""async (n) => {
        const store = await import('/static/store.js');
        const index = JSON.parse(localStorage.getItem("bg.matches"));
        for (let i = 0; i < n; i++) {
          const id = `m-${String(i).padStart(3, "0")}`;
          index[id] = { used: Date.now() - (n - i) * 86_400_000 + 1000, over: true };
          localStorage.setItem(`bg.rolls.${id}`, "{}");
        }
        localStorage.setItem("bg.matches", JSON.stringify(index));
        const dropped = store.prune();
        return { dropped, keys: Object.keys(localStorage).sort(),
                 index: Object.keys(JSON.parse(localStorage.getItem("bg.matches"))).sort() };
    }""", keep + 3)
    # over-old (5 days) and over-new (1 s) sit among the m-* (one day apart, m-000 oldest).
    order = [f"m-{i:03d}" for i in range(keep + 3)]
    order.insert(order.index(f"m-{keep + 3 - 5:03d}"), "over-old")
    order.append("over-new")
    order.append("live-stale")
    assert after["dropped"] == order[:len(order) - keep]
    assert "bg.rolls.held" in after["keys"] and "bg.rolls.live-recent" in after["keys"]
    assert {"bg.rolls.old-a", "bg.chain.old-b", "bg.rolls.old-c"} <= set(after["keys"])
    assert {"bg.lang", "other.blob", "bg.matches"} <= set(after["keys"])
    assert not any(k.endswith(tuple(after["dropped"])) for k in after["keys"]
                   if k.startswith(("bg.rolls.", "bg.chain.")))
    assert set(after["index"]) == {k.split(".", 2)[2] for k in after["keys"]
                                   if k.startswith(("bg.rolls.", "bg.chain."))}

    # A save on a full storage: the droppable matches go in order, until the save fits and
    # HEADROOM characters are free (here three of 100 K characters: the fourth stays); with
    # nothing left to drop, a save is kept in memory and reported.
    saved = module_page.evaluate("""async () => {
        const store = await import('/static/store.js');
        const order = store.evictionOrder();
        store.evict(order.slice(4));
        for (const id of order.slice(0, 4)) {
          localStorage.setItem(`bg.rolls.${id}`, JSON.stringify({ r: "x".repeat(100_000) }));
        }
        const fits = (n) => {
          try { localStorage.setItem("other.blob", "y".repeat(n)); return true; }
          catch { return false; }
        };
        const fill = () => {
          let lo = 0, hi = 1 << 24;
          while (lo < hi) {
            const mid = Math.ceil((lo + hi) / 2);
            if (fits(mid)) lo = mid; else hi = mid - 1;
          }
          fits(lo);
          return !fits(lo + 2) && fits(lo);
        };
        const full = fill();
        const heard = [];
        store.onStoreChange(() => heard.push(store.memoryOnly("held")));
        const first = store.saveStored("bg.rolls.held", { a: "k".repeat(3000) });
        const keys = Object.keys(localStorage);
        store.evict(store.evictionOrder());
        const refull = fill();
        const second = store.saveStored("bg.chain.held", { seed: "0e".repeat(32), length: 9,
                                                           big: "q".repeat(200_000) });
        return { order: order.slice(0, 4), full, refull, first, keys, second, heard,
                 memory: store.memoryOnly("held"), read: store.readStored("bg.chain.held"),
                 inStorage: localStorage.getItem("bg.chain.held"),
                 rolls: store.readStored("bg.rolls.held") };
    }""")
    assert saved["full"] and saved["refull"]
    assert saved["first"] is True and saved["rolls"] == {"a": "k" * 3000}
    gone = [m for m in saved["order"] if f"bg.rolls.{m}" not in saved["keys"]]
    assert gone == saved["order"][:3], (saved["order"], gone)
    assert "bg.rolls.live-recent" in saved["keys"] and "other.blob" in saved["keys"]
    assert saved["second"] is False and saved["memory"] is True and saved["heard"] == [True]
    assert saved["read"]["big"] == "q" * 200_000 and saved["read"]["length"] == 9
    assert json.loads(saved["inStorage"])["length"] == 8  # storage keeps what it had


def test_long_finished_matches_are_kept_within_a_size(module_page):
    """Few matches, but long: pruning keeps the newest droppable matches that fit in
    KEEP_CHARS together (here 3 of 5 matches of 0.3 KEEP_CHARS each); the 2 oldest go, as does
    none of the match in progress."""
    got = module_page.evaluate("""async () => {
        const store = await import('/static/store.js');
        localStorage.clear();
        const size = Math.floor(store.KEEP_CHARS * 0.3);
        const index = {};
        for (let i = 0; i < 5; i++) {
          index[`long-${i}`] = { used: Date.now() - (5 - i) * 60_000, over: true };
          localStorage.setItem(`bg.rolls.long-${i}`, JSON.stringify({ r: "x".repeat(size) }));
        }
        index.going = { used: Date.now() - 3_600_000, over: false };
        localStorage.setItem("bg.rolls.going", JSON.stringify({ r: "x".repeat(size) }));
        localStorage.setItem("bg.matches", JSON.stringify(index));
        return { dropped: store.prune(), keys: Object.keys(localStorage).sort() };
    }""")
    assert got["dropped"] == ["long-0", "long-1"]
    assert got["keys"] == ["bg.matches", "bg.rolls.going", "bg.rolls.long-2", "bg.rolls.long-3",
                           "bg.rolls.long-4"]


# Stores as match.js and dicechain.js write them, with this device's times in them (ms):
# `rolls` rolls, every second one with the link this device sent at `linkAt` (none without),
# and the chain's store, its anchor sent and answered at `anchorAt` (not accepted without).
TIMED_STORES_JS = """
  const rollsAt = (tag, n, linkAt) => {
    const out = {};
    for (let i = 0; i < n; i++) {
      const id = `rol_${tag}_${String(i).padStart(20, "0")}`;
      out[id] = i % 2 && linkAt !== null
        ? { nonce: i, commitment: "ab".repeat(32), link: "cd".repeat(32),
            link_sent_at: linkAt - (n - i) * 1000, roller_entropy_sha256: "ef".repeat(32),
            game_number: 1 }
        : { nonce: i, commitment: "ab".repeat(32), entropy: "12".repeat(16), game_number: 1 };
    }
    return JSON.stringify(out);
  };
  const chainAt = (anchorAt, extra = {}) => JSON.stringify(anchorAt === null
    ? { seed: "0f".repeat(32), length: 1024, registered: false, ...extra }
    : { seed: "0f".repeat(32), length: 1024, registered: true, accepted: true,
        anchor_sent_at: anchorAt - 300, anchor_answered_at: anchorAt, anchor_log: "ok",
        anchor_index: 3, highest: 40, sent: {}, rollers: {}, ...extra });
  const chars = (id) => ["bg.rolls.", "bg.chain."].reduce((n, p) => {
    const text = localStorage.getItem(p + id);
    return n + (text === null ? 0 : p.length + id.length + text.length);
  }, 0);
"""

# A device upgraded from before the index: 96 finished matches, the newest time in each
# `2 * (i + 1) + 0.5` days ago (every tenth has no time in it: only its own rolls, chain never
# accepted), and 4 matches in progress whose IDs sort first (the old order dropped those
# outside the index by ID): a correspondence match (anchor 20 days ago, a link 6 days ago), a
# live one (a link an hour ago), one with no time inside, one refused its chain 10 days ago.
# Then a match page opens on a new match (holdMatch).
UPGRADE = """async (arg) => {
  const store = await import('/static/store.js');
  localStorage.clear();
  localStorage.setItem("bg.lang", "en");
  const now = Date.now(), day = 86_400_000;""" + TIMED_STORES_JS + """
  const put = (id, n, linkAt, anchorAt, extra) => {
    localStorage.setItem(`bg.rolls.${id}`, rollsAt(id, n, linkAt));
    localStorage.setItem(`bg.chain.${id}`, chainAt(anchorAt, extra));
  };
  const finished = [];
  for (let i = 0; i < 96; i++) {
    const id = `mat_${(1 + (i % 15)).toString(16)}${String(i).padStart(3, "0")}x${i * 7919}`;
    const at = i % 10 === 9 ? null : now - (2 * (i + 1) + 0.5) * day;
    put(id, 40, at, at === null ? null : at - 3_600_000);
    finished.push({ id, newest: at === null ? null : at - 1000 });  // its last link
  }
  put("mat_0corr", 40, now - 6 * day, now - 20 * day);
  put("mat_0live", 40, now - 3_600_000, now - 4_000_000);
  put("mat_0none", 6, null, null);
  put("mat_0refd", 10, null, null, { refused_at: now - 10 * day });
  store.holdMatch("mat_new");
  const index = JSON.parse(localStorage.getItem("bg.matches"));
  const left = Object.keys(localStorage).filter((k) => k.startsWith("bg.chain."))
    .map((k) => k.slice(9));
  const stale = finished.filter((f) => f.newest !== null && now - f.newest > store.STALE_MS);
  return { now, finished, index, left, keep: store.KEEP_MATCHES, keepChars: store.KEEP_CHARS,
           staleChars: stale.reduce((n, f) => n + chars(f.id), 0),
           lang: localStorage.getItem("bg.lang") };
}"""

IN_PROGRESS = ["mat_0corr", "mat_0live", "mat_0none", "mat_0refd"]


def test_an_upgraded_device_keeps_its_matches_in_progress(module_page):
    """Stores written before the index are adopted in progress, `used` the newest time inside
    (else now): no match in progress is dropped, and pruning (a page opening, no storage
    pressure) drops only finished ones whose newest time is over 30 days old, beyond the newest
    KEEP_MATCHES of them. Then the lobby's word (followServer): the 4 listed active are used
    now, the 96 listed finished are over, and only the newest KEEP_MATCHES finished stay."""
    got = module_page.evaluate(UPGRADE)
    now, day, index = got["now"], DAY_MS, got["index"]
    assert got["staleChars"] < got["keepChars"]  # the count, not the size, decides here
    for mid in IN_PROGRESS:
        assert mid in got["left"] and index[mid]["over"] is False
    assert index["mat_0corr"]["used"] == now - 6 * day - 1000  # its newest link
    assert index["mat_0live"]["used"] == now - 3_600_000 - 1000
    assert now <= index["mat_0none"]["used"] <= now + 60_000  # nothing inside: used now
    assert index["mat_0refd"]["used"] == now - 10 * day
    stale = sorted((f for f in got["finished"]
                    if f["newest"] is not None and now - f["newest"] > 30 * day),
                   key=lambda f: f["newest"])
    dropped = [f["id"] for f in stale[:len(stale) - got["keep"]]]  # the oldest
    assert len(dropped) == 14
    assert sorted(got["left"]) == sorted(
        [f["id"] for f in got["finished"] if f["id"] not in dropped] + IN_PROGRESS)
    assert set(index) == set(got["left"])
    for f in got["finished"]:
        if f["id"] not in dropped:
            assert index[f["id"]]["over"] is False
            assert index[f["id"]]["used"] == (f["newest"] or index[f["id"]]["used"])
    assert got["lang"] == "en"

    # The lobby lists the 4 active and the 96 finished (dropped ones included).
    after = module_page.evaluate("""async (arg) => {
        const store = await import('/static/store.js');
        store.followServer(arg.active, arg.finished);
        return { index: JSON.parse(localStorage.getItem("bg.matches")), now: Date.now(),
                 left: Object.keys(localStorage).filter((k) => k.startsWith("bg.rolls."))
                   .map((k) => k.slice(9)) };
    }""", {"active": IN_PROGRESS, "finished": [f["id"] for f in got["finished"]]})
    for mid in IN_PROGRESS:
        entry = after["index"][mid]
        assert entry["over"] is False and now <= entry["used"] <= after["now"], entry
    finished_left = [m for m in after["left"] if m not in IN_PROGRESS]
    assert len(finished_left) == got["keep"]
    assert all(after["index"][m]["over"] is True for m in finished_left)
    # The newest used stay: those with no time inside (adopted as used now), then by time.
    by_use = sorted((f for f in got["finished"] if f["id"] not in dropped),
                    key=lambda f: f["newest"] if f["newest"] is not None else now)
    assert sorted(finished_left) == sorted(f["id"] for f in by_use[-got["keep"]:])


# Storage full to the last character but for `free` characters: `n` matches in progress
# used a day ago (never dropped) and a key no match owns.
FILL_BUT = """(arg) => {
  const now = Date.now();
  const index = {};
  for (let i = 0; i < arg.n; i++) {
    index[`mat_old${i}`] = { used: now - 86_400_000, over: false };
    localStorage.setItem(`bg.rolls.mat_old${i}`, JSON.stringify({ r: "x".repeat(1000) }));
  }
  localStorage.setItem("bg.matches", JSON.stringify(index));
  const fits = (n) => {
    try { localStorage.setItem("other.blob", "y".repeat(n)); return true; }
    catch { return false; }
  };
  let lo = 0, hi = 1 << 24;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid; else hi = mid - 1;
  }
  fits(Math.max(0, lo - arg.free));
  return lo;
}"""


def test_a_save_never_leaves_its_match_outside_the_index(module_page):
    """A new match's first save on a storage with room for a small value but hardly for the
    index's growth (or for nothing at all): its index entry is written first, and whatever
    cannot be stored stays in the page, reported; a page opened afterwards (a reload) never
    finds the match's data outside the index. A store found outside the index (written by an
    older page) is in progress, used now: never dropped first."""
    for free in (0, 40, 400):
        module_page.evaluate("() => localStorage.clear()")
        module_page.evaluate(FILL_BUT, {"n": 5, "free": free})
        got = module_page.evaluate("""async (n) => {
            const store = await import(`/static/store.js?page=${n}`);
            const value = { ["rol_" + "a".repeat(24)]: { nonce: 123456789,
                                                          commitment: "ab".repeat(32) } };
            let pad = 0;  // the value as large as storage takes, less a little
            for (; pad < 1000; pad += 5) {
              try {
                localStorage.setItem("probe.x", JSON.stringify({ ...value, p: "z".repeat(pad) }));
                localStorage.removeItem("probe.x");
              } catch { break; }
            }
            value.p = "z".repeat(Math.max(0, pad - 10));
            const saved = store.saveStored("bg.rolls.mat_new", value);
            const reload = await import(`/static/store.js?page=${n}-reload`);
            return { saved, memoryOnly: store.memoryOnly("mat_new"),
                     read: store.readStored("bg.rolls.mat_new"),
                     stored: localStorage.getItem("bg.rolls.mat_new"),
                     index: JSON.parse(localStorage.getItem("bg.matches")),
                     order: reload.evictionOrder() };
        }""", free)
        assert got["read"]["p"] is not None
        if got["stored"] is None:
            assert got["saved"] is False and got["memoryOnly"] is True, (free, got)
        else:
            assert got["saved"] is True, (free, got)
            assert "mat_new" in got["index"], (free, got["index"])  # stored, so indexed
            assert got["index"]["mat_new"]["over"] is False
        assert "mat_new" not in got["order"], (free, got["order"])
        assert {f"mat_old{i}" for i in range(5)} <= set(got["index"])

    # A store outside the index among KEEP_MATCHES + 5 finished matches: the 5 oldest go.
    got = module_page.evaluate("""async () => {
        const store = await import('/static/store.js?page=orphan');
        localStorage.clear();
        const now = Date.now(), index = {};
        for (let i = 0; i < store.KEEP_MATCHES + 5; i++) {
          index[`fin-${String(i).padStart(3, "0")}`] = { used: now - (i + 1) * 60_000,
                                                         over: true };
          localStorage.setItem(`bg.rolls.fin-${String(i).padStart(3, "0")}`, "{}");
        }
        localStorage.setItem("bg.matches", JSON.stringify(index));
        localStorage.setItem("bg.chain.mat_orphan", JSON.stringify({ seed: "0f".repeat(32),
                                                                     length: 1024 }));
        const order = store.evictionOrder();
        const dropped = store.prune();
        return { order, dropped, now, keep: store.KEEP_MATCHES,
                 entry: JSON.parse(localStorage.getItem("bg.matches")).mat_orphan,
                 kept: localStorage.getItem("bg.chain.mat_orphan") !== null };
    }""")
    assert "mat_orphan" not in got["order"] and got["kept"]
    assert got["dropped"] == [f"fin-{i:03d}" for i in range(got["keep"] + 4, got["keep"] - 1, -1)]
    assert got["entry"]["over"] is False
    assert got["now"] <= got["entry"]["used"] <= got["now"] + 60_000


CORRUPT = """async (arg) => {
  const store = await import(`/static/store.js?corrupt=${arg.n}`);
  localStorage.clear();
  const now = Date.now();
  const index = {};
  for (let i = 0; i < 80; i++) {
    const id = "mat_" + String(i).padStart(3, "0");
    index[id] = { used: now - 3_600_000, over: i >= 5 };  // 5 in progress, 75 finished
    localStorage.setItem(`bg.rolls.${id}`, JSON.stringify({ r: "x".repeat(2000) }));
    localStorage.setItem(`bg.chain.${id}`, JSON.stringify({ seed: "0f".repeat(32),
                                                           length: 1024 }));
  }
  const text = JSON.stringify(index);
  localStorage.setItem("bg.matches", arg.corrupt === "truncated" ? text.slice(0, -3)
                       : arg.corrupt);
  store.holdMatch("mat_079");
  return { left: Object.keys(localStorage).filter((k) => k.startsWith("bg.chain."))
             .map((k) => k.slice(9)),
           index: JSON.parse(localStorage.getItem("bg.matches")) };
}"""


@pytest.mark.parametrize("corrupt", ["truncated", "[]", '"bg"', "null", "{not json"])
def test_a_corrupt_index_loses_no_match(module_page, corrupt):
    """An unreadable index (80 matches, 5 of them in progress) is not overwritten as it is:
    every stored match is adopted in progress, and a page opening drops nothing."""
    got = module_page.evaluate(CORRUPT, {"corrupt": corrupt, "n": len(corrupt)})
    ids = [f"mat_{i:03d}" for i in range(80)]
    assert sorted(got["left"]) == ids
    assert sorted(got["index"]) == ids
    assert not any(entry["over"] for entry in got["index"].values())


NOT_QUOTA = """async () => {
  const store = await import('/static/store.js?errors');
  localStorage.clear();
  const now = Date.now(), index = {};
  for (let i = 0; i < 5; i++) {
    index[`over-${i}`] = { used: now - (i + 1) * 86_400_000, over: true };
    localStorage.setItem(`bg.rolls.over-${i}`, JSON.stringify({ r: "x".repeat(1000) }));
  }
  index.going = { used: now - 86_400_000, over: false };
  localStorage.setItem("bg.rolls.going", "{}");
  localStorage.setItem("bg.matches", JSON.stringify(index));
  const overs = () => Object.keys(localStorage).filter((k) => k.startsWith("bg.rolls.over-"))
    .length;
  const setItem = Storage.prototype.setItem;
  const kinds = {};
  try {
    // Refused for another reason (storage disabled, a security error): nothing is dropped.
    Storage.prototype.setItem = function () {
      throw new DOMException("The operation is insecure.", "SecurityError");
    };
    const saved = store.saveStored("bg.rolls.going", { entropy: "12".repeat(16) });
    kinds.other = { saved, overs: overs(), memory: store.memoryOnly("going"),
                    read: store.readStored("bg.rolls.going") };
    // Firefox's "full" (not a DOMException named QuotaExceededError): old matches go.
    Storage.prototype.setItem = function (key, value) {
      if (key === "bg.rolls.going") {
        throw Object.assign(new Error("quota"), { name: "NS_ERROR_DOM_QUOTA_REACHED",
                                                  code: 1014 });
      }
      return setItem.call(this, key, value);
    };
    const again = store.saveStored("bg.rolls.going", { entropy: "34".repeat(16) });
    kinds.firefox = { saved: again, overs: overs(), memory: store.memoryOnly("going") };
  } finally {
    Storage.prototype.setItem = setItem;
  }
  const quota = (e) => (store.isQuotaError ? store.isQuotaError(e) : null);
  kinds.classify = [
    quota(new DOMException("full", "QuotaExceededError")), quota({ code: 22 }),
    quota({ name: "NS_ERROR_DOM_QUOTA_REACHED" }), quota({ code: 1014 }),
    quota(new DOMException("no", "SecurityError")), quota(new TypeError("x")), quota(null),
  ];
  return kinds;
}"""


def test_only_a_full_storage_drops_matches(module_page):
    """A write refused for another reason than a full storage keeps the data in the page and
    drops nothing; Firefox's quota error (NS_ERROR_DOM_QUOTA_REACHED, 1014) does drop the
    finished matches."""
    got = module_page.evaluate(NOT_QUOTA)
    other = got["other"]
    assert other["saved"] is False and other["memory"] is True and other["overs"] == 5
    assert other["read"] == {"entropy": "12" * 16}
    assert got["firefox"] == {"saved": False, "overs": 0, "memory": True}
    assert got["classify"] == [True, True, True, True, False, False, False]


def test_a_future_use_is_taken_as_now(module_page):
    """A clock set back left `used` in the future: it reads as now (a finished match "used"
    in 5 days goes after one used an hour ago, as one used now would), and a page opening on a
    match in progress "used" in 10 days writes its `used` as now (it would never age)."""
    got = module_page.evaluate("""async () => {
        const store = await import('/static/store.js?future');
        localStorage.clear();
        const now = Date.now(), day = 86_400_000;
        const index = {
          ahead: { used: now + 10 * day, over: false },
          "over-ahead": { used: now + 5 * day, over: true },
          "over-hour": { used: now - 3_600_000, over: true },
        };
        for (const id of Object.keys(index)) localStorage.setItem(`bg.rolls.${id}`, "{}");
        localStorage.setItem("bg.matches", JSON.stringify(index));
        const read = store.readIndex();
        const order = store.evictionOrder();
        store.holdMatch("ahead");
        store.releaseMatch("ahead");
        return { now, read, order, after: JSON.parse(localStorage.getItem("bg.matches")),
                 later: Date.now() };
    }""")
    assert all(e["used"] <= got["later"] for e in got["read"].values())
    assert got["order"] == ["over-hour", "over-ahead"]
    assert got["now"] <= got["after"]["ahead"]["used"] <= got["later"]
    assert all(e["used"] <= got["later"] for e in got["after"].values())


def test_the_lobby_marks_its_matches(browser, live_server):
    """The lobby (app.js) tells the store the server's word: of this device's stores, a match
    it lists active (here wrongly taken as over and unused for 40 days) is in progress and used
    now, one it lists finished is over; a match it does not list is left as it was."""
    page = new_page(browser, live_server)
    register(page, "ann_lobby")

    def computer_match() -> str:
        answer = page.request.post(f"{live_server}/api/matches/computer",
                                   data={"level": "easy", "length": 1, "variant": "standard"})
        assert answer.status == 201, answer.text()
        return answer.json()["match_id"]

    # One match finished: its page rolls the opening roll, then ann resigns (via the API).
    done = computer_match()
    page.goto(f"{live_server}/match/{done}")
    page.wait_for_selector("svg.board")
    for _ in range(200):
        if seen(page)["roll"]:
            page.click('[data-action="roll"]')
        answer = page.request.post(f"{live_server}/api/matches/{done}/actions",
                                   data={"action_id": f"a{time.monotonic_ns()}",
                                         "type": "resign", "points": 3})
        if answer.ok:
            break
        page.wait_for_timeout(100)
    assert answer.ok, answer.text()
    page.goto(f"{live_server}/rules")  # off the lobby: it would open a new live match
    going = computer_match()
    for _ in range(100):
        status = {m["match_id"]: m["status"]
                  for m in page.request.get(f"{live_server}/api/lobby").json()["matches"]}
        if status == {going: "active", done: "finished"}:
            break
        page.wait_for_timeout(100)
    assert status == {going: "active", done: "finished"}, status
    day = DAY_MS
    page.evaluate("""(arg) => {
        const now = Date.now();
        const index = {
          [arg.going]: { used: now - 40 * arg.day, over: true },
          [arg.done]: { used: now - 2 * arg.day, over: false },
          unlisted: { used: now - 3 * arg.day, over: false },
        };
        for (const id of Object.keys(index)) {
          localStorage.setItem(`bg.rolls.${id}`, JSON.stringify({ r: "x" }));
        }
        localStorage.setItem("bg.matches", JSON.stringify(index));
    }""", {"going": going, "done": done, "day": day})
    before = int(page.evaluate("Date.now()"))
    page.goto(f"{live_server}/")
    page.wait_for_selector(f'li[data-match="{done}"]')
    page.wait_for_function("(id) => JSON.parse(localStorage.getItem('bg.matches'))[id].over"
                           " === false", arg=going)
    index = page.evaluate("() => JSON.parse(localStorage.getItem('bg.matches'))")
    assert index[going]["over"] is False and index[going]["used"] >= before
    assert index[done]["over"] is True and index[done]["used"] < before - day
    assert index["unlisted"]["over"] is False and index["unlisted"]["used"] < before - day
    stored = page.evaluate(STORED)
    assert {f"bg.rolls.{m}" for m in (going, done, "unlisted")} <= set(stored)
    page.context.close()
