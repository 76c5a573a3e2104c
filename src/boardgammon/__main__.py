"""``python -m boardgammon``: the same commands as the ``boardgammon`` console script."""

from boardgammon.cli import main

main()
