// What this device keeps per match in localStorage (docs/fair-dice.md §The device's check,
// device storage): `bg.rolls.<matchId>` (match.js: per roll the entropy sent, the link, the
// hashes, the marks) and `bg.chain.<matchId>` (dicechain.js: the hash chain's seed and what
// it sent). Every write of those keys goes through `saveStored`, every read through
// `readStored`, so that a full storage never throws into the game and old matches are dropped.
//
// The index `bg.matches` = {matchId: {used: ms, over: bool}} says when a match page of this
// device last opened or saved for the match (`used`, Date.now(), at most once a TOUCH_MS) and
// whether it saw the match over (phase "match_over"). What may be dropped, a whole match at a
// time (both keys), in this order, oldest `used` first in each tier:
//  0. matches whose keys are not in the index (written before it existed: oldest of all, in
//     the order of their IDs), and matches seen over: their stores only serve the ✓/✗ of their
//     rolls, and a page opened on one without them checks what needs no device record (the
//     commitment, the dice, the log) and reports nothing of its own, never a ✗ for the
//     missing record (fairdice.js checkKnown and dicechain.js checkRollV2InRecord skip what
//     `known` / the chain's store lack);
//  1. matches in progress no page of this device opened or saved for in STALE_MS (30 days:
//     a match whose end this device never saw, abandoned or timed out while no page was open;
//     a correspondence turn is at most 7 days).
// Never dropped: the matches of the pages open in this tab (holdMatch; a finished match's page
// in another tab keeps its data in memory and writes it again with its next save), the match
// being saved, and a match in progress used within STALE_MS: its chain is needed until the match
// ends (a new one after a reload would be refused, and its links could no longer be sent),
// and its entropy for a roll awaiting reveal must be sent again unchanged.
// When: a save that fails (QuotaExceededError or any other) drops matches in that order until
// the write fits and HEADROOM characters were freed, retrying the write as it goes; and
// whenever a match enters the index or is seen over (and once per match page), the droppable
// matches beyond the newest KEEP_MATCHES, or beyond KEEP_CHARS characters, are dropped.
// Measured (a 1-point live match in Chromium, 57 rolls, tests/web/test_web_device_storage.py
// prints one roll's): bg.rolls ≈ 260 characters per roll of the match (every roll has an
// entry), bg.chain ≈ 140 per roll where this device was the opponent: ≈ 330 per roll, some
// 19 K for a 1-point match and 100–150 K for a 7-point one (300–450 rolls). Chromium's quota
// is 5 M characters (10 MB of UTF-16) per origin: kept finished matches take at most 2 M,
// and the rest stays free for matches in progress.
// A write that still fails is kept in memory for this page (`readStored` returns it, so a
// retry of a roll on this page sends the same entropy) and `memoryOnly(matchId)` turns true;
// `onStoreChange` listeners hear of it (the match page shows a warning: a reload could lose
// this match's dice inputs). Other keys (bg.lang, bg.auto, bg.mute, board options) are never
// touched.

export const INDEX_KEY = "bg.matches";
export const PREFIXES = ["bg.rolls.", "bg.chain."];
// Droppable matches (finished, stale or pre-index) kept at most, newest first, and the
// characters (keys and values) they may take together: a measured 1-point match keeps some
// 19 K, a 7-point one 100–150 K, so the count bounds short matches and the size long ones.
export const KEEP_MATCHES = 60;
export const KEEP_CHARS = 2_000_000;
// A match in progress that no page of this device saved for in this long may be dropped.
export const STALE_MS = 30 * 24 * 3600 * 1000;
// A failed save drops old matches until this many characters are free (its own included).
export const HEADROOM = 256 * 1024;
// `used` is rewritten at most this often for the same match.
const TOUCH_MS = 60 * 1000;

const memory = new Map(); // key → JSON text this page could not store
const held = new Map(); // matchId → pages of this tab open on it
const listeners = new Set();

/** The match a store key belongs to, or null for any other key. */
export function matchOf(key) {
  const prefix = PREFIXES.find((p) => key.startsWith(p));
  return prefix ? key.slice(prefix.length) : null;
}

function keysOf(matchId) {
  return PREFIXES.map((p) => p + matchId);
}

/** Whether anything is kept for `matchId` (in storage or in this page's memory). */
function hasData(matchId) {
  return keysOf(matchId).some((key) => {
    if (memory.has(key)) return true;
    try {
      return localStorage.getItem(key) !== null;
    } catch {
      return false;
    }
  });
}

/** The value stored under `key` (this page's unsaved copy first), or null: absent, not JSON
 * (a corrupt store reads as absent), or unreadable. */
export function readStored(key) {
  let text = memory.get(key);
  if (text === undefined) {
    try {
      text = localStorage.getItem(key);
    } catch {
      return null;
    }
  }
  if (text === null || text === undefined) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function write(key, text) {
  try {
    localStorage.setItem(key, text);
  } catch {
    return false;
  }
  memory.delete(key);
  return true;
}

function notify() {
  for (const listener of listeners) {
    try {
      listener();
    } catch {
      // a listener's failure is its own
    }
  }
}

/** Call `listener` whenever a match's data goes to memory only or back to storage; returns
 * the function that stops it. */
export function onStoreChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether some of `matchId`'s data is kept in this page's memory only (storage full). */
export function memoryOnly(matchId) {
  return keysOf(matchId).some((key) => memory.has(key));
}

/** The index, {matchId: {used, over}}; a corrupt one reads as empty. */
export function readIndex() {
  const index = readStored(INDEX_KEY);
  const out = {};
  if (!index || typeof index !== "object" || Array.isArray(index)) return out;
  for (const [id, entry] of Object.entries(index)) {
    if (entry && Number.isFinite(entry.used)) out[id] = { used: entry.used, over: !!entry.over };
  }
  return out;
}

function writeIndex(index) {
  const text = JSON.stringify(index);
  if (!write(INDEX_KEY, text)) memory.set(INDEX_KEY, text);
}

/** Every match with a store key in localStorage. */
function storedMatches() {
  const ids = new Set();
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const id = matchOf(localStorage.key(i) || "");
      if (id !== null) ids.add(id);
    }
  } catch {
    // storage unreadable: nothing to drop
  }
  return ids;
}

/**
 * The matches that may be dropped, first to go first (see the top of this file): tier 0,
 * matches not in the index (by ID) then matches seen over, oldest `used` first; tier 1,
 * matches in progress unused for STALE_MS, oldest first. Never `keep`, nor a match held by a
 * page of this tab, nor a match in progress used within STALE_MS.
 */
export function evictionOrder(now = Date.now(), keep = null) {
  const index = readIndex();
  const out = [];
  for (const id of storedMatches()) {
    if (id === keep || held.has(id)) continue;
    const entry = index[id];
    if (!entry) out.push({ id, tier: 0, used: -Infinity });
    else if (entry.over) out.push({ id, tier: 0, used: entry.used });
    else if (now - entry.used > STALE_MS) out.push({ id, tier: 1, used: entry.used });
  }
  out.sort((a, b) => a.tier - b.tier || a.used - b.used
    || (a.id < b.id ? -1 : Number(a.id > b.id)));
  return out.map((c) => c.id);
}

/** Drop the matches `ids` (both keys, and their index entries); the characters freed. */
export function evict(ids) {
  if (!ids.length) return 0;
  let freed = 0;
  for (const id of ids) {
    for (const key of keysOf(id)) {
      try {
        const text = localStorage.getItem(key);
        if (text !== null) freed += key.length + text.length;
        localStorage.removeItem(key);
      } catch {
        // nothing freed
      }
    }
  }
  const index = readIndex();
  let changed = false;
  for (const id of ids) {
    if (index[id]) {
      delete index[id];
      changed = true;
    }
  }
  if (changed) writeIndex(index);
  return freed;
}

/** The characters `matchId` takes in storage (keys and values). */
function storedChars(matchId) {
  let chars = 0;
  for (const key of keysOf(matchId)) {
    try {
      const text = localStorage.getItem(key);
      if (text !== null) chars += key.length + text.length;
    } catch {
      // unreadable: nothing
    }
  }
  return chars;
}

/** Keep the newest droppable matches, at most KEEP_MATCHES of them taking KEEP_CHARS at most
 * (the others go, first to go first), and drop the index's entries for matches with nothing
 * stored (another tab dropped them). Returns the dropped. */
export function prune(now = Date.now()) {
  const order = evictionOrder(now);
  let kept = 0;
  let chars = 0;
  let cut = order.length; // order[cut…] are kept
  while (cut > 0 && kept < KEEP_MATCHES) {
    const size = storedChars(order[cut - 1]);
    if (chars + size > KEEP_CHARS) break;
    chars += size;
    kept += 1;
    cut -= 1;
  }
  const dropped = order.slice(0, cut);
  evict(dropped);
  const index = readIndex();
  const stored = storedMatches();
  const gone = Object.keys(index).filter((id) => !stored.has(id) && !held.has(id)
    && !memoryOnly(id));
  if (gone.length) {
    for (const id of gone) delete index[id];
    writeIndex(index);
  }
  return dropped;
}

/** Note in the index that a page of this device used `matchId` now (and saw it over, with
 * `over`); a match new to the index, or now over, prunes. Only for a match with data. */
function touch(matchId, over = false) {
  const index = readIndex();
  const entry = index[matchId];
  const now = Date.now();
  const next = { used: now, over: over || (entry ? entry.over : false) };
  if (entry && entry.over === next.over && now - entry.used < TOUCH_MS) return;
  index[matchId] = next;
  writeIndex(index);
  if (!entry || entry.over !== next.over) prune(now);
}

/**
 * Store `value` (as JSON) under `key`; never throws. A failed write drops matches in
 * evictionOrder (never the key's own match) until what they freed covers it and HEADROOM,
 * trying again as it goes; one that still fails is kept in this page's memory, read back by
 * readStored, and reported (memoryOnly, onStoreChange). Returns whether it is in storage.
 */
export function saveStored(key, value) {
  const text = JSON.stringify(value);
  const matchId = matchOf(key);
  const wasMemory = matchId !== null && memoryOnly(matchId);
  let saved = write(key, text);
  if (!saved) {
    // Whole matches, first to go first, until the write fits and HEADROOM characters are
    // free (so that the next saves do not each fail first), or nothing is left to drop.
    let freed = 0;
    for (const id of evictionOrder(Date.now(), matchId)) {
      freed += evict([id]);
      if (!saved && freed >= key.length + text.length) saved = write(key, text);
      if (saved && freed >= HEADROOM) break;
    }
    saved ||= write(key, text);
  }
  if (!saved) memory.set(key, text);
  if (matchId !== null) {
    touch(matchId);
    if (memoryOnly(matchId) !== wasMemory) notify();
  }
  return saved;
}

/** A match page of this tab is open on `matchId`: its data is never dropped while it is,
 * and the page's opening counts as a use (a match in progress opened now and then is never
 * stale). Prunes. */
export function holdMatch(matchId) {
  held.set(matchId, (held.get(matchId) || 0) + 1);
  try {
    if (hasData(matchId)) touch(matchId);
    prune();
  } catch {
    // pruning is a courtesy
  }
}

export function releaseMatch(matchId) {
  const n = (held.get(matchId) || 0) - 1;
  if (n > 0) held.set(matchId, n);
  else held.delete(matchId);
}

/** The page saw `matchId` over: its data may go first (only where some is stored). */
export function markOver(matchId) {
  const entry = readIndex()[matchId];
  if (entry && entry.over) return;
  if (!entry && !hasData(matchId)) return;
  touch(matchId, true);
}
