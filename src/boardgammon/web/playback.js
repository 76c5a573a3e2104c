// The other side's play shown at a pace a person can follow (issue 22): the computer's (or a
// live opponent's) roll and play reach the page as states a fraction of a second apart, which
// drawn as they come look like one jump. A Playback shows the board before the play with its
// dice, then one checker move every STEP_MS, the marks of the moves made so far staying; a tap
// on the board or the skip button shows the end at once. With prefers-reduced-motion there is
// no playback: the end is drawn straight away.

export const STEP_MS = 400;

const copy = (board) => [board[0].slice(), board[1].slice()];

/**
 * The boards of a play, step by step: before it, then after each of its moves (the last is
 * `after`). Boards are state.board.points (two seats' 26 counts, each in its own numbering);
 * `last` is state.last_play (moves [from, to, hit] in the mover's numbering, 25 bar, 0 off).
 * Returns null when the moves do not fit `after` (a count would go below zero).
 */
export function playFrames(after, last) {
  const mover = last.seat;
  const other = 1 - mover;
  const board = copy(after);
  // A hit sends the blot on the mover's `to` (25 - to in its owner's numbering) to the bar.
  // The notation marks a hit on every move of a repeated step ("bar/24*(2)"), but only the
  // first landing hits: the one whose point the mover did not already hold.
  for (const [from, to, hit] of [...last.moves].reverse()) {
    board[mover][to] -= 1;
    board[mover][from] += 1;
    if (hit && board[mover][to] === 0) {
      board[other][25] -= 1;
      board[other][25 - to] += 1;
    }
  }
  const frames = [copy(board)];
  for (const [from, to, hit] of last.moves) {
    if (hit && board[mover][to] === 0 && board[other][25 - to] > 0) {
      board[other][25 - to] -= 1;
      board[other][25] += 1;
    }
    board[mover][from] -= 1;
    board[mover][to] += 1;
    frames.push(copy(board));
  }
  const fits = frames.every((f) => f.every((seat) => seat.every((n) => n >= 0)));
  return fits ? frames : null;
}

/** Whether the viewer asked for less motion (no playback then). */
export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** One play shown step by step; `changed()` is called after each step and at the end. */
export class Playback {
  constructor(changed) {
    this.changed = changed;
    this.frames = null;
    this.step = 0;
    this.timer = null;
  }

  /** Whether a play is being shown (its board is `board()`, not the state's). */
  get active() {
    return this.frames !== null;
  }

  /** Show `last`'s play ending on `after` (state.board.points); false if it cannot be shown. */
  start(after, last) {
    this.stop();
    const frames = reducedMotion() || !last.moves.length ? null : playFrames(after, last);
    if (!frames) return false;
    this.frames = frames;
    this.step = 0;
    this.timer = setInterval(() => this.advance(), STEP_MS);
    return true;
  }

  advance() {
    this.step += 1;
    if (this.step >= this.frames.length - 1) this.skip();
    else this.changed();
  }

  /** The board of the step shown: both seats' points as in state.board.points. */
  board() {
    return this.frames[this.step];
  }

  /** How many of the play's moves are on the board, and of how many. */
  progress() {
    return { done: this.step, total: this.frames.length - 1 };
  }

  /** Show the end now. */
  skip() {
    if (!this.active) return;
    this.stop();
    this.changed();
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.frames = null;
  }
}
