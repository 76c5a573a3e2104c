// Being told it is your turn: short sounds made with WebAudio (dice, a move, your turn; no
// files), a mute remembered on this device (localStorage "bg.mute"), and the tab's title and
// icon saying "your turn" while the tab is in the background. Usable by any page:
//   const notice = new Notice(); notice.sound("dice"); notice.yourTurn(true); notice.muteButton()

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { readPreference, savePreference } from "./store.js";

const MUTE_KEY = "bg.mute";
const ICON = "/static/favicon.svg";
const TURN_ICON = "/static/favicon-turn.svg";

// Each sound as notes: [frequency Hz, start s, length s, wave].
const SOUNDS = {
  dice: [[520, 0, 0.04, "square"], [390, 0.06, 0.04, "square"], [610, 0.11, 0.05, "square"]],
  move: [[330, 0, 0.07, "triangle"]],
  turn: [[660, 0, 0.12, "sine"], [880, 0.14, 0.18, "sine"]],
};

export function muted() {
  return readPreference(MUTE_KEY) === "1";
}

export class Notice {
  constructor() {
    this.audio = null;
    this.turn = false;
    this.title = document.title;
    this.onVisible = () => this.showTitle();
    document.addEventListener("visibilitychange", this.onVisible);
  }

  /** Play `kind` (dice, move, turn) unless muted; silent where the browser allows no sound. */
  sound(kind) {
    if (muted()) return;
    try {
      this.audio ||= new AudioContext();
      const now = this.audio.currentTime;
      for (const [freq, start, length, wave] of SOUNDS[kind]) {
        const osc = this.audio.createOscillator();
        const gain = this.audio.createGain();
        osc.type = wave;
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.15, now + start);
        gain.gain.exponentialRampToValueAtTime(0.001, now + start + length);
        osc.connect(gain).connect(this.audio.destination);
        osc.start(now + start);
        osc.stop(now + start + length + 0.02);
      }
    } catch {
      // No audio on this device (or not yet allowed): the screen still says it.
    }
  }

  /** Whether it is the viewer's turn: said in the title and icon while the tab is hidden. */
  yourTurn(on) {
    this.turn = on;
    this.showTitle();
  }

  showTitle() {
    const away = this.turn && document.visibilityState === "hidden";
    document.title = away ? `● ${t("notice.yourturn")} · ${this.title}` : this.title;
    const icon = document.querySelector('link[rel="icon"]');
    if (icon) icon.setAttribute("href", away ? TURN_ICON : ICON);
  }

  /** A toggle for the sounds, its state remembered on this device. */
  muteButton() {
    const button = h("button", { type: "button", "data-action": "mute", class: "mute" });
    const show = () => {
      button.setAttribute("aria-pressed", muted() ? "true" : "false");
      button.textContent = `♪ ${muted() ? t("notice.muted") : t("notice.sound")}`;
    };
    button.addEventListener("click", () => {
      savePreference(MUTE_KEY, muted() ? "0" : "1");
      show();
    });
    show();
    return button;
  }

  destroy() {
    this.yourTurn(false);
    document.removeEventListener("visibilitychange", this.onVisible);
    if (this.audio) this.audio.close();
  }
}
