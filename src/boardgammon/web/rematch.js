// The result dialog's Rematch (POST/GET /api/matches/{id}/rematch, docs/api.md): asking waits
// for the opponent to agree (the page polls), an opponent's offer is shown as one to accept,
// and once both agreed (the computer at once) the new match opens, colours swapped. A page that
// opens a match whose rematch was agreed before shows a link to it rather than leaving: the
// players must be able to look at the match they opened.

import { request } from "./api.js";
import { fill, h } from "./dom.js";
import { t } from "./i18n.js";

const POLL_MS = 3000;

export class Rematch {
  /** `name(seat)` names a seat of the finished match; `open(matchId)` goes to the rematch. */
  constructor(matchId, you, name, open) {
    this.path = `/api/matches/${encodeURIComponent(matchId)}/rematch`;
    this.you = you;
    this.name = name;
    this.open = open;
    this.answer = { offered_by: null, match_id: null };
    this.node = h("span", { class: "rematch" });
    this.render();
    this.poll();
  }

  async poll() {
    if (this.stopped) return;
    try {
      this.show(await request("GET", this.path));
    } catch {
      // a passing network problem: the next poll tries again
    }
    if (!this.stopped) this.timer = setTimeout(() => this.poll(), POLL_MS);
  }

  async ask() {
    try {
      this.show(await request("POST", this.path), true);
    } catch (err) {
      this.error = err.message;
      this.render();
    }
  }

  /** `agreedHere`: this page asked or accepted; a poll opens the rematch only when this page
   * saw the offer waiting, not when the match was agreed before the page was opened. */
  show(answer, agreedHere = false) {
    const waited = this.answer.offered_by !== null;
    this.answer = answer;
    if (answer.match_id) this.stop();
    if (answer.match_id && (agreedHere || waited)) {
      this.open(answer.match_id);
    } else {
      this.render();
    }
  }

  render() {
    if (this.answer.match_id) {
      fill(this.node, h("a", { class: "button", "data-action": "open-rematch",
        href: `/match/${encodeURIComponent(this.answer.match_id)}` }, t("rematch.open")));
      return;
    }
    const by = this.answer.offered_by;
    const waiting = by !== null && by === this.you;
    const label = by !== null && !waiting ? t("rematch.accept", { name: this.name(by) }) : t("rematch.ask");
    fill(this.node,
      h("button", { type: "button", "data-action": "rematch", class: "primary", disabled: waiting,
        onclick: () => this.ask() }, label),
      waiting ? h("span", { class: "rematch-wait", role: "status" },
        t("rematch.waiting", { name: this.name(1 - this.you) })) : null,
      this.error ? h("span", { class: "error" }, this.error) : null);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
