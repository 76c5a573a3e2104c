// Building a play move by move from the server's list of legal plays.
//
// The server lists each legal play once (state.legal_plays, distinct by resulting position) as
// single-die steps [from, to] in the mover's numbering: points 1–24, 25 = bar, 0 = off. A player
// may make those steps in any order the rules allow, so the builder expands every listed play
// into the orders that are physically possible from the starting position, and offers as the
// next steps exactly those that keep the moves made so far a prefix of one of them. It never
// offers a step that cannot end in a listed play, and a play is complete only when it is one.

const BAR = 25;
const OFF = 0;

/** The dice a roll gives to play: two, or four of a double. */
export function diceToPlay(dice) {
  return dice[0] === dice[1] ? [dice[0], dice[0], dice[0], dice[0]] : [dice[0], dice[1]];
}

function homeOnly(points) {
  for (let p = 7; p <= BAR; p++) if (points[p] > 0) return false;
  return true;
}

function higherInHome(points, from) {
  for (let p = from + 1; p <= 6; p++) if (points[p] > 0) return true;
  return false;
}

// The dice that can make step [from, to] now: the exact distance, or for a bear-off any larger
// die when no checker stands on a higher point of the home board.
function diceFor(points, [from, to], remaining) {
  if (to !== OFF) return remaining.includes(from - to) ? [from - to] : [];
  if (!homeOnly(points)) return [];
  if (remaining.includes(from)) return [from];
  if (higherInHome(points, from)) return [];
  return [...new Set(remaining.filter((d) => d > from))];
}

// Whether the steps, in this order, can be made from `points` with the `remaining` dice.
function feasible(points, steps, remaining) {
  if (steps.length === 0) return true;
  const [from, to] = steps[0];
  if (points[from] <= 0 || (from !== BAR && points[BAR] > 0)) return false;
  const next = points.slice();
  next[from] -= 1;
  next[to] += 1;
  return diceFor(points, steps[0], remaining).some((die) => {
    const rest = remaining.slice();
    rest.splice(rest.indexOf(die), 1);
    return feasible(next, steps.slice(1), rest);
  });
}

function permutations(steps) {
  if (steps.length <= 1) return [steps];
  const seen = new Set();
  const out = [];
  steps.forEach((step, i) => {
    const key = step.join("/");
    if (seen.has(key)) return;
    seen.add(key);
    const rest = steps.slice(0, i).concat(steps.slice(i + 1));
    for (const tail of permutations(rest)) out.push([step, ...tail]);
  });
  return out;
}

const sameStep = (a, b) => a[0] === b[0] && a[1] === b[1];

/**
 * The state of a play being built.
 *
 * legalPlays: state.legal_plays ([{notation, moves: [[from, to], …]}]); dice: [d1, d2];
 * mine: the mover's checkers, 26 numbers ([0] borne off, [1..24] points, [25] bar);
 * theirs: the opponent's checkers in the mover's numbering (same layout; [25] their bar).
 */
export class PlayBuilder {
  constructor(legalPlays, dice, mine, theirs) {
    this.dice = diceToPlay(dice);
    this.start = { mine: mine.slice(), theirs: theirs.slice() };
    this.orders = [];
    for (const play of legalPlays) {
      for (const order of permutations(play.moves)) {
        if (feasible(mine, order, this.dice)) this.orders.push({ play, order });
      }
    }
    this.done = [];
  }

  /** Whether no legal play exists (a dance): the only legal play is the empty one. */
  get dance() {
    return this.orders.length > 0 && this.orders.every((o) => o.order.length === 0);
  }

  _open() {
    return this.orders.filter(({ order }) => this.done.every((s, i) => sameStep(s, order[i])));
  }

  /** The next steps that can follow the moves made so far, as [[from, to], …] (no repeats). */
  nextSteps() {
    const k = this.done.length;
    const steps = [];
    for (const { order } of this._open()) {
      if (order.length > k && !steps.some((s) => sameStep(s, order[k]))) steps.push(order[k]);
    }
    return steps;
  }

  /** Points (1–25) from which a checker can move now. */
  sources() {
    return [...new Set(this.nextSteps().map(([from]) => from))];
  }

  /** Points (0–24) where the checker on `from` can land now, one die at a time. */
  destinations(from) {
    return this.nextSteps().filter(([f]) => f === from).map(([, to]) => to);
  }

  /** Make the step; throws if it is not one of nextSteps(). */
  move(from, to) {
    if (!this.nextSteps().some((s) => sameStep(s, [from, to]))) {
      throw new Error(`${from}/${to} is not a legal next step`);
    }
    this.done.push([from, to]);
  }

  /** Take back the last step; returns it, or null if there was none. */
  undo() {
    return this.done.pop() || null;
  }

  /** The legal play the steps made so far complete, or null while the play is incomplete. */
  complete() {
    const hit = this._open().find(({ order }) => order.length === this.done.length);
    return hit ? hit.play : null;
  }

  /** How many more steps the shortest completion needs (0 when complete). */
  stepsLeft() {
    const lengths = this._open().map(({ order }) => order.length - this.done.length);
    return lengths.length ? Math.min(...lengths) : 0;
  }

  /** The dice not yet used, in play order (for showing which dice are spent). */
  usedDice() {
    const used = [];
    let points = this.start.mine.slice();
    let remaining = this.dice.slice();
    for (const step of this.done) {
      // The die is fixed except for a bear-off with a larger die; any fitting die shows the same.
      const die = diceFor(points, step, remaining)[0];
      used.push(die);
      remaining.splice(remaining.indexOf(die), 1);
      points = applyStep(points, step);
    }
    return used;
  }

  /** The position after the steps made so far: {mine, theirs} (hit blots go to their bar). */
  position() {
    let mine = this.start.mine.slice();
    const theirs = this.start.theirs.slice();
    for (const [from, to] of this.done) {
      mine = applyStep(mine, [from, to]);
      if (to !== OFF && theirs[to] === 1) {
        theirs[to] = 0;
        theirs[BAR] += 1;
      }
    }
    return { mine, theirs };
  }
}

function applyStep(points, [from, to]) {
  const next = points.slice();
  next[from] -= 1;
  next[to] += 1;
  return next;
}

/**
 * A seat's checkers seen from the other seat's numbering: their point i is our point 25 − i;
 * the bar (25) and borne-off (0) entries stay where they are.
 */
export function mirror(points) {
  const out = new Array(26).fill(0);
  out[0] = points[0];
  out[BAR] = points[BAR];
  for (let p = 1; p <= 24; p++) out[25 - p] = points[p];
  return out;
}
