// The last play on the board (state.last_play, docs/api.md): its moves turned into the
// viewer's numbering for board.js's marks, its dice kept in view with whose they were, and a
// line saying it in words. Kept until the next play replaces it.

import { t } from "./i18n.js";

/** A point of `moverIsViewer`'s mover in the viewer's numbering (bar and off stay). */
function toViewer(p, moverIsViewer) {
  return moverIsViewer || p === 0 || p === 25 ? p : 25 - p;
}

/** The marks of `last` for the viewer in seat `me`: [{from, to, hit, side}]. */
export function lastMarks(last, me) {
  if (!last) return [];
  const mine = last.seat === me;
  return last.moves.map(([from, to, hit]) => ({
    from: toViewer(from, mine), to: toViewer(to, mine), hit: !!hit, side: mine ? "mine" : "theirs",
  }));
}

/** The dice of `last` for board.js, on the mover's side, marked as already played. */
export function lastDice(last, me) {
  if (!last) return null;
  const [a, b] = last.dice;
  const values = a === b ? [a, a, a, a] : [a, b];
  return { values, used: values.map(() => false), side: last.seat === me ? "me" : "them", last: true };
}

/** The last play in words: "bob rolled 6-4 and played 24/18 8/4*" (or could not move). */
export function lastPlayText(last, name) {
  if (!last) return "";
  const dice = last.dice.join("-");
  return last.play ? t("last.played", { name, dice, play: last.play })
    : t("last.danced", { name, dice });
}
