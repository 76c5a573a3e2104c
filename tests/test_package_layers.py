"""The direction of dependencies between the packages of ``boardgammon``: no import cycle between
packages, and the lower layers import only what lies below them.

Imports are read from the source with ``ast`` (every ``import`` and ``from … import``, also those
inside functions and under ``TYPE_CHECKING``), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import boardgammon

ROOT = Path(boardgammon.__file__).resolve().parent

LAYERS: dict[str, set[str]] = {
    "engine": set(),
    "dice": set(),
    "stats": set(),
    "ratings": set(),
    "cube": {"engine"},
    "formats": {"engine"},
    "odds": {"engine"},
    "bots": {"engine", "cube"},
    "analysis": {"engine", "cube", "bots"},
    "server": {"engine", "cube", "bots", "analysis", "dice", "stats", "formats", "odds",
               "ratings"},
}
"""The packages of ours each lower package may import (every other import of ours is refused)."""


def _unit(module: list[str]) -> str:
    """The package (or top-level module) of ``boardgammon`` that a dotted module belongs to."""
    return module[1] if len(module) > 1 else "boardgammon"


def _imports(path: Path) -> Iterator[list[str]]:
    """Every module of ours that ``path`` imports, as dotted parts starting with
    ``boardgammon``."""
    # A module's relative imports start from its package, ``__init__`` included.
    package = list(path.relative_to(ROOT.parent).parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split(".")
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            # ``from boardgammon import engine`` imports the subpackage named after ``import``.
            yield from ([*module, alias.name] for alias in node.names)


def package_graph() -> dict[str, set[str]]:
    """``{package: packages of ours it imports}`` over every source file of ``boardgammon``."""
    subpackages = {p.name for p in ROOT.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        source = _unit(list(path.relative_to(ROOT.parent).parts))
        source = source if source in subpackages else "boardgammon"
        for module in _imports(path):
            if module[0] != "boardgammon" or len(module) < 2:
                continue
            target = _unit(module)
            if target in subpackages and target != source:
                graph.setdefault(source, set()).add(target)
        graph.setdefault(source, set())
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a path that returns to its start, or ``None``."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_graph_sees_the_known_edges():
    graph = package_graph()
    assert "engine" in graph["bots"] and "cube" in graph["analysis"]
    assert {"engine", "cube", "bots", "analysis", "dice", "stats"} <= set(graph)


def test_no_import_cycle_between_packages():
    assert find_cycle(package_graph()) is None


def test_lower_packages_import_only_what_lies_below():
    graph = package_graph()
    wrong = {package: sorted(graph.get(package, set()) - allowed)
             for package, allowed in LAYERS.items() if graph.get(package, set()) - allowed}
    assert wrong == {}


def test_the_engine_needs_numpy_and_numba_only():
    outside = {module[0] for path in (ROOT / "engine").rglob("*.py") for module in _imports(path)
               if module[0] and module[0] not in sys.stdlib_module_names}
    assert outside <= {"numpy", "numba", "boardgammon"}


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
