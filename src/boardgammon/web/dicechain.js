// This device's part in v2 dice (docs/fair-dice.md §Version 2): its hash chain for a match,
// the anchor registered at the match's start, the next link revealed when the opponent asks to
// roll (no tap needed: the match page calls `answer` with every state), and the checks of a
// revealed v2 roll that need the record around it.

import { actionId, request } from "./api.js";
import { checkRollV2, linkBefore, newChain } from "./fairdice.js";

// One link per roll where this player is the opponent; a long match uses a few hundred.
export const CHAIN_LENGTH = 1024;

/** The chain [x_0 … x_length] that ends in `seed` (x_length), each link SHA-256 of the next. */
async function chainFrom(seed, length) {
  const links = [seed];
  for (let i = 0; i < length; i++) links.push(await linkBefore(links[links.length - 1]));
  return links.reverse();
}

export class DeviceChain {
  constructor(matchId) {
    this.matchId = matchId;
    this.storeKey = `bg.chain.${matchId}`;
    // {seed: x_N, length: N, registered: bool}: the chain's last link (the others follow from
    // it), kept before the anchor is sent so that a reload answers with the chain the server
    // holds; 64 hex characters per match, not the whole chain.
    this.stored = JSON.parse(localStorage.getItem(this.storeKey) || "null");
    this.links = null; // [x_0 … x_N] once computed
    this.ready = this.stored
      ? chainFrom(this.stored.seed, this.stored.length).then((links) => { this.links = links; })
      : Promise.resolve();
    this.sent = new Set(); // roll IDs whose link was sent by this page
    this.registering = null;
  }

  save() {
    localStorage.setItem(this.storeKey, JSON.stringify(this.stored));
  }

  post(action) {
    return request("POST", `/api/matches/${encodeURIComponent(this.matchId)}/actions`,
      { action_id: actionId(), ...action });
  }

  /** Register this device's anchor once (a v2 match, a seat of ours, not over). */
  async register(state) {
    if (state.dice_protocol !== "v2" || state.you === null || state.you === undefined) return;
    if (state.phase === "match_over" || this.registering) return;
    if (this.stored && this.stored.registered) return;
    this.registering = (async () => {
      await this.ready;
      if (!this.stored) {
        this.links = (await newChain(CHAIN_LENGTH)).links;
        this.stored = { seed: this.links[CHAIN_LENGTH], length: CHAIN_LENGTH, registered: false };
        this.save();
      }
      try {
        await this.post({ type: "anchor", anchor: this.links[0] });
        this.stored.registered = true;
      } catch (err) {
        // Too late (rolls were committed without it) or registered from another device of
        // ours: the match goes on, its rolls say "none" for this seat.
        this.stored.registered = err.code === "wrong_phase" || err.code === "anchor_registered";
      }
      this.save();
    })();
    try {
      await this.registering;
    } finally {
      this.registering = null;
    }
  }

  /** The link after `prev` in this device's chain (hex), or null if `prev` is not ours. */
  linkAfter(prev) {
    if (!this.links) return null;
    const at = this.links.indexOf(prev);
    return at >= 0 && at + 1 < this.links.length ? this.links[at + 1] : null;
  }

  /**
   * Reveal our next link when the opponent asked to roll (`pending_roll.state` "requested"
   * with our seat as the opponent). `known` (roll_id → what this device saw) records the link
   * sent, which the roll's check then confirms. Resolves to the server's answer or null.
   */
  answer(state, known) {
    const pending = state.pending_roll;
    if (!pending || pending.state !== "requested" || state.you === null
        || state.you === undefined || pending.seat === state.you) return null;
    if (this.sent.has(pending.roll_id)) return null;
    if (!this.links) { // still computing after a reload: answer once it is ready
      this.ready.then(() => this.links && this.answer(state, known));
      return null;
    }
    const link = this.linkAfter(pending.opponent_prev_link);
    if (!link) return null;
    this.sent.add(pending.roll_id);
    // A link already sent for another roll that did not use it (revealed without it, or
    // voided): the server has known it since, before this roll's seed was committed, so this
    // roll's check says so (link_reused). It is still sent: the match goes on.
    const earlier = Object.keys(known).find(
      (id) => id !== pending.roll_id && known[id] && known[id].link === link);
    known[pending.roll_id] = { ...(known[pending.roll_id] || {}), link,
      ...(earlier ? { link_sent_for: earlier } : {}) };
    return this.post({ type: "contribute", roll_id: pending.roll_id, link }).catch(() => null);
  }
}

/**
 * Check a revealed v2 roll: checkRollV2's recipe (commitment, dice, the opponent's link
 * against the link fixed for it), and that the link fixed for it continues the opponent's
 * chain: the link revealed last by that seat, or our own anchor when we are that seat and have
 * revealed nothing yet (`previous`: the v2 rolls before it in the record; `chain`: this
 * device's DeviceChain; `you`: our seat). Problem code: link_chain_broken.
 */
export async function checkRollV2InRecord(matchId, roll, known, previous, chain, you) {
  const verdict = await checkRollV2(matchId, roll, known);
  const opponent = 1 - roll.seat;
  const before = previous.filter((r) => r.seat === roll.seat && r.opponent_entropy);
  const expected = before.length ? before[before.length - 1].opponent_entropy
    : (opponent === you && chain.links ? chain.links[0] : undefined);
  if (roll.opponent_prev_link && expected !== undefined && expected !== roll.opponent_prev_link) {
    verdict.problems.push("link_chain_broken");
    verdict.ok = false;
  } else if (roll.opponent_entropy
      && (await linkBefore(roll.opponent_entropy)) === roll.opponent_prev_link) {
    verdict.checked.push("chain");
  }
  return verdict;
}
