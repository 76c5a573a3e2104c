"""Property tests (hypothesis) of positions, legal plays, notation and Position IDs.

The legal sets are checked against a deliberately naive reference written here: every sequence
of single-die moves in both orders, no pruning, the rules applied afterwards. It moves either
side of an unswapped array, which also makes it the check of colour symmetry.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardgammon.engine import Board, Play
from boardgammon.engine.ids import decode_position_id, encode_position_id
from boardgammon.engine.movegen import generate_batch
from tests.helpers.positions import random_play_positions

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

_CORPUS = (random_play_positions(np.random.default_rng(11), 300)
           + random_play_positions(np.random.default_rng(12), 100, "hypergammon"))


@st.composite
def scattered_positions(draw, checkers: int = 15) -> Board:
    """Any valid position: each checker of each side on a random place (or borne off)."""
    a = np.zeros((2, 25), dtype=np.int8)
    for place in draw(st.lists(st.integers(-1, 24), min_size=checkers, max_size=checkers)):
        if place >= 0:
            a[0, place] += 1
    # The opponent's index j is the mover's 23 - j: only points the mover leaves empty.
    free = [-1, 24] + [j for j in range(24) if a[0, 23 - j] == 0]
    for place in draw(st.lists(st.sampled_from(free), min_size=checkers, max_size=checkers)):
        if place >= 0:
            a[1, place] += 1
    return Board(a, checkers)


@st.composite
def home_heavy_positions(draw) -> Board:
    """Positions with the mover mostly in the home board: bear-offs and near bear-offs."""
    a = np.zeros((2, 25), dtype=np.int8)
    n = draw(st.integers(1, 15))
    for place in draw(st.lists(st.integers(-1, 8), min_size=n, max_size=n)):
        if place >= 0:
            a[0, place] += 1
    free = [24] + [j for j in range(18, 24) if a[0, 23 - j] == 0]  # bar, the mover's home
    for place in draw(st.lists(st.sampled_from(free), max_size=6)):
        a[1, place] += 1
    return Board(a)


positions = st.one_of(scattered_positions(), scattered_positions(3), home_heavy_positions(),
                      st.sampled_from(_CORPUS))
dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


# The reference -----------------------------------------------------------------------------------


def _steps(a: np.ndarray, side: int, die: int):
    """Every position after one legal move of ``die`` by ``side`` (no symmetry, no pruning)."""
    me, them = a[side], a[1 - side]
    sources = [24] if me[24] else [i for i in range(24) if me[i]]
    for src in sources:
        dst = src - die
        b = a.copy()
        b[side, src] -= 1
        if dst >= 0:
            if them[23 - dst] >= 2:
                continue
            b[side, dst] += 1
            if them[23 - dst] == 1:
                b[1 - side, 23 - dst] = 0
                b[1 - side, 24] += 1
        elif me[6:].any() or (dst < -1 and me[src + 1:6].any()):
            continue
        yield b


def reference_results(a: np.ndarray, d1: int, d2: int, side: int = 0) -> set[bytes]:
    """The legal resulting positions (``bytes`` of the array) for ``side`` rolling d1-d2."""
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    ends: list[tuple[int, int, bytes]] = []  # (moves, first die, position)

    def walk(b: np.ndarray, rest: tuple[int, ...], n: int, first: int) -> None:
        moved = False
        if rest:
            for nb in _steps(b, side, rest[0]):
                moved = True
                walk(nb, rest[1:], n + 1, first or rest[0])
        if not moved:
            ends.append((n, first, b.tobytes()))

    for order in orders:
        walk(a.copy(), order, 0, 0)
    best = max(n for n, _, _ in ends)
    legal = [(first, pos) for n, first, pos in ends if n == best]
    if best == 1 and d1 != d2 and any(first == max(d1, d2) for first, _ in legal):
        legal = [(first, pos) for first, pos in legal if first == max(d1, d2)]
    return {pos for _, pos in legal}


# Properties --------------------------------------------------------------------------------------


@SETTINGS
@given(positions, dice)
def test_legal_set_equals_the_naive_reference(board, roll):
    ours = {p.after.array.tobytes() for p in board.legal_plays(*roll)}
    assert ours == reference_results(board.array, *roll)


def _dice_left(play: Play, d1: int, d2: int) -> list[int]:
    """The dice ``play`` may have left unplayed, under every reading of its moves (a bear-off
    from a point below both dice may have used either)."""
    if d1 == d2:
        return [d1] if len(play.moves) < 4 else []
    if not play.moves:
        return [d1, d2]
    if len(play.moves) == 2:
        return []
    (m,) = play.moves
    return [other for used, other in ((d1, d2), (d2, d1)) if _fits(m, used)]


@SETTINGS
@given(positions, dice)
def test_no_legal_play_leaves_a_die_unused_when_a_fuller_play_exists(board, roll):
    plays = board.legal_plays(*roll)
    assert len({len(p.moves) for p in plays}) == 1  # all use the same number of dice
    for p in plays:
        for die in _dice_left(p, *roll):
            assert next(_steps(p.after.array.copy(), 0, die), None) is None, (str(p), die)


@SETTINGS
@given(positions, dice)
def test_checkers_are_conserved(board, roll):
    before = board.array.astype(int)
    for p in board.legal_plays(*roll):
        after = p.after.array.astype(int)
        off = sum(1 for m in p.moves if m.dest == 0)
        assert (after >= 0).all()
        assert after[0].sum() + p.after.borne_off(0) == board.checkers
        assert after[0].sum() == before[0].sum() - off
        assert after[1].sum() == before[1].sum()  # hits move checkers, never remove them
        assert after[1, 24] == before[1, 24] + sum(m.hit for m in p.moves)


def _fits(m, die: int) -> bool:
    """Whether single-die move ``m`` can be a move of ``die`` (a bear-off may use a larger die)."""
    return m.source - m.dest == die or (m.dest == 0 and m.source < die)


@SETTINGS
@given(positions, dice)
def test_each_move_uses_one_die_and_pips_add_up(board, roll):
    d1, d2 = roll
    mine_before, theirs_before = board.pip_counts()
    for p in board.legal_plays(*roll):
        if d1 == d2:
            assert all(_fits(m, d1) for m in p.moves)
        elif len(p.moves) == 2:
            a, b = p.moves
            assert (_fits(a, d1) and _fits(b, d2)) or (_fits(a, d2) and _fits(b, d1))
        else:
            assert all(_fits(m, d1) or _fits(m, d2) for m in p.moves)
        mine_after, theirs_after = p.after.pip_counts()
        assert mine_before - mine_after == sum(m.source - m.dest for m in p.moves)
        # A checker hit on my point q goes from the opponent's point 25 - q to their bar (25).
        assert theirs_after - theirs_before == sum(m.dest for m in p.moves if m.hit)


@SETTINGS
@given(positions)
def test_position_id_round_trip(board):
    pid = board.position_id
    assert len(pid) == 14
    assert Board.from_position_id(pid, board.checkers) == board
    assert encode_position_id(decode_position_id(pid)) == pid


@SETTINGS
@given(positions, dice)
def test_colour_symmetry(board, roll):
    """The opponent's plays, generated from the swapped view and swapped back, are those the
    reference finds moving the other colour on the unswapped board."""
    swapped = board.swapped()
    assert swapped.swapped() == board
    assert swapped.pip_counts() == board.pip_counts()[::-1]
    assert decode_position_id(swapped.position_id).tolist() == board.array[::-1].tolist()
    theirs = {p.after.swapped().array.tobytes() for p in swapped.legal_plays(*roll)}
    assert theirs == reference_results(board.array, *roll, side=1)


@settings(SETTINGS, max_examples=150)
@given(positions, dice)
def test_every_legal_plays_notation_reparses_and_validates_to_the_same_play(board, roll):
    for p in board.legal_plays(*roll):
        text = str(p)
        assert Play.parse(text) == p
        q = board.validate(text, roll)
        assert q == p and q.after == p.after
        assert board.play(text, roll) == p.after


@settings(SETTINGS, max_examples=100)
@given(st.lists(st.tuples(positions, dice), min_size=1, max_size=20))
def test_generate_batch_equals_legal_plays(pairs):
    boards = np.array([b.array for b, _ in pairs])
    rolls = np.array([r for _, r in pairs], dtype=np.int64)
    out = np.empty((4096, 2, 25), dtype=np.int8)
    offsets = np.empty(len(pairs) + 1, dtype=np.int64)
    total = generate_batch(boards, rolls, out, offsets)
    assert total == offsets[-1]
    for i, (b, r) in enumerate(pairs):
        got = [x.tobytes() for x in out[offsets[i]:offsets[i + 1]]]
        assert got == [p.after.array.tobytes() for p in b.legal_plays(*r)]
