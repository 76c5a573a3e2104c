// A small helper for building HTML: h("button", {class: "x", onclick: f}, "text", child…).
// Attributes starting with "on" become listeners; false/null/undefined attributes are left out;
// children may be strings, nodes, arrays or null.

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  append(node, children);
  return node;
}

/** Replace the children of `node` (same child rules as h). */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/**
 * Replace the children of `node` with `children` (same rules as h), keeping each element
 * already there that is the same control: same tag, data-action, data-resign and text. The
 * kept element takes the new one's attributes (disabled, aria-*) and keeps its listeners,
 * which must do the same as the new one's. A button replaced between pointerdown and
 * pointerup loses its click, and a socket message may redraw the controls at any moment.
 */
export function keep(node, ...children) {
  const fresh = [];
  append({ append: (c) => fresh.push(c) }, children);
  const key = (e) => (e instanceof Element ? [e.tagName, e.getAttribute("data-action"),
    e.getAttribute("data-resign"), e.textContent].join("|") : null);
  const old = new Map([...node.children].map((e) => [key(e), e]));
  const next = fresh.map((c) => {
    const kept = c instanceof Element && old.get(key(c));
    if (!kept) return c;
    old.delete(key(c));
    if (kept.outerHTML === c.outerHTML) return kept;
    if (kept.children.length || c.children.length) return c;  // only a plain control is kept
    for (const { name } of [...kept.attributes]) if (!c.hasAttribute(name)) kept.removeAttribute(name);
    for (const { name, value } of [...c.attributes]) kept.setAttribute(name, value);
    return kept;
  });
  const same = next.length === node.childNodes.length && next.every((c, i) => c === node.childNodes[i]);
  if (!same) node.replaceChildren(...next);
  return node;
}

/**
 * Replace the children of `node` with `rows` (elements), keeping each row already there that
 * has the same `key(row)` and the same HTML: a list drawn again on every state leaves a row
 * that did not change as it was (focused, between pointerdown and pointerup, a disclosure in
 * it open), and moves none of them.
 */
export function keepRows(node, key, rows) {
  const old = new Map([...node.children].map((e) => [key(e), e]));
  const next = rows.map((row) => {
    const kept = old.get(key(row));
    if (!kept || kept.outerHTML !== row.outerHTML) return row;
    old.delete(key(row));
    return kept;
  });
  next.forEach((row, i) => {
    if (node.childNodes[i] !== row) node.insertBefore(row, node.childNodes[i] || null);
  });
  while (node.childNodes.length > next.length) node.lastChild.remove();
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** An ID from the address as a reader can see it: as it is, or %-escaped as the address bar
 * shows it when it is empty or holds spaces or control characters ("/match/%20" said
 * "There is no match ." with the ID invisible); cut to 40 characters with "…" (a 5,000-character
 * address filled 3,000 px of a phone's screen). */
export function shownId(id) {
  const shown = id && !/[\s\p{Cc}\p{Cf}]/u.test(id) ? id : encodeURIComponent(id);
  const chars = [...shown]; // whole characters: an emoji is two of .length's units
  return chars.length > 40 ? `${chars.slice(0, 40).join("")}…` : shown;
}

/** Format seconds as m:ss (or h:mm:ss), never negative. */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
}

/**
 * A seat's clock `elapsed` seconds after `clocks` (a state's `clocks`) was read: the delay left
 * (null when that seat's clock is not running) and the reserve left, charged only for the time
 * past the delay window.
 */
export function clockAfter(clocks, seat, elapsed) {
  if (clocks.running !== seat) return { delayLeft: null, reserve: clocks.reserve[seat] };
  return {
    delayLeft: Math.max(0, clocks.delay_left - elapsed),
    reserve: clocks.reserve[seat] - Math.max(0, elapsed - clocks.delay_left),
  };
}

/** A button labelled `label` that copies `text` to the clipboard and then says `done`. Where
 * the page may not write to the clipboard (served over plain HTTP from another host), it
 * selects `node`'s text instead, for the reader to copy. */
export function copyButton(text, node, label, done) {
  const button = h("button", { type: "button", "data-action": "copy" }, label);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = done;
    } catch {
      getSelection().selectAllChildren(node);
    }
  });
  return button;
}
