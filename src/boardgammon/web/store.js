// What this device keeps per match in localStorage (docs/fair-dice.md §The device's check,
// device storage): `bg.rolls.<matchId>` (match.js: per roll the entropy sent, the link, the
// hashes, the marks) and `bg.chain.<matchId>` (dicechain.js: the hash chain's seed and what
// it sent). Every write of those keys goes through `saveStored`, every read through
// `readStored`, so that a full storage never throws into the game and old matches are dropped.
//
// The index `bg.matches` = {matchId: {used: ms, over: bool}} says when a page of this device
// last used the match (`used`, Date.now(), at most once a TOUCH_MS: a match page opened or
// saved for it, or the lobby listed it active) and whether the match is known over (a match
// page saw phase "match_over", or the lobby listed it finished). `used` is never taken as
// later than now (a clock set back left future times, which would never age): such a time
// reads as now and the next touch rewrites it.
// Every store key is in the index. Where `bg.matches` is absent (a device upgraded from before
// it) or unreadable (not a JSON object: corrupt), it is never overwritten as it is: every
// stored match is adopted, IN PROGRESS, `used` the newest ms time inside its stores (a number
// under a key ending in "_at": the chain's anchor_sent_at, anchor_answered_at, refused_at, a
// roll's link_sent_at), else now. A store key found later outside a readable index (a write
// of it by an older page, or by another tab whose index write was lost) enters in progress,
// used now. So no match is dropped for having been stored the old way; an adopted match that
// is in fact finished goes once the lobby lists it finished, a match page sees it over, or its
// newest time is STALE_MS old.
// What may be dropped, a whole match at a time (both keys), in this order, oldest `used` first
// in each tier:
//  0. matches known over: their stores only serve the ✓/✗ of their rolls, and a page opened
//     on one without them checks what needs no device record (the commitment, the dice, the
//     log) and reports nothing of its own, never a ✗ for the missing record
//     (fairdice.js checkKnown and dicechain.js checkRollV2InRecord skip what `known` / the
//     chain's store lack);
//  1. matches in progress no page of this device used in STALE_MS (30 days: a match whose end
//     this device never saw, abandoned or timed out while no page was open, and that the lobby
//     of this device did not list active either, e.g. another account's; a correspondence turn
//     is at most 7 days).
// Never dropped: the matches of the pages open in this tab (holdMatch; a finished match's page
// in another tab keeps its data in memory and writes it again with its next save), the match
// being saved, and a match in progress used within STALE_MS: its chain is needed until the match
// ends (a new one after a reload would be refused, and its links could no longer be sent),
// and its entropy for a roll awaiting reveal must be sent again unchanged.
// When: a save writes the match's index entry first, then its data; a write that fails with a
// quota error (QuotaExceededError or DOMException code 22; Firefox NS_ERROR_DOM_QUOTA_REACHED,
// code 1014) drops matches in that order, never the one being saved, until the write fits and
// HEADROOM characters were freed, retrying the write as it goes. Any other error (storage
// disabled, a security error) drops nothing. An index entry that cannot be stored leaves the
// data unwritten too (kept in memory, below), so storage never holds a match its index lacks
// because of this page. And whenever a match enters the index or becomes over (and once per
// match page), the droppable matches beyond the newest KEEP_MATCHES, or beyond KEEP_CHARS
// characters, are dropped; nothing else is dropped while storage is not full.
// Measured (a 1-point live match in Chromium, 57 rolls, tests/web/test_web_device_storage.py
// prints one roll's): bg.rolls ≈ 260 characters per roll of the match (every roll has an
// entry), bg.chain ≈ 140 per roll where this device was the opponent: ≈ 330 per roll, some
// 19 K for a 1-point match and 100–150 K for a 7-point one (300–450 rolls). Chromium's quota
// is 5 M characters (10 MB of UTF-16) per origin: kept finished matches take at most 2 M,
// and the rest stays free for matches in progress.
// A write that still fails is kept in memory for this page (`readStored` returns it, so a
// retry of a roll on this page sends the same entropy) and `memoryOnly(matchId)` turns true;
// `onStoreChange` listeners hear of it (the match page shows a warning: a reload could lose
// this match's dice inputs). An index that cannot be stored is kept in memory too (this page
// reads that copy, and writes it at its next save). Other keys (bg.lang, bg.auto, bg.mute,
// board options) are never dropped; they are read and written through readPreference and
// savePreference, which never throw either (a choice that cannot be stored lasts for the page).
// Left open: matches in progress that no page of this device used for STALE_MS (the lobby
// not opened for 30 days, or another account's matches on a shared device) can still be
// dropped under pressure; and with nothing droppable left, a match's data lives in its page
// only (a reload before a requested roll is revealed makes new entropy).

export const INDEX_KEY = "bg.matches";
export const PREFIXES = ["bg.rolls.", "bg.chain."];
// Droppable matches (finished or stale) kept at most, newest first, and the characters (keys
// and values) they may take together: a measured 1-point match keeps some 19 K, a 7-point one
// 100–150 K, so the count bounds short matches and the size long ones.
export const KEEP_MATCHES = 60;
export const KEEP_CHARS = 2_000_000;
// A match in progress that no page of this device used in this long may be dropped.
export const STALE_MS = 30 * 24 * 3600 * 1000;
// A failed save drops old matches until this many characters are free (its own included).
export const HEADROOM = 256 * 1024;
// `used` is rewritten at most this often for the same match.
const TOUCH_MS = 60 * 1000;
// A time inside a store counts (adoption) from this many ms on (2001): smaller numbers under
// a key ending in "_at" are not ms times of this device.
const EPOCH_MS = 1e12;

const memory = new Map(); // key → text this page could not store (JSON; a preference raw)
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

/** Whether `err`, thrown by localStorage.setItem, says the storage is full: Chromium and
 * Safari QuotaExceededError (DOMException code 22), Firefox NS_ERROR_DOM_QUOTA_REACHED (code
 * 1014). Only these make room by dropping matches. */
export function isQuotaError(err) {
  if (!err || (typeof err !== "object" && typeof err !== "function")) return false;
  return err.name === "QuotaExceededError" || err.name === "NS_ERROR_DOM_QUOTA_REACHED"
    || err.code === 22 || err.code === 1014;
}

/** Store `text` under `key`: "ok" (and this page's unsaved copy of it goes), "full" (a quota
 * error) or "failed" (any other error). */
function write(key, text) {
  try {
    localStorage.setItem(key, text);
  } catch (err) {
    return isQuotaError(err) ? "full" : "failed";
  }
  memory.delete(key);
  return "ok";
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

/** The index as stored (this page's unsaved copy first), its well-formed entries as they
 * are; null when it is absent or unreadable (not a JSON object): to be adopted. Throws when
 * the storage cannot be read. */
function storedIndex() {
  let text = memory.get(INDEX_KEY);
  if (text === undefined) text = localStorage.getItem(INDEX_KEY);
  if (text === null) return null;
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const out = {};
  for (const [id, entry] of Object.entries(parsed)) {
    if (entry && Number.isFinite(entry.used)) out[id] = { used: entry.used, over: !!entry.over };
  }
  return out;
}

/** The newest ms time inside `matchId`'s stores (a number under a key ending in "_at": the
 * chain's anchor_sent_at, anchor_answered_at, refused_at, a roll's link_sent_at), at most
 * `now`; null when there is none. */
function newestTime(matchId, now) {
  let newest = null;
  const walk = (value, depth) => {
    if (!value || typeof value !== "object" || depth > 4) return;
    for (const [name, v] of Object.entries(value)) {
      if (name.endsWith("_at") && Number.isFinite(v) && v >= EPOCH_MS) {
        newest = newest === null ? v : Math.max(newest, v);
      } else if (v && typeof v === "object") {
        walk(v, depth + 1);
      }
    }
  };
  for (const key of keysOf(matchId)) walk(readStored(key), 0);
  return newest === null ? null : Math.min(newest, now);
}

function indexText(index, now) {
  const out = {};
  for (const [id, entry] of Object.entries(index)) {
    out[id] = { used: Math.min(entry.used, now), over: !!entry.over };
  }
  return JSON.stringify(out);
}

/** Write the index (no room is made for it: it shrinks or grows by little); what cannot be
 * stored stays in this page's memory. */
function writeIndex(index, now = Date.now()) {
  const text = indexText(index, now);
  if (write(INDEX_KEY, text) !== "ok") memory.set(INDEX_KEY, text);
}

/**
 * The index with every stored match in it, `used` as stored (a future one too): an absent or
 * unreadable index is adopted (each stored match in progress, `used` its newest time inside,
 * else now), and a store key outside a readable one enters in progress, used now; written
 * back when anything entered. {} when the storage cannot be read.
 */
function loadIndex(now = Date.now()) {
  let index;
  try {
    index = storedIndex();
  } catch {
    return {};
  }
  const adopt = index === null;
  if (adopt) index = {};
  let changed = adopt;
  for (const id of storedMatches()) {
    if (index[id]) continue;
    const inside = adopt ? newestTime(id, now) : null;
    index[id] = { used: inside === null ? now : inside, over: false };
    changed = true;
  }
  if (changed) writeIndex(index, now);
  return index;
}

/** The index, {matchId: {used, over}}, every stored match in it (see loadIndex), `used` at
 * most `now`. */
export function readIndex(now = Date.now()) {
  const out = {};
  for (const [id, entry] of Object.entries(loadIndex(now))) {
    out[id] = { used: Math.min(entry.used, now), over: entry.over };
  }
  return out;
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
 * matches known over, oldest `used` first; tier 1, matches in progress unused for STALE_MS,
 * oldest first. Never `keep`, nor a match held by a page of this tab, nor a match in progress
 * used within STALE_MS.
 */
export function evictionOrder(now = Date.now(), keep = null) {
  const index = readIndex(now);
  const out = [];
  for (const id of storedMatches()) {
    if (id === keep || held.has(id)) continue;
    const entry = index[id];
    if (!entry) continue; // the storage could not be read
    if (entry.over) out.push({ id, tier: 0, used: entry.used });
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
  const index = loadIndex();
  let changed = false;
  for (const id of ids) {
    if (index[id] && !memoryOnly(id)) {
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
  const index = loadIndex(now);
  const stored = storedMatches();
  const gone = Object.keys(index).filter((id) => !stored.has(id) && !held.has(id)
    && !memoryOnly(id));
  if (gone.length) {
    for (const id of gone) delete index[id];
    writeIndex(index, now);
  }
  return dropped;
}

/** Store the text `textOf()` under `key`; on a quota error, drop matches in evictionOrder
 * (never `keep`) until what they freed covers it and HEADROOM, trying again as it goes (the
 * text is made again for each try: the index changes as matches go). Any other error drops
 * nothing. Returns whether it is in storage. */
function saveWithRoom(key, textOf, keep) {
  let text = textOf();
  const first = write(key, text);
  if (first !== "full") return first === "ok";
  // Whole matches, first to go first, until the write fits and HEADROOM characters are
  // free (so that the next saves do not each fail first), or nothing is left to drop.
  let freed = 0;
  let saved = false;
  for (const id of evictionOrder(Date.now(), keep)) {
    freed += evict([id]);
    if (!saved && freed >= key.length + text.length) {
      text = textOf();
      const again = write(key, text);
      if (again === "failed") return false;
      saved = again === "ok";
    }
    if (saved && freed >= HEADROOM) break;
  }
  return saved || write(key, textOf()) === "ok";
}

/** Put `matchId` in the index as used now (and over, with `over`; else as it was), the index
 * written first of all, making room as a save does (never dropping `matchId`); unchanged
 * within TOUCH_MS. Returns whether the index in storage has it, and whether it entered the
 * index or became over (then the caller prunes). */
function enter(matchId, over, now) {
  const entry = loadIndex(now)[matchId];
  const next = { used: now, over: over || (entry ? entry.over : false) };
  const fresh = entry && entry.over === next.over && entry.used <= now
    && now - entry.used < TOUCH_MS;
  if (fresh && !memory.has(INDEX_KEY)) return { indexed: true, grew: false };
  const withEntry = () => {
    const index = loadIndex(now);
    index[matchId] = next;
    return indexText(index, now);
  };
  const indexed = saveWithRoom(INDEX_KEY, withEntry, matchId);
  if (!indexed) memory.set(INDEX_KEY, withEntry());
  return { indexed, grew: !entry || entry.over !== next.over };
}

/**
 * Store `value` (as JSON) under `key`; never throws. For a match's key, its index entry is
 * written first (enter); if that cannot be stored, neither is the value. A write that fails
 * on a full storage drops matches in evictionOrder (never the key's own match) until what
 * they freed covers it and HEADROOM, trying again as it goes; one that still fails (or fails
 * otherwise) is kept in this page's memory, read back by readStored, and reported
 * (memoryOnly, onStoreChange). Returns whether it is in storage.
 */
export function saveStored(key, value) {
  const text = JSON.stringify(value);
  const matchId = matchOf(key);
  if (matchId === null) return savePreference(key, text);
  const wasMemory = memoryOnly(matchId);
  const now = Date.now();
  let saved = false;
  let grew = false;
  try {
    const entered = enter(matchId, false, now);
    grew = entered.grew;
    saved = entered.indexed && saveWithRoom(key, () => text, matchId);
  } catch {
    // kept in memory below
  }
  if (!saved) memory.set(key, text);
  if (grew) {
    try {
      prune(now);
    } catch {
      // pruning is a courtesy
    }
  }
  if (memoryOnly(matchId) !== wasMemory) notify();
  return saved;
}

/** The preference stored under `key` (bg.lang, bg.auto, bg.mute, board options) as text,
 * this page's unsaved copy first; null when absent or when storage cannot be read (disabled
 * storage throws on access in some browsers). Never throws. */
export function readPreference(key) {
  const text = memory.get(key);
  if (text !== undefined) return text;
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** Store the preference `text` (or any text under a key no match owns) under `key`; never
 * throws. On a full storage, droppable matches make room as for saveStored; a text that still
 * cannot be stored lasts for this page (readPreference and readStored return it). Returns
 * whether it is in storage. */
export function savePreference(key, text) {
  let saved = false;
  try {
    saved = saveWithRoom(key, () => text, null);
  } catch {
    // kept in memory below
  }
  if (!saved) memory.set(key, text);
  return saved;
}

/** A match page of this tab is open on `matchId`: its data is never dropped while it is,
 * and the page's opening counts as a use (a match in progress opened now and then is never
 * stale). Prunes. */
export function holdMatch(matchId) {
  held.set(matchId, (held.get(matchId) || 0) + 1);
  try {
    if (hasData(matchId)) enter(matchId, false, Date.now());
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
  try {
    const entry = loadIndex()[matchId];
    if (entry && entry.over) return;
    if (!entry && !hasData(matchId)) return;
    if (enter(matchId, true, Date.now()).grew) prune();
  } catch {
    // a courtesy
  }
}

/**
 * The lobby's word on this player's matches (the server's `status`): those it lists active
 * are in progress and used now (a correspondence match left alone for weeks never goes
 * stale while the lobby lists it; one wrongly taken as over is in progress again), those it
 * lists finished are over (their `used` kept, so they go in the order they were used). Only
 * matches this device keeps something for; prunes when one became over. Never throws.
 */
export function followServer(active, finished, now = Date.now()) {
  try {
    const index = loadIndex(now);
    let changed = false;
    let over = false;
    for (const id of active) {
      const entry = index[id];
      if (!entry) continue;
      if (entry.over || entry.used > now || now - entry.used >= TOUCH_MS) {
        index[id] = { used: now, over: false };
        changed = true;
      }
    }
    for (const id of finished) {
      const entry = index[id];
      if (entry && !entry.over) {
        index[id] = { used: Math.min(entry.used, now), over: true };
        changed = over = true;
      }
    }
    if (changed) writeIndex(index, now);
    if (over) prune(now);
  } catch {
    // a courtesy
  }
}
