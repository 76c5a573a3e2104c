"""Implementations of the ``boardgammon`` sub-commands, one module per concern; ``cli.py`` wires
them into one typer app."""
