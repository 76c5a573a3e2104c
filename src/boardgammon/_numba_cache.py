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
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

KEEP = 4


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
