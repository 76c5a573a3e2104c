"""The cube model's cache is bounded (issue 21, finding 8): its key holds a position's own cube
efficiency, so a server analysing matches asked for thousands of distinct entries of some
110 KB each and grew by about a gigabyte; now the memory it keeps stays within tens of MB
however many positions ask, and the answers do not change."""

from __future__ import annotations

import tracemalloc

from boardgammon.cube import met


def test_thousands_of_efficiencies_keep_the_cache_small():
    met._cube_model.cache_clear()
    first = met.cube_knots(7, 5, efficiency=0.6812345)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(2000):
            met.cube_knots(7, 5, (0.2, 0.3), efficiency=0.55 + i * 1e-4)
        kept = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert kept < 40e6, f"{kept / 1e6:.0f} MB kept by 2,000 cube models"
    assert met._cube_model.cache_info().currsize <= 256
    assert met.cube_knots(7, 5, efficiency=0.6812345) == first  # recomputed, the same
