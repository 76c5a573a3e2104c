// The rules page's diagrams (server/templates/pages/rules.*.html): each <svg data-view> holds a
// position as JSON (server/routes/pages.py board_view) and is drawn with the match page's own
// board code, so the rules show the board players will see. Nothing on them can be tapped.

import { renderBoard } from "./board.js";
import { setLang } from "./i18n.js";

setLang(document.documentElement.lang);
for (const svg of document.querySelectorAll("svg.board[data-view]")) {
  const view = JSON.parse(svg.dataset.view);
  renderBoard(svg, { ...view, sources: new Set(), destinations: new Set(), selected: null }, () => {});
}
