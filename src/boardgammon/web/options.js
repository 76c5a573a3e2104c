// Board options kept on this device (localStorage, through store.js: never throws): the
// board's direction (home board on the right, or flipped to the left) and the checkers'
// colours. Pages read boardOptions() when they draw and put optionControls() where the viewer
// can change them.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { readPreference, savePreference } from "./store.js";

const FLIP_KEY = "bg.board.flip";
const COLOURS_KEY = "bg.board.colours";
// Your checkers / the opponent's: each pair is a class on the board (style.css).
export const COLOURS = ["classic", "reversed", "blue-red"];

/** {flip: bool, colours: one of COLOURS} as this device last chose them. */
export function boardOptions() {
  const colours = readPreference(COLOURS_KEY);
  return { flip: readPreference(FLIP_KEY) === "1",
    colours: COLOURS.includes(colours) ? colours : COLOURS[0] };
}

/** The two controls; `changed()` is called after either changes (to redraw). */
export function optionControls(changed) {
  const flip = h("button", { type: "button", "data-action": "flip" });
  const colours = h("button", { type: "button", "data-action": "colours" });
  const show = () => {
    const now = boardOptions();
    flip.setAttribute("aria-pressed", now.flip ? "true" : "false");
    flip.textContent = `⇆ ${t("options.flip")}`;
    colours.textContent = `● ${t("options.colours")}: ${t(`options.colours.${now.colours}`)}`;
  };
  flip.addEventListener("click", () => {
    savePreference(FLIP_KEY, boardOptions().flip ? "0" : "1");
    show();
    changed();
  });
  colours.addEventListener("click", () => {
    const next = COLOURS[(COLOURS.indexOf(boardOptions().colours) + 1) % COLOURS.length];
    savePreference(COLOURS_KEY, next);
    show();
    changed();
  });
  show();
  return h("div", { class: "board-options", role: "group", "aria-label": t("options.title") },
    flip, colours);
}
