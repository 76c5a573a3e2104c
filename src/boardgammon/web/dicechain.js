// This device's part in v2 dice (docs/fair-dice.md §Version 2): its hash chain for a match,
// the anchor registered at the match's start, the link due revealed when the opponent asks to
// roll (no tap needed: the match page calls `answer` with every state), never the same link
// for two rolls, and the checks of a revealed v2 roll that need the record around it.

import { actionId, request } from "./api.js";
import { GENESIS, leafHash, rootFromInclusion, verifyHeadSignature } from "./dicelog.js";
import {
  checkRollV2, fromHex, linkBefore, linkBeforeSteps, newChain, toHex,
} from "./fairdice.js";
import { readStored, saveStored } from "./store.js";

// One link per roll where this player is the opponent; a long match uses a few hundred.
export const CHAIN_LENGTH = 1024;
// A link whose post failed on its way is sent again this often, this far apart (the server's
// wait for it, BOARDGAMMON_LINK_WAIT, is 3 s by default).
const LINK_TRIES = 3;
const LINK_RETRY_MS = 400;
// How long after this device's anchor left (its own clock, `anchor_sent_at`: the departure of
// the attempt whose answer proves the server received it) the server may still roll without
// it (`none` for our seat) and be honest: the anchor's flight (a slow connection's
// retransmits, a busy server's queue) and the difference between this device's clock and the
// server's, whose hashed `requested_at` it is compared with. An honest server registers an
// anchor when it arrives, and every roll requested after that takes the chain; its `none`
// rolls are those requested before (a late anchor). The time rule (checkRollV2InRecord:
// anchor_silenced) stands only on evidence that the server had the anchor: a 409
// anchor_registered (with no other chain the roll takes), or a 200 whose answer took longer
// than this by the device's own clock (`anchor_answered_at - anchor_sent_at`: the server held
// it back, so no clock difference enters). A 5xx or no answer proves nothing (an honest server
// may never have seen the anchor) and a quick 200 leaves the rolls to the log's order
// (chain_skipped) alone.
export const ANCHOR_FLIGHT_MS = 30_000;

/** The chain's store under `key` (store.js: this page's unsaved copy first), or null when
 * absent, corrupt (not JSON, no 64-hex seed, a length that is no chain's) or dropped (only a
 * finished match's: its rolls then show only the checks that need no record of this device). */
function readChain(key) {
  const stored = readStored(key);
  const ok = stored && typeof stored === "object" && typeof stored.seed === "string"
    && /^[0-9a-f]{64}$/i.test(stored.seed) && Number.isSafeInteger(stored.length)
    && stored.length > 0 && stored.length <= 4 * CHAIN_LENGTH;
  return ok ? stored : null;
}

/** `old` (the chain's store as read afresh: another page of the match, a second tab, may have
 * written it since this page read it) and `mine` (this page's copy of the same chain) as one,
 * so that no page's save drops what another kept: `sent`, `rollers` and `sent_at` are united
 * (a roll's first entry stays: the index and roller hash its link first left under, the
 * earliest time it left), `highest` is the larger, `registered`, `accepted` and
 * `other_chain` once true stay true, `refused_at` is the earlier, and the anchor's
 * `anchor_sent_at` / `anchor_answered_at` are the earliest pair that proves the server had it
 * (both set), else the earliest `anchor_sent_at` alone (an older page's store). The rest is
 * `mine`'s where it has it (the log checks' results). */
export function mergeChains(old, mine) {
  const out = { ...old, ...mine };
  const finite = (...values) => values.filter((v) => Number.isFinite(v));
  out.sent = { ...(mine.sent || {}), ...(old.sent || {}) };
  out.rollers = { ...(mine.rollers || {}), ...(old.rollers || {}) };
  const times = { ...(mine.sent_at || {}) };
  for (const [id, at] of Object.entries(old.sent_at || {})) {
    if (Number.isFinite(at) && !(times[id] <= at)) times[id] = at;
  }
  out.sent_at = times;
  const highest = finite(old.highest, mine.highest);
  if (highest.length) out.highest = Math.max(...highest);
  for (const flag of ["registered", "accepted", "other_chain"]) {
    if (old[flag] === true || mine[flag] === true) out[flag] = true;
  }
  const refused = finite(old.refused_at, mine.refused_at);
  if (refused.length) out.refused_at = Math.min(...refused);
  const sends = [old, mine].filter((s) => Number.isFinite(s.anchor_sent_at));
  const proven = sends.filter((s) => Number.isFinite(s.anchor_answered_at));
  const first = (proven.length ? proven : sends)
    .reduce((a, b) => (b.anchor_sent_at < a.anchor_sent_at ? b : a), { anchor_sent_at: Infinity });
  if (Number.isFinite(first.anchor_sent_at)) {
    out.anchor_sent_at = first.anchor_sent_at;
    if (Number.isFinite(first.anchor_answered_at)) {
      out.anchor_answered_at = first.anchor_answered_at;
    } else {
      delete out.anchor_answered_at;
    }
  }
  return out;
}

/** The chain [x_0 … x_length] that ends in `seed` (x_length), each link SHA-256 of the next. */
async function chainFrom(seed, length) {
  const links = [seed];
  for (let i = 0; i < length; i++) links.push(await linkBefore(links[links.length - 1]));
  return links.reverse();
}

/** The match's anchor leaves with their proofs (GET /api/audit/{match_id}/anchors) and the
 * log's key (GET /api/log/public-key), or null when either cannot be read (our own failure,
 * never the server's word: the caller asks again later). */
async function readAnchorProofs(matchId) {
  try {
    const proofs = await request("GET", `/api/audit/${encodeURIComponent(matchId)}/anchors`);
    const publicKey = (await request("GET", "/api/log/public-key")).public_key;
    return { proofs, publicKey };
  } catch {
    return null;
  }
}

export class DeviceChain {
  constructor(matchId) {
    this.matchId = matchId;
    this.storeKey = `bg.chain.${matchId}`;
    // {seed: x_N, length: N, registered: bool, accepted: bool, highest: i, sent: {roll_id: i},
    // rollers: {roll_id: hex}, refused_at: ms, anchor_log, anchor_index}:
    // the chain's last link (the others follow from it), kept before the anchor is sent so
    // that a reload answers with the chain the server holds; 64 hex characters per match, not
    // the whole chain. `accepted`: the server answered the anchor with 200. `anchor_log`:
    // what checkAnchorInLog found for it ("ok" or a problem code; absent: not checked yet);
    // `anchor_index`: the place of its leaf in the log (absent: not found), which tells the
    // rolls requested before it (a late anchor: they take no link) from those after.
    // `highest`: the highest index of a link this device ever sent, `sent`: the index sent
    // for each roll; both written before the link leaves, so no reload sends a link twice.
    // `rollers`: the roller's entropy hash (roller_entropy_sha256) each link was sent under,
    // kept before it leaves, so that no tab or reload sends it under another (answer).
    // `sent_at`: when the link sent for each roll first left (this device's clock, ms), kept
    // with `sent` (absent in a store written before it: the link's time is then `known`'s).
    // save() merges this copy over the store as read afresh (mergeChains): a second tab's
    // `sent`, `highest` and anchor times are never dropped by this one's stale copy.
    // `refused_at`: when an anchor the server refused (wrong_phase) left.
    // `other_chain`: the server answered anchor_registered (another device's chain, it
    // says); `seat_log`, `seat_anchor`: what the log shows for the seat then (checkSeat).
    // `anchor_sent_at`: when the attempt whose answer proves the server received the anchor
    // (200, or 409 anchor_registered) left (this device's clock, ms, taken just before that
    // POST; a 5xx or a failed connection sets nothing), and `anchor_answered_at`: when that
    // answer came back. Kept once, across reloads. checkRollV2InRecord flags (anchor_silenced)
    // a roll where we are the opponent that says `none` and was requested more than
    // ANCHOR_FLIGHT_MS after `anchor_sent_at`, after a 409 anchor_registered, or after a 200
    // that took more than ANCHOR_FLIGHT_MS to come back. A store written before
    // `anchor_answered_at` existed has `anchor_sent_at` alone (the first send, whatever its
    // answer): it proves nothing and flags nothing.
    this.stored = readChain(this.storeKey);
    this.links = null; // [x_0 … x_N] once computed
    this.ready = this.stored
      ? chainFrom(this.stored.seed, this.stored.length).then((links) => { this.links = links; })
      : Promise.resolve();
    this.sent = new Set(); // roll IDs whose link was sent by this page
    this.lost = new Set(); // of those, the ones whose every try failed on its way (send)
    this.registering = null;
    this.anchorCheck = null; // this page's one look in the log for our anchor (a promise)
    this.seatCheck = null; // a look in the log for the seat's chain after anchor_registered
  }

  /** Never throws: a full storage drops old matches' stores, else the chain is kept in this
   * page's memory (store.js), which every read of the store here sees first. Merged over the
   * store as read now (mergeChains): another page of the match on this device (a second tab)
   * may have sent links or had its anchor answered since this page read it, and this page's
   * copy must not drop that. */
  save() {
    const fresh = readChain(this.storeKey);
    if (fresh && this.stored && fresh.seed === this.stored.seed) {
      this.stored = mergeChains(fresh, this.stored);
    }
    saveStored(this.storeKey, this.stored);
  }

  /** Whether this device keeps a chain for the match (this page's copy, or one another page
   * of the match made since): made only for a v2 match, so evidence that the match is v2. */
  held() {
    return this.stored !== null || readChain(this.storeKey) !== null;
  }

  post(action) {
    return request("POST", `/api/matches/${encodeURIComponent(this.matchId)}/actions`,
      { action_id: actionId(), ...action });
  }

  /** Register this device's anchor once (a v2 match, a seat of ours, not over). `v2`: the
   * match page holds the match to v2 (it saw evidence of it before: match.js noteProtocol),
   * whatever `state.dice_protocol` says now; a chain store of the match counts as such too,
   * so that a state relabelled v1 does not turn the anchor's checks off. */
  async register(state, v2 = false) {
    const held = state.dice_protocol === "v2" || v2 || this.stored !== null;
    if (!held || state.you === null || state.you === undefined) return;
    if (this.stored && this.stored.accepted && this.stored.anchor_log !== "ok") {
      await this.checkAnchor(state.you);
    }
    if (this.stored && this.stored.other_chain && this.stored.seat_log === undefined) {
      await this.checkSeat(state.you);
    }
    if (state.phase === "match_over" || this.registering) return;
    if (this.stored && this.stored.registered) return;
    this.registering = (async () => {
      await this.ready;
      // Another page of the match on this device may have made the chain since this one
      // loaded: one chain per match and device.
      const other = this.stored ? null : readChain(this.storeKey);
      if (other) {
        this.stored = other;
        this.links = await chainFrom(other.seed, other.length);
        if (other.registered) return;
      } else if (!this.stored) {
        this.links = (await newChain(CHAIN_LENGTH)).links;
        this.stored = { seed: this.links[CHAIN_LENGTH], length: CHAIN_LENGTH, registered: false };
        this.save();
      }
      // What another page of the match on this device did with this chain since this one
      // loaded (sent its anchor, or had it taken) is read afresh.
      const fresh = readChain(this.storeKey);
      if (fresh && fresh.seed === this.stored.seed) {
        this.stored = fresh;
        if (fresh.registered) return;
      }
      // This attempt's departure; kept (`anchor_sent_at`) only if its answer proves the
      // server received the anchor, with the answer's arrival (`anchor_answered_at`).
      const leaving = Date.now();
      const received = () => {
        if (Number.isFinite(this.stored.anchor_answered_at)) return; // the first proof stays
        this.stored.anchor_sent_at = leaving; // replaces an old store's first send
        this.stored.anchor_answered_at = Date.now();
      };
      try {
        await this.post({ type: "anchor", anchor: this.links[0] });
        this.stored.registered = true;
        // The server took this chain: every roll where we are the opponent requested after
        // its leaf in the log fixes a link of it (a late one too: the server commits again
        // the roll it missed), which checkRollV2InRecord holds it to.
        this.stored.accepted = true;
        received();
      } catch (err) {
        // Refused, or registered from another device of ours (one chain per seat and match,
        // whose links the rolls then take): not sent again. Any other failure (5xx, no
        // connection) is tried again with the next state and proves nothing: the server may
        // never have had the anchor, and no `none` roll is flagged for it (anchor_silenced).
        this.stored.registered = err.code === "wrong_phase" || err.code === "anchor_registered";
        // The server had it and says another chain holds the seat: a `none` roll requested
        // more than ANCHOR_FLIGHT_MS after this attempt left is flagged (anchor_silenced).
        if (err.code === "anchor_registered") received();
        // Refused: when it left, so that checkRollV2InRecord can flag the rolls requested
        // after it (anchor_refused).
        if (err.code === "wrong_phase") this.stored.refused_at = leaving;
        // Another device's chain, the server says: the log shows which (checkSeat).
        if (err.code === "anchor_registered") this.stored.other_chain = true;
      }
      this.save();
    })();
    try {
      await this.registering;
    } finally {
      this.registering = null;
    }
    if (this.stored && this.stored.accepted) await this.checkAnchor(state.you);
    if (this.stored && this.stored.other_chain) await this.checkSeat(state.you);
  }

  /**
   * After anchor_registered (another device of this player registered the seat's chain
   * first, the server says), read the public log's anchors once
   * (GET /api/audit/{match_id}/anchors) for the seat's first proven leaf, whatever its anchor,
   * and keep what it says: `seat_log` ("ok" or the problem code: anchor_unlogged, no leaf of
   * the seat, so the answer had no ground; log_signature) and `seat_anchor` (that leaf's
   * anchor, which the record's first link of the seat must be). A read that fails keeps
   * nothing and is asked again with the next state. Resolves to true once the log was read.
   */
  checkSeat(seat) {
    if (this.stored.seat_log !== undefined) return Promise.resolve(true);
    this.seatCheck ??= (async () => {
      const read = await readAnchorProofs(this.matchId);
      if (!read) {
        this.seatCheck = null;
        return false;
      }
      const { proofs, publicKey } = read;
      let found;
      try {
        found = await firstAnchorInLog(this.matchId, seat, null, proofs, publicKey);
      } catch {
        found = { status: "anchor_unlogged", anchor: null };
      }
      this.stored.seat_log = found.status;
      if (found.anchor !== null) this.stored.seat_anchor = found.anchor;
      this.save();
      this.seatCheck = null;
      return true;
    })().catch(() => {
      // Anything else that failed here (a save, a read of the store) is our own: nothing is
      // concluded, and the next state asks again rather than wait on a rejected promise.
      this.seatCheck = null;
      return false;
    });
    return this.seatCheck;
  }

  /**
   * Once per page load, ask the public log for the anchor the server accepted from this
   * device (GET /api/audit/{match_id}/anchors, the log's key from GET /api/log/public-key) and
   * keep what checkAnchorInLog says in `stored.anchor_log`, and its leaf's place in
   * `stored.anchor_index`. Resolves to true once the log was read on this page load, false
   * when it could not be read: then nothing is kept and the next call asks again (a failed
   * read is our own, never the server's word on the anchor). A second call while one is on
   * its way waits for it.
   */
  checkAnchor(seat) {
    if (!this.links) return Promise.resolve(false);
    this.anchorCheck ??= (async () => {
      const read = await readAnchorProofs(this.matchId);
      if (!read) {
        this.anchorCheck = null;
        return false;
      }
      const { proofs, publicKey } = read;
      let found;
      try {
        found = await checkAnchorInLog(this.matchId, seat, this.links[0], proofs, publicKey);
      } catch {
        // An answer that cannot be read as proofs is the server's word: our anchor is not
        // shown in its log.
        found = { status: "anchor_unlogged", index: null };
      }
      this.stored.anchor_log = found.status;
      if (found.index !== null) this.stored.anchor_index = found.index;
      this.save();
      return true;
    })().catch(() => {
      // Anything else that failed here (a save, a read of the store) is our own: no verdict
      // on the anchor, and the next call (the next state, a roll's check) asks again; a
      // rejected promise kept here left the rolls at "…" for the page's life.
      this.anchorCheck = null;
      return false;
    });
    return this.anchorCheck;
  }

  /**
   * Reveal the link due when the opponent asked to roll (`pending_roll.state` "requested"
   * with our seat as the opponent): index = the position of `opponent_prev_link` in our chain
   * + `opponent_link_steps` (every roll since our last revealed link used one up). The link
   * leaves only once the roller's input is fixed: `roller_entropy_sha256` (64 hex characters,
   * the SHA-256 of the roller's entropy) is kept in `known` (roll_id → what this device saw)
   * and with the chain before it leaves, and the revealed roll is checked against it
   * (checkRollV2: roller_entropy_changed). A request without it gets nothing and is marked
   * `roller_unpinned` (cleared should the same roll then come with it); one that shows
   * another hash than the one kept for the roll gets nothing, not even the link already sent
   * for it, and is marked `roller_changed`: with the link known, the roller's input could
   * have been chosen. A retry of the same roll with the same hash sends the link stored for
   * it; a roll that asks for an index this device has sent already gets nothing (the server
   * had that link before it committed this roll's seed) and is marked `link_reused`; the
   * checks of the roll report each mark. A request with another hash is marked so also on
   * the page that sent the link already (nothing is sent again). The link is kept in `known`
   * with the match's `game_number` (checkVoided: a reroll labelled `opening`). Resolves to the
   * server's answer, or null (also when it only marked the roll); returns null when there was
   * nothing to do. After a reload, while the chain's links are still being computed, the
   * answer waits for them and calls `save` (if given) once it has changed `known`, which
   * nothing else would save. A refusal of the link
   * as `wrong_phase` (no roll waits for it), a post whose every try failed on its way once
   * the page connected again (reconnected), or the roll shown `committed` again after its
   * link left (a restarted server that lost the request) lets a later request of the same
   * roll, with the same hash, have the same link again; never a link for another roll, never
   * under another hash.
   */
  answer(state, known, save = null) {
    const pending = state.pending_roll;
    if (pending && pending.state === "committed" && pending.seat !== state.you) {
      // A roll whose link this page sent shown `committed` again: a restarted server lost its
      // request (or the link's post failed meanwhile). A new request of the same roll with the
      // same roller hash gets the same link again (the index and hash kept for the roll:
      // nothing new is revealed); another hash still gets nothing (roller_changed below).
      this.sent.delete(pending.roll_id);
    }
    if (!pending || pending.state !== "requested" || state.you === null
        || state.you === undefined || pending.seat === state.you) return null;
    const rollId = pending.roll_id;
    const pinned = pending.roller_entropy_sha256;
    const roller = typeof pinned === "string" && /^[0-9a-fA-F]{64}$/.test(pinned)
      ? pinned.toLowerCase() : null;
    if (roller !== null && this.stored) {
      // What this device sent is read afresh: another page of the match (a second tab) may
      // have sent a link of this chain since this one loaded.
      const fresh = readChain(this.storeKey);
      if (fresh && fresh.seed === this.stored.seed) this.stored = fresh;
    }
    const before = known[rollId] || {};
    const held = before.roller_entropy_sha256 ?? ((this.stored && this.stored.rollers) || {})[rollId];
    if (roller !== null && held !== undefined && held !== roller) {
      // Asked again for this roll with other roller input (a restart, the server says): the
      // link may have reached it under the first; it is not sent under the second. Also on
      // the page that sent it, before the check below that nothing leaves twice.
      known[rollId] = { ...before, roller_changed: true };
      return Promise.resolve(null);
    }
    if (this.sent.has(rollId)) return null;
    if (!this.links) {
      // Still computing after a reload: answered once it is ready, and what that answer
      // keeps in `known` (the link, the roller's hash, a mark) is saved then (`save`).
      return this.ready.then(() => {
        if (!this.links) return null;
        const answered = this.answer(state, known, save);
        if (save) save();
        return answered;
      });
    }
    const steps = pending.opponent_link_steps;
    const at = this.links.indexOf(pending.opponent_prev_link);
    if (at < 0 || !Number.isSafeInteger(steps) || steps < 1 || !this.stored) return null;
    if (roller === null) {
      // The roller's input is not fixed: with our link in hand, the server (or a roller it
      // sides with) could still choose it, and with it the dice.
      known[rollId] = { ...(known[rollId] || {}), roller_unpinned: true };
      return Promise.resolve(null);
    }
    this.sent.add(rollId);
    const sent = this.stored.sent || {};
    const rollers = this.stored.rollers || {};
    let index = sent[rollId];
    if (index === undefined) {
      index = at + steps;
      if (index <= (this.stored.highest || 0)) {
        known[rollId] = { ...before, link_reused: true };
        return Promise.resolve(null);
      }
      if (index >= this.links.length) return null;
      this.stored.highest = index;
      this.stored.sent = { ...sent, [rollId]: index };
      this.stored.rollers = { ...rollers, [rollId]: roller };
      // When it first left, with it: knownOf (match.js) takes the link from here where
      // `known` lost it, and its time must come with it (link_dropped or link_late).
      this.stored.sent_at = { ...(this.stored.sent_at || {}), [rollId]: Date.now() };
      this.save();
    } else if (rollers[rollId] !== roller) {
      // A link sent before the roller's hash was kept with the chain (an older page).
      this.stored.rollers = { ...rollers, [rollId]: roller };
      this.save();
    }
    const link = this.links[index];
    // When the link first left (this device's clock): a roll that then goes without it is
    // checked against the roll's revealed_at (checkRollV2: link_dropped or link_late).
    // With the game it was asked in (`game_number`, the first time): a void roll followed by
    // an opening roll passes only where the match has moved to a later game since.
    // The earliest departure this device knows of: this page's, or another page's (a second
    // tab that sent the same link first) kept with the chain.
    const left = [before.link_sent_at, (this.stored.sent_at || {})[rollId]]
      .filter((at) => Number.isFinite(at));
    known[rollId] = {
      ...before, link, link_sent_at: left.length ? Math.min(...left) : Date.now(),
      roller_entropy_sha256: roller,
    };
    // A game number the state does not give as an integer is kept as null, which
    // checkVoided reads as "not moved" (absent, as an older page left it, lets the kinds
    // decide).
    if (before.game_number === undefined) {
      known[rollId].game_number = Number.isSafeInteger(state.game_number)
        ? state.game_number : null;
    }
    if (before.roller_unpinned) known[rollId].roller_unpinned = false;
    return this.send(rollId, link);
  }

  /** The page connected to the server again (match.js: a new socket's first state): a link
   * whose every try failed on its way (the server down, restarting) goes again, the same link,
   * when the same roll is shown requested with the same roller hash (answer). */
  reconnected() {
    for (const rollId of this.lost) this.sent.delete(rollId);
    this.lost.clear();
  }

  /** Post `link` for `rollId`; a network failure, 429 or 5xx is tried again (the same link,
   * LINK_TRIES in all, LINK_RETRY_MS apart): the wait for it is this player's time, and a
   * link that never arrives leaves the roll without it. A refusal as `wrong_phase` (no roll
   * waits for a link) lets a later request of the roll have it again (answer). Resolves to
   * the answer, or null. */
  async send(rollId, link) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.post({ type: "contribute", roll_id: rollId, link });
      } catch (err) {
        const transient = err.status === 0 || err.status === 429 || err.status >= 500;
        if (!transient && err.code === "wrong_phase") this.sent.delete(rollId);
        if (transient && attempt >= LINK_TRIES) {
          // Every try failed on its way (the server down, restarting): not sent again on this
          // connection, but once the page connects again (reconnected).
          this.lost.add(rollId);
          return null;
        }
        if (!transient) return null;
        await new Promise((done) => { setTimeout(done, LINK_RETRY_MS); });
      }
    }
  }
}


/**
 * Whether the public log holds this device's accepted anchor (docs/fair-dice.md §The public
 * log, anchor leaf), and where: `proofs` is GET /api/audit/{match_id}/anchors ({public_key,
 * head, anchors: [{index, leaf, inclusion_path}]}), `publicKey` the log's key from its fixed
 * address. {status, index}: status "ok" when a leaf names this match, `seat` and `anchor`, its
 * inclusion proof leads to the head's root and the head's signature verifies (or the browser
 * has no Ed25519); else the problem code: anchor_unlogged (no such leaf, or its proof does not
 * lead to the root: the server could leave the chain out of the record and roll without it,
 * unseen by anyone but this device), log_signature (another key, or a signature that does not
 * verify). `index`: with "ok", the smallest place among the entries whose proof leads to the
 * root; null otherwise. Only a proven place counts, and the first: a made-up or later entry
 * listed first would move the anchor later and spare the `none` rolls requested in between.
 */
export async function checkAnchorInLog(matchId, seat, anchor, proofs, publicKey) {
  const { status, index } = await firstAnchorInLog(matchId, seat, anchor, proofs, publicKey);
  return { status, index };
}

/**
 * checkAnchorInLog for any anchor of `seat` (`anchor` null) or only `anchor`: {status, index,
 * anchor}, the anchor of the first proven leaf (smallest index) with "ok", else nulls. The
 * first anchor leaf of a seat is the seat's chain in the record (docs/fair-dice.md §Checking
 * the anchors (v2), `anchor missing`).
 */
async function firstAnchorInLog(matchId, seat, anchor, proofs, publicKey) {
  const none = (status) => ({ status, index: null, anchor: null });
  const head = proofs && proofs.head;
  if (!head || !Array.isArray(proofs.anchors)) return none("anchor_unlogged");
  let index = null;
  let found = null;
  for (const entry of proofs.anchors) {
    const fields = JSON.parse(entry.leaf);
    if (fields.event !== "anchor" || fields.match_id !== matchId || fields.seat !== seat
        || (anchor !== null && fields.anchor !== anchor)) continue;
    const reached = await rootFromInclusion(entry.index, head.tree_size,
      await leafHash(new TextEncoder().encode(entry.leaf)), entry.inclusion_path.map(fromHex));
    if (reached && toHex(reached) === head.root_hash && (index === null || entry.index < index)) {
      index = entry.index;
      found = fields.anchor;
    }
  }
  if (index === null) return none("anchor_unlogged");
  const signed = proofs.public_key !== publicKey ? false
    : await verifyHeadSignature(publicKey, head);
  return signed === false ? none("log_signature") : { status: "ok", index, anchor: found };
}

/** The place in the log where the audit entry `record` (with its `log` leaves) was
 * requested: its first leaf after its commitment's; null where it has none. */
function requestedPlace(record) {
  const places = (record && Array.isArray(record.log) ? record.log : [])
    .filter((entry) => JSON.parse(entry.leaf).event !== "committed"
      && Number.isSafeInteger(entry.index))
    .map((entry) => entry.index);
  return places.length ? Math.min(...places) : null;
}

/**
 * Where a check of a match's record stands after the entries it has read, in seq order from
 * the first: `seq` and `hash` (entry hash) of the newest (-1 and the genesis hash before any),
 * and per roller seat the entries with an opponent chain since the last of them that
 * revealed the opponent's link (`steps`: each used up one link) and that link (`links`, null
 * before one): the opponent's chain is in use once either is set. A roll's k is
 * `steps[seat] + 1`. The match page keeps one while it checks
 * the rolls in order and asks each roll's proof only for the entries after `seq` (`?after=`).
 */
export function startTally() {
  return { seq: -1, hash: GENESIS, steps: [0, 0], links: [null, null] };
}

/** The tally after `entries` (audit entries, in seq order, following `tally.seq`). */
export function advanceTally(tally, entries) {
  const next = { ...tally, steps: [...tally.steps], links: [...tally.links] };
  for (const r of entries) {
    if (r.opponent_prev_link) {
      if (r.opponent_entropy) {
        next.steps[r.seat] = 0;
        next.links[r.seat] = r.opponent_entropy;
      } else {
        next.steps[r.seat] += 1;
      }
    }
    next.seq = r.seq;
    next.hash = r.entry_hash;
  }
  return next;
}

/**
 * Check a revealed v2 roll: checkRollV2's recipe (commitment, dice, the opponent's link
 * against the link fixed for it, in k steps counted from the record), and that the link fixed
 * for it continues the opponent's chain: the link revealed last by that seat, or our own
 * anchor when we are that seat and have revealed nothing yet. `records`: audit entries (every
 * state, void included) without a gap from `tally.seq + 1` up to this roll (a roll's proof's
 * `preceding` and its entry; `tally`: startTally() by default, the record from its first
 * entry), or only the roll where its opponent has no chain; `chain`: this device's
 * DeviceChain; `you`: our seat. Problem codes: link_chain_broken (also for a gap, or an
 * `opponent_link_steps` other than k); chain_skipped (we are the opponent, the server
 * accepted our anchor, and the roll fixed no link of our chain although an earlier roll did,
 * or it was requested after our anchor's leaf in the log: its first leaf after the
 * commitment's, from the entry's `log`, comes after `anchor_index`; where either place is
 * unknown, flagged, except where this device could not read the log for its anchor's place:
 * then the verdict says `unsettled: true`, no verdict yet, to be asked again); anchor_refused (we are the opponent, the server refused our anchor,
 * and the roll was requested after the anchor left, or its `requested_at` cannot be read);
 * anchor_silenced (we are the opponent, the roll says `none` for us, the server proved it
 * had our anchor, a 409 anchor_registered or a 200 answered more than ANCHOR_FLIGHT_MS after
 * it left, and the roll was requested more than ANCHOR_FLIGHT_MS after the anchor left,
 * `anchor_sent_at`, or its `requested_at` cannot be read, wherever the log puts the anchor's
 * leaf; not after a 5xx or no answer, which prove nothing, nor after a quick 200, which the
 * log's order judges; not where chain_skipped or anchor_refused already flags the roll);
 * anchor_unlogged or
 * log_signature (we are the opponent, and the public log did not show our accepted anchor:
 * DeviceChain.checkAnchor; or, after anchor_registered, the roll takes a chain for our seat
 * and the log shows no chain of the seat: DeviceChain.checkSeat, whose anchor the seat's
 * first link must otherwise be: link_chain_broken).
 */
export async function checkRollV2InRecord(matchId, roll, known, records, chain, you,
  tally = startTally()) {
  const at = records.findIndex((r) => r.roll_id === roll.roll_id);
  const before = advanceTally(tally, at >= 0 ? records.slice(0, at) : []);
  const steps = before.steps[roll.seat] + 1;
  // The entry's revealed_at (hashed, chained into the log) decides a dropped link's verdict.
  const revealedAt = at >= 0 ? records[at].revealed_at : undefined;
  const verdict = await checkRollV2(matchId, { ...roll, revealed_at: revealedAt }, known, steps);
  const refusedAt = chain && chain.stored && chain.stored.refused_at;
  const requestedAt = at >= 0 ? records[at].requested_at : null;
  // A roll where we are the opponent that fixed no link for our seat (`none`: no
  // opponent_prev_link, so no link of any chain could be its input), requested more than the
  // anchor's flight after our anchor left (`anchor_sent_at`, by this device's clock; a time
  // that cannot be read counts as after), where the server's answer proves it had the
  // anchor: 409 anchor_registered, or a 200 that came back more than the flight after it
  // left (held back: the log's order would spare the roll; both times are this device's, so
  // no clock difference enters). A quick 200 leaves the roll to the log's order
  // (chain_skipped) alone: a device clock behind the server's must not flag a roll the log
  // proves honest. No `anchor_answered_at` (a 5xx or no answer; or a store written by older
  // code, whose `anchor_sent_at` was the first send whatever its answer, so we cannot tell
  // what it proves): no flag. Flagged below as anchor_silenced where no more specific code
  // (anchor_refused, chain_skipped) already says so.
  const stored = chain && chain.stored;
  const sentAt = stored && stored.anchor_sent_at;
  const answeredAt = stored && stored.anchor_answered_at;
  const hadIt = Number.isFinite(sentAt) && Number.isFinite(answeredAt)
    && (stored.accepted ? answeredAt - sentAt > ANCHOR_FLIGHT_MS : stored.other_chain === true);
  const silenced = 1 - roll.seat === you && !roll.opponent_prev_link && hadIt
    && !(Date.parse(requestedAt) <= sentAt + ANCHOR_FLIGHT_MS);
  if (1 - roll.seat === you && !roll.opponent_prev_link && Number.isFinite(refusedAt)
      && !(Date.parse(requestedAt) < refusedAt)) {
    // Our anchor was refused (the server takes a late one too), and this roll was requested
    // after it left (by this device's clock): the server left our chain out for nothing, and
    // the roll is the server's and the roller's alone. One requested before: not flagged.
    verdict.problems.push("anchor_refused");
    verdict.ok = false;
  }
  if (1 - roll.seat === you && !roll.opponent_prev_link && chain && chain.stored
      && chain.stored.accepted) {
    const inUse = before.links[roll.seat] !== null || before.steps[roll.seat] > 0;
    let read = true;
    if (!inUse && !Number.isSafeInteger(chain.stored.anchor_index)) {
      await chain.ready; // the chain's links, computed after a reload
      read = await chain.checkAnchor(you);
    }
    const asked = at >= 0 ? requestedPlace(records[at]) : null;
    const anchorAt = chain.stored.anchor_index;
    // Requested before our (late) anchor's leaf, and our chain not in use yet: honest.
    const beforeAnchor = !inUse && asked !== null && Number.isSafeInteger(anchorAt)
      && asked < anchorAt;
    if (!beforeAnchor && !inUse && asked !== null && !read) {
      // Our anchor's place is unknown only because this device could not read the log: no
      // verdict on the chain yet, the caller asks again (the read is retried then); a roll
      // already failing another check keeps its ✗.
      if (verdict.problems.length === 0) verdict.unsettled = true;
      verdict.ok = false;
    } else if (!beforeAnchor) {
      // Rolled as if we had no chain, after the server had taken ours: the server and the
      // roller held every input.
      verdict.problems.push("chain_skipped");
      verdict.ok = false;
    }
  }
  if (silenced && !verdict.problems.includes("anchor_refused")
      && !verdict.problems.includes("chain_skipped")) {
    // The server had our anchor long enough before this roll's request (it answered
    // anchor_registered with no other chain for the seat, or held its 200 back and took it
    // after: the log's order then spares the roll from chain_skipped): the roll took no
    // input from us. The times decide, not the log, so a roll that waited for our
    // read of the log has its verdict.
    verdict.problems.push("anchor_silenced");
    verdict.ok = false;
    delete verdict.unsettled;
  }
  const anchorLog = chain && chain.stored && chain.stored.anchor_log;
  if (1 - roll.seat === you && anchorLog && anchorLog !== "ok") {
    // Our chain is not public: the server could leave it out of the record unseen.
    verdict.problems.push(anchorLog);
    verdict.ok = false;
  }
  if (1 - roll.seat === you && chain && chain.stored && chain.stored.other_chain
      && chain.stored.seat_log === undefined) {
    await chain.checkSeat(you); // not read yet, or the read failed: asked again
  }
  const seatLog = chain && chain.stored && chain.stored.other_chain && chain.stored.seat_log;
  if (1 - roll.seat === you && roll.opponent_prev_link && seatLog && seatLog !== "ok") {
    // Told another device's chain holds the seat, and the roll takes a chain for it, yet the
    // log shows no chain of the seat: a chain nobody can see was registered for us.
    verdict.problems.push(seatLog);
    verdict.ok = false;
  }
  const shownSteps = at >= 0 ? records[at].opponent_link_steps : undefined;
  // A roll whose opponent has no chain has no k: it needs no entries before it.
  const gap = roll.opponent_prev_link
    && records.slice(0, at + 1).some((r, i) => r.seq !== tally.seq + 1 + i);
  if (at < 0 || gap
      || (roll.opponent_prev_link && shownSteps !== undefined && shownSteps !== steps)) {
    verdict.problems.push("link_chain_broken");
    verdict.ok = false;
    return verdict;
  }
  // Our own anchor is what the record's first link of our chain must be only if the server
  // took it: a chain refused as a second device's (anchor_registered) is not the record's,
  // whose first link is then the seat's first anchor leaf in the log (checkSeat).
  const mine = 1 - roll.seat === you && chain && chain.stored;
  const expected = before.links[roll.seat]
    ?? (mine && chain.links && chain.stored.accepted ? chain.links[0]
      : (mine && chain.stored.other_chain && chain.stored.seat_anchor) || undefined);
  if (roll.opponent_prev_link && expected !== undefined && expected !== roll.opponent_prev_link) {
    verdict.problems.push("link_chain_broken");
    verdict.ok = false;
  } else if (roll.opponent_entropy
      && (await linkBeforeSteps(roll.opponent_entropy, steps)) === roll.opponent_prev_link) {
    verdict.checked.push("chain");
  }
  return verdict;
}
