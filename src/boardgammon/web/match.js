// The match page: board, controls, clocks, on-device dice verification and the result screen.
// It renders the last `state` the server sent (docs/api.md) and sends actions by HTTP POST; the
// WebSocket brings everyone's changes. A play is built locally with PlayBuilder and sent whole.

import { analysisButton, signed } from "./analysis.js";
import { actionId, ApiError, MatchSocket, request } from "./api.js";
import { renderBoard } from "./board.js";
import { clockAfter, clockText, copyButton, fill, h, keep, keepRows, shownId } from "./dom.js";
import { ChatPanel } from "./chat.js";
import { advanceTally, checkRollV2InRecord, DeviceChain, startTally } from "./dicechain.js";
import { checkInLog, recordProblems } from "./dicelog.js";
import { checkRoll, rollEntropy, sha256Hex } from "./fairdice.js";
import { glossaryLink } from "./glossary.js";
import { errorText, lang, playerName, t } from "./i18n.js";
import { lastDice, lastMarks, lastPlayText } from "./lastplay.js";
import { MoveList } from "./movelist.js";
import { mirror, PlayBuilder } from "./moves.js";
import { boardOptions, optionControls } from "./options.js";
import { Playback } from "./playback.js";
import { Rematch } from "./rematch.js";
import { Notice } from "./sound.js";
import {
  holdMatch, markOver, memoryOnly, onStoreChange, readPreference, readStored, releaseMatch,
  savePreference, saveStored,
} from "./store.js";

/** Whether match state `a` is older than `b`. Both from one server process (`boot` the same)
 * or from a server that gives none (several processes, whose versions never go back): the
 * smaller `version`. From two starts of a single process (`boot`, its start in Unix ms),
 * whatever the versions, since a restart may have lost a request it had answered and take the
 * version back (docs/api.md `version`): never `a` if it comes from the process the match
 * socket now speaks to (`live`, the boot of its first state), else the earlier start's. So a
 * restarted server whose clock is behind the old one's (a boot that reads earlier) is still
 * followed once its socket connects. */
export function olderState(a, b, live = null) {
  if (a.boot == null || b.boot == null || a.boot === b.boot) return a.version < b.version;
  if (live != null && a.boot === live) return false;
  return a.boot < b.boot;
}

const DANCE_AUTO_MS = 1500; // in auto mode a dance is shown this long before it is recorded
// A roll in one of these states is still open: the server starts the next roll only once it
// is played or void, so only the record's last roll may be in one.
const OPEN_STATES = ["committed", "requested", "revealed"];
// A roll whose check needs this device's anchor's place in the public log, which could not be
// read, is checked again this many seconds later.
const ANCHOR_RETRY_S = 5;
// Reads of the log that keep failing are asked again less and less often, up to this.
const ANCHOR_RETRY_MAX_S = 300;
// The key in `bg.rolls.<match_id>` (no roll's ID) under which this device keeps that it holds
// the match to v2 ({dice_protocol: "v2"}): kept once it saw evidence of it, so that a state
// relabelled v1 after a reload does not turn the v2 checks off (noteProtocol).
const PROTOCOL_KEY = "$match";
// Fields only a v2 roll or pending roll has (docs/api.md): one of them in a state is evidence
// that the match is v2, whatever its `dice_protocol` says.
const V2_FIELDS = ["kind", "roller_entropy", "roller_source", "opponent_prev_link",
  "opponent_entropy", "opponent_source", "opponent_link_steps", "roller_entropy_sha256"];

/** Whether `roll` (a revealed roll or the pending roll) has a field only v2 rolls have. */
function hasV2Fields(roll) {
  return !!roll && typeof roll === "object" && V2_FIELDS.some((f) => Object.hasOwn(roll, f));
}

/** The game number as kept with a roll: the state's, or null where it gives none that is an
 * integer (checkVoided reads null as "not moved"). */
function gameOf(state) {
  return Number.isSafeInteger(state.game_number) ? state.game_number : null;
}

/** What tells one play from the next. Not the number of rolls: a roll after a play leaves the
 * play as it was. The same seat's same play twice in a row is two plays, but between them the
 * other seat's play (or dance) was the last play. */
function playedKey(s) {
  const last = s.last_play;
  return last ? `${s.game_number}|${last.seat}|${last.dice.join("-")}|${last.play}` : "";
}

/** A seat's pip count from its points in its own numbering ([0] off, [1..24], [25] bar). */
function pipCount(points) {
  return points.reduce((sum, n, i) => sum + i * n, 0);
}

export class MatchPage {
  constructor(root, matchId, user, navigate) {
    this.root = root;
    this.matchId = matchId;
    this.user = user;
    this.navigate = navigate;
    this.state = null;
    this.builder = null;
    this.builderKey = null;
    this.selected = null;
    this.busy = false;
    this.message = null;
    this.auto = readPreference("bg.auto") === "1";
    this.resignMenu = false;
    this.storeKey = `bg.rolls.${matchId}`;
    // Never dropped while this page is open; other matches' old stores may be (store.js).
    holdMatch(matchId);
    this.known = this.storedKnown();
    // This device holds the match to v2 (noteProtocol): set once it saw evidence of it.
    this.v2 = false;
    this.verdicts = new Map();
    // "<list> <roll_id>" of the rolls whose checks are open in the dice record ("log") or the
    // result dialog's ("result"): both lists are drawn again on every state.
    this.checksOpen = new Set();
    // roll_id → the time (ms) before which its proof is not asked for again: the server said
    // Retry-After (no head covers it yet), whatever states arrive meanwhile.
    this.proofWait = new Map();
    this.voided = []; // roll IDs of v2 rolls this device took part in that ended void
    this.settled = new Set(); // roll IDs checkVoided found in a final state
    this.chain = new DeviceChain(matchId);
    // This device's storage is full: what it keeps for the match lives in this page only.
    this.unwatchStore = onStoreChange(() => this.renderStorage());
    // The record's entries this page has checked, in order (dicechain.js startTally): each
    // roll's proof is asked only for the entries after them (`?after=`), so a page fetches
    // every entry of the record once, however long the opponent goes without revealing.
    this.tally = startTally();
    this.receivedAt = performance.now();
    this.viewing = null;  // a past turn shown read-only: {board, label}
    this.notice = new Notice();
    this.moves = new MoveList(matchId, this);
    this.chat = new ChatPanel(matchId, user);
    this.playback = new Playback(() => this.playbackChanged());
    // Escape leaves a past turn shown from the move list for the live board.
    this.onKey = (e) => {
      if (e.key === "Escape" && this.viewing) {
        e.preventDefault();
        this.backToLive();
      }
    };
    document.addEventListener("keydown", this.onKey);
    this.build();
    this.timer = setInterval(() => this.renderClocks(), 250);
    this.socket = new MatchSocket(matchId, (m) => this.onEvent(m), (s) => this.onSocket(s));
    request("GET", `/api/matches/${encodeURIComponent(matchId)}`)
      .then((state) => this.setState(state))
      .catch((err) => this.loadFailed(err));
  }

  /** The match could not be read: say why; for one that does not exist (404) or may not be
   * read (403) stop reconnecting and offer the way back to the lobby. */
  loadFailed(err) {
    // GET /api/matches/{id} has no body: a refused request is a refused address. A 404 that
    // is not the API's own (a proxy's page: code http_404) says the same.
    if (err instanceof ApiError && (err.status === 404 || err.code === "not_found"
        || err.code === "invalid_request")) {
      this.noMatch();
      return;
    }
    this.showError(err);
    if (err instanceof ApiError && err.status === 403) this.stopWithWayBack();
  }

  /** The address names no match: an unknown ID (not_found) or one no match could have
   * (invalid_request: "path.match_id: a match ID looks like …", a rule not for players). Said
   * once in the player's words, whichever of the read and the socket answers first; nothing
   * after replaces it. */
  noMatch() {
    this.missing = true;
    this.message = { text: t("match.nomatch", { id: shownId(this.matchId) }), cls: "error", transient: false };
    this.renderStatus();
    this.stopWithWayBack();
    // No empty board, options or dice record for a match that is not there: the words and
    // the way back.
    fill(this.root, h("section", { class: "match missing", "data-match": this.matchId },
      h("div", { class: "turn" }, this.status), this.controls));
  }

  /** No reconnecting, no polling; the way back to the lobby in place of the controls. */
  stopWithWayBack() {
    this.socket.close();
    clearInterval(this.poll);
    fill(this.controls, h("a", { href: "/", "data-link": "" }, t("result.lobby")));
  }

  destroy() {
    this.destroyed = true; // a check still on its way asks for no retry after this
    document.removeEventListener("keydown", this.onKey);
    clearInterval(this.timer);
    clearTimeout(this.danceTimer);
    clearTimeout(this.logRetry);
    clearInterval(this.poll);
    this.socket.close();
    this.unwatchStore();
    releaseMatch(this.matchId);
    this.notice.destroy();
    this.playback.stop();
    if (this.rematch) this.rematch.stop();
  }

  build() {
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.setAttribute("class", "board");
    this.svg.setAttribute("role", "group");
    this.svg.setAttribute("aria-label", t("app.title"));
    this.top = h("div", { class: "player top" });
    this.bottom = h("div", { class: "player bottom" });
    this.scoreLine = h("p", { class: "score-line" });
    this.status = h("p", { class: "status", role: "status", "aria-live": "polite" });
    this.alert = h("div", { class: "dice-alert", role: "alert" });
    this.storageWarning = h("p", { class: "storage-warning", role: "alert", hidden: true });
    this.chainWarning = h("p", { class: "chain-warning", role: "status", hidden: true });
    this.diceMark = h("span", { class: "dice-mark" });
    // While a first move of the match is counted down: what the countdown's end means (a
    // phone shows no tooltip).
    this.firstMoveNote = h("p", { class: "first-move-note", hidden: true });
    this.controls = h("div", { class: "controls" });
    this.log = h("ol", { class: "dice-log" });
    this.result = h("section", { class: "result", hidden: true, role: "dialog",
      "aria-labelledby": "result-title", tabindex: "-1" });
    this.lastLine = h("p", { class: "last-play", "aria-live": "polite" });
    this.pastBar = h("div", { class: "past-turn", hidden: true });
    this.skipBar = h("div", { class: "playback", hidden: true },
      h("button", { type: "button", "data-action": "skip", onclick: () => this.playback.skip() },
        t("playback.skip")));
    fill(this.root, h("section", { class: "match", "data-match": this.matchId },
      this.result,
      h("div", { class: "match-layout" },
        h("div", { class: "match-main" },
          this.scoreLine, this.alert, this.storageWarning, this.chainWarning, this.top, this.pastBar,
          h("div", { class: "board-wrap" }, this.svg, this.skipBar),
          this.bottom, this.lastLine,
          h("div", { class: "turn" }, this.status, this.diceMark),
          this.firstMoveNote,
          this.controls,
          h("div", { class: "match-options" }, optionControls(() => this.renderBoard()),
            this.notice.muteButton()),
          this.chat.node,
          h("details", { class: "dice-record" }, h("summary", {}, t("dice.record")), this.log)),
        this.moves.node)));
    this.status.textContent = t("match.connecting");
    this.renderStorage(); // a page opened again in this tab on a match kept in memory only
  }

  // --- incoming -------------------------------------------------------------------------------

  onSocket(status) {
    if (status === "open") {
      clearInterval(this.poll);
      this.poll = null;
      this.fresh = true;
    } else if (!this.poll) {
      // While the socket is down keep the page current by polling.
      this.poll = setInterval(() => this.refresh(true), 3000);
    }
  }

  onEvent(message) {
    if (message.type === "state") {
      // A socket sends each revealed roll once: a state's `rolls` holds the record from index
      // `rolls_from` on (0 in a socket's first state), the rest is what this socket sent before.
      const s = message.state;
      this.socketRolls = (this.socketRolls || []).slice(0, s.rolls_from || 0).concat(s.rolls || []);
      message = { ...message, state: { ...s, rolls: this.socketRolls, rolls_from: 0 } };
    }
    if (message.type === "state" && this.fresh) {
      // The server subscribes a socket to live events only around the time it sends the first
      // state; whatever was committed in between would be missed, so read the state once more.
      // A new connection's first state is the server's state now. A restarted server (a crash,
      // a deploy) may have lost a request it had answered and show the roll `committed` again
      // at a lower version (docs/api.md `version`): its `boot` is later, and olderState takes
      // it. From a server that gives no `boot` the first state is taken whatever its version;
      // the page would otherwise drop every state until a reload. After it the usual rule.
      this.fresh = false;
      this.setState(message.state, true);
      this.refresh();
    } else if (message.type === "state") this.setState(message.state);
    else if (this.chat.onEvent(message)) return;
    else if (message.type === "roll_requested" || message.type === "clock") this.takeDelta(message);
    else if (message.type === "commitment") this.promise(message);
    else if (message.type === "match_end" && message.result) this.logHead = message.result.log_head;
    else if (message.type === "error" && message.error) {
      // The socket's answer to an address with no match: not_found, for no action (then 4404).
      if (message.error.code === "not_found" && !message.action_id) this.noMatch();
      else this.showError(message.error);
    }
  }

  /**
   * A v2 roll's request comes over the socket as its `roll_requested` event alone, no state
   * (docs/api.md §WebSocket): fold it into the state shown, the pending roll `requested` with
   * the event's link fields and roller hash (which the device's link needs), and the clocks as
   * of now, its `clocks` (a server before 2026-12-05 sent them in a `clock` event right after
   * it). A request for another roll than the pending one means this page missed a state (a
   * batch lost or out of order): the state is read again. A `clock` event is folded in only
   * right after a request was (the shown state still the one it made); a late batch's clock
   * must not overwrite a newer state's clocks.
   */
  takeDelta(message) {
    const s = this.state;
    if (!s || this.fresh) return;
    if (message.type === "clock") {
      const folded = this.requestVersion;
      this.requestVersion = null;
      if (message.clocks && folded !== null && folded !== undefined && s.version === folded) {
        this.setState({ ...s, clocks: message.clocks });
      }
      return;
    }
    this.requestVersion = null;
    const pending = s.pending_roll;
    if (!pending || pending.roll_id !== message.roll_id) {
      this.refresh(); // a request this page has no state for: the server's state says what is
      return;
    }
    if (pending.state !== "committed") return; // shown requested already (an HTTP answer)
    const { opponent_prev_link, opponent_link_steps, roller_entropy_sha256 } = message;
    const version = s.version + 1;
    if (this.setState({
      ...s,
      version,
      pending_roll: { ...pending, state: "requested", opponent_prev_link, opponent_link_steps,
        roller_entropy_sha256 },
      ...(message.clocks ? { clocks: message.clocks } : {}),
    })) this.requestVersion = message.clocks ? null : version;
  }

  /** Read the state over HTTP. `polled`: the poll while the socket is down, whose answer says
   * the server is reachable again (an outage's message then goes). */
  refresh(polled = false) {
    return request("GET", `/api/matches/${encodeURIComponent(this.matchId)}`)
      .then((state) => {
        if (polled && this.message && this.message.transient) {
          this.message = null;
          this.renderStatus();
        }
        this.setState(state);
      })
      .catch(() => {});
  }

  /** Remember what was promised for a roll before its reveal (nonce, commitment). */
  promise({ roll_id, nonce, commitment }) {
    if (!roll_id || this.known[roll_id]) return;
    this.known[roll_id] = { nonce, commitment };
    this.saveKnown();
  }

  /** What this device knows of a roll before its reveal (`known[rollId]`, or null), with what
   * its chain kept for it where `known` lacks it (the roller's hash the link was sent under,
   * the link sent and when it first left: DeviceChain.stored `rollers`, `sent`, `sent_at`),
   * which no reload or lost save of `known` can clear. The link's time is the earlier of
   * `known`'s and the chain's (another tab may have sent it first); a chain store written
   * before `sent_at` gives the link without a time, as before. */
  async knownOf(rollId) {
    const k = this.known[rollId] || null;
    const stored = this.chain.stored;
    const roller = stored && stored.rollers && stored.rollers[rollId];
    const index = stored && stored.sent && stored.sent[rollId];
    const sentAt = stored && stored.sent_at && stored.sent_at[rollId];
    const needRoller = typeof roller === "string" && !(k && k.roller_entropy_sha256 !== undefined);
    const needLink = Number.isSafeInteger(index) && !(k && k.link !== undefined);
    const needTime = Number.isFinite(sentAt) && (needLink || (k && k.link !== undefined))
      && !(k && k.link_sent_at <= sentAt);
    if (!needRoller && !needLink && !needTime) return k;
    const out = { ...(k || {}) };
    if (needRoller) out.roller_entropy_sha256 = roller;
    if (needLink) {
      await this.chain.ready; // the links, computed after a reload
      const link = this.chain.links && this.chain.links[index];
      if (link !== undefined) out.link = link;
    }
    if (needTime && out.link !== undefined) out.link_sent_at = sentAt;
    return out;
  }

  /** What another page of this match on this device stored (a second tab), or this page
   * could not store (storage full: kept in memory, store.js); {} when absent or corrupt, and
   * when dropped (store.js: only a finished match's, whose rolls then show only the checks
   * that need no record of this device, never a ✗ for it). */
  storedKnown() {
    const stored = readStored(this.storeKey);
    return stored && typeof stored === "object" && !Array.isArray(stored) ? stored : {};
  }

  /** The warning that this device's storage is full (store.js): what this page keeps for the
   * match (the entropy of a roll, the links sent) is in its memory only, and a reload could
   * lose it. Gone once a later save succeeds. */
  renderStorage() {
    const full = memoryOnly(this.matchId);
    this.storageWarning.hidden = !full;
    this.storageWarning.textContent = full ? t("match.storage_full") : "";
  }

  /** The note that this device holds no chain for our seat: the server answered our anchor
   * with anchor_registered (the seat's chain was registered by another device or browser, or
   * this browser's store of it was cleared), so this device cannot reveal a link and the
   * opponent's rolls take no input from us (`absent` in the record: the server's and the
   * roller's inputs, the server's alone for the computer's). Shown until the match is over. */
  renderChain() {
    const s = this.state;
    const seat = s ? s.you : null;
    const elsewhere = Boolean(seat !== null && seat !== undefined && s.phase !== "match_over"
      && this.chain.stored && this.chain.stored.other_chain);
    this.chainWarning.hidden = !elsewhere;
    this.chainWarning.textContent = !elsewhere ? ""
      : t(s.players[1 - seat].bot ? "match.chain_elsewhere.computer" : "match.chain_elsewhere",
        { name: this.name(1 - seat) });
  }

  saveKnown() {
    // Merged, roll by roll, over what is stored, so that this page never wipes what another
    // page kept (the entropy it sent for a roll this page knows only the promise of). What
    // is kept once stays as first kept: the earliest `link_sent_at` (a second tab that sends
    // the same link later must not move its departure: link_dropped against link_late), and
    // the games a roll was asked in and passed in (`game_number`, `passed_game`). This page
    // takes the merged entries as its own.
    const stored = this.storedKnown();
    for (const [id, value] of Object.entries(this.known)) {
      const old = stored[id] && typeof stored[id] === "object" ? stored[id] : {};
      const merged = { ...old, ...value };
      if (Number.isFinite(old.link_sent_at) && !(value.link_sent_at <= old.link_sent_at)) {
        merged.link_sent_at = old.link_sent_at;
      }
      for (const first of ["game_number", "passed_game"]) {
        if (old[first] !== undefined) merged[first] = old[first];
      }
      stored[id] = merged;
      this.known[id] = merged;
    }
    // Never throws: a full storage drops old matches, else keeps it in memory (store.js).
    saveStored(this.storeKey, stored);
  }

  /** Show `state` unless it is older than the one shown (olderState): HTTP answers and socket
   * states race, and a late answer (to a roll, a play or a refresh) must not replace the newer
   * states the socket brought meanwhile, as nothing else would bring them back (docs/api.md
   * `version`). Returns whether the state was taken. `reset`: the first state of a new socket
   * connection; from a server that gives no `boot` it is taken whatever its version (onEvent). */
  setState(state, reset = false) {
    const before = this.state;
    // a link lost on its way while the server was down may go again
    if (reset) this.chain.reconnected();
    // The server is reachable again: an outage's message has had its day.
    if (reset && this.message && this.message.transient) this.message = null;
    if (reset && state.boot != null) this.liveBoot = state.boot;
    const booted = before && before.boot != null && state.boot != null;
    if (before && olderState(state, before, this.liveBoot) && !(reset && !booted)) return false;
    const rebooted = booted && state.boot !== before.boot;
    if (reset || rebooted) {
      this.requestVersion = null; // no clock event folds into a state gone by
    }
    // A restarted server seen first through a poll: links lost while it was down may go now.
    if (rebooted && !reset) this.chain.reconnected();
    this.noticeChanges(before, state);
    this.state = state;
    this.chat.setState(state);
    this.receivedAt = performance.now();
    // A finished match's store may be dropped first when the device's storage runs short.
    if (state.phase === "match_over") markOver(this.matchId);
    if (state.pending_roll) this.promise(state.pending_roll);
    this.noteProtocol(state);
    this.notePassed(state);
    const key = this.playKey(state);
    if (key !== this.builderKey) {
      this.builderKey = key;
      this.selected = null;
      this.builder = key ? this.newBuilder(state) : null;
      clearTimeout(this.danceTimer);
      if (this.builder && this.builder.dance && this.auto) {
        this.danceTimer = setTimeout(() => this.sendPlay(), DANCE_AUTO_MS);
      }
    }
    if (before && playedKey(state) !== playedKey(before) && state.last_play
      && state.last_play.seat !== state.you) {
      this.playback.start(state.board.points, state.last_play);
    } else if (before && (state.version > before.version || state.boot !== before.boot)) {
      this.playback.stop();  // whatever came next is drawn as it is
    }
    this.verifyRolls(state);
    this.moves.update(state);
    // Its answer may say another device keeps our chain: noted when it comes.
    this.chain.register(state, this.v2).then(() => this.renderChain());
    // What the device kept for the roll (its link, the roller's hash, a mark) is saved at once;
    // after a reload the answer may wait for the chain's links: saved when it is made.
    if (this.chain.answer(state, this.known, () => this.saveKnown())) this.saveKnown();
    this.render();
    this.rollAgain(state);
    return true;
  }

  /**
   * A roll of this seat that this device asked for (its entropy kept in `known` before the
   * request left, roll()) and saw `requested` is marked so (`seen_requested`, saved); shown
   * `committed` again afterwards (a server restarted before the opponent's link and lost the
   * request, docs/fair-dice.md §The device's check), it is asked for again at once with the
   * SAME kept entropy and the commitment and nonce it was asked under, never new entropy:
   * once per such change (the mark is cleared, and saved, before the request leaves; the
   * answer showing the roll `requested` sets it again). Not where the roll shows another
   * commitment or nonce than the kept ones: that is left to the player's Roll. The mark is
   * read afresh from the store too, so that of two pages of the match on this device only
   * one asks. While another action of this page is on its way, the roll waits for its answer
   * (whose state comes here again).
   */
  rollAgain(state) {
    const pending = state.pending_roll;
    const { you } = state;
    if (!pending || (you !== 0 && you !== 1) || pending.seat !== you) return;
    const k = this.known[pending.roll_id];
    if (!k || typeof k.entropy !== "string") return;
    if (pending.state === "requested") {
      // Only a request made with this device's entropy (its hash, roller_entropy_sha256):
      // another's (the player's other device) must not make this one send its own later.
      if (k.seen_requested !== true && typeof pending.roller_entropy_sha256 === "string") {
        sha256Hex(k.entropy).then((hash) => {
          const now = this.known[pending.roll_id];
          if (hash !== pending.roller_entropy_sha256 || !now || now.seen_requested === true
              || now.entropy !== k.entropy) return;
          this.known[pending.roll_id] = { ...now, seen_requested: true };
          this.saveKnown();
        }).catch(() => {});
      }
      return;
    }
    if (pending.state !== "committed" || k.seen_requested !== true || this.busy) return;
    if (state.turn !== you || !["roll", "opening"].includes(state.phase)) return;
    if (pending.commitment !== k.commitment || pending.nonce !== k.nonce) return;
    const stored = this.storedKnown()[pending.roll_id];
    if (!stored || stored.seen_requested !== true) return; // another page asked again already
    this.known[pending.roll_id] = { ...k, seen_requested: false };
    this.saveKnown();
    this.act({ type: "roll", roll_id: pending.roll_id, commitment: k.commitment,
      entropy: k.entropy });
  }

  /**
   * Hold the match to v2 once this device has evidence that it is (docs/fair-dice.md §The
   * device's check, "A match held to v2"): a state that said `dice_protocol` "v2", kept in
   * the match's store (PROTOCOL_KEY) across reloads and tabs; a chain store of the match
   * (made only for a v2 match); or a roll or pending roll in a state with v2 fields. From then
   * on the v2 checks stay on (the anchor, the void check), and a state saying otherwise, or a
   * roll without `kind`, is ✗ protocol_downgraded (verifyRolls): a server that relabels a v2
   * match as v1 would otherwise have its rolls checked with v1's weaker guarantee. A match
   * that never showed this device such evidence is checked as v1.
   */
  noteProtocol(state) {
    if (!this.v2) {
      const stored = readStored(this.storeKey);
      this.v2 = state.dice_protocol === "v2" || hasV2Fields(state.pending_roll)
        || (state.rolls || []).some(hasV2Fields) || Object.hasOwn(this.known, PROTOCOL_KEY)
        || !!(stored && typeof stored === "object" && Object.hasOwn(stored, PROTOCOL_KEY))
        || this.chain.held();
    }
    const kept = this.known[PROTOCOL_KEY];
    if (this.v2 && !(kept && kept.dice_protocol === "v2")) {
      this.known[PROTOCOL_KEY] = { dice_protocol: "v2" };
      this.saveKnown();
    }
  }

  /**
   * For each roll this device sent input for (its entropy, or its link: `known`, or the
   * chain's `sent`), the game number of the first state it sees in which that roll is no
   * longer pending and not revealed (`passed_game`, kept with the roll, once): the state that
   * shows the next roll, or the roll gone. checkVoided judges by it whether a void roll
   * followed by an `opening` roll went with its game, not by the state it happens to check
   * in (a device that looked only after the next game began, or the match ended, spared a
   * reroll labelled `opening` in the same game). Null where that state gives no integer.
   */
  notePassed(state) {
    const shown = new Set((state.rolls || []).map((r) => r.roll_id));
    const pending = state.pending_roll && state.pending_roll.roll_id;
    const linked = (this.chain.stored && this.chain.stored.sent) || {};
    let changed = false;
    for (const id of new Set([...Object.keys(this.known), ...Object.keys(linked)])) {
      const k = this.known[id];
      const sent = (k && (k.entropy !== undefined || k.link !== undefined))
        || linked[id] !== undefined;
      if (id === PROTOCOL_KEY || !sent || id === pending || shown.has(id)
          || (k && k.passed_game !== undefined)) continue;
      this.known[id] = { ...(k || {}), passed_game: gameOf(state) };
      changed = true;
    }
    if (changed) this.saveKnown();
  }

  /** Sounds for a roll, a play and the viewer's turn; the tab's title while it is hidden. */
  noticeChanges(before, after) {
    const mine = after.you !== null && after.you !== undefined && after.turn === after.you
      && ["opening", "roll", "play", "double_offered", "resign_offered"].includes(after.phase);
    this.notice.yourTurn(mine);
    if (!before) return;
    if (playedKey(after) !== playedKey(before) && after.last_play) this.notice.sound("move");
    else if ((after.rolls || []).length > (before.rolls || []).length) this.notice.sound("dice");
    const wasMine = before.turn === before.you;
    if (mine && !wasMine) this.notice.sound("turn");
  }

  /** Show the position after a past turn, read-only, until the viewer goes back. */
  pick(entry, label) {
    this.viewing = { board: entry.board, label, dice: entry.dice, seat: entry.seat };
    this.selected = null;
    this.moves.render(this.viewing);
    this.render();
    this.pastBar.scrollIntoView({ block: "start" });  // below the list on a phone: bring it up
  }

  backToLive() {
    this.viewing = null;
    this.moves.render(null);
    this.render();
  }

  movesChanged() {
    if (["opening", "play"].includes(this.state.phase)) this.renderBoard();
    this.renderStatus();
    this.renderLastPlay();
  }

  verdictOf(rollId) {
    return this.verdicts.get(rollId) || null;
  }

  playKey(state) {
    const mine = state.you !== null && state.you !== undefined && state.turn === state.you;
    if (state.phase !== "play" || !mine || !state.legal_plays) return null;
    return [state.game_number, state.position_id, state.dice.join("-"), state.rolls.length].join("|");
  }

  newBuilder(state) {
    const me = state.you;
    return new PlayBuilder(state.legal_plays, state.dice, state.board.points[me],
      mirror(state.board.points[1 - me]));
  }

  async verifyRolls(state) {
    const rolls = state.rolls || [];
    // A match this device holds to v2 (noteProtocol) shown as anything else: every roll this
    // state shows is checked as v2 where it can be, and ✗ protocol_downgraded.
    const downgraded = this.v2 && state.dice_protocol !== "v2";
    for (const roll of rolls) {
      if (!roll.server_seed || this.verdicts.has(roll.roll_id)) continue;
      const wait = (this.proofWait.get(roll.roll_id) || 0) - Date.now();
      if (wait > 0) { // "…" until then
        this.checkAgainIn(wait / 1000);
        continue;
      }
      this.verdicts.set(roll.roll_id, null);
      let verdict;
      try {
        verdict = await this.checkOne(state, roll, downgraded);
      } catch {
        // A check that failed on this device (a store it could not read, a bug): no verdict
        // ("…"), tried again shortly rather than left at "…" for the page's life.
        this.verdicts.delete(roll.roll_id);
        this.anchorRetry = Math.min(ANCHOR_RETRY_MAX_S,
          this.anchorRetry ? 2 * this.anchorRetry : ANCHOR_RETRY_S);
        this.checkAgainIn(this.anchorRetry);
        break;
      }
      if (verdict === "later") continue;
      if (verdict === "unsettled") break;
      this.verdicts.set(roll.roll_id, verdict);
      this.renderDice();
      this.moves.render();
    }
    await this.checkVoided(state);
  }

  /** One revealed roll's verdict; "later" where it waits for a proof (asked again by then)
   * or the log could not be fetched (asked again with the next state), "unsettled" where its
   * chain's check waits for this device's read of the log (asked again shortly). */
  async checkOne(state, roll, downgraded) {
    const known = await this.knownOf(roll.roll_id);
    if (roll.kind === undefined) {
      const verdict = await checkRoll(state.match_id, roll, known);
      if (this.v2) {
        // A v1-shaped roll in a match this device holds to v2: v1's guarantee only (no
        // opponent link, no chain), where the match promised v2's.
        verdict.problems.push("protocol_downgraded");
        verdict.ok = false;
      }
      return verdict;
    }
    // The roll's proof first: the link due for a v2 roll follows from the entries before
    // it, void ones included, which the match's state does not list; the proof carries
    // those after the ones this page checked (`preceding`, hash-chained to the roll).
    let logged = null;
    try {
      logged = await this.checkLogged(state.match_id, roll, this.tally);
      if (logged.retryAfter) {
        // No head signed over the roll's newest leaf yet (heads are signed at most once a
        // second or so): no verdict yet ("…"), asked again when the server says.
        this.verdicts.delete(roll.roll_id);
        this.proofWait.set(roll.roll_id, Date.now() + logged.retryAfter * 1000);
        this.checkAgainIn(logged.retryAfter);
        return "later";
      }
    } catch (err) {
      if (err instanceof ApiError) {
        // The log could not be fetched (a network problem, a busy server): no verdict
        // yet, tried again with the next state.
        this.verdicts.delete(roll.roll_id);
        return "later";
      }
    }
    const records = logged && Array.isArray(logged.records) ? logged.records : [];
    const since = (logged && logged.since) || this.tally;
    const verdict = await checkRollV2InRecord(state.match_id, roll, known, records, this.chain,
      state.you, since);
    if (verdict.unsettled) {
      // This device could not read the public log for its anchor's place: no verdict
      // yet ("…", never a ✗ for our own failed read), asked again shortly, then less
      // often (5, 10, 20 … 300 s). The rolls after it wait for that pass: each would
      // read the log again now.
      this.verdicts.delete(roll.roll_id);
      this.anchorRetry = Math.min(ANCHOR_RETRY_MAX_S,
        this.anchorRetry ? 2 * this.anchorRetry : ANCHOR_RETRY_S);
      this.checkAgainIn(this.anchorRetry);
      return "unsettled";
    }
    this.anchorRetry = 0;
    if (logged && logged.problems.length === 0) {
      // The entries before the roll chain into it and the log proves it: counted on.
      const counted = advanceTally(since, records.slice(0, -1));
      if (counted.seq > this.tally.seq) this.tally = counted;
    }
    if (logged) {
      verdict.problems.push(...logged.problems);
      verdict.checked.push(...logged.checked);
      verdict.treeSize = logged.treeSize;
    } else {
      verdict.problems.push("malformed"); // a proof that cannot be read, no Web Crypto
    }
    // A v2 roll in a state that calls the match something else (this device holds it to v2).
    if (downgraded) verdict.problems.push("protocol_downgraded");
    verdict.ok = verdict.problems.length === 0;
    return verdict;
  }

  /** A v2 roll this device asked to roll (as the roller: its entropy, stored before it left)
   * or sent its link for (as the opponent) that the match has moved past without revealing
   * it, looked up in the audit document once the document checks out against the public log
   * (recordProblems; otherwise, after a second read, those rolls are ✗ with its problems: the
   * server may be showing this device a record of its own). Listed with ✗ void_after_request,
   * a reroll after inputs the server may have held (a "busy" reroll):
   * - a roll the document holds void with another roll after it, whether or not it records
   *   the request (`requested_at`) or this device saw the roll `requested`: this device's
   *   input left for it, and the server, which starts a roll only once the one before it is
   *   played or void, voids an open roll only when its game or the match ends. Not flagged:
   *   a void last roll of a finished match (nothing was rolled in its place) and a void
   *   normal roll followed by an opening roll (the game ended during the wait, a resignation
   *   or a drop, and a new one began, which the match shows both players);
   * - a roll the document holds still open (committed, requested, revealed) with another
   *   roll after it: voided in all but name (verify.py: `left unresolved`), whatever the next
   *   roll's kind.
   * One the document does not hold at all is listed with ✗ roll_missing. */
  async checkVoided(state) {
    if (state.dice_protocol !== "v2" && !this.v2) return; // a v1 match (noteProtocol)
    const shown = new Set((state.rolls || []).map((r) => r.roll_id));
    const pending = state.pending_roll && state.pending_roll.roll_id;
    // A link kept with the chain (sent for the roll) counts as well: `known` may have lost it.
    const linked = (this.chain.stored && this.chain.stored.sent) || {};
    const ids = new Set([...Object.keys(this.known), ...Object.keys(linked)]);
    const asked = [...ids].filter((id) => {
      const k = this.known[id];
      return ((k && (k.entropy !== undefined || k.link !== undefined)) || linked[id] !== undefined)
        && id !== pending && !shown.has(id) && !this.verdicts.has(id) && !this.settled.has(id);
    });
    if (asked.length === 0) return;
    let doc;
    let problems = null;
    try {
      if (!this.logKey) this.logKey = (await request("GET", "/api/log/public-key")).public_key;
      // Only after a roll of ours that the match moved past unrevealed (rare): the whole
      // document, which says what became of it and whether another roll followed. Read again
      // once where it does not check out: it may have been read while the record changed.
      for (let attempt = 0; attempt < 2 && (!problems || problems.length); attempt++) {
        doc = await request("GET", `/api/audit/${encodeURIComponent(state.match_id)}`);
        problems = await recordProblems(state.match_id, doc, this.logKey, this.tally);
      }
    } catch {
      return; // tried again with the next state
    }
    if (problems.length) {
      for (const id of asked) {
        if (this.verdicts.has(id)) continue;
        this.settled.add(id);
        this.voided.push(id);
        this.verdicts.set(id, { ok: false, problems, checked: [] });
      }
      this.renderDice();
      return;
    }
    const entries = doc.rolls;
    for (const [index, entry] of entries.entries()) {
      if (!asked.includes(entry.roll_id)) continue;
      const next = entries[index + 1];
      const open = OPEN_STATES.includes(entry.state);
      if (!next && (open || (entry.state === "void" && state.phase !== "match_over"))) {
        continue; // nothing followed yet: looked at again with the next state
      }
      this.settled.add(entry.roll_id); // looked up once a roll follows it, or the match ended
      // An opening roll after a void normal roll opens a new game only where the first state
      // this device saw past the roll (`passed_game`, notePassed) shows a later game than
      // the one it sent its input in (`game_number`, kept with the input), settled then, not
      // by the state it checks in: kind is the server's word, and the same game's reroll
      // labelled `opening` is still a reroll, also to a device that looks only once the next
      // game began or the match ended. A game kept as null (the state gave none that is an
      // integer): not moved. A roll kept without its game (undefined: an older page): the
      // kinds decide. Without `passed_game` (not noted: an older page's entry), the state
      // now.
      const k = this.known[entry.roll_id] || {};
      const game = k.game_number;
      const passed = k.passed_game !== undefined ? k.passed_game : gameOf(state);
      const moved = game === undefined
        || (Number.isSafeInteger(game) && Number.isSafeInteger(passed) && passed > game);
      const newGame = entry.kind === "normal" && next && next.kind === "opening" && moved;
      if (!next || !(open || (entry.state === "void" && !newGame))) continue;
      if (this.verdicts.has(entry.roll_id)) continue; // another state's check got here first
      this.voided.push(entry.roll_id);
      this.verdicts.set(entry.roll_id, { ok: false, problems: ["void_after_request"],
        checked: [] });
    }
    // A roll of ours that the record does not hold at all: the server showed it and took our
    // input, then left it out (where a void after the request would at least be on record).
    const recorded = new Set(entries.map((e) => e.roll_id));
    for (const id of asked) {
      if (recorded.has(id) || this.verdicts.has(id)) continue;
      this.settled.add(id);
      this.voided.push(id);
      this.verdicts.set(id, { ok: false, problems: ["roll_missing"], checked: [] });
    }
    this.renderDice();
  }

  /** Check the rolls still without a verdict again in `seconds` (once, however many wait). */
  checkAgainIn(seconds) {
    if (this.logRetry || this.destroyed) return;
    this.logRetry = setTimeout(() => {
      this.logRetry = null;
      if (this.state) this.verifyRolls(this.state);
    }, Math.max(1, seconds) * 1000);
  }

  /** The public log's check of a v2 roll (dicelog.js) from the roll's own proof (its entry,
   * its leaves' inclusion proofs, the signed head: a few KB, where the match's whole audit
   * document grew with every roll). A proof read while the roll was changing (its newest leaf
   * signed, the roll read just before) is fetched again once. {retryAfter} (seconds) when
   * no signed head covers the roll's newest leaf yet. `tally`: the entries checked so far;
   * the proof is asked for those after them, or from the first (a new tally, returned as
   * `since`) for a roll at or before them (one checked out of order). */
  async checkLogged(matchId, roll, tally) {
    if (!this.logKey) {
      this.logKey = (await request("GET", "/api/log/public-key")).public_key;
    }
    const url = `/api/audit/${encodeURIComponent(matchId)}/rolls/`
      + `${encodeURIComponent(roll.roll_id)}/proof?after=`;
    let since = tally;
    let proof = await request("GET", url + since.seq);
    if (proof.covered !== false && proof.roll && proof.roll.seq <= since.seq) {
      since = startTally();
      proof = await request("GET", url + since.seq);
    }
    if (proof.covered === false) return { retryAfter: proof.retry_after || 1 };
    let logged = await checkInLog(matchId, roll, proof, this.logKey, since);
    if (logged.problems.length) {
      proof = await request("GET", url + since.seq);
      if (proof.covered === false) return { retryAfter: proof.retry_after || 1 };
      logged = await checkInLog(matchId, roll, proof, this.logKey, since);
    }
    return { ...logged, since };
  }

  // --- actions --------------------------------------------------------------------------------

  async act(action) {
    if (this.busy) return;
    this.busy = true;
    this.message = null;
    this.renderControls();
    try {
      const body = { action_id: actionId(), ...action };
      const answer = await request("POST", `/api/matches/${encodeURIComponent(this.matchId)}/actions`, body);
      this.busy = false;
      if (!(answer && answer.state && this.setState(answer.state))) this.renderControls();
    } catch (err) {
      this.busy = false;
      this.showError(err);
      // Drawn while the action was on its way (disabled); the refresh may fail too (an
      // outage), so draw them again now: the action must be sendable again.
      this.renderControls();
      this.refresh();
    }
  }

  roll() {
    const pending = this.state.pending_roll;
    // The entropy this page or another page of the match on this device sent for this roll.
    const mine = this.known[pending.roll_id];
    const entropy = rollEntropy(mine && mine.entropy !== undefined ? this.known
      : this.storedKnown(), pending.roll_id);
    // Stored before sending, and reused by every retry of this roll: the reveal must hold
    // exactly this entropy and the promised nonce.
    // With the game it was asked in: a void roll of ours followed by an opening roll passes
    // only where the match has moved to a later game since (checkVoided).
    // A game number the state does not give as an integer is kept as null ("not moved").
    // The nonce and commitment first shown for the roll stay (promise): a roll shown again
    // under another seed must not have this device's entropy under the new one and a ✓ (the
    // request carries the first commitment, which the server refuses, and the reveal's check
    // says commitment_changed).
    const first = mine && typeof mine.commitment === "string" ? mine : pending;
    this.known[pending.roll_id] = { nonce: first.nonce, commitment: first.commitment, entropy,
      game_number: gameOf(this.state) };
    this.saveKnown();
    this.act({ type: "roll", roll_id: pending.roll_id, commitment: first.commitment, entropy });
  }

  sendPlay() {
    if (!this.builder) return;
    const play = this.builder.complete();
    if (!play) {
      this.message = { text: t("match.incomplete", { n: this.builder.stepsLeft() }), cls: "refusal" };
      this.renderStatus();
      return;
    }
    this.act({ type: "play", play: play.notation });
  }

  undo() {
    if (!this.builder || !this.builder.undo()) return;
    this.selected = null;
    this.message = null;
    this.render();
  }

  tap(point) {
    const b = this.builder;
    if (!b || this.busy || this.viewing) return;
    if (this.selected !== null && b.destinations(this.selected).includes(point)) {
      this.step(this.selected, point);
    } else if (this.selected === point) {
      this.selected = null;
    } else if (b.sources().includes(point)) {
      const dests = b.destinations(point);
      if (dests.length === 1) this.step(point, dests[0]);
      else this.selected = point;
    } else {
      this.selected = null;
    }
    this.message = null;
    this.render();
  }

  step(from, to) {
    this.builder.move(from, to);
    this.selected = null;
    if (this.auto && this.builder.complete()) this.sendPlay();
  }

  toggleAuto() {
    this.auto = !this.auto;
    savePreference("bg.auto", this.auto ? "1" : "0");
    if (this.auto && this.builder && this.builder.complete()) this.sendPlay();
    this.renderControls();
  }

  showError(err) {
    if (this.missing) return; // "there is no match" stays
    const text = errorText(err); // the code's sentence in the page's language, where there is one
    // An outage is the server's fault and costs no clock time: say so rather than echo it.
    // A dice record that cannot be read holds the match until the operator repairs it.
    // No answer at all (offline, the server down): the browser's own words ("Failed to fetch")
    // are neither translated nor helpful; the page says what to do, and the message goes once a
    // new socket connection brings the server's state (setState).
    const key = err.code === "database_unavailable" ? "error.database_unavailable"
      : err.code === "record_corrupt" ? "error.record_corrupt"
        : err.code === "network" ? "error.network" : "error.generic";
    this.message = { text: t(key, { message: text }), cls: "error",
      transient: err.code === "network" || err.code === "database_unavailable" };
    this.renderStatus();
  }

  // --- rendering ------------------------------------------------------------------------------

  seats() {
    const s = this.state;
    const me = s.you === null || s.you === undefined ? 0 : s.you;
    return { me, opp: 1 - me, player: s.you === 0 || s.you === 1 };
  }

  /** The cube as the board draws it from seat `me`'s side (`null`: centred), or null in a
   * 1-point match, which has no cube (money play and the Crawford game keep it in view). */
  cubeView(me) {
    const s = this.state;
    if (s.length === 1) return null;
    const owner = s.cube.owner;
    return { value: s.cube.value, side: owner === null || me === null ? "centre" : owner === me ? "me" : "them" };
  }

  name(seat) {
    const p = this.state.players[seat];
    if (!p) return "?";
    // The server already names the computer by its level ("Computer (easy)"); say it once,
    // in the page's language, from the level rather than appending to that name.
    return p.bot ? t("match.bot", { level: t(`level.${p.bot}`) }) : playerName(p.username);
  }

  render() {
    if (!this.state) return;
    this.renderBoard();
    this.skipBar.hidden = !this.playback.active;
    this.renderPast();
    this.renderLastPlay();
    this.renderPlayers();
    this.renderStatus();
    this.renderControls();
    this.renderDice();
    this.renderChain();
    this.renderResult();
  }

  renderBoard() {
    const s = this.state;
    if (!s) return;
    const { me, opp } = this.seats();
    const options = boardOptions();
    this.svg.setAttribute("class", `board colours-${options.colours}`);
    delete this.svg.dataset.playback;
    if (this.viewing) {
      const [mine, theirs] = [this.viewing.board[me], mirror(this.viewing.board[opp])];
      // The turn's dice stay beside its position, on its mover's side (its moves are not marked).
      const dice = this.viewing.dice ? lastDice({ dice: this.viewing.dice, seat: this.viewing.seat }, me)
        : null;
      renderBoard(this.svg, { mine, theirs, dice, cube: this.cubeView(null),
        sources: new Set(), destinations: new Set(), selected: null, flip: options.flip }, () => {});
      return;
    }
    if (this.playback.active) {
      this.renderPlayback(me, opp, options);
      return;
    }
    const position = this.builder ? this.builder.position()
      : { mine: s.board.points[me], theirs: mirror(s.board.points[opp]) };
    const sources = new Set(this.builder ? this.builder.sources() : []);
    const destinations = new Set(this.builder && this.selected !== null
      ? this.builder.destinations(this.selected) : []);
    let dice = null;
    // An opening roll is one die of each side: seat 0's, then seat 1's, each in its colour.
    const sides = [0, 1].map((seat) => (seat === me ? "me" : "them"));
    if (s.dice && (s.phase === "play" || s.phase === "opening")) {
      const opening = this.openingToPlay();
      const values = opening || (s.dice[0] === s.dice[1] ? [...s.dice, ...s.dice] : s.dice.slice());
      const used = values.map(() => false);
      for (const die of this.builder ? this.builder.usedDice() : []) {
        const i = values.findIndex((v, k) => v === die && !used[k]);
        if (i >= 0) used[i] = true;
      }
      dice = { values, used, side: s.turn === opp ? "them" : "me", sides: opening ? sides : undefined };
    } else if (s.phase === "opening") {
      // After a tie both dice stay in view until the re-roll.
      const openings = this.moves.openings(s.game_number);
      const last = openings[openings.length - 1];
      if (last) dice = { values: last, used: [false, false], side: "me", sides, last: true };
    } else {
      dice = lastDice(s.last_play, me);
      // The game's first play was of the opening roll: its dice stay one of each side's.
      const opening = this.openingOfLastPlay();
      if (dice && opening) dice = { ...dice, values: opening, used: [false, false], sides };
    }
    const cube = this.cubeView(me);
    const focused = this.svg.contains(document.activeElement)
      ? document.activeElement.getAttribute("data-point") : null;
    renderBoard(this.svg, { ...position, dice, cube, sources, destinations, selected: this.selected,
      marks: lastMarks(s.last_play, me), flip: options.flip }, (p) => this.tap(p));
    if (focused !== null) {
      const again = this.svg.querySelector(`[data-point="${focused}"][tabindex="0"]`)
        || this.svg.querySelector(".hit.dest, .hit.movable");
      if (again) again.focus();
    }
  }

  /** The opening roll being played ([seat 0's die, seat 1's]): the game's last opening roll
   * while no play of the game is made yet and the dice to play are its dice; else null. */
  openingToPlay() {
    const s = this.state;
    const game = this.moves.games[s.game_number - 1];
    if (s.phase !== "play" || !s.dice || !game || game.lines.length) return null;
    const last = game.opening[game.opening.length - 1];
    const sorted = (d) => d.slice().sort().join();
    return last && last[0] !== last[1] && sorted(last) === sorted(s.dice) ? last : null;
  }

  /** The opening roll ([seat 0's die, seat 1's]) that the last play played, if it did (the
   * last revealed roll is an opening roll with the play's dice); else null. */
  openingOfLastPlay() {
    const s = this.state;
    const rolls = (s.rolls || []).filter((r) => r.server_seed);
    const roll = rolls[rolls.length - 1];
    const sorted = (d) => d.slice().sort().join();
    return s.last_play && roll && roll.kind === "opening" && sorted(roll.dice) === sorted(s.last_play.dice)
      ? roll.dice : null;
  }

  /** The other side's play, the moves made so far (data-playback "done/total" for tests);
   * a tap anywhere on the board shows the end. */
  renderPlayback(me, opp, options) {
    const s = this.state;
    const board = this.playback.board();
    const { done, total } = this.playback.progress();
    const dice = lastDice(s.last_play, me);
    dice.used = dice.values.map((_, i) => i < done);
    dice.last = false;
    renderBoard(this.svg, { mine: board[me], theirs: mirror(board[opp]), dice,
      cube: this.cubeView(me),
      sources: new Set(), destinations: new Set(), selected: null,
      marks: lastMarks({ ...s.last_play, moves: s.last_play.moves.slice(0, done) }, me),
      flip: options.flip }, () => this.playback.skip());
    this.svg.dataset.playback = `${done}/${total}`;
  }

  playbackChanged() {
    this.renderBoard();
    this.skipBar.hidden = !this.playback.active;
  }

  /** The read-only banner over a past turn, with the way back to the live board. */
  renderPast() {
    this.pastBar.hidden = !this.viewing;
    if (!this.viewing) return;
    fill(this.pastBar, h("span", {}, t("moves.viewing", { turn: this.viewing.label })),
      h("button", { type: "button", "data-action": "live", class: "primary", "aria-keyshortcuts": "Escape",
        onclick: () => this.backToLive() },
        t("moves.back")));
  }

  /** Who played what last (or the opening roll before the game's first play). */
  renderLastPlay() {
    const s = this.state;
    if (!s) return;
    const last = s.last_play;
    const said = ([a, b]) => t(a === b ? "moves.opening.tie" : "moves.opening",
      { first: this.name(0), a, second: this.name(1), b });
    if (last) {
      // The game's first play says the opening roll it played (one die of each side) and the
      // ties before it: the computer rolls again at once after a tie and plays.
      const opening = this.openingOfLastPlay();
      const ties = opening ? this.moves.openings(s.game_number).filter(([a, b]) => a === b) : [];
      this.lastLine.textContent = (opening ? `${[...ties, opening].map(said).join(" · ")} · ` : "")
        + lastPlayText(last, this.name(last.seat));
      return;
    }
    const openings = this.moves.openings(s.game_number);
    this.lastLine.textContent = openings.length ? said(openings[openings.length - 1]) : "";
  }

  renderPlayers() {
    const s = this.state;
    const { me, opp } = this.seats();
    const over = s.phase === "match_over";  // a finished match has no Crawford game
    const crawford = over ? "" : s.crawford ? t("match.crawford") : s.post_crawford ? t("match.postcrawford") : "";
    // Once over, the final score as the result dialog says it (the winner's capped at the
    // length, also after a flag), not the points as scored (0–2 for a 1-point gammon).
    const score = over && s.result ? s.result.score : s.score;
    fill(this.scoreLine, h("span", { class: "score-text" },
      t("match.score", { a: score[me], b: score[opp], length: s.length })),
    crawford ? h("span", { class: "crawford" }, glossaryLink("crawford", crawford)) : null,
    this.cubeView(me) ? h("span", { class: "cube-info" }, glossaryLink("cube", t("match.cube", { value: s.cube.value })), " · ",
      s.cube.owner === null ? t("match.cube.centre") : t("match.cube.owner", { name: this.name(s.cube.owner) })) : null);
    // A past turn shown from the move list: its pip counts and borne-off checkers, not the live ones.
    const points = this.viewing ? this.viewing.board : s.board?.points;
    const pips = this.viewing ? this.viewing.board.map(pipCount) : s.pip_counts;
    for (const [panel, seat] of [[this.top, opp], [this.bottom, me]]) {
      panel.dataset.seat = seat;
      panel.classList.toggle("on-turn", s.turn === seat);
      fill(panel,
        h("span", { class: "name" }, this.name(seat), seat === s.you ? ` (${t("match.you")})` : ""),
        h("span", { class: "score" }, String(score[seat])),
        h("span", { class: "pips", "data-pips": pips[seat] },
          glossaryLink("pip-count", t("match.pips", { n: pips[seat] }))),
        points?.[seat][0] ? h("span", { class: "off", "data-off": points[seat][0] },
          glossaryLink("bear-off", `${t("point.off")}: ${points[seat][0]}`)) : null,
        h("span", { class: "clock", "data-clock-seat": seat }));
    }
    this.renderClocks();
  }

  renderClocks() {
    const s = this.state;
    if (!s) return;
    let counting = false; // a first move of the match counted down
    for (const node of this.root.querySelectorAll("[data-clock-seat]")) {
      const seat = Number(node.dataset.clockSeat);
      if (s.clocks) {
        const over = ["game_over", "match_over"].includes(s.phase);  // no clock runs
        const elapsed = (performance.now() - this.receivedAt) / 1000;
        const { delayLeft, reserve } = over
          ? { delayLeft: null, reserve: s.clocks.reserve[seat] }
          : clockAfter(s.clocks, seat, elapsed);
        // A first move of the match not made in time aborts it (docs/api.md §A match, Abort).
        const firstLeft = !over && delayLeft !== null && s.clocks.first_move_left != null
          ? Math.max(0, Math.min(s.clocks.first_move_left - elapsed, delayLeft + reserve)) : null;
        node.classList.toggle("running", delayLeft !== null);
        node.classList.toggle("in-delay", delayLeft !== null && delayLeft > 0);
        node.classList.toggle("first-move", firstLeft !== null);
        if (firstLeft !== null) node.title = t("match.firstmove.why");
        else node.removeAttribute("title");
        counting ||= firstLeft !== null;
        node.textContent = firstLeft !== null ? t("match.firstmove", { t: clockText(firstLeft) })
          : delayLeft !== null && delayLeft > 0
            ? `${t("match.delay", { t: clockText(delayLeft) })} · ${t("match.reserve", { t: clockText(reserve) })}`
            : t("match.reserve", { t: clockText(reserve) });
      } else if (s.deadline && s.turn === seat) {
        node.textContent = t("match.deadline", { time: new Date(s.deadline).toLocaleString() });
      } else {
        node.textContent = "";
      }
    }
    this.firstMoveNote.hidden = !counting;
    if (counting) this.firstMoveNote.textContent = t("match.firstmove.why");
  }

  statusText() {
    const s = this.state;
    const { me, opp, player } = this.seats();
    const myTurn = player && s.turn === me;
    const dice = s.dice ? s.dice.join("-") : "";
    switch (s.phase) {
      case "opening": {
        // A live v2 match's first roll is committed once both devices registered their chains
        // (or after a few seconds without one): until then there is nothing to roll.
        if (s.dice_protocol === "v2" && !s.pending_roll && !(s.rolls || []).length) {
          return t("match.opening.anchors");
        }
        const openings = this.moves.openings(s.game_number);
        const last = openings[openings.length - 1];
        // Each side rolls one die in turn: say whose die it is, to the one waiting too.
        const who = s.turn === null || s.turn === undefined ? t("match.opening")
          : myTurn ? t("match.opening.yours") : t("match.opening.theirs", { name: this.name(s.turn) });
        return last && last[0] === last[1] ? `${t("match.opening.tied", { a: last[0] })} ${who}` : who;
      }
      case "roll":
        // A v2 roll asked for: the dice wait for the opponent's device (its link), or for the
        // end of the server's short wait for it.
        if (s.pending_roll && s.pending_roll.state === "requested" && player) {
          return s.pending_roll.seat === s.you ? t("match.rolling.yours")
            : t("match.rolling.theirs", { name: this.name(s.pending_roll.seat) });
        }
        return myTurn ? t("match.yourroll") : t("match.theirturn", { name: this.name(s.turn) });
      case "play":
        if (!myTurn) return t("match.theirturn", { name: this.name(s.turn) });
        if (this.builder && this.builder.dance) return t("match.dance", { dice });
        if (this.builder && this.builder.complete()) return t("match.complete");
        return this.selected !== null ? t("match.pickdest") : `${t("match.yourplay", { dice })} ${t("match.pickchecker")}`;
      case "double_offered":
        // `turn` is the seat that must act: while a double is offered, the one to take or drop.
        return player && !myTurn ? t("match.yourdouble", { value: s.cube.value * 2 })
          : t("match.doubleoffer", { name: this.name(1 - s.turn), value: s.cube.value * 2 });
      case "resign_offered": {
        const r = s.resignation || {};
        return player && r.seat === me ? t("match.yourresignoffer", { points: r.points })
          : t("match.resignoffer", { name: this.name(r.seat ?? opp), points: r.points });
      }
      case "match_over":
        return t("result.title");
      default:
        return player ? "" : t("match.spectator");
    }
  }

  renderStatus() {
    if (!this.state && !this.message) return;
    this.status.textContent = this.message ? this.message.text : this.statusText();
    this.status.className = `status ${this.message ? this.message.cls : ""}`;
  }

  renderControls() {
    const s = this.state;
    if (!s) return;
    if (this.viewing) {  // a past position is read-only: act from the live board
      fill(this.controls);
      return;
    }
    const { me, player } = this.seats();
    const buttons = [];
    const button = (label, onclick, attrs = {}) =>
      h("button", { type: "button", onclick, disabled: this.busy, ...attrs }, label);
    if (player) {
      const myTurn = s.turn === me;
      // A v2 roll already asked for waits for the opponent's device: no second roll, no cube.
      const asked = !!s.pending_roll && s.pending_roll.state === "requested";
      const rollable = s.pending_roll && !asked && myTurn
        && (s.phase === "roll" || s.phase === "opening");
      if (s.phase === "roll" && myTurn && s.cube.available && !asked) {
        buttons.push(button(t("match.double"), () => this.act({ type: "double" }), { "data-action": "double" }));
      }
      if (rollable) {
        buttons.push(button(t("match.roll"), () => this.roll(), { "data-action": "roll", class: "primary" }));
      }
      if (s.phase === "play" && myTurn && this.builder) {
        if (this.builder.dance) {
          buttons.push(button(t("match.dance.record"), () => this.sendPlay(), { "data-action": "dance", class: "primary" }),
            glossaryLink("dance", t("match.dance.term")));
        } else {
          const done = !!this.builder.complete();
          buttons.push(button("↶ " + t("match.undo"), () => this.undo(),
            { "data-action": "undo", "aria-disabled": this.builder.done.length === 0 ? "true" : "false" }));
          // aria-disabled, not disabled: the button stays focusable and says why it refuses.
          buttons.push(button(t("match.send"), () => this.sendPlay(),
            { "data-action": "send", class: "primary", "aria-disabled": done ? "false" : "true" }));
        }
      }
      if (s.phase === "double_offered" && myTurn) {
        buttons.push(button(t("match.take"), () => this.act({ type: "take" }), { "data-action": "take", class: "primary" }));
        buttons.push(button(t("match.drop"), () => this.act({ type: "drop" }), { "data-action": "drop" }));
      }
      if (s.phase === "resign_offered" && myTurn) {
        buttons.push(button(t("match.acceptresign"), () => this.act({ type: "accept_resign" }), { "data-action": "accept-resign" }));
        buttons.push(button(t("match.declineresign"), () => this.act({ type: "decline_resign" }), { "data-action": "decline-resign" }));
      }
      if (["opening", "roll", "play", "double_offered"].includes(s.phase)) {
        buttons.push(button("⚡ " + t("match.auto"), () => this.toggleAuto(),
          { "data-action": "auto", "aria-pressed": this.auto ? "true" : "false" }));
      }
      // The engine takes a resignation once the opening roll is made (Game.resign): before
      // it the server answers "cannot resign now"; nor while a requested v2 roll waits for
      // the opponent's link (wrong_phase), as with the cube.
      if (["roll", "play", "double_offered"].includes(s.phase) && !asked) {
        buttons.push(this.resignControls(button));
      } else {
        this.resignMenu = false;
      }
    }
    keep(this.controls, ...buttons);  // a control unchanged stays the same element
  }

  resignControls(button) {
    if (!this.resignMenu) {
      return button(t("match.resign"), () => { this.resignMenu = true; this.renderControls(); },
        { "data-action": "resign", "aria-expanded": "false" });
    }
    const choose = (points) => {
      this.resignMenu = false;
      this.act({ type: "resign", points });
    };
    return h("span", { class: "resign-menu", role: "group" },
      [1, 2, 3].map((n) => button(t(`match.resign.${n}`), () => choose(n), { "data-resign": n })),
      button(t("match.resign.cancel"), () => { this.resignMenu = false; this.renderControls(); }));
  }

  /**
   * A roll's ✓/✗ mark, with what this device checked (✓) or what failed (✗) as its tooltip.
   * The mark is a button that opens the same in words below it, for a phone, which has no
   * hover: [mark, panel]; open or closed as the player left it, whatever states arrive
   * (checksOpen). `list`: where it is, "log" or "result" (a dice record's row), "turn" (the
   * current roll's, beside the status line).
   */
  verdictMark(roll, list) {
    const v = this.verdicts.get(roll.roll_id);
    if (v === undefined || v === null) return h("span", { class: "verdict pending" }, t("dice.pending"));
    // ⚠: every check held, but something this device did itself needs saying (its link late).
    const warned = v.ok && v.warnings && v.warnings.length > 0;
    const checks = v.checked.map((c) => t(`dice.check.${c}`, { size: v.treeSize }));
    const notes = (v.warnings || []).map((w) => t(`dice.problem.${w}`));
    const problems = v.ok ? [] : v.problems.map((p) => t(`dice.problem.${p}`));
    const title = (v.ok ? [...notes, ...checks] : [...problems, ...notes]).join("; ");
    const verdict = !v.ok ? "failed" : warned ? "warned" : "ok";
    const text = { failed: `✗ ${t("dice.failed")}`, warned: `⚠ ${t("dice.warned")}`,
      ok: `✓ ${t("dice.ok")}` }[verdict];
    const attrs = { class: `verdict ${verdict}`, title, "data-verdict": verdict };
    const key = `${list} ${roll.roll_id}`;
    const open = this.checksOpen.has(key);
    // A list without <li>: the record's rows are its only list items (`.dice-log li`).
    const section = (head, items) => (items.length ? [h("p", {}, t(head)),
      h("div", { role: "list" }, items.map((x) => h("div", { role: "listitem" }, x)))] : null);
    const panel = h("div", { class: `checks ${verdict}`, id: `checks-${list}-${roll.roll_id}`,
      hidden: !open },
      section("dice.checks.failed", problems), section("dice.checks.notes", notes),
      section("dice.checks.held", checks));
    const mark = h("button", { ...attrs, type: "button", "aria-expanded": String(open),
      "aria-controls": panel.id }, text);
    mark.addEventListener("click", () => {
      const opening = !this.checksOpen.has(key);
      if (opening) this.checksOpen.add(key);
      else this.checksOpen.delete(key);
      mark.setAttribute("aria-expanded", String(opening));
      panel.hidden = !opening;
    });
    return [mark, panel];
  }

  /** One revealed roll of the dice record, linked to its row on the audit page: who rolled
   * what (an opening roll as each side's die, seat 0's first, a tie said as one), whose
   * entropy, and this device's verdict; `list`: which record it is in (verdictMark). */
  rollItem(roll, list) {
    const row = `/audit/${encodeURIComponent(this.matchId)}?lang=${lang()}#${encodeURIComponent(roll.roll_id)}`;
    const [a, b] = roll.dice;
    const text = roll.kind === "opening"
      ? t(a === b ? "moves.opening.tie" : "moves.opening", { first: this.name(0), a, second: this.name(1), b })
      : `${this.name(roll.seat)}: ${roll.dice.join("-")}`;
    return h("li", { "data-roll": roll.roll_id, "data-kind": roll.kind || "normal" },
      h("a", { href: row, class: "roll-row" }, text), " ",
      h("small", { class: "contributors" }, `(${this.contributors(roll)})`), " ",
      this.verdictMark(roll, list));
  }

  /** Whose input went into a roll, from its own fields (docs/fair-dice.md §Terms (v2)): the
   * server's seed always; the roller's device where its entropy came from a device (v1
   * `entropy_source`, v2 `roller_source` "client"; "server" for the computer's); the
   * opponent's device where it revealed its link (v2 `opponent_source` "client"), or that it
   * did not answer in time ("absent"; in a correspondence match, that it is not asked). */
  contributors(roll) {
    const opponent = 1 - roll.seat;
    const who = [t("dice.by.server")];
    if ((roll.roller_source || roll.entropy_source) === "client") {
      who.push(t("dice.by.device", { name: this.name(roll.seat) }));
    }
    if (roll.opponent_source === "client") who.push(t("dice.by.device", { name: this.name(opponent) }));
    const s = this.state;
    // Where we are the opponent and another device keeps our chain, this one could not answer.
    const elsewhere = s && opponent === s.you && this.chain.stored && this.chain.stored.other_chain;
    const absent = elsewhere ? "dice.by.absent.elsewhere"
      : s && s.mode === "correspondence" ? "dice.by.absent.turn" : "dice.by.absent";
    return roll.opponent_source === "absent"
      ? t(absent, { who: who.join(" · "), name: this.name(opponent) })
      : t("dice.by", { who: who.join(" · ") });
  }

  /** A roll this device took part in that ended void, with its verdict (void_after_request),
   * linked to its row on the audit page. */
  voidItem(roll) {
    const row = `/audit/${encodeURIComponent(this.matchId)}?lang=${lang()}#${encodeURIComponent(roll.roll_id)}`;
    return h("li", { "data-roll": roll.roll_id, "data-state": "void" },
      h("a", { href: row, class: "roll-row" }, `${roll.roll_id}: ${t("dice.void")}`), " ",
      this.verdictMark(roll, "log"));
  }

  renderDice() {
    const s = this.state;
    if (!s) return;
    const rolls = (s.rolls || []).filter((r) => r.server_seed);
    const voided = this.voided.map((id) => ({ roll_id: id, dice: null }));
    // A row drawn as before stays the same element: focused, half tapped, its checks open.
    keepRows(this.log, (li) => `${li.dataset.roll} ${li.dataset.state || ""}`,
      [...rolls.map((r) => this.rollItem(r, "log")), ...voided.map((r) => this.voidItem(r))]);
    const failed = [...rolls, ...voided].filter(
      (r) => this.verdicts.get(r.roll_id) && !this.verdicts.get(r.roll_id).ok);
    fill(this.alert, ...failed.map((r) => h("p", {},
      t("dice.warning", { roll: `${r.roll_id} (${r.dice ? r.dice.join("-") : t("dice.void")})`,
        problems: this.verdicts.get(r.roll_id).problems.map((p) => t(`dice.problem.${p}`)).join("; ") }))));
    const last = rolls[rolls.length - 1];
    const sorted = (d) => d.slice().sort().join();
    const current = last && s.phase === "play" && s.dice && sorted(last.dice) === sorted(s.dice);
    // Drawn again only when it changed: a mark tapped as a state arrives keeps its tap.
    keepRows(this.diceMark, (e) => e.dataset.roll,
      current ? [h("span", { class: "turn-check", "data-roll": last.roll_id },
        this.verdictMark(last, "turn"))] : []);
    if (!this.result.hidden) this.renderResult();
  }

  /** The Rematch control for a player of the finished match (none for a spectator). */
  rematchNode() {
    const { me, player } = this.seats();
    if (!player) return null;
    this.rematch ||= new Rematch(this.matchId, me, (seat) => this.name(seat),
      (id) => this.navigate(`/match/${id}`));
    return this.rematch.node;
  }

  /** Each player's rating before and after this match, from their profiles' rating histories
   * (docs/api.md §Players): neither the match_end event nor the state carries it. Asked once;
   * an unrated match, a guest or the computer has no entry, and nothing is shown. */
  loadRatingChanges(s) {
    if (this.ratingChanges !== undefined) return;
    this.ratingChanges = null;
    const change = (p) => request("GET", `/api/players/${encodeURIComponent(p.username)}`)
      .then((profile) => {
        const entry = profile.ratings.filter((r) => r.variant === s.variant)
          .flatMap((r) => r.history).find((e) => e.match_id === s.match_id);
        return entry ? { seat: p.seat, before: entry.before, after: entry.after } : null;
      })
      .catch(() => null);
    Promise.all(s.players.filter((p) => !p.bot).map(change)).then((changes) => {
      this.ratingChanges = changes.filter(Boolean);
      if (this.ratingChanges.length && !this.result.hidden) this.renderResult();
    });
  }

  /** The result dialog at the top of the page, scrolled into view when the match ends: the
   * winner, the final score, the match ID to copy, the audit link, the chain head, the
   * analysis, the rematch and the way back; then the games and the verified rolls. */
  renderResult() {
    const s = this.state;
    if (s.phase !== "match_over" || !s.result) {
      this.result.hidden = true;
      return;
    }
    const r = s.result;
    const { me, opp } = this.seats();
    const rolls = (s.rolls || []).filter((x) => x.server_seed);
    const idNode = h("code", { class: "match-id" }, s.match_id);
    const copy = copyButton(s.match_id, idNode, t("result.copy"), t("result.copied"));
    const base = `/api/matches/${encodeURIComponent(s.match_id)}`;
    if (!this.logHead && !this.logHeadAsked) {
      // Reloaded after the end: the match_end event that carried the head is gone; ask once.
      this.logHeadAsked = true;
      request("GET", `/api/audit/${encodeURIComponent(s.match_id)}/head`)
        .then((answer) => {
          if (!answer.head || this.logHead) return;
          this.logHead = answer.head;
          if (!this.result.hidden) this.renderResult();
        })
        .catch(() => {}); // a match from before the log has none: the line stays out
    }
    this.loadRatingChanges(s);
    const verdicts = rolls.map((x) => this.verdicts.get(x.roll_id));
    const failed = verdicts.filter((v) => v && !v.ok).length;
    const checked = failed ? t("result.dice.failed", { n: failed })
      : verdicts.every((v) => v) ? t("result.dice.verified") : t("dice.pending");
    const diceLog = h("details", { class: "dice-record", open: this.diceOpen || undefined },
      h("summary", {}, h("h3", {}, t("result.dice", { n: rolls.length, checked }))),
      h("ol", { class: "verify-list" }, rolls.map((x) => this.rollItem(x, "result"))));
    // The dialog is drawn again as verdicts come in: an opened record stays open.
    diceLog.addEventListener("toggle", () => { this.diceOpen = diceLog.open; });
    const first = this.result.hidden;
    this.result.hidden = false;
    // Aborted (a first move never made): nobody won, no rating moved, nothing to analyse.
    const aborted = r.aborted !== null && r.aborted !== undefined;
    fill(this.result,
      h("h2", { id: "result-title" }, t(aborted ? "result.aborted.title" : "result.title")),
      h("p", { class: "result-id" }, `${t("result.matchid")}: `, idNode, " ", copy),
      aborted ? h("p", { class: "aborted" }, r.aborted === s.you ? t("result.aborted.you")
        : t("result.aborted", { name: this.name(r.aborted) }))
        : h("p", { class: "winner" }, t("result.winner", { name: this.name(r.winner) })),
      aborted ? null : h("p", { class: "final-score" }, t("result.score", {
        na: this.name(me), a: r.score[me], b: r.score[opp], nb: this.name(opp) })),
      (this.ratingChanges || []).slice().sort((x, y) => (x.seat === me ? -1 : y.seat === me ? 1 : 0))
        .map((c) => h("p", { class: "rating-change", "data-seat": c.seat }, t("result.rating", {
          name: this.name(c.seat), before: Math.round(c.before), after: Math.round(c.after),
          change: signed(Math.round(c.after) - Math.round(c.before), 0) }))),
      h("p", { class: "result-links" },
        h("a", { href: `${r.audit_url || `/audit/${s.match_id}`}?lang=${lang()}`, class: "audit-link" },
          t("dice.verify.title")),
        aborted ? null : " ",
        aborted ? null : this.analysisLink ||= analysisButton(s.match_id, r.analysis_url || undefined)),
      r.chain_head ? h("p", {}, `${t("result.chainhead")}: `, h("code", { class: "chain-head" }, r.chain_head)) : null,
      h("p", { class: "result-actions" },
        this.rematchNode(),
        h("a", { href: "/", "data-link": "", class: "button lobby-link" }, t("result.lobby"))),
      h("h3", {}, t("result.games")),
      h("ol", { class: "games" }, (s.games || []).map((g) => h("li", { "data-how": g.how },
        ["flag", "forfeit", "abort"].includes(g.how)  // no points: it ends the match
          ? t(`result.game${g.how}`, { n: g.game_number, name: this.name(g.winner) })
          : t("result.game", { n: g.game_number, name: this.name(g.winner), points: g.points, how: t(`how.${g.how}`) })))),
      h("p", {}, h("a", { href: `/fair?lang=${lang()}`, class: "fair-link" }, t("result.fair"))),
      // The public log's signed head that includes this match (sent with the match's end).
      this.logHead ? h("p", { class: "log-head" }, t("result.loghead", { size: this.logHead.tree_size }),
        " ", h("code", {}, this.logHead.root_hash)) : null,
      // Links apart by the row's gap, not by a "·" that a wrapped row would leave at a line's edge.
      h("p", { class: "downloads" }, h("span", {}, `${t("result.download")}:`),
        h("a", { href: `${base}/export.mat`, download: `${s.match_id}.mat` }, t("result.mat")),
        h("a", { href: `${base}/export.json`, download: `${s.match_id}.json` }, t("result.json"))),
      // Last and closed: a long match has dozens of rolls, and everything above must stay in
      // view (on a phone the open list made the dialog thousands of pixels tall).
      diceLog);
    if (first) {
      this.result.scrollIntoView({ block: "start" });
      this.result.focus({ preventScroll: true });
    }
  }
}
