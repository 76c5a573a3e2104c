// The board as SVG, always from the viewer's side: the viewer's home board bottom right
// (points 1–6), their outer board bottom left (7–12), the opponent's outer and home boards on
// top (13–24, numbered from the viewer's side), the bar in the middle, borne-off trays on the
// right (viewer's below), the cube on the left (centred, or on its owner's side).
//
// Every point, the bar and the viewer's tray carry data-point (0 off, 1–24, 25 bar) and the
// classes movable / selected / dest, so a tap (or Enter/Space with keyboard focus) can be mapped
// to a move and tests can read what is lit.

import { t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const PW = 40; // point width
const R = 18; // checker radius
const FRAME = 16;
const CUBE_COL = 50;
const BAR_W = 40;
const TRAY_W = 50;
const POINT_H = 180;
const MID_H = 60;
const LEFT_X = CUBE_COL + FRAME;
const BAR_X = LEFT_X + 6 * PW;
const RIGHT_X = BAR_X + BAR_W;
const TRAY_X = RIGHT_X + 6 * PW + FRAME;
export const WIDTH = TRAY_X + TRAY_W;
const TOP_Y = FRAME;
const MID_Y = TOP_Y + POINT_H;
const BOTTOM_Y = MID_Y + MID_H;
export const HEIGHT = BOTTOM_Y + POINT_H + FRAME;
const MAX_SHOWN = 5; // checkers drawn per point before a count label takes over
// A tap target spans its whole half of the board, frame and half the middle strip included:
// its column's width (1/16 of the board, 21–23 px on a 360–390 px phone) cannot grow without
// taking its neighbours' taps, so its height is what can (docs/architecture.md, the board).
const HALF = HEIGHT / 2;

/** The tap target's rectangle of a column at `x`, `width` wide, in the bottom or top half. */
function target(x, width, bottom) {
  return { x, y: bottom ? HALF : 0, width, height: HALF };
}

function el(tag, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

/** Left x and whether the point is in the bottom half, for a point 1–24 in the viewer's numbering. */
function pointPlace(p) {
  if (p <= 6) return { x: RIGHT_X + (6 - p) * PW, bottom: true };
  if (p <= 12) return { x: LEFT_X + (12 - p) * PW, bottom: true };
  if (p <= 18) return { x: LEFT_X + (p - 13) * PW, bottom: false };
  return { x: RIGHT_X + (p - 19) * PW, bottom: false };
}

/** Where a checker of `side` ("mine" | "theirs") stands on `p` in the viewer's numbering
 * (1–24, 25 the bar, 0 the tray): the centre of the first checker's place. */
function spot(p, side) {
  if (p === 25) return { x: BAR_X + BAR_W / 2, y: side === "mine" ? BOTTOM_Y + R : MID_Y - R };
  if (p === 0) return { x: TRAY_X + TRAY_W / 2 - 2, y: side === "mine" ? HEIGHT - FRAME - 30 : TOP_Y + 30 };
  const { x, bottom } = pointPlace(p);
  return { x: x + PW / 2, y: bottom ? HEIGHT - FRAME - R : TOP_Y + R };
}

/** The last play's marks: a ring where each checker left, an arrow to where it landed, a
 * cross on a checker it hit (data-last-from / data-last-to / data-last-hit for tests). */
function drawMarks(svg, marks) {
  const g = el("g", { class: "last-marks", "aria-hidden": "true" }, svg);
  for (const { from, to, hit, side } of marks) {
    const a = spot(from, side);
    const b = spot(to, side);
    el("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: `last-arrow ${side}` }, g);
    el("circle", { cx: a.x, cy: a.y, r: R - 3, class: `last-from ${side}`, "data-last-from": from }, g);
    el("circle", { cx: b.x, cy: b.y, r: R + 1, class: `last-to ${side}`, "data-last-to": to }, g);
    if (hit) {
      el("path", { d: `M${b.x - 9},${b.y - 9} L${b.x + 9},${b.y + 9} M${b.x + 9},${b.y - 9} L${b.x - 9},${b.y + 9}`,
        class: "last-hit", "data-last-hit": to }, g);
    }
  }
}

function stack(parent, cx, count, startY, step, cls) {
  const shown = Math.min(count, MAX_SHOWN);
  for (let k = 0; k < shown; k++) {
    el("circle", { cx, cy: startY + k * step, r: R - 1, class: `checker ${cls}` }, parent);
  }
  if (count > MAX_SHOWN) {
    const label = el("text", {
      x: cx, y: startY + (shown - 1) * step + 5, class: `count ${cls}`, "text-anchor": "middle",
    }, parent);
    label.textContent = String(count);
  }
}

function drawDie(parent, x, y, value, used, cls) {
  const g = el("g", { class: `die ${cls}${used ? " used" : ""}`, "data-die": value }, parent);
  el("rect", { x, y, width: 34, height: 34, rx: 6 }, g);
  const pips = {
    1: [[17, 17]], 2: [[9, 9], [25, 25]], 3: [[9, 9], [17, 17], [25, 25]],
    4: [[9, 9], [25, 9], [9, 25], [25, 25]], 5: [[9, 9], [25, 9], [17, 17], [9, 25], [25, 25]],
    6: [[9, 9], [25, 9], [9, 17], [25, 17], [9, 25], [25, 25]],
  }[value];
  for (const [px, py] of pips) el("circle", { cx: x + px, cy: y + py, r: 3.2, class: "pip" }, g);
}

function hitArea(parent, attrs, point, view, onPoint, label) {
  const classes = ["hit"];
  if (view.sources.has(point)) classes.push("movable");
  if (view.selected === point) classes.push("selected");
  if (view.destinations.has(point)) classes.push("dest");
  const active = classes.length > 1;
  const node = el("rect", {
    ...attrs, class: classes.join(" "), "data-point": point, role: "button",
    "aria-label": label + (view.destinations.has(point) ? ` · ${t("point.target")}`
      : view.sources.has(point) ? ` · ${t("point.movable")}` : ""),
  }, parent);
  if (active) node.setAttribute("tabindex", "0");
  else node.setAttribute("aria-disabled", "true");
  node.addEventListener("click", () => onPoint(point));
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onPoint(point);
    }
  });
  return node;
}

/** The checkers drawn where `node` is, as data-mine / data-theirs (what tests read). */
function counts(node, mine, theirs) {
  node.setAttribute("data-mine", mine);
  node.setAttribute("data-theirs", theirs);
}

function countLabel(mine, theirs) {
  if (mine) return `${mine} ${t("match.you")}`;
  return theirs ? `${theirs} ×` : "0";
}

/**
 * Draw the board into `svg` (emptied first).
 *
 * view: {mine, theirs: 26 numbers each in the viewer's numbering ([0] off, [25] bar),
 *   dice: {values: [..], used: [bool..], side: "me" | "them", last: true for the roll already
 *     played} or null,
 *   cube: {value, side: "centre" | "me" | "them"}, or null where the match has no cube (1 point),
 *   sources, destinations: Sets of points; selected: a point or null,
 *   marks: the last play's moves [{from, to, hit, side: "mine" | "theirs"}] in the viewer's
 *     numbering (optional), flip: true to draw the board mirrored, home board on the left}
 * onPoint(point): called when the viewer taps or presses a point, the bar (25) or their tray (0).
 */
export function renderBoard(svg, view, onPoint) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  el("rect", { x: CUBE_COL, y: 0, width: WIDTH - CUBE_COL, height: HEIGHT, class: "frame" }, svg);
  el("rect", { x: LEFT_X, y: TOP_Y, width: 6 * PW, height: HEIGHT - 2 * FRAME, class: "felt" }, svg);
  el("rect", { x: RIGHT_X, y: TOP_Y, width: 6 * PW, height: HEIGHT - 2 * FRAME, class: "felt" }, svg);
  el("rect", { x: BAR_X, y: 0, width: BAR_W, height: HEIGHT, class: "bar" }, svg);
  for (const half of [0, 1]) {
    el("rect", {
      x: TRAY_X, y: half ? BOTTOM_Y : TOP_Y, width: TRAY_W - 4, height: POINT_H, class: "tray",
    }, svg);
  }

  const points = el("g", { class: "points" }, svg);
  for (let p = 1; p <= 24; p++) {
    const { x, bottom } = pointPlace(p);
    const base = bottom ? HEIGHT - FRAME : TOP_Y;
    const tip = bottom ? base - POINT_H + 12 : base + POINT_H - 12;
    el("polygon", {
      points: `${x},${base} ${x + PW},${base} ${x + PW / 2},${tip}`,
      class: `triangle ${p % 2 ? "odd" : "even"}${view.destinations.has(p) ? " lit" : ""}`,
    }, points);
    const num = el("text", {
      x: x + PW / 2, y: bottom ? HEIGHT - 4 : 12, class: "point-number", "text-anchor": "middle",
    }, points);
    num.textContent = String(p);
    const mine = view.mine[p];
    const theirs = view.theirs[p];
    const first = bottom ? base - R : base + R;
    const step = bottom ? -2 * R : 2 * R;
    if (mine) stack(points, x + PW / 2, mine, first, step, "mine");
    if (theirs) stack(points, x + PW / 2, theirs, first, step, "theirs");
    counts(hitArea(points, target(x, PW, bottom), p, view,
      onPoint, t("point.label", { n: p, count: countLabel(mine, theirs) })), mine, theirs);
  }

  // Bar: the viewer's checkers wait below the middle, the opponent's above it.
  const barX = BAR_X + BAR_W / 2;
  if (view.mine[25]) stack(svg, barX, view.mine[25], BOTTOM_Y + R, 2 * R, "mine");
  if (view.theirs[25]) stack(svg, barX, view.theirs[25], MID_Y - R, -2 * R, "theirs");
  counts(hitArea(svg, target(BAR_X, BAR_W, true), 25, view, onPoint,
    `${t("point.bar")}: ${view.mine[25]}`), view.mine[25], view.theirs[25]);

  // Trays: one slab per borne-off checker.
  for (const [side, count] of [["mine", view.mine[0]], ["theirs", view.theirs[0]]]) {
    for (let k = 0; k < count; k++) {
      const y = side === "mine" ? HEIGHT - FRAME - 11 * (k + 1) : TOP_Y + 11 * k + 1;
      el("rect", { x: TRAY_X + 4, y, width: TRAY_W - 12, height: 9, rx: 2, class: `slab ${side}` }, svg);
    }
  }
  const trayHit = hitArea(svg, target(TRAY_X, TRAY_W - 4, true), 0,
    view, onPoint, `${t("point.off")}: ${view.mine[0]}`);
  trayHit.classList.add("tray-hit");
  counts(trayHit, view.mine[0], view.theirs[0]);

  if (view.dice) {
    const { values, used, side } = view.dice;
    const halfX = side === "me" ? RIGHT_X : LEFT_X;
    const total = values.length * 40 - 6;
    const startX = halfX + (6 * PW - total) / 2;
    const cls = view.dice.last ? `${side} last` : side;  // the last roll, kept in view
    values.forEach((v, i) => drawDie(svg, startX + i * 40, MID_Y + 13, v, used[i], cls));
  }

  if (view.marks && view.marks.length) drawMarks(svg, view.marks);

  if (view.cube) drawCube(svg, view.cube);
  if (view.flip) flip(svg);
}

/** The doubling cube in its column: centred (showing 64 at 1), or on its owner's side. */
function drawCube(svg, cube) {
  const cubeY = cube.side === "me" ? HEIGHT - FRAME - 44 : cube.side === "them" ? TOP_Y + 4
    : MID_Y + 10;
  const g = el("g", { class: `cube ${cube.side}`, "data-cube": cube.value }, svg);
  el("rect", { x: 6, y: cubeY, width: 38, height: 38, rx: 5 }, g);
  const label = el("text", { x: 25, y: cubeY + 26, "text-anchor": "middle" }, g);
  label.textContent = String(cube.side === "centre" && cube.value === 1 ? 64 : cube.value);
}

/** Mirror the drawing left to right (home board on the left), its text kept readable. */
function flip(svg) {
  const g = el("g", { transform: `translate(${WIDTH} 0) scale(-1 1)`, class: "flipped" });
  g.append(...svg.childNodes);
  svg.append(g);
  for (const text of g.querySelectorAll("text")) {
    text.setAttribute("transform", `translate(${2 * Number(text.getAttribute("x"))} 0) scale(-1 1)`);
  }
}
