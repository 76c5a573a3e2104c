"""``boardgammon warm``: compile (or load from the cache) all numba code ahead of first use.

``make install`` runs it after pip, so that a fresh user's first ``boardgammon play`` or
``analyze`` does not sit a silent minute compiling (see :mod:`boardgammon._numba_cache`).
"""

from __future__ import annotations

import time

import typer


def warm() -> None:
    """Compile the move generator, the computer levels and the match analysis for this version
    (about a minute the first time; seconds once cached)."""
    started = time.perf_counter()
    typer.echo("Compiling (or loading from the cache) the move generator…")
    from boardgammon._numba_cache import cache_dir
    from boardgammon.engine import Board

    Board.initial().legal_plays(6, 5)
    typer.echo(f"  done at {time.perf_counter() - started:.1f} s; cache: {cache_dir()}")
    typer.echo("Compiling (or loading) the computer levels and the match analysis…")
    from boardgammon.bots.warm import warm_up

    warm_up()
    typer.echo(f"  done at {time.perf_counter() - started:.1f} s")
