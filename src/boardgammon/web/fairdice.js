// Provably fair dice, checked on the player's own device with Web Crypto.
//
// The recipe is docs/fair-dice.md (boardgammon-dice-v1; v2 at the end of this file), the same
// as boardgammon.dice.verify:
//   commitment = SHA-256(server seed), lowercase hex
//   prefix     = lp("boardgammon-dice-v1") + lp(match_id) + lp(roll_id) + nonce (8 bytes BE)
//                + lp(client entropy)            where lp(x) = len(x) as 4 bytes BE, then x
//   block i    = HMAC-SHA256(key = the 32 raw seed bytes, prefix + i as 4 bytes BE)
//   dice       = the first two bytes < 252 of blocks 0, 1, …, each as byte % 6 + 1.

export const DICE_SPEC = "boardgammon-dice-v1";
export const SEED_BYTES = 32;
export const ENTROPY_BYTES = 16;
const ACCEPT_BELOW = 252; // 6 × 42: each face gets exactly 42 byte values
const MAX_BLOCKS = 64; // P(64 blocks with < 2 accepted bytes) is far below 2^-1000

const encoder = new TextEncoder();

/** Lowercase hex of a byte array. */
export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Bytes of a hex string; throws on odd length or a non-hex character. */
export function fromHex(hex) {
  if (typeof hex !== "string" || hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) {
    throw new Error(`not a hex string: ${JSON.stringify(hex)}`);
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Byte helpers shared with dicelog.js (the spec's encodings). */
export function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function uint(value, width) {
  const out = new Uint8Array(width);
  let v = BigInt(value);
  for (let i = width - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

export function lp(bytes) {
  return concat([uint(bytes.length, 4), bytes]);
}

function subtle() {
  // Web Crypto exists only in secure contexts (https, localhost, 127.0.0.1).
  if (!globalThis.crypto || !globalThis.crypto.subtle) {
    throw new Error("Web Crypto is unavailable here (the page is not a secure context)");
  }
  return globalThis.crypto.subtle;
}

/** 16 fresh bytes from the device's CSPRNG, as 32 hex characters (the roll action's entropy). */
export function newEntropy() {
  return toHex(globalThis.crypto.getRandomValues(new Uint8Array(ENTROPY_BYTES)));
}

/**
 * The entropy to send for a roll: the one already stored for it in `known` (roll_id → {entropy,
 * …}, kept in localStorage per match) if a request was ever made, else 16 fresh bytes. Every
 * retry of a roll (a "busy" answer, a lost connection, a reload) sends the same entropy, so a
 * server that refuses a request and waits for the next cannot choose between two outcomes.
 */
export function rollEntropy(known, rollId) {
  const stored = known[rollId];
  return stored && typeof stored.entropy === "string" ? stored.entropy : newEntropy();
}

/** SHA-256 of the raw seed bytes (given as 64 hex characters), lowercase hex. */
export async function commitmentOf(seedHex) {
  const seed = fromHex(seedHex);
  if (seed.length !== SEED_BYTES) throw new Error(`a server seed has ${SEED_BYTES} bytes`);
  return toHex(new Uint8Array(await subtle().digest("SHA-256", seed)));
}

/**
 * The dice [first, second] (1–6 each) that follow from a seed and the roller's entropy.
 * seedHex: 64 hex chars; entropyHex: 32 hex chars; nonce: integer 0 ≤ nonce < 2^64.
 */
export async function deriveDice(seedHex, matchId, rollId, nonce, entropyHex) {
  const seed = fromHex(seedHex);
  const entropy = fromHex(entropyHex);
  if (seed.length !== SEED_BYTES) throw new Error(`a server seed has ${SEED_BYTES} bytes`);
  if (entropy.length !== ENTROPY_BYTES) throw new Error(`client entropy has ${ENTROPY_BYTES} bytes`);
  if (!Number.isSafeInteger(nonce) || nonce < 0) throw new Error(`bad nonce ${nonce}`);
  const prefix = concat([
    lp(encoder.encode(DICE_SPEC)),
    lp(encoder.encode(matchId)),
    lp(encoder.encode(rollId)),
    uint(nonce, 8),
    lp(entropy),
  ]);
  return diceFromBlocks(seed, prefix);
}

/** The first two accepted bytes of HMAC-SHA256(seed, prefix + i as 4 bytes BE), i = 0, 1, …,
 * as dice (the rule of v1 and v2 alike). */
async function diceFromBlocks(seed, prefix) {
  const key = await subtle().importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const dice = [];
  for (let index = 0; index < MAX_BLOCKS; index++) {
    const block = new Uint8Array(
      await subtle().sign("HMAC", key, concat([prefix, uint(index, 4)])),
    );
    for (const byte of block) {
      if (byte < ACCEPT_BELOW) {
        dice.push((byte % 6) + 1);
        if (dice.length === 2) return dice;
      }
    }
  }
  throw new Error(`${MAX_BLOCKS} blocks gave fewer than two accepted bytes`);
}

/**
 * Check one revealed roll of `state.rolls` against the recipe and against what this device
 * knows about it beforehand.
 *
 * roll: {roll_id, seat, nonce, commitment, server_seed, client_entropy, entropy_source, dice}
 * known: what this device saw before the reveal, or null: {nonce, commitment} as promised at the
 *   start of the turn, plus `entropy` (hex) when this device sent the entropy itself.
 * Returns {ok, problems: [codes], checked: [codes]}. Problem codes: commitment_mismatch,
 * dice_mismatch, nonce_changed, commitment_changed, entropy_not_ours, malformed.
 * Checked codes name what was confirmed: commitment, dice, promise, entropy.
 */
export async function checkRoll(matchId, roll, known) {
  const problems = [];
  const checked = [];
  try {
    if ((await commitmentOf(roll.server_seed)) === roll.commitment) checked.push("commitment");
    else problems.push("commitment_mismatch");
    const dice = await deriveDice(
      roll.server_seed, matchId, roll.roll_id, roll.nonce, roll.client_entropy,
    );
    if (dice[0] === roll.dice[0] && dice[1] === roll.dice[1]) checked.push("dice");
    else problems.push("dice_mismatch");
  } catch (err) {
    return { ok: false, problems: ["malformed"], checked, detail: String(err.message || err) };
  }
  checkKnown(known, roll, roll.client_entropy, problems, checked);
  return { ok: problems.length === 0, problems, checked };
}

/** What this device saw before the reveal (`known`: the promised nonce and commitment, the
 * entropy it sent) against the revealed roll; adds to `problems` and `checked`. A `known`
 * without the promise (neither nonce nor commitment: only what the device's chain kept for
 * the roll) has no promise to check. */
function checkKnown(known, roll, rollerEntropy, problems, checked) {
  if (!known) return;
  if (known.nonce !== undefined || known.commitment !== undefined) {
    if (known.nonce !== roll.nonce) problems.push("nonce_changed");
    if (known.commitment !== roll.commitment) problems.push("commitment_changed");
    if (known.nonce === roll.nonce && known.commitment === roll.commitment) {
      checked.push("promise");
    }
  }
  if (known.entropy !== undefined) {
    if (known.entropy.toLowerCase() === String(rollerEntropy).toLowerCase()) {
      checked.push("entropy");
    } else {
      problems.push("entropy_not_ours");
    }
  }
}

// Version 2 (docs/fair-dice.md §Version 2): the opponent's hash-chain link as a third input.
//   prefix = lp("boardgammon-dice-v2") + lp(match_id) + lp(roll_id) + nonce (8 bytes BE)
//            + lp(kind) + lp(roller entropy) + lp(opponent link, or empty)
//   link check: SHA-256 applied k times to the link = opponent_prev_link (the anchor, or the
//   opponent's last revealed link), k = 1 + the rolls with that opponent since its last
//   revealed link, each of which used up one link whatever became of it

export const DICE_SPEC_V2 = "boardgammon-dice-v2";
export const LINK_BYTES = 32;

/**
 * The v2 dice [first, second]. kind: "opening" | "normal"; rollerHex: 32 hex chars;
 * opponentHex: 64 hex chars, or null when the opponent's link was not revealed.
 */
export async function deriveDiceV2(seedHex, matchId, rollId, nonce, kind, rollerHex, opponentHex) {
  const seed = fromHex(seedHex);
  const roller = fromHex(rollerHex);
  const opponent = opponentHex == null ? new Uint8Array(0) : fromHex(opponentHex);
  if (seed.length !== SEED_BYTES) throw new Error(`a server seed has ${SEED_BYTES} bytes`);
  if (roller.length !== ENTROPY_BYTES) throw new Error(`roller entropy has ${ENTROPY_BYTES} bytes`);
  if (opponentHex != null && opponent.length !== LINK_BYTES) {
    throw new Error(`an opponent link has ${LINK_BYTES} bytes`);
  }
  if (kind !== "opening" && kind !== "normal") throw new Error(`bad kind ${kind}`);
  if (!Number.isSafeInteger(nonce) || nonce < 0) throw new Error(`bad nonce ${nonce}`);
  const prefix = concat([
    lp(encoder.encode(DICE_SPEC_V2)),
    lp(encoder.encode(matchId)),
    lp(encoder.encode(rollId)),
    uint(nonce, 8),
    lp(encoder.encode(kind)),
    lp(roller),
    lp(opponent),
  ]);
  return diceFromBlocks(seed, prefix);
}

/** SHA-256 of raw bytes (hex in, hex out): a roller's entropy as `roller_entropy_sha256`
 * shows it. */
export async function sha256Hex(hex) {
  return toHex(new Uint8Array(await subtle().digest("SHA-256", fromHex(hex))));
}

/** SHA-256 of a link's raw bytes (hex in, hex out): what the link before it must be. */
export async function linkBefore(linkHex) {
  return sha256Hex(linkHex);
}

/** SHA-256 applied `steps` times (hex in, hex out): from x_(i+steps) back to x_i. */
export async function linkBeforeSteps(linkHex, steps) {
  let link = linkHex;
  for (let i = 0; i < steps; i++) link = await linkBefore(link);
  return link;
}

/**
 * A fresh hash chain for this device's part in a match: {anchor, links} with links[0] the
 * anchor x_0 and links[i] = x_i, SHA-256(x_i) = x_(i-1); x_length drawn from the CSPRNG.
 * Keep it (localStorage, per match) before registering the anchor.
 */
export async function newChain(length) {
  const chain = [toHex(globalThis.crypto.getRandomValues(new Uint8Array(LINK_BYTES)))];
  for (let i = 0; i < length; i++) chain.push(await linkBefore(chain[chain.length - 1]));
  chain.reverse();
  return { anchor: chain[0], links: chain };
}

/**
 * Check one revealed v2 roll (an audit entry) against the recipe and what this device knows.
 *
 * known: null or {nonce, commitment} as promised, plus `entropy` when this device rolled, plus
 *   `link` and `link_sent_at` (this device's clock, ms) when this device sent its link for the
 *   roll, with `roller_entropy_sha256` (lowercase hex: the roller's input as the server showed
 *   it fixed before the link left), and `link_reused: true` when the server asked for a link
 *   this device had sent already, `roller_changed: true` when it asked again for this roll's
 *   link with another roller hash, `roller_unpinned: true` when it asked without one (in each
 *   of these three DeviceChain.answer did not send the link).
 * steps: k, the number of SHA-256 steps from the opponent's link to opponent_prev_link (1
 *   unless earlier rolls used up links since: checkRollV2InRecord counts them).
 * Problem codes: v1's, and link_mismatch (the opponent's link does not hash to
 * opponent_prev_link in `steps` steps), link_not_ours (our link is not the one used),
 * link_dropped (our link was sent, `known.link_sent_at` ms, and the roll went without it,
 * revealed at `roll.revealed_at` (the audit entry's) or later), link_reused (the server asked
 * again for a link it already had), roller_entropy_changed (the SHA-256 of the revealed
 * `roller_entropy` is not `known.roller_entropy_sha256`, or the roll has none, or
 * `known.roller_changed`: the server and the roller could have chosen the dice once our link
 * was known), roller_unpinned (`known.roller_unpinned`: the server asked for our link without
 * fixing the roller's input; the roll went without it). Checked codes add `link`, and
 * `roller` (the revealed roller entropy is the one fixed before our link left). `warnings` (the
 * roll stays ok, shown ⚠): link_late (our link left after the roll's `revealed_at`: this
 * device was late).
 */
export async function checkRollV2(matchId, roll, known, steps = 1) {
  const problems = [];
  const checked = [];
  try {
    if ((await commitmentOf(roll.server_seed)) === roll.commitment) checked.push("commitment");
    else problems.push("commitment_mismatch");
    if (roll.opponent_entropy != null) {
      if ((await linkBeforeSteps(roll.opponent_entropy, steps)) === roll.opponent_prev_link) {
        checked.push("link");
      } else {
        problems.push("link_mismatch");
      }
    }
    const dice = await deriveDiceV2(
      roll.server_seed, matchId, roll.roll_id, roll.nonce, roll.kind, roll.roller_entropy,
      roll.opponent_entropy,
    );
    if (dice[0] === roll.dice[0] && dice[1] === roll.dice[1]) checked.push("dice");
    else problems.push("dice_mismatch");
  } catch (err) {
    const problems = ["malformed", ...await rollerProblems(roll, known, [])];
    return { ok: false, problems, checked, detail: String(err.message || err) };
  }
  checkKnown(known, roll, roll.roller_entropy, problems, checked);
  const warnings = [];
  if (known && known.link !== undefined) {
    if (roll.opponent_entropy == null) {
      // Our link was sent and the roll went without it. Late (⚠) only where the record says
      // the roll was revealed before the link left this device: the server cannot have held
      // it then. Otherwise it may have held it and picked the outcome without it (✗).
      // An honest server gives the same ✗ for a link slower than its wait
      // (BOARDGAMMON_LINK_WAIT, 3 s by default): the text says so. No separate code (say
      // link_slow, "left in the wait's last half second") for it: the only times here are
      // link_sent_at (this device's clock) and revealed_at, which the server writes, so a
      // server that held a link that came in time could write a revealed_at just after it
      // left and have its ✗ read as "a slow connection". Neither requested_at nor the wait
      // reaches this check (docs/fair-dice.md §Open, the slow-connection item).
      const revealed = Date.parse(roll.revealed_at);
      const late = Number.isFinite(known.link_sent_at) && Number.isFinite(revealed)
        && known.link_sent_at >= revealed;
      if (late) warnings.push("link_late");
      else problems.push("link_dropped");
    } else if (known.link.toLowerCase() !== String(roll.opponent_entropy)) {
      problems.push("link_not_ours");
    }
  }
  if (known && known.link_reused) problems.push("link_reused");
  problems.push(...await rollerProblems(roll, known, checked));
  return { ok: problems.length === 0, problems, checked, warnings };
}

/** The roller's input against the hash of it this device saw before its link left
 * (checkRollV2's roller_entropy_changed, roller_unpinned; pushes "roller" to `checked`). */
async function rollerProblems(roll, known, checked) {
  const problems = [];
  if (!known) return problems;
  if (typeof known.roller_entropy_sha256 === "string") {
    let shown = null;
    try {
      shown = toHex(new Uint8Array(await subtle().digest("SHA-256", fromHex(roll.roller_entropy))));
    } catch {
      // No roller entropy (null), or none that can be read: not the one fixed.
    }
    if (shown !== null && shown === known.roller_entropy_sha256.toLowerCase()) {
      checked.push("roller");
    } else {
      problems.push("roller_entropy_changed");
    }
  }
  if (known.roller_changed && !problems.includes("roller_entropy_changed")) {
    problems.push("roller_entropy_changed");
  }
  if (known.roller_unpinned) problems.push("roller_unpinned");
  return problems;
}
