"""What several test folders, the benchmarks and the training scripts share, kept out of the
package: the GNU Backgammon bridge (:mod:`.gnubg`) and its legal-play reference
(:mod:`.gnubg_reference`), corpora of positions (:mod:`.positions`) and of whole matches
(:mod:`.random_match`) from random play, a pip-count evaluator with hand-checkable values
(:mod:`.fake`), and the action a match waits for, for tests that drive a real server
(:mod:`.actions`).

``tests.helpers`` imports from the repository root: pytest puts it on the path
(``pythonpath`` in pyproject.toml), ``python -m benchmarks`` and ``python -m training.…`` run
from there.
"""
