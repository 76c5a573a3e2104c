"""Legal-play generation from several threads at once (the server's worker threads, an
analysis running beside live matches) gives each caller its own position's plays."""

import random
from concurrent.futures import ThreadPoolExecutor

from boardgammon.engine import Board


def _positions(seed: int, count: int) -> list[tuple[Board, int, int]]:
    rng = random.Random(seed)
    out: list[tuple[Board, int, int]] = []
    board = Board.initial()
    while len(out) < count:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        out.append((board, d1, d2))
        plays = board.legal_plays(d1, d2)
        board = plays[rng.randrange(len(plays))].after.swapped()
        if board.is_game_over():
            board = Board.initial()
    return out


def test_threads_do_not_share_generator_buffers():
    positions = _positions(7, 400)
    expected = [[str(p) for p in b.legal_plays(d1, d2)] for b, d1, d2 in positions]

    def work(offset: int) -> list[bool]:
        # Each thread walks the list from a different place so that different positions
        # are generated at the same moment.
        results = []
        for _ in range(3):
            for k in range(len(positions)):
                i = (k + offset) % len(positions)
                board, d1, d2 = positions[i]
                results.append([str(p) for p in board.legal_plays(d1, d2)] == expected[i])
        return results

    with ThreadPoolExecutor(max_workers=8) as pool:
        outcomes = [ok for chunk in pool.map(work, range(0, 400, 50)) for ok in chunk]
    assert len(outcomes) == 8 * 3 * 400
    assert all(outcomes)
