// The board as SVG, always from the viewer's side: the viewer's home board bottom right
// (points 1–6), their outer board bottom left (7–12), the opponent's outer and home boards on
// top (13–24, numbered from the viewer's side), the bar in the middle, borne-off trays on the
// right (viewer's below), the cube on the left (centred, or on its owner's side).
//
// Every point, the bar and the viewer's tray carry data-point (0 off, 1–24, 25 bar) and the
// classes movable / selected / dest, so tests can read what is lit; Enter/Space with keyboard
// focus acts on the focused one. A tap is resolved by one handler from where it lands
// (tapAt): on a phone a column is 21–23 px wide, so a tap snaps to the nearest legal target
// within 22 px (docs/architecture.md, the board on a phone).

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
// A point's target is its whole half of the board high, frame and half the middle strip
// included, and at least TAP_PX screen pixels wide, centred on its column: wider than the
// column on a phone, so neighbouring targets overlap and one handler decides (tapAt).
const HALF = HEIGHT / 2;
const TAP_PX = 44;
const SNAP_PX = TAP_PX / 2; // a tap reaches a legal target whose column centre is this close

/** Each target's column: its point, centre and edges in board units, and its half. */
function columns() {
  const out = [];
  for (let p = 1; p <= 24; p++) {
    const { x, bottom } = pointPlace(p);
    out.push({ point: p, left: x, right: x + PW, bottom });
  }
  out.push({ point: 25, left: BAR_X, right: BAR_X + BAR_W, bottom: true });
  out.push({ point: 0, left: TRAY_X, right: TRAY_X + TRAY_W - 4, bottom: true });
  return out.map((c) => ({ ...c, centre: (c.left + c.right) / 2 }));
}
export const COLUMNS = columns();

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

/** A target: a group (the .hit button that tests and the keyboard use) of its column's strip
 * and its reach, a rectangle at least TAP_PX wide that sizeTargets() keeps so as the board is
 * resized. The reach takes no pointer events (it overlaps its neighbours'): every tap goes to
 * the board's one handler, which finds the target from where it landed. */
function hitArea(parent, column, view, onPoint, label) {
  const { point, left, right, bottom } = column;
  const classes = ["hit"];
  if (view.sources.has(point)) classes.push("movable");
  if (view.selected === point) classes.push("selected");
  if (view.destinations.has(point)) classes.push("dest");
  const active = classes.length > 1;
  const node = el("g", {
    class: classes.join(" "), "data-point": point, role: "button",
    "aria-label": label + (view.destinations.has(point) ? ` · ${t("point.target")}`
      : view.sources.has(point) ? ` · ${t("point.movable")}` : ""),
  }, parent);
  const y = bottom ? HALF : 0;
  el("rect", { x: left, y, width: right - left, height: HALF, class: "column" }, node);
  el("rect", { x: left, y, width: right - left, height: HALF, class: "reach",
    "data-centre": column.centre }, node);
  if (active) node.setAttribute("tabindex", "0");
  else node.setAttribute("aria-disabled", "true");
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      onPoint(point);
    }
  });
  return node;
}

/** Board units per screen pixel as the board is drawn now (1 before it is laid out). */
function unitsPerPixel(svg) {
  const width = svg.getBoundingClientRect().width;
  return width > 0 ? WIDTH / width : 1;
}

/** Widen every target's reach to TAP_PX screen pixels, centred on its column and kept on the
 * board (the tray's, at the edge, leans inwards). */
function sizeTargets(svg) {
  const need = TAP_PX * unitsPerPixel(svg) + 0.5;
  for (const reach of svg.querySelectorAll(".hit .reach")) {
    const column = reach.previousElementSibling;
    const width = Math.max(Number(column.getAttribute("width")), need);
    const x = Math.min(Math.max(Number(reach.dataset.centre) - width / 2, 0), WIDTH - width);
    reach.setAttribute("x", x);
    reach.setAttribute("width", width);
  }
}

/**
 * The point a tap at board coordinates (x, y) (unflipped) is meant for, or null: the column
 * under it when that is a legal target now (a source, a lit destination); else the legal
 * target in that half whose column centre is nearest, within `snap` units; else the column
 * under it (tapping what cannot move does what it always did: nothing, or a deselect).
 */
export function tapAt(x, y, view, snap) {
  const bottom = y >= HALF;
  const half = COLUMNS.filter((c) => c.bottom === bottom);
  const legal = (p) => view.sources.has(p) || view.destinations.has(p);
  const under = half.find((c) => x >= c.left && x < c.right) || null;
  if (under && legal(under.point)) return under.point;
  let best = null;
  for (const c of half) {
    const d = Math.abs(c.centre - x);
    if (legal(c.point) && d <= snap && (!best || d < best.d)) best = { point: c.point, d };
  }
  if (best) return best.point;
  return under ? under.point : null;
}

/** Install the board's one tap handler and its resize watch, once per svg. */
function listen(svg) {
  if (svg.boardTaps) return;
  svg.boardTaps = true;
  svg.addEventListener("click", (e) => {
    const { view, onPoint } = svg.boardView;
    const ctm = svg.getScreenCTM();
    if (!ctm) return;
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    const x = view.flip ? WIDTH - at.x : at.x;
    const point = tapAt(x, at.y, view, SNAP_PX * unitsPerPixel(svg));
    if (point !== null) onPoint(point);
  });
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => sizeTargets(svg)).observe(svg);
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
 *     played, sides: optional, each die's side (an opening roll: one die each)} or null,
 *   cube: {value, side: "centre" | "me" | "them"}, or null where the match has no cube (1 point),
 *   sources, destinations: Sets of points; selected: a point or null,
 *   marks: the last play's moves [{from, to, hit, side: "mine" | "theirs"}] in the viewer's
 *     numbering (optional), flip: true to draw the board mirrored, home board on the left}
 * onPoint(point): called when the viewer taps or presses a point, the bar (25) or their tray (0);
 *   a tap is resolved by tapAt (the nearest legal target within 22 px).
 */
export function renderBoard(svg, view, onPoint) {
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  // The frame takes in the cube's column as the right side takes in the trays: both sides
  // are 66 units wide, so the drawn board is centred in its element.
  el("rect", { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: "frame" }, svg);
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
    counts(hitArea(points, COLUMNS[p - 1], view,
      onPoint, t("point.label", { n: p, count: countLabel(mine, theirs) })), mine, theirs);
  }

  // Bar: the viewer's checkers wait below the middle, the opponent's above it.
  const barX = BAR_X + BAR_W / 2;
  if (view.mine[25]) stack(svg, barX, view.mine[25], BOTTOM_Y + R, 2 * R, "mine");
  if (view.theirs[25]) stack(svg, barX, view.theirs[25], MID_Y - R, -2 * R, "theirs");
  counts(hitArea(svg, COLUMNS[24], view, onPoint,
    `${t("point.bar")}: ${view.mine[25]}`), view.mine[25], view.theirs[25]);

  // Trays: one slab per borne-off checker.
  for (const [side, count] of [["mine", view.mine[0]], ["theirs", view.theirs[0]]]) {
    for (let k = 0; k < count; k++) {
      const y = side === "mine" ? HEIGHT - FRAME - 11 * (k + 1) : TOP_Y + 11 * k + 1;
      el("rect", { x: TRAY_X + 4, y, width: TRAY_W - 12, height: 9, rx: 2, class: `slab ${side}` }, svg);
    }
  }
  const trayHit = hitArea(svg, COLUMNS[25], view, onPoint, `${t("point.off")}: ${view.mine[0]}`);
  trayHit.classList.add("tray-hit");
  counts(trayHit, view.mine[0], view.theirs[0]);

  if (view.dice) {
    // Each die on its roller's half, in their checkers' colour (style.css); an opening roll
    // has one die of each side.
    const { values, used } = view.dice;
    const sides = view.dice.sides || values.map(() => view.dice.side);
    for (const side of ["me", "them"]) {
      const own = values.map((_, i) => i).filter((i) => sides[i] === side);
      const halfX = side === "me" ? RIGHT_X : LEFT_X;
      const startX = halfX + (6 * PW - (own.length * 40 - 6)) / 2;
      const cls = view.dice.last ? `${side} last` : side;  // the last roll, kept in view
      own.forEach((i, k) => drawDie(svg, startX + k * 40, MID_Y + 13, values[i], used[i], cls));
    }
  }

  if (view.marks && view.marks.length) drawMarks(svg, view.marks);

  if (view.cube) drawCube(svg, view.cube);
  if (view.flip) flip(svg);
  svg.boardView = { view, onPoint };
  listen(svg);
  sizeTargets(svg);
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
