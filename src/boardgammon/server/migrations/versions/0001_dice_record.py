"""The dice record and the server-wide nonce counter.

Revision ID: 0001_dice_record
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0001_dice_record"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dice_rolls",
        sa.Column("roll_id", sa.String(68), primary_key=True),
        sa.Column("match_id", sa.String(68), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("client_entropy", sa.String(32), nullable=True),
        sa.Column("entropy_source", sa.String(6), nullable=True),
        sa.Column("die1", sa.SmallInteger(), nullable=True),
        sa.Column("die2", sa.SmallInteger(), nullable=True),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("entry_hash", sa.String(64), nullable=False),
        sa.Column("committed_at", UTCDateTime(), nullable=False),
        sa.Column("revealed_at", UTCDateTime(), nullable=True),
        sa.Column("played_at", UTCDateTime(), nullable=True),
        sa.Column("voided_at", UTCDateTime(), nullable=True),
        sa.UniqueConstraint("match_id", "seq", name="uq_dice_rolls_match_seq"),
        sa.UniqueConstraint("nonce", name="uq_dice_rolls_nonce"),
        sa.UniqueConstraint("commitment", name="uq_dice_rolls_commitment"),
        sa.UniqueConstraint("server_seed", name="uq_dice_rolls_server_seed"),
        sa.CheckConstraint("seat IN (0, 1)", name="ck_dice_rolls_seat"),
        sa.CheckConstraint(
            "state IN ('committed', 'revealed', 'played', 'void')", name="ck_dice_rolls_state"
        ),
        sa.CheckConstraint(
            "entropy_source IS NULL OR entropy_source IN ('client', 'server')",
            name="ck_dice_rolls_entropy_source",
        ),
    )
    op.create_index("ix_dice_rolls_match_id", "dice_rolls", ["match_id"])
    counter = op.create_table(
        "dice_nonce_counter",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("value", sa.BigInteger(), nullable=False),
    )
    op.bulk_insert(counter, [{"id": 1, "value": 0}])


def downgrade() -> None:
    op.drop_table("dice_nonce_counter")
    op.drop_index("ix_dice_rolls_match_id", table_name="dice_rolls")
    op.drop_table("dice_rolls")
