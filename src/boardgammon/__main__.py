"""``python -m boardgammon``: the same commands as the ``boardgammon`` console script."""

from boardgammon.cli import app

app(prog_name="boardgammon")
