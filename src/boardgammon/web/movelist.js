// The move list beside the board (below it on a phone): game by game, the numbered lines of the
// match's .mat export (GET /api/matches/{id}/moves, docs/api.md) with each play in standard
// notation, cube actions, the opening rolls (ties included), resignations and each game's end;
// each roll carries its verdict from this device and a link to its row on the audit page.
// Tapping a play shows the position after it (the page draws it read-only).

import { request } from "./api.js";
import { fill, h } from "./dom.js";
import { lang, t } from "./i18n.js";

export class MoveList {
  /** `page`: name(seat), verdictOf(roll_id) → null | {ok}, pick(entry, label) to show a turn,
   * movesChanged() after the list was read again. */
  constructor(matchId, page) {
    this.matchId = matchId;
    this.page = page;
    this.games = [];
    this.key = null;
    this.node = h("aside", { class: "move-list", "aria-labelledby": "moves-title" });
  }

  /** The opening rolls of game `n` (1-based) so far: [[seat 0's die, seat 1's die], …]. */
  openings(n) {
    const g = this.games[n - 1];
    return g ? g.opening : [];
  }

  /** Read the list again when the match moved on (a roll, a play, a cube or game change). */
  update(state) {
    const key = [state.rolls.length, state.phase, state.game_number, state.turn,
      state.cube.value, state.last_play ? state.last_play.play : ""].join("|");
    if (key === this.key) return;
    this.key = key;
    request("GET", `/api/matches/${encodeURIComponent(this.matchId)}/moves`)
      .then((answer) => {
        this.games = answer.games;
        this.rolls = state.rolls;
        this.render();
        this.page.movesChanged();
      })
      .catch(() => { this.key = null; });
  }

  render(viewing = this.viewing) {
    this.viewing = viewing;
    const games = this.games.map((g) => this.game(g));
    // What the marks mean, in words: their tooltips need a hover that a phone has not.
    const marked = games.some((g) => g.querySelector(".roll-check"));
    fill(this.node, h("h2", { id: "moves-title" }, t("moves.title")),
      marked ? h("p", { class: "moves-legend" }, t("moves.marks")) : null, games);
  }

  game(g) {
    const name = (seat) => this.page.name(seat);
    return h("section", { class: "moves-game", "data-game": g.game_number },
      h("h3", {}, t("moves.game", { n: g.game_number, a: g.score[0], b: g.score[1],
        first: name(0), second: name(1) })),
      g.opening.map(([a, b]) => h("p", { class: "opening", "data-opening": `${a}-${b}` },
        t(a === b ? "moves.opening.tie" : "moves.opening",
          { first: name(0), a, second: name(1), b }))),
      h("ol", { class: "turns" }, g.lines.map((line, i) => h("li", { "data-line": i + 1 },
        h("span", { class: "num" }, `${i + 1})`),
        line.map((entry, column) => this.cell(entry, column, g, i + 1))))),
      g.resignations.map((r) => h("p", { class: "resignation" },
        t(`moves.resign.${r.action}`, { name: name(r.seat), points: r.points }))),
      g.result ? h("p", { class: "game-result" }, ["flag", "forfeit", "abort"].includes(g.result.how)
        ? t(`result.game${g.result.how}`, { n: g.game_number, name: name(g.result.winner) })
        : t("result.game", { n: g.game_number, name: name(g.result.winner), points: g.result.points,
          how: t(`how.${g.result.how}`) })) : null);
  }

  cell(entry, column, game, number) {
    if (!entry) return h("span", { class: "cell empty", "data-column": column });
    const attrs = { class: "cell", "data-column": column, "data-seat": entry.seat, "data-kind": entry.kind };
    if (entry.kind === "double") return h("span", attrs, t("moves.double", { value: entry.value }));
    if (entry.kind === "take" || entry.kind === "drop") return h("span", attrs, t(`moves.${entry.kind}`));
    const dice = entry.dice.join("");
    const text = entry.kind === "roll" ? `${dice}:` : entry.play ? `${dice}: ${entry.play}`
      : `${dice}: ${t("moves.dance")}`;
    const label = t("moves.turn", { game: game.game_number, n: number, name: this.page.name(entry.seat), text });
    const shown = this.viewing && this.viewing.board === entry.board;
    const play = entry.board
      ? h("button", { type: "button", class: "turn-entry", "data-play": entry.play, "data-dice": dice,
        "aria-pressed": shown ? "true" : "false", onclick: () => this.page.pick(entry, label) }, text)
      : h("span", { class: "turn-entry", "data-dice": dice }, text);
    return h("span", attrs, play, this.check(entry));
  }

  /** The roll's verdict on this device, linked to its row on the audit page. The list counts
   * rolls as the record has them; a revealed roll that does not show the same dice is not
   * linked (a record that disagrees is not papered over). */
  check(entry) {
    const roll = this.rolls && this.rolls[entry.roll];
    const sorted = (d) => d.slice().sort().join();
    if (!roll || !roll.dice || sorted(roll.dice) !== sorted(entry.dice)) return null;
    const v = this.page.verdictOf(roll.roll_id);
    const mark = !v ? "…" : v.ok ? "✓" : "✗";
    const title = !v ? t("dice.pending") : v.ok ? t("dice.ok") : t("dice.failed");
    return h("a", { class: `roll-check ${!v ? "pending" : v.ok ? "ok" : "failed"}`, title,
      "aria-label": `${title}: ${t("moves.audit")}`,
      href: `/audit/${encodeURIComponent(this.matchId)}?lang=${lang()}#${roll.roll_id}` }, mark);
  }
}
