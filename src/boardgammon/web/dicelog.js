// The public log's proof for a v2 roll, checked on the player's own device (docs/fair-dice.md
// §The public log and §The record (v2); the server's side is boardgammon.dice.transparency):
//   leaf hash = SHA-256(0x00 || leaf bytes), node = SHA-256(0x01 || left || right)
//   the inclusion proof leads from the leaf to the signed head's root (RFC 9162 §2.1.3.2)
//   the head's Ed25519 signature covers "boardgammon-log-head-v1" 0x00 size (8 BE) time (8 BE)
//   root, where the browser has Ed25519 in Web Crypto
//   the roll's last leaf names its state and its entry hash, which covers every field of the
//   roll as shown (seed, both contributions, dice, times); each leaf's `at` is the record's time
//   of its change

import { concat, fromHex, lp, toHex, uint } from "./fairdice.js";

const encoder = new TextEncoder();
export const HEAD_FORMAT = "boardgammon-log-head-v1";
export const RECORD_SPEC_V2 = "boardgammon-record-v2";
/** The prev_hash of a match record's first entry. */
export const GENESIS = "0".repeat(64);

function subtle() {
  if (!globalThis.crypto || !globalThis.crypto.subtle) {
    throw new Error("Web Crypto is unavailable here (the page is not a secure context)");
  }
  return globalThis.crypto.subtle;
}

async function sha256(bytes) {
  return new Uint8Array(await subtle().digest("SHA-256", bytes));
}

function equal(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** SHA-256(0x00 || leaf): a leaf's hash in the tree (leaf: bytes). */
export function leafHash(leaf) {
  return sha256(concat([new Uint8Array([0]), leaf]));
}

function nodeHash(left, right) {
  return sha256(concat([new Uint8Array([1]), left, right]));
}

/**
 * The root that an inclusion proof leads to (RFC 9162 §2.1.3.2), or null where the proof
 * cannot be one for leaf `index` of a tree of `size` leaves (index out of range, a path too
 * long or too short). hash: the leaf's hash; path: [bytes …], in the RFC's order.
 */
export async function rootFromInclusion(index, size, hash, path) {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    return null;
  }
  // Safe integers below 2^53 halve exactly with Math.floor: no 32-bit bit operators here.
  let fn = index;
  let sn = size - 1;
  let r = hash;
  const odd = (n) => n % 2 === 1;
  for (const p of path) {
    if (sn === 0) return null;
    if (odd(fn) || fn === sn) {
      r = await nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** The 72 bytes a tree head's signature covers (head: {tree_size, timestamp, root_hash}). */
export function headBytes(head) {
  const root = fromHex(head.root_hash);
  if (root.length !== 32) throw new Error("a root hash has 32 bytes");
  return concat([encoder.encode(HEAD_FORMAT), new Uint8Array([0]), uint(head.tree_size, 8),
    uint(head.timestamp, 8), root]);
}

/**
 * Whether `head.signature` is the Ed25519 signature of the head by `publicKeyHex`: true,
 * false, or null where this browser's Web Crypto has no Ed25519 (then nothing was checked).
 */
export async function verifyHeadSignature(publicKeyHex, head) {
  let key;
  try {
    key = await subtle().importKey("raw", fromHex(publicKeyHex), { name: "Ed25519" }, false,
      ["verify"]);
  } catch (err) {
    if (err && err.name === "NotSupportedError") return null;
    return false; // a key that is no Ed25519 key
  }
  return subtle().verify({ name: "Ed25519" }, key, fromHex(head.signature), headBytes(head));
}

function text(value) {
  return lp(value == null ? new Uint8Array(0) : encoder.encode(String(value)));
}

function raw(hex) {
  return lp(hex == null ? new Uint8Array(0) : fromHex(hex));
}

/** A v2 audit entry's entry hash (docs/fair-dice.md §The record (v2)), lowercase hex. */
export async function entryHashV2(matchId, roll) {
  const dice = roll.dice == null ? [0, 0] : roll.dice;
  const bytes = concat([
    text(RECORD_SPEC_V2), text(roll.prev_hash), text(matchId), text(roll.roll_id),
    uint(roll.seq, 4), uint(roll.nonce, 8), uint(roll.seat, 1),
    text(roll.kind), text(roll.state), text(roll.commitment),
    raw(roll.server_seed), raw(roll.roller_entropy), text(roll.roller_source),
    raw(roll.opponent_prev_link), raw(roll.opponent_entropy), text(roll.opponent_source),
    new Uint8Array(dice),
    text(roll.committed_at), text(roll.requested_at), text(roll.opponent_at),
    text(roll.revealed_at), text(roll.played_at), text(roll.voided_at),
  ]);
  return toHex(await sha256(bytes));
}

// The record's time of the change each leaf of a roll stands for (its `event`).
const EVENT_TIMES = { committed: "committed_at", requested: "requested_at",
  revealed: "revealed_at", played: "played_at", void: "voided_at" };
const RECORD_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})Z$/;

/**
 * The public log's spelling of a v2 record time (docs/fair-dice.md §The record (v2), Times in
 * the log): "YYYY-MM-DDTHH:MM:SS.ffffffZ" is "YYYY-MM-DDTHH:MM:SS.ffffff+00:00" in a leaf's
 * `at`, and "YYYY-MM-DDTHH:MM:SS+00:00" where ffffff is 000000; texts compared byte for byte,
 * nothing parsed or rounded. null for a value that is no record time as the spec writes it
 * (the leaf's `at` then matches nothing).
 */
export function leafTime(recordTime) {
  const parts = typeof recordTime === "string" ? RECORD_TIME.exec(recordTime) : null;
  if (!parts || Number.isNaN(Date.parse(recordTime))) return null;
  return parts[2] === "000000" ? `${parts[1]}+00:00` : `${parts[1]}.${parts[2]}+00:00`;
}

// What each change of a roll's life sets beside its state (docs/fair-dice.md §The record (v2),
// A roll's leaves): the roll as it stood after a change has the later changes' fields null.
const SETS = {
  committed: [],
  requested: ["roller_entropy", "roller_source", "requested_at"],
  revealed: ["server_seed", "opponent_entropy", "opponent_source", "dice", "opponent_at",
    "revealed_at"],
  played: ["played_at"],
  void: ["voided_at"],
};

/** The changes an audit entry went through, in the order of its life, read from its times. */
export function rollChanges(entry) {
  return Object.keys(EVENT_TIMES).filter((event) => (entry[EVENT_TIMES[event]] ?? null) !== null);
}

/** The audit entry as it stood right after its change `event` (one of rollChanges(entry)). */
export function entryAfter(entry, event) {
  const life = rollChanges(entry);
  const stood = { ...entry, state: event };
  for (const later of life.slice(life.indexOf(event) + 1)) {
    for (const key of SETS[later]) stood[key] = null;
  }
  return stood;
}

// The roll as the match showed it and as the audit document holds it must agree on these.
const SAME = ["seat", "nonce", "kind", "commitment", "server_seed", "roller_entropy",
  "opponent_prev_link", "opponent_entropy"];
// A leaf names its roll by these.
const NAMED = ["roll_id", "seq", "nonce", "seat", "commitment"];

/**
 * Check that a revealed v2 roll (`roll`, as the match showed it and this device checked it) is
 * in the public log: `proof` is the roll's proof (GET /api/audit/{match_id}/rolls/{roll_id}/proof:
 * {match_id, roll: its audit entry with `log`, its leaves and inclusion proofs, log: {head,
 * public_key}}) and `publicKey` the log's key from its fixed address (GET /api/log/public-key).
 * `proof.preceding`: the audit entries before the roll (back to the one that last revealed the
 * opponent's link, or the first; those after `since.seq` when asked with `?after=`), which
 * must chain into the roll by their hashes. `since` (optional): the tally of the entries this
 * device has checked (dicechain.js startTally/advanceTally): the first entry must follow its
 * newest, by seq and by prev_hash, so that a server that leaves entries out or adds some
 * is caught.
 * Returns {problems, checked, treeSize, records (preceding and the roll's entry, for the link's
 * k steps)}: problem codes log_missing (no entry for the roll),
 * log_mismatch (the log's roll differs from the one shown: other inputs, dice or a leaf that
 * names another roll or state; leaves that are not the roll's changes, one each in the order
 * of its life, each with the roll's entry hash as it stood after it; or a preceding entry that does not chain into it or does not
 * follow `since`), log_time (a leaf's `at` is not the record's time of its change, leafTime),
 * log_proof (an inclusion proof does not lead to the head's
 * root), log_signature (the head's signature does not verify, or another key signed it);
 * checked codes log and signature, or signature_unchecked where the browser has no Ed25519.
 * A proof the server marked `covered: false` (the head not yet signed over the roll's newest
 * leaf) is the caller's to fetch again later, not to check.
 */
export async function checkInLog(matchId, roll, proof, publicKey, since) {
  const problems = [];
  const checked = [];
  const head = proof && proof.log && proof.log.head;
  const logged = proof && proof.roll && proof.roll.roll_id === roll.roll_id ? proof.roll : null;
  if (!head || !logged || !logged.log || logged.log.length === 0) {
    return { problems: ["log_missing"], checked, treeSize: null };
  }
  const differs = proof.match_id !== matchId
    || SAME.some((k) => (roll[k] ?? null) !== (logged[k] ?? null))
    || String(roll.dice) !== String(logged.dice);
  const root = fromHex(head.root_hash);
  let proofs = true;
  let named = true;
  let timed = true;
  for (const entry of logged.log) {
    const leaf = encoder.encode(entry.leaf);
    const fields = JSON.parse(entry.leaf);
    if (fields.match_id !== matchId || NAMED.some((k) => fields[k] !== logged[k])) named = false;
    // Each leaf's `at` is the record's time of its change: otherwise the log and the record
    // show two times of one change (the entry hash covers the record's times, not the leaf's).
    const key = Object.hasOwn(EVENT_TIMES, fields.event) ? EVENT_TIMES[fields.event] : null;
    const expected = key ? leafTime(logged[key]) : null;
    if (expected === null || fields.at !== expected) timed = false;
    const path = entry.inclusion_path.map(fromHex);
    const reached = await rootFromInclusion(entry.index, head.tree_size, await leafHash(leaf), path);
    if (!reached || !equal(reached, root)) proofs = false;
  }
  const last = JSON.parse(logged.log[logged.log.length - 1].leaf);
  const hashed = await entryHashV2(matchId, logged);
  // One leaf per change, in the order of the roll's life, each holding the roll's entry hash
  // as it stood after that change: the commitment's fixes the link due, the request's the
  // roller's entropy, for everyone who reads the log.
  const life = rollChanges(logged);
  const events = logged.log.map((entry) => JSON.parse(entry.leaf).event);
  let stages = events.length === life.length && events.every((event, i) => event === life[i]);
  for (const entry of stages ? logged.log : []) {
    const fields = JSON.parse(entry.leaf);
    if (fields.entry_hash !== await entryHashV2(matchId, entryAfter(logged, fields.event))) {
      stages = false;
    }
  }
  if (differs || !named || !stages || last.event !== logged.state || last.entry_hash !== hashed
      || logged.entry_hash !== hashed) {
    problems.push("log_mismatch");
  }
  if (!timed) problems.push("log_time");
  if (!proofs) problems.push("log_proof");
  // The entries before the roll that its link's k steps count (back to the opponent's last
  // revealed link, void ones included): each must hash to its entry_hash and chain, by
  // prev_hash and seq without a gap, into the logged roll, whose entry hash the log proves.
  const preceding = Array.isArray(proof.preceding) ? proof.preceding : [];
  let next = logged;
  for (let i = preceding.length - 1; i >= 0; i--) {
    const entry = preceding[i];
    if (entry.seq !== next.seq - 1 || entry.entry_hash !== next.prev_hash
        || (await entryHashV2(matchId, entry)) !== entry.entry_hash) {
      problems.push("log_mismatch");
      break;
    }
    next = entry;
  }
  if (since && (next.seq !== since.seq + 1 || next.prev_hash !== since.hash)
      && !problems.includes("log_mismatch")) {
    problems.push("log_mismatch");
  }
  if (problems.length === 0) checked.push("log");
  const signed = proof.log.public_key !== publicKey ? false
    : await verifyHeadSignature(publicKey, head);
  if (signed === false) problems.push("log_signature");
  else checked.push(signed ? "signature" : "signature_unchecked");
  return { problems, checked, treeSize: head.tree_size, records: [...preceding, logged] };
}

/**
 * Why a match's v2 audit document (GET /api/audit/{match_id}) is not the record the public
 * log holds, as problem codes ([] when it is): a server could serve this device another record
 * than the one it serves everyone else, one in which this device's roll looks harmless. Its
 * entries must be numbered 0, 1, … and chained by prev_hash from the genesis, each hashing to
 * its entry_hash (docs/fair-dice.md §The record (v2)); the newest entry this device checked
 * through the rolls' proofs (`tally`, dicechain.js startTally: final, since a roll follows it)
 * must be in it unchanged; and the last entry's last leaf must name that entry, its state and
 * its hash, with an inclusion proof to the document's head, signed with the log's key
 * (`publicKey`, from its fixed address). The last entry's hash covers every entry before it,
 * so that one leaf ties the whole document to the log that the witnesses and
 * `transparency.py --scan` watch. Codes: log_missing (no head, no entries, no leaf),
 * log_mismatch (the chain, the tally, the leaf, or an entry that cannot be read), log_proof,
 * log_signature (another key, or a signature that does not verify; unchecked where the browser
 * has no Ed25519).
 */
export async function recordProblems(matchId, doc, publicKey, tally) {
  const entries = doc && Array.isArray(doc.rolls) ? doc.rolls : [];
  const head = doc && doc.log && doc.log.head;
  const last = entries[entries.length - 1];
  const leaves = last && Array.isArray(last.log) ? last.log : [];
  const mark = leaves[leaves.length - 1];
  if (!head || !mark || doc.match_id !== matchId) return ["log_missing"];
  const problems = [];
  try {
    let prev = GENESIS;
    for (const [i, entry] of entries.entries()) {
      if (entry.seq !== i || entry.prev_hash !== prev
          || (await entryHashV2(matchId, entry)) !== entry.entry_hash) {
        throw new Error(`entry ${i} does not chain`);
      }
      prev = entry.entry_hash;
    }
    if (tally.seq >= entries.length
        || (tally.seq >= 0 && entries[tally.seq].entry_hash !== tally.hash)) {
      throw new Error("not the entries this device checked");
    }
    const fields = JSON.parse(mark.leaf);
    if (fields.match_id !== matchId || fields.roll_id !== last.roll_id || fields.seq !== last.seq
        || fields.event !== last.state || fields.entry_hash !== last.entry_hash) {
      throw new Error("the last leaf names another entry");
    }
    const reached = await rootFromInclusion(mark.index, head.tree_size,
      await leafHash(new TextEncoder().encode(mark.leaf)), mark.inclusion_path.map(fromHex));
    if (!reached || toHex(reached) !== head.root_hash) problems.push("log_proof");
  } catch {
    return ["log_mismatch"];
  }
  let signed = false;
  try {
    signed = doc.log.public_key === publicKey && await verifyHeadSignature(publicKey, head);
  } catch {
    // a signature that is no hex: not signed
  }
  if (signed === false) problems.push("log_signature");
  return problems;
}
