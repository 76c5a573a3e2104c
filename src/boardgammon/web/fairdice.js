// Provably fair dice, checked on the player's own device with Web Crypto.
//
// The recipe is docs/fair-dice.md (boardgammon-dice-v1), the same as boardgammon.dice.verify:
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

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function uint(value, width) {
  const out = new Uint8Array(width);
  let v = BigInt(value);
  for (let i = width - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function lp(bytes) {
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
  if (known) {
    if (known.nonce !== roll.nonce) problems.push("nonce_changed");
    if (known.commitment !== roll.commitment) problems.push("commitment_changed");
    if (known.nonce === roll.nonce && known.commitment === roll.commitment) checked.push("promise");
    if (known.entropy !== undefined) {
      if (known.entropy.toLowerCase() === String(roll.client_entropy).toLowerCase()) {
        checked.push("entropy");
      } else {
        problems.push("entropy_not_ours");
      }
    }
  }
  return { ok: problems.length === 0, problems, checked };
}
