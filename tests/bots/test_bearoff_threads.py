"""The bear-off table from several threads at once (the server's worker threads and its
analysis worker all evaluate positions): computed once, and its cache file written whole."""

import threading

import numpy as np

from boardgammon.bots import bearoff


class CountingLock:
    """The table's lock, counting the threads that have asked for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.asked = threading.Semaphore(0)

    def __enter__(self) -> None:
        self.asked.release()
        self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def test_table_is_computed_once_when_threads_race(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    calls = []
    lock = CountingLock()
    monkeypatch.setattr(bearoff, "_TABLE_LOCK", lock)

    def slow_compute() -> np.ndarray:
        calls.append(threading.get_ident())
        for _ in range(6):  # every thread has arrived at the lock while the first computes
            assert lock.asked.acquire(timeout=60)
        return np.full((bearoff.N_POSITIONS, bearoff.MAX_ROLLS), len(calls), dtype=np.float32)

    monkeypatch.setattr(bearoff, "compute", slow_compute)
    cached = getattr(bearoff, "_table", bearoff.table)
    cached.cache_clear()
    start = threading.Barrier(6)
    results: list[np.ndarray] = []

    def use() -> None:
        start.wait()
        results.append(bearoff.table())

    try:
        threads = [threading.Thread(target=use) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(calls) == 1
        assert len(results) == 6 and all(r is results[0] for r in results)
        saved = np.load(tmp_path / "boardgammon" / f"bearoff-one-sided-v{bearoff._VERSION}.npy")
        assert saved.shape == (bearoff.N_POSITIONS, bearoff.MAX_ROLLS)
        assert (saved == 1).all()
        assert not list((tmp_path / "boardgammon").glob("*.tmp.npy"))
    finally:
        cached.cache_clear()  # the next caller loads the real table again
