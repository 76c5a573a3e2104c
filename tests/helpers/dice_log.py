"""What a forger does to the public log's tables after changing leaves (tests of the checks
that catch it)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from boardgammon.dice.transparency import leaf_hash, node_hash


def rebuild_nodes(database_url: str) -> None:
    """What a forger does after changing leaves: every subtree hash made again from them."""
    engine = create_engine(database_url)
    with engine.begin() as db:
        level = [
            leaf_hash(leaf.encode())
            for (leaf,) in db.execute(text("SELECT leaf FROM log_entries ORDER BY idx"))
        ]
        db.execute(text("DELETE FROM log_nodes"))
        db.execute(text("DELETE FROM log_heads"))
        db.execute(text("UPDATE log_size SET size = :n"), {"n": len(level)})
        depth = 0
        while level:
            db.execute(
                text("INSERT INTO log_nodes (level, idx, hash) VALUES (:l, :i, :h)"),
                [{"l": depth, "i": i, "h": h.hex()} for i, h in enumerate(level)],
            )
            level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            depth += 1
    engine.dispose()
