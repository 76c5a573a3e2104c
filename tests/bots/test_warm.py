"""Compiling ahead (``boardgammon.bots.warm``): after ``warm_up`` in a fresh interpreter the
numba functions that the levels and the analysis call are compiled and the bear-off database is
loaded, so nothing compiles under the GIL in the middle of a server's matches."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json
from boardgammon.bots import bearoff, neural
from boardgammon.bots.warm import warm_up
from boardgammon.engine import movegen

functions = {"evaluate_many": neural.evaluate_many, "generate": movegen.generate,
             "generate_batch": movegen.generate_batch}
before = {name: len(f.signatures) for name, f in functions.items()}
first = warm_up()
print(json.dumps({"before": before,
                  "after": {name: len(f.signatures) for name, f in functions.items()},
                  "bearoff_loaded": bearoff._table.cache_info().currsize,
                  "first": first, "again": warm_up()}))
"""


def test_warm_up_compiles_what_the_levels_and_the_analysis_run():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                            timeout=600, check=True)
    probe = json.loads(result.stdout.strip().splitlines()[-1])
    assert set(probe["before"].values()) == {0}  # nothing compiled at import
    assert all(n >= 1 for n in probe["after"].values()), probe["after"]
    assert probe["bearoff_loaded"] == 1
    assert probe["first"] > 0 and probe["again"] == 0.0
