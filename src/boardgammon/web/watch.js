// Games to watch (docs/api.md §Games to watch): the matches being played now, with their
// players (and ratings, once there are), score, length and spectators; each opens the match
// page, which watches as a spectator anyone who does not play in it.

import { request } from "./api.js";
import { fill, h } from "./dom.js";
import { playerName, t } from "./i18n.js";

const POLL_MS = 5000;

export class WatchList {
  constructor() {
    this.list = h("div", {});
    this.node = h("section", { class: "watch" }, h("h2", {}, t("watch.title")), this.list);
    this.load();
    this.timer = setInterval(() => this.load(), POLL_MS);
  }

  destroy() {
    clearInterval(this.timer);
  }

  async load() {
    let matches;
    try {
      matches = await request("GET", "/api/watch");
    } catch {
      return; // the lobby's own poll says what is wrong with the server
    }
    const player = (p) => (p.rating === null ? playerName(p.name)
      : `${playerName(p.name)} (${Math.round(p.rating)})`);
    fill(this.list, matches.length ? h("ul", {}, matches.map((m) => h("li", { "data-watch": m.match_id },
      h("a", { href: m.watch_url, "data-link": "" },
        t("watch.players", { first: player(m.players[0]), second: player(m.players[1]) })),
      ` · ${m.score[0]}–${m.score[1]} / ${m.length} · ${t(`variant.${m.variant}`)}`,
      m.spectators ? ` · ${t("chat.spectators", { n: m.spectators })}` : "")))
      : h("p", { class: "empty" }, t("watch.none")));
  }
}
