// The match's chat and its spectator count (docs/api.md §Chat, §Games to watch). Players read
// and write; a spectator sees the count only. Every line is put in the page as text (never as
// HTML), so markup a player writes is shown as the characters they typed.

import { request } from "./api.js";
import { fill, h } from "./dom.js";
import { DELETED_NAME, errorText, playerName, t } from "./i18n.js";

export const MAX_CHARS = 300;

/** The header that tells the server which account this page believes it acts as (docs/api.md
 * §Two accounts in one browser). */
export function asUser(user) {
  return user ? { "X-Boardgammon-As": user.username } : {};
}

/** Words for a refusal, in the page's language where the client has them (errorText). */
export function refusalText(err) {
  return errorText(err);
}

export class ChatPanel {
  constructor(matchId, user) {
    this.matchId = matchId;
    this.user = user;
    this.seat = undefined;
    this.seen = new Set();
    this.path = `/api/matches/${encodeURIComponent(matchId)}/chat`;
    this.count = h("p", { class: "spectators", "data-spectators": "0" });
    this.lines = h("ol", { class: "chat-lines", "aria-live": "polite" });
    this.input = h("input", { name: "chat", maxlength: MAX_CHARS, autocomplete: "off",
      "aria-label": t("chat.label"), placeholder: t("chat.label") });
    this.error = h("p", { class: "error", role: "alert" });
    this.muteButton = h("button", { type: "button", "data-action": "chat-mute", "aria-pressed": "false",
      onclick: () => this.setMuted(!this.muted) }, t("chat.mute"));
    this.blockButton = h("button", { type: "button", "data-action": "block",
      onclick: () => this.block() }, t("chat.block"));
    this.form = h("form", { class: "chat-form", onsubmit: (e) => this.send(e) }, this.input,
      h("button", { type: "submit", "data-action": "chat-send" }, t("chat.send")));
    this.box = h("section", { class: "chat", hidden: true, "aria-label": t("chat.title") },
      h("h2", {}, t("chat.title")), this.lines, this.form,
      h("div", { class: "row" }, this.muteButton, this.blockButton), this.error);
    this.node = h("div", { class: "social" }, this.count, this.box);
    this.showCount(0);
  }

  /** A new state of the match: players get the chat (read once), spectators do not. */
  setState(state) {
    const other = state.you === 0 || state.you === 1 ? state.players[1 - state.you] : null;
    // Nobody to block once the opponent's account is deleted.
    this.opponent = other && !other.bot && other.username !== DELETED_NAME ? other.username : null;
    this.blockButton.hidden = !this.opponent;
    if (state.you === this.seat) return;
    this.seat = state.you;
    // Nobody reads it in a game against the computer.
    this.box.hidden = this.seat === null || this.seat === undefined || !this.user
      || !!(other && other.bot);
    if (!this.box.hidden) this.load();
  }

  /** A frame of the match's WebSocket; true if it was the chat's. */
  onEvent(message) {
    if (message.type === "spectators") this.showCount(message.count);
    else if (message.type === "chat" && message.message) this.add(message.message);
    else return false;
    return true;
  }

  showCount(n) {
    this.count.dataset.spectators = String(n);
    this.count.textContent = t("chat.spectators", { n });
    this.count.hidden = n === 0;
  }

  async load() {
    try {
      const chat = await request("GET", this.path, undefined, asUser(this.user));
      this.seen.clear();
      fill(this.lines);
      for (const line of chat.messages) this.add(line);
      this.showMuted(chat.muted);
    } catch (err) {
      this.error.textContent = refusalText(err);
    }
  }

  add(line) {
    if (this.seen.has(line.id)) return;
    this.seen.add(line.id);
    const mine = line.seat === this.seat;
    // Text nodes only: h() appends strings as text, so "<b>" stays "<b>".
    this.lines.append(h("li", { class: mine ? "mine" : "theirs", "data-chat": line.id },
      h("span", { class: "name" }, playerName(line.name)), " ", h("span", { class: "text" }, line.text)));
    this.lines.scrollTop = this.lines.scrollHeight;
  }

  async send(e) {
    e.preventDefault();
    const text = this.input.value;
    if (!text.trim()) return;
    this.error.textContent = "";
    try {
      this.add(await request("POST", this.path, { text }, asUser(this.user)));
      this.input.value = "";
    } catch (err) {
      this.error.textContent = refusalText(err);
    }
  }

  showMuted(muted) {
    this.muted = muted;
    this.muteButton.setAttribute("aria-pressed", String(muted));
    this.muteButton.textContent = muted ? t("chat.unmute") : t("chat.mute");
  }

  async setMuted(muted) {
    this.error.textContent = "";
    try {
      const chat = await request("PUT", `${this.path}/mute`, { muted }, asUser(this.user));
      this.seen.clear();
      fill(this.lines);
      for (const line of chat.messages) this.add(line);
      this.showMuted(chat.muted);
    } catch (err) {
      this.error.textContent = refusalText(err);
    }
  }

  async block() {
    if (!this.opponent || !confirm(t("chat.blockconfirm", { name: this.opponent }))) return;
    try {
      await request("PUT", `/api/blocks/${encodeURIComponent(this.opponent)}`, undefined, asUser(this.user));
      this.blockButton.disabled = true;
      this.blockButton.textContent = t("chat.blocked", { name: this.opponent });
      await this.load();
    } catch (err) {
      this.error.textContent = refusalText(err);
    }
  }
}
