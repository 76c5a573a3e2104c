"""numba's compiled code is keyed by the whole package source (stale caches gave wrong values)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import boardgammon
from boardgammon import _numba_cache


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    (root / "bots").mkdir(parents=True)
    (root / "bots" / "encoding.py").write_text("N_INPUTS = 202\n")
    (root / "bots" / "training.py").write_text("from .encoding import N_INPUTS\n")
    return root


def test_an_edit_of_any_module_changes_the_key(tmp_path):
    root = _tree(tmp_path)
    before = _numba_cache.source_key(root)
    assert before == _numba_cache.source_key(root) and len(before) == 16
    # The trap: only the callee's file changes, the caller's stays as it was.
    (root / "bots" / "encoding.py").write_text("N_INPUTS = 209\n")
    assert _numba_cache.source_key(root) != before


def test_configure_uses_a_directory_per_source_and_keeps_the_latest(tmp_path, monkeypatch):
    root = _tree(tmp_path)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    made = []
    for n in range(_numba_cache.KEEP + 2):
        (root / "bots" / "encoding.py").write_text(f"N_INPUTS = {n}\n")
        target = _numba_cache.configure(root)
        assert target == tmp_path / "cache" / "boardgammon" / "numba" / _numba_cache.source_key(
            root)
        assert target.is_dir() and os.environ["NUMBA_CACHE_DIR"] == str(target)
        os.utime(target, (n + 1e9, n + 1e9))  # distinct ages, oldest first
        made.append(target)
    kept = sorted((tmp_path / "cache" / "boardgammon" / "numba").iterdir())
    assert kept == sorted(made[-_numba_cache.KEEP:])


def test_a_users_cache_dir_is_respected(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert _numba_cache.configure(_tree(tmp_path)) is None
    assert os.environ["NUMBA_CACHE_DIR"] == str(tmp_path / "mine")


def test_importing_the_package_points_numba_at_the_keyed_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    code = ("import numba; from boardgammon.engine import rules; "
            "rules.is_contact_kernel.stats; print(numba.config.CACHE_DIR)")  # its cache's 1st use
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    key = _numba_cache.source_key(Path(boardgammon.__file__).parent)
    assert out == str(tmp_path / "boardgammon" / "numba" / key)


def _fresh(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter whose user's cache is empty (under ``tmp_path``)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True)


def test_importing_the_package_does_nothing_else(tmp_path):
    code = ("import os, sys, boardgammon; "
            "print(os.environ.get('NUMBA_CACHE_DIR'), 'numba' in sys.modules)")
    assert _fresh(tmp_path, code).stdout.split() == ["None", "False"]
    assert not (tmp_path / "cache").exists()


def test_importing_the_engine_reads_makes_deletes_and_sets_nothing(tmp_path):
    parent = tmp_path / "cache" / "boardgammon" / "numba"
    for n in range(6):  # older keys, which a first compile prunes but an import must not
        (parent / f"old{n}").mkdir(parents=True)
    code = ("import os, boardgammon.engine, boardgammon.bots.neural, boardgammon.analysis.luck; "
            "print(os.environ.get('NUMBA_CACHE_DIR'))")
    assert _fresh(tmp_path, code).stdout.split() == ["None"]
    assert sorted(p.name for p in parent.iterdir()) == [f"old{n}" for n in range(6)]


def test_importing_the_engine_compiles_and_loads_nothing(tmp_path):
    code = ("from numba.core.dispatcher import Dispatcher; "
            "from boardgammon.engine import movegen; "
            "print(sum(len(f.signatures) for f in vars(movegen).values() "
            "if isinstance(f, Dispatcher)))")
    done = _fresh(tmp_path, code)
    assert done.stdout.strip() == "0" and done.stderr == ""


@pytest.mark.slow
def test_a_first_compile_says_so_once_and_a_cached_run_says_nothing(tmp_path):
    code = "from boardgammon.engine import Board; Board.initial().legal_plays(6, 5)"
    first = _fresh(tmp_path, code).stderr
    assert first.count("boardgammon: compiling native code for this version, once") == 1
    assert "boardgammon warm" in first
    assert _fresh(tmp_path, code).stderr == ""


def test_every_compiled_module_takes_njit_from_the_keyed_cache():
    # numba's own njit would cache beside the module, keyed by that file alone: the stale code
    # this module exists to prevent.
    root = Path(boardgammon.__file__).parent
    own = [str(p.relative_to(root)) for p in sorted(root.rglob("*.py"))
           if p.name != "_numba_cache.py"
           and re.search(r"^\s*from numba import .*\bn?jit\b|\bnumba\.n?jit\b",
                         p.read_text(encoding="utf-8"), re.MULTILINE)]
    assert own == [], "use `from boardgammon._numba_cache import njit` in " + ", ".join(own)


@pytest.mark.parametrize("terminal", [True, False])
def test_the_word_on_compiling_clears_a_progress_bar_on_a_terminal(monkeypatch, terminal):
    # Issue 26 review: the word ran on from a rollout's progress bar on the same line.
    import io

    class Stream(io.StringIO):
        def isatty(self) -> bool:
            return terminal

    stream = Stream()
    stream.write("  0%|          | 0/2592 [00:00<?, ?trial/s]")
    monkeypatch.setattr(sys, "__stderr__", stream)
    _numba_cache._say_compiling()
    said = stream.getvalue().split("?trial/s]", 1)[1]
    assert said.startswith("\r\x1b[Kboardgammon: compiling" if terminal
                           else "boardgammon: compiling")
