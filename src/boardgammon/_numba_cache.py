"""Where numba keeps its compiled code: one directory per version of the package's source.

numba's own cache (``cache=True``, files beside each module) is invalidated only when the file
of the compiled function itself changes, not when a function it calls or inlines from another
module does: after an edit of ``bots/encoding.py`` alone, ``bots/training.py``'s cached
``train_games`` would keep the old encoding, and an evaluator the old input count — silently wrong
values (numba documents this limit: "Cache invalidation", numba's caching notes). Keying the
cache directory by a hash of every source file of the package makes any change start from a
clean cache.

The directory is ``$NUMBA_CACHE_DIR`` when the user sets it (then keyed by nothing: their
choice), else ``$XDG_CACHE_HOME/boardgammon/numba/<key>`` (default ``~/.cache``); only the
:data:`KEEP` most recently used keys are kept.

Importing does nothing of this: every compiled module takes its decorator from here
(``from boardgammon._numba_cache import njit``), which gives each function a cache that is
only made when numba first looks for compiled code (the first call of any compiled function of
the process); then the source is hashed, numba is pointed at the directory, older directories
are pruned and ``NUMBA_CACHE_DIR`` is set for child processes. So ``import boardgammon.engine``
reads, makes, deletes and sets nothing. When a process must compile rather than load from that
cache (the first run after an install or an edit: up to a minute on a small machine), it says
so once on stderr; ``boardgammon warm`` compiles everything ahead (``make install`` runs it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

KEEP = 4

_PREPARED = False
_PREPARING = threading.Lock()


def source_key(root: Path) -> str:
    """16 hex digits of SHA-256 over the relative paths and contents of every ``*.py`` under
    ``root``, in sorted order."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(path.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure(root: Path | None = None) -> Path | None:
    """Point numba's cache at the directory of this source (see the module docstring) and
    return it; ``None`` when the user set ``NUMBA_CACHE_DIR`` or the directory cannot be made
    (numba then falls back to its own locations)."""
    root = root or Path(__file__).resolve().parent
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    parent = base / "boardgammon" / "numba"
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given and Path(given).parent != parent:  # the user's own (ours is inherited by children)
        return None
    target = parent / source_key(root)
    try:
        fresh = not target.exists()
        target.mkdir(parents=True, exist_ok=True)
        os.utime(target)
    except OSError:
        return None
    if fresh:
        others = sorted((p for p in parent.iterdir() if p.is_dir() and p != target),
                        key=lambda p: p.stat().st_mtime, reverse=True)
        for old in others[KEEP - 1:]:
            shutil.rmtree(old, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = str(target)
    if "numba" in sys.modules:  # imported before us: its configuration is already read
        sys.modules["numba"].config.CACHE_DIR = str(target)
    return target


def cache_dir() -> str:
    """The directory numba's cache of this process is in (after :func:`njit` first ran)."""
    import numba

    # numba sets its configuration's attributes at run time: mypy does not see CACHE_DIR.
    return str(getattr(numba.config, "CACHE_DIR", "") or "beside each module (__pycache__)")


def _prepare() -> None:
    """Once per process: :func:`configure`, and a word on stderr at the first compilation."""
    global _PREPARED
    with _PREPARING:
        if _PREPARED:
            return
        configure()
        from numba.core import event

        class CompileNotice(event.Listener):  # type: ignore[misc]
            """Calls :func:`_say_compiling` at the first compilation of the process."""

            said = False

            def on_start(self, event: object) -> None:
                if not self.said:
                    self.said = True
                    _say_compiling()

            def on_end(self, event: object) -> None:
                pass

        event.register("numba:compile", CompileNotice())
        _PREPARED = True


class _LazyCache:
    """A compiled function's cache that is made at numba's first use of it, after
    :func:`_prepare`: numba's own cache (``FunctionCache``) fixes its directory, and makes it,
    when it is created, which ``cache=True`` does at decoration, i.e. at import."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self._py_func = py_func
        self._real: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._real is None:
            _prepare()
            from numba.core.caching import FunctionCache

            self._real = FunctionCache(self._py_func)
        return getattr(self._real, name)


def njit(*args: Any, **kwargs: Any) -> Callable[..., Any]:
    """``numba.njit`` with the cache pointed at this source's directory: use it in place of
    numba's own in every compiled module of the package (``@njit(cache=True, …)``)."""
    import numba

    cache = kwargs.pop("cache", False)
    if not cache:
        return numba.njit(*args, **kwargs)

    def lazily_cached(func: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**kwargs)(func)
        dispatcher._cache = _LazyCache(dispatcher.py_func)  # numba's enable_caching, deferred
        return dispatcher

    return lazily_cached(args[0]) if args and callable(args[0]) else lazily_cached


def _say_compiling() -> None:
    """The word on the real stderr (not a command's captured output) that compiling started."""
    stream = sys.__stderr__
    if stream is not None:
        # On a terminal, first clear the line: a progress bar drawn there (rollout, train)
        # ran into the word, "...[00:00<?, ?trial/s]boardgammon: compiling...".
        clear = "\r\x1b[K" if stream.isatty() else ""
        print(f"{clear}boardgammon: compiling native code for this version, once (up to a minute; "
              f"cached in {cache_dir()}; `boardgammon warm` does this ahead)…",
              file=stream, flush=True)
