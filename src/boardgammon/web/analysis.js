// The match analysis sheet (route /match/{match_id}/analysis) and the result screen's "Match
// analysis" button. Both read GET /api/matches/{id}/analysis (docs/api.md, "Match analysis"),
// polling while the server's worker is still at it: "pending", then "done" or "failed". The
// sheet goes on polling, more slowly, while a deeper pass is to replace what it shows
// (`deeper`), and then shows the deeper one where the reader was.

import { ApiError, request } from "./api.js";
import { renderBoard } from "./board.js";
import { fill, h, shownId } from "./dom.js";
import { glossaryLink } from "./glossary.js";
import { errorText, lang, playerName, t } from "./i18n.js";
import { mirror } from "./moves.js";

const POLL_MS = 2000;
const DEEPER_POLL_MS = 10000;

function analysisPath(matchId) {
  return `/api/matches/${encodeURIComponent(matchId)}/analysis`;
}

/** The sheet's address in this client. */
export function analysisRoute(matchId) {
  return `/match/${encodeURIComponent(matchId)}/analysis`;
}

/**
 * The result screen's link to the sheet, styled as a button. Its label carries the number of
 * blunders of both players once the analysis is done ("analysing…" before); it polls by itself
 * until then and stops once it has left the page.
 */
export function analysisButton(matchId, href = analysisRoute(matchId)) {
  const count = h("span", { class: "analysis-count" }, t("analysis.pending"));
  const link = h("a", { href, class: "analysis-link button", "data-link": "" },
    t("result.analysis"), " · ", count);
  let first = true;
  const poll = async () => {
    if (!first && !link.isConnected) return;
    first = false;
    let answer;
    try {
      answer = await request("GET", analysisPath(matchId));
    } catch {
      count.textContent = t("analysis.unavailable");
      return;
    }
    if (answer.status === "done") {
      link.dataset.blunders = answer.blunders;
      count.textContent = t("analysis.blunders", { n: answer.blunders });
    } else if (answer.status === "failed") {
      count.textContent = t("analysis.failed.short");
    } else {
      setTimeout(poll, POLL_MS);
    }
  };
  poll();
  return link;
}

/**
 * Decode a gnubg Position ID (as boardgammon.engine.ids does): 80 bits, least significant bit
 * of each byte first; for the side not on roll, then the side on roll, each of its 25 places
 * (points 1–24 in its own numbering, then the bar) as that many 1-bits and a 0-bit.
 * Returns [onRoll, notOnRoll], each 25 counts (index 0–23 points 1–24, 24 the bar).
 */
export function decodePositionId(id) {
  const bytes = Array.from(atob(id + "=="), (c) => c.charCodeAt(0));
  const rows = [new Array(25).fill(0), new Array(25).fill(0)];
  let side = 1;
  let place = 0;
  for (let bit = 0; bit < 80 && side >= 0; bit++) {
    if ((bytes[bit >> 3] >> (bit & 7)) & 1) rows[side][place] += 1;
    else if (++place === 25) {
      side -= 1;
      place = 0;
    }
  }
  return rows;
}

/** One side's 25 counts as the board's 26 numbers ([0] borne off, [1..24], [25] bar). */
function boardPoints(row, checkers) {
  const total = row.reduce((a, b) => a + b, 0);
  return [checkers - total, ...row.slice(0, 24), row[24]];
}

// Which of the three cube equities (no double, double/take, double/drop) the right action is.
/** `table` in a box of its own that scrolls it sideways when it is wider than the screen
 * (the alternatives were 342 px wide at 320 px: the whole page scrolled). */
function tableBox(table) {
  return h("div", { class: "table-box" }, table);
}

const BEST_ROW = { "no double": "nd", "too good": "nd", "double, take": "dt", "double, drop": "dp",
  take: "dt", drop: "dp" };

// Numbers as the page's language writes them, as the server's pages do (numerals.py):
// German 0,123 and +10,4 %, English and Japanese 0.123 and +10.4%.
const decimal = (x, digits) => {
  const text = Math.abs(x).toFixed(digits);
  return lang() === "de" ? text.replace(".", ",") : text;
};
export const signed = (x, digits = 3) => (x === null || x === undefined ? "—"
  : `${x >= 0 ? "+" : "−"}${decimal(x, digits)}`);
const fixed = (x, digits = 1) => (x === null || x === undefined ? "—"
  : `${x < 0 ? "-" : ""}${decimal(x, digits)}`);
const percent = (fraction) => `${signed(fraction * 100, 1)}${lang() === "de" ? "\u00a0%" : "%"}`;

export class AnalysisPage {
  constructor(root, matchId, user) {
    this.root = root;
    this.matchId = matchId;
    this.user = user;
    this.index = 0;
    this.body = h("div", { class: "analysis-body", role: "status", "aria-live": "polite" });
    fill(root, h("section", { class: "analysis", "data-match": matchId },
      h("h1", {}, t("result.analysis")), this.body,
      this.back = h("p", {}, h("a", { href: `/match/${encodeURIComponent(matchId)}`,
        "data-link": "" }, t("analysis.back")))));
    this.load();
  }

  destroy() {
    clearTimeout(this.timer);
    if (this.keys) document.removeEventListener("keydown", this.keys);
    this.gone = true;
  }

  /** Arrow keys step through the review (Home and End: the first and last decision), as on
   * analysis boards elsewhere; not while typing in a field or with a modifier held. */
  onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.target && e.target.closest && e.target.closest("input, textarea, select, [contenteditable]")) return;
    const last = this.analysis.moves.length - 1;
    const to = { ArrowLeft: this.index - 1, ArrowRight: this.index + 1, Home: 0, End: last }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.show(to);
  }

  async load() {
    let answer;
    try {
      answer = await request("GET", analysisPath(this.matchId));
    } catch (err) {
      if (this.gone) return;
      if (this.analysis) {
        // Waiting for the deeper pass: the sheet shown stays, and the next look may answer.
        this.timer = setTimeout(() => this.load(), DEEPER_POLL_MS);
        return;
      }
      const code = err instanceof ApiError ? err.code : null;
      if (code === "match_not_finished") {
        // Once the match ends the worker analyses it and the sheet follows.
        fill(this.body, h("p", { class: "waiting" }, t("analysis.notover")));
        this.timer = setTimeout(() => this.waitForEnd(), POLL_MS);
        return;
      }
      if (code === "not_found" || code === "invalid_request") {
        // No match to go back to; the server's message names the rule an address broke
        // ("path.match_id: a match ID looks like …"), which is not for readers.
        fill(this.back, h("a", { href: "/", "data-link": "" }, t("result.lobby")));
        fill(this.body, h("p", { class: "error" }, t("match.nomatch", { id: shownId(this.matchId) })));
        return;
      }
      fill(this.body, h("p", { class: "error" }, errorText(err)));
      return;
    }
    if (this.gone) return;
    if (answer.status === "done") {
      // Redrawn only when the analysis differs (the deeper pass, or one made again with new
      // weights): the reader's place is kept either way.
      const changed = !this.analysis || JSON.stringify(answer) !== JSON.stringify(this.analysis);
      this.analysis = answer;
      if (changed) this.render();
      if (answer.deeper) this.timer = setTimeout(() => this.load(), DEEPER_POLL_MS);
    } else if (this.analysis && answer.status === "pending") {
      // Analysed again (new weights): what is shown stays until the new one is done.
      this.timer = setTimeout(() => this.load(), DEEPER_POLL_MS);
    } else if (answer.status === "failed") {
      fill(this.body, h("p", { class: "error" }, t("analysis.failed", { error: answer.error })));
    } else {
      fill(this.body, h("p", { class: "analysing" }, t("analysis.pending")));
      this.timer = setTimeout(() => this.load(), POLL_MS);
    }
  }

  /** While the match is played, follow its state (GET /api/matches/{id}, which answers 200
   * in any phase, where the analysis answers 409 each time, and a browser logs each 409 as an
   * error in its console) until it is over, then ask for the analysis again. A state that
   * cannot be read hands over to load(), which says why (the match is gone, say). */
  async waitForEnd() {
    let state;
    try {
      state = await request("GET", `/api/matches/${encodeURIComponent(this.matchId)}`);
    } catch {
      state = null;
    }
    if (this.gone) return;
    if (state && state.phase !== "match_over") {
      this.timer = setTimeout(() => this.waitForEnd(), POLL_MS);
    } else {
      this.load();
    }
  }

  /** The viewer's seat: the signed-in player's, else white's (seat 0). */
  viewSeat() {
    const seat = this.analysis.players.findIndex((p) => this.user && p.name === this.user.username);
    return seat >= 0 ? seat : 0;
  }

  render() {
    const a = this.analysis;
    this.seat = this.viewSeat();
    // At the first decision nobody has borne off: every checker of the variant is on the board.
    const first = a.moves.length ? decodePositionId(a.moves[0].position_id)[0] : [];
    this.checkers = first.reduce((x, y) => x + y, 0) || 15;
    this.svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    this.svg.setAttribute("class", "board");
    this.review = h("div", { class: "review-detail" });
    this.counter = h("span", { class: "review-counter" });
    const step = (by) => () => this.show(this.index + by);
    this.prev = h("button", { type: "button", "data-action": "prev", onclick: step(-1),
      "aria-keyshortcuts": "ArrowLeft", title: "←" }, "◀ " + t("analysis.prev"));
    this.next = h("button", { type: "button", "data-action": "next", onclick: step(1),
      "aria-keyshortcuts": "ArrowRight", title: "→" }, t("analysis.next") + " ▶");
    fill(this.body,
      h("p", { class: "analysis-match" }, t("analysis.match", {
        a: playerName(a.players[0].name), b: playerName(a.players[1].name), sa: a.score[0], sb: a.score[1],
        length: a.length, plies: a.plies })),
      a.deeper ? h("p", { class: "analysis-deeper", role: "note" },
        t("analysis.deeper", { plies: a.deeper })) : null,
      a.players.filter((p) => p.self_judged).map((p) => h("p", { class: "analysis-warning", role: "note" },
        t("analysis.selfjudged", { name: playerName(p.name), plies: a.plies }))),
      h("p", { class: "match-pr" }, t("analysis.matchpr", { pr: fixed(a.pr) }), " · ",
        h("span", { class: "blunders", "data-blunders": a.blunders }, t("analysis.blunders", { n: a.blunders })),
        " · ", h("a", { href: `/skill-levels?lang=${lang()}`, class: "skill-link" }, t("site.skill"))),
      this.summaryTable(),
      h("p", { class: "analysis-note" }, t("analysis.adjustednote")),
      h("h2", {}, glossaryLink("cube", t("analysis.cube"))),
      this.cubeList(),
      (a.resignations || []).length ? [h("h2", {}, t("analysis.resignations")), this.resignationList()]
        : null,
      h("h2", {}, t("analysis.review")),
      a.moves.length ? [
        h("div", { class: "review-nav" }, this.prev, this.counter, this.next),
        h("div", { class: "board-wrap" }, this.svg), this.review]
        : h("p", { class: "empty" }, t("analysis.nomoves")));
    if (a.moves.length) {
      // The address names the decision shown (#decision-N), so a link, a reload or a change
      // of language opens the review where it was.
      const at = /^#decision-(\d+)$/.exec(location.hash);
      this.show(at ? Number(at[1]) - 1 : 0);
      if (!this.keys) document.addEventListener("keydown", (this.keys = (e) => this.onKey(e)));
    }
  }

  summaryTable() {
    const [white, black] = this.analysis.players;
    // `term`: the glossary entry of the row's name, if it has one.
    const row = (key, cell, term) => h("tr", { "data-row": key }, h("th", { scope: "row" },
      term ? glossaryLink(term, t(`analysis.row.${key}`)) : t(`analysis.row.${key}`)),
    [white, black].map((p) => h("td", {}, cell(p))));
    // Each word of a name kept whole ("guest-1720a7b8" broke inside at 320 px): a line may
    // break only at a space ("Computer (easy)").
    return tableBox(h("table", { class: "analysis-summary" },
      h("thead", {}, h("tr", {}, h("th", {}),
        [white, black].map((p, seat) => h("th", { scope: "col", "data-seat": seat },
          h("span", { class: "name" }, playerName(p.name).split(" ").map((word, i) =>
            [i ? " " : "", h("span", { class: "word" }, word)])),
          ` (${t(seat === 0 ? "analysis.white" : "analysis.black")})`)))),
      h("tbody", {},
        row("pr", (p) => fixed(p.pr), "pr"),
        row("luck", (p) => signed(p.luck), "luck"),
        row("luckmwc", (p) => percent(p.luck_mwc), "mwc"),
        row("adjusted", (p) => (p.luck_adjusted === null ? "—" : percent(p.luck_adjusted))),
        row("decisions", (p) => String(p.decisions)),
        row("skill", (p) => t("analysis.skillcounts", p.skill)),
        row("cubeerrors", (p) => String(Object.values(p.cube_errors).reduce((x, y) => x + y, 0))))));
  }

  /** The cube decisions that count (`close`: a double, take or drop, a close or wrong
   * no-double; the ones the summary counts), each named by its decision number in the review;
   * the turns where not doubling was clearly right are only counted. */
  cubeList() {
    const all = this.analysis.moves.map((m, i) => [m, i]).filter(([m]) => m.type === "cube");
    const cubes = all.filter(([m]) => m.close);
    const clear = all.length - cubes.length;
    const note = clear ? h("p", { class: "cube-clear" }, t("analysis.cubeclear", { n: clear })) : null;
    if (!cubes.length) return h("div", {}, h("p", { class: "empty cube-decisions" }, t("analysis.nocube")), note);
    return h("div", {}, h("ol", { class: "cube-decisions" }, cubes.map(([m, i]) => h("li", { "data-decision": i },
      // A link, not a button: its text wraps with the line on a narrow screen (a button is a
      // box of its own, which put each list number on a line by itself).
      h("a", { href: `#decision-${i + 1}`, class: "linkish", onclick: (e) => { e.preventDefault(); this.show(i); } },
        `${t("analysis.decisionno", { n: i + 1 })} · ${this.who(m)}: ${t(`cube.${m.action}`)}`),
      ` — ${t("analysis.bestaction", { action: t(`cube.${m.best_action}`) })}`,
      m.error ? h("strong", { class: "cube-error" }, ` ${t(`cube.error.${m.error}`)}`) : null,
      ` (${t("analysis.loss", { loss: fixed(m.loss, 3) })})`))), note);
  }

  /** Each resignation offered or answered, with its verdict: an offer of more than the game
   * was worth, or an answer that lost equity, is an error like a cube error. */
  resignationList() {
    return h("ol", { class: "resignations" }, this.analysis.resignations.map((r) => h("li", {
      "data-kind": r.kind },
    `${this.who(r)}: ${t(`analysis.resign.${r.kind}`, { what: t(`analysis.resign.${r.points}`), cube: r.cube })}`,
    " — ", r.error ? h("strong", { class: "cube-error" }, t(`resign.error.${r.error}`))
      : t("analysis.resign.right"),
    ` (${t("analysis.loss", { loss: fixed(r.loss, 3) })})`)));
  }

  who(m) {
    return t("analysis.who", { game: m.game + 1, name: playerName(this.analysis.players[m.seat].name) });
  }

  /** Show decision `i` in the review: its board, the choice made and the alternatives. */
  show(i) {
    const moves = this.analysis.moves;
    this.index = Math.max(0, Math.min(moves.length - 1, i));
    const m = moves[this.index];
    this.counter.textContent = t("analysis.counter", { n: this.index + 1, total: moves.length });
    this.counter.dataset.index = this.index;
    const focused = document.activeElement;
    this.prev.disabled = this.index === 0;
    this.next.disabled = this.index === moves.length - 1;
    // A button disabled under the keyboard's focus would drop it to the page: the other
    // button takes it.
    if (focused === this.prev && this.prev.disabled) this.next.focus();
    if (focused === this.next && this.next.disabled) this.prev.focus();
    const here = `#decision-${this.index + 1}`;
    if (location.hash !== here && (this.index > 0 || location.hash)) {
      history.replaceState(history.state, "", here);
    }
    // The ID is from the view of the player on roll: the decider, or for a take the doubler.
    const onRoll = m.type === "cube" && m.kind === "take" ? 1 - m.seat : m.seat;
    const [own, other] = decodePositionId(m.position_id).map((r) => boardPoints(r, this.checkers));
    const [mineRaw, theirsRaw] = onRoll === this.seat ? [own, other] : [other, own];
    const side = (seat) => (seat === this.seat ? "me" : "them");
    const dice = m.type === "checker" ? { values: m.dice, used: [false, false], side: side(m.seat) } : null;
    // A 1-point match has no cube: none is drawn (as on the match screen).
    const cube = this.analysis.length === 1 ? null
      : { value: m.cube, side: m.cube_owner === null ? "centre" : side(m.cube_owner) };
    renderBoard(this.svg, { mine: mineRaw, theirs: mirror(theirsRaw), dice, cube,
      sources: new Set(), destinations: new Set(), selected: null }, () => {});
    this.svg.setAttribute("aria-label", t("analysis.boardlabel", { n: this.index + 1 }));
    fill(this.review, h("p", { class: "decision-head", "data-type": m.type },
      this.who(m), m.skill ? h("strong", { class: `skill ${m.skill}` }, ` ${t(`skill.${m.skill}`)}`) : null),
    m.type === "checker" ? this.checkerDetail(m) : this.cubeDetail(m));
  }

  checkerDetail(m) {
    const played = m.play || t("analysis.dance");
    return [
      h("p", { class: "played" }, t("analysis.played", { dice: `${m.dice[0]}-${m.dice[1]}`, play: played }),
        m.forced ? ` (${t("analysis.forced")})` : ` · ${t("analysis.loss", { loss: fixed(m.loss, 3) })}`,
        m.luck === null || m.luck === undefined ? null
          : ` · ${t("analysis.rollluck", { luck: signed(m.luck) })}${m.luck_label ? ` (${t(`luck.${m.luck_label}`)})` : ""}`),
      m.best.length ? tableBox(h("table", { class: "alternatives" },
        h("thead", {}, h("tr", {}, ["#", t("analysis.play"), glossaryLink("equity", t("analysis.equity")),
          t("analysis.diff"), glossaryLink("ply", t("analysis.plies"))]
          .map((x) => h("th", { scope: "col" }, x)))),
        h("tbody", {}, m.best.map((b, k) => h("tr", { class: b.play === m.play ? "chosen" : "",
          "data-play": b.play },
        h("td", {}, String(k + 1)), h("td", {}, b.play || t("analysis.dance")),
        h("td", {}, signed(b.equity)), h("td", {}, k ? signed(b.equity - m.best[0].equity) : ""),
        h("td", {}, String(b.plies))))))) : null,
    ];
  }

  cubeDetail(m) {
    const best = BEST_ROW[m.best_action];
    const row = (key, value) => h("tr", { class: best === key ? "best" : "", "data-row": key },
      h("th", { scope: "row" }, t(`analysis.cube.${key}`)), h("td", {}, signed(value)));
    return [
      h("p", { class: "played" }, t("analysis.cubeaction", { action: t(`cube.${m.action}`), value: m.cube }),
        ` · ${t("analysis.bestaction", { action: t(`cube.${m.best_action}`) })}`,
        m.error ? h("strong", { class: "cube-error" }, ` ${t(`cube.error.${m.error}`)}`) : null,
        ` · ${t("analysis.loss", { loss: fixed(m.loss, 3) })}`),
      tableBox(h("table", { class: "alternatives cube-equities" }, h("tbody", {},
        row("nd", m.nd), row("dt", m.dt), row("dp", m.dp)))),
    ];
  }
}
