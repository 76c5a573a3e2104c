"""The dice record's public log (docs/fair-dice.md §The public log): its leaves, the hashes of
its complete subtrees, its size, its signed heads and the witnesses' co-signatures.

Revision ID: 0011_dice_log
Revises: 0010_social
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0011_dice_log"
down_revision = "0010_social"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "log_entries",
        sa.Column("idx", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("match_id", sa.String(68), nullable=False),
        sa.Column("roll_id", sa.String(68), nullable=False),
        sa.Column("leaf", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_log_entries_match_id", "log_entries", ["match_id"])
    op.create_table(
        "log_nodes",
        sa.Column("level", sa.SmallInteger(), primary_key=True, autoincrement=False),
        sa.Column("idx", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("hash", sa.String(64), nullable=False),
    )
    size = op.create_table(
        "log_size",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("size", sa.BigInteger(), nullable=False),
    )
    op.bulk_insert(size, [{"id": 1, "size": 0}])
    op.create_table(
        "log_heads",
        sa.Column("tree_size", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("timestamp", sa.BigInteger(), nullable=False),
        sa.Column("root_hash", sa.String(64), nullable=False),
        sa.Column("signature", sa.String(128), nullable=False),
    )
    op.create_table(
        "log_cosignatures",
        sa.Column("tree_size", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("witness_key", sa.String(64), primary_key=True),
        sa.Column("signature", sa.String(128), nullable=False),
        sa.Column("received_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("log_cosignatures")
    op.drop_table("log_heads")
    op.drop_table("log_size")
    op.drop_table("log_nodes")
    op.drop_index("ix_log_entries_match_id", table_name="log_entries")
    op.drop_table("log_entries")
