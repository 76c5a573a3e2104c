// What waits for the player (docs/api.md §Notifications): a badge in the header with the list
// (correspondence turns with the time left, invitations, rematch offers), kept current by the
// player's own WebSocket /ws/me. While the page is in a background tab, a new turn or
// invitation shows in the tab's title and, once the player allowed it by a click, as a
// browser notification.

import { request } from "./api.js";
import { asUser, refusalText } from "./chat.js";
import { clockText, fill, h } from "./dom.js";
import { playerName, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

/** A bell drawn in SVG (an emoji needs a font the machine may lack). */
function bellIcon() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "20");
  svg.setAttribute("height", "20");
  svg.setAttribute("aria-hidden", "true");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("fill", "currentColor");
  path.setAttribute("d", "M12 22a2.5 2.5 0 0 0 2.4-2H9.6a2.5 2.5 0 0 0 2.4 2zm7-6v-5a7 7 0 0 0-5.5-6.8V3a1.5 1.5 0 0 0-3 0v1.2A7 7 0 0 0 5 11v5l-2 2v1h18v-1z");
  svg.append(path);
  return svg;
}

export class Notifier {
  constructor(user) {
    this.user = user;
    this.items = [];
    this.closed = false;
    this.delay = 1000;
    this.title = document.title;
    this.badge = h("span", { class: "badge", "data-count": "0" }, "0");
    this.button = h("button", { type: "button", class: "bell", "data-action": "notifications",
      "aria-expanded": "false", "aria-label": t("notify.title"), onclick: () => this.toggle() },
    bellIcon(), this.badge);
    this.list = h("div", { class: "notify-list", hidden: true, role: "region", "aria-label": t("notify.title") });
    this.warning = h("p", { class: "error session-warning", role: "alert", hidden: true });
    this.node = h("span", { class: "notify" }, this.button, this.list, this.warning);
    this.onVisible = () => {
      if (!document.hidden) document.title = this.title;
    };
    document.addEventListener("visibilitychange", this.onVisible);
    this.refresh();
    this.connect();
  }

  stop() {
    this.closed = true;
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.ws) this.ws.close();
  }

  connect() {
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws/me`);
    this.ws = ws;
    ws.onopen = () => (this.delay = 1000);
    ws.onmessage = (e) => {
      let message;
      try {
        message = JSON.parse(e.data);
      } catch {
        return;
      }
      this.onMessage(message);
    };
    ws.onclose = () => {
      if (this.closed) return;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 16000);
    };
  }

  onMessage(message) {
    if (message.type === "hello") {
      // The browser's one cookie now belongs to someone else (signed in in another tab).
      const other = message.user.id !== this.user.id;
      this.warning.hidden = !other;
      this.warning.textContent = other ? t("session.changed") : "";
    } else if (message.type === "turn" || message.type === "invitation" || message.type === "rematch") {
      this.refresh();
      this.alert(message);
    }
  }

  /** In a background tab: the title, and a browser notification if allowed. */
  alert(message) {
    if (!document.hidden) return;
    const text = message.type === "invitation" ? t("notify.invited", { name: message.from })
      : message.type === "rematch" ? t("notify.rematch") : t("notify.yourturn");
    document.title = `● ${text} · ${this.title}`;
    if ("Notification" in window && Notification.permission === "granted") {
      const url = message.match_id ? `/match/${message.match_id}` : message.seek_id ? `/join/${message.seek_id}` : "/";
      const shown = new Notification(t("app.title"), { body: text, tag: `bg-${message.type}-${message.match_id || message.seek_id || ""}` });
      shown.onclick = () => {
        window.focus();
        location.assign(url);
      };
    }
  }

  async refresh() {
    try {
      const answer = await request("GET", "/api/notifications", undefined, asUser(this.user));
      this.items = answer.items;
      this.warning.hidden = true;
    } catch (err) {
      this.warning.hidden = false;
      this.warning.textContent = refusalText(err);
      return;
    }
    this.badge.textContent = String(this.items.length);
    this.badge.dataset.count = String(this.items.length);
    this.button.classList.toggle("urgent", this.items.some((i) => i.urgent));
    this.render();
  }

  toggle() {
    this.list.hidden = !this.list.hidden;
    this.button.setAttribute("aria-expanded", String(!this.list.hidden));
    if (!this.list.hidden) this.render();
  }

  render() {
    if (this.list.hidden) return;
    const item = (n) => h("li", { class: n.urgent ? "urgent" : "", "data-kind": n.kind },
      h("a", { href: n.url, "data-link": "", onclick: () => this.toggle() }, this.itemText(n)),
      n.seconds_left !== null ? ` · ${t("notify.left", { time: clockText(n.seconds_left) })}` : "",
      n.urgent ? h("strong", { class: "flag" }, ` · ${t("notify.urgent")}`) : null);
    const ask = "Notification" in window && Notification.permission === "default"
      ? h("button", { type: "button", "data-action": "allow-notifications", onclick: async (e) => {
        // Asked only after this click, as browsers want.
        await Notification.requestPermission();
        e.target.hidden = true;
      } }, t("notify.allow")) : null;
    fill(this.list, h("h2", {}, t("notify.title")),
      this.items.length ? h("ul", {}, this.items.map(item)) : h("p", { class: "empty" }, t("notify.none")),
      ask);
  }

  itemText(n) {
    if (n.kind === "invitation") return t("notify.invitation", { name: n.opponent, length: n.length });
    if (n.kind === "rematch") return t("notify.rematchfrom", { name: n.opponent });
    return t("notify.turn", { name: playerName(n.opponent) });
  }
}
