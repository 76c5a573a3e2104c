"""The v2 dice record (three contributions to every roll, every state change hashed) and the
players' hash-chain anchors.

Revision ID: 0012_dice_v2
Revises: 0011_dice_log
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0012_dice_v2"
down_revision = "0011_dice_log"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dice_rolls_v2",
        sa.Column("roll_id", sa.String(68), primary_key=True),
        sa.Column("match_id", sa.String(68), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=False),
        sa.Column("roller_entropy", sa.String(32), nullable=True),
        sa.Column("roller_source", sa.String(6), nullable=True),
        sa.Column("opponent_prev_link", sa.String(64), nullable=True),
        sa.Column("opponent_entropy", sa.String(64), nullable=True),
        sa.Column("opponent_source", sa.String(6), nullable=True),
        sa.Column("die1", sa.SmallInteger(), nullable=True),
        sa.Column("die2", sa.SmallInteger(), nullable=True),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("entry_hash", sa.String(64), nullable=False),
        sa.Column("committed_at", UTCDateTime(), nullable=False),
        sa.Column("requested_at", UTCDateTime(), nullable=True),
        sa.Column("opponent_at", UTCDateTime(), nullable=True),
        sa.Column("revealed_at", UTCDateTime(), nullable=True),
        sa.Column("played_at", UTCDateTime(), nullable=True),
        sa.Column("voided_at", UTCDateTime(), nullable=True),
        sa.UniqueConstraint("match_id", "seq", name="uq_dice_rolls_v2_match_seq"),
        sa.UniqueConstraint("nonce", name="uq_dice_rolls_v2_nonce"),
        sa.UniqueConstraint("commitment", name="uq_dice_rolls_v2_commitment"),
        sa.UniqueConstraint("server_seed", name="uq_dice_rolls_v2_server_seed"),
        sa.CheckConstraint("seat IN (0, 1)", name="ck_dice_rolls_v2_seat"),
        sa.CheckConstraint("kind IN ('opening', 'normal')", name="ck_dice_rolls_v2_kind"),
        sa.CheckConstraint(
            "state IN ('committed', 'requested', 'revealed', 'played', 'void')",
            name="ck_dice_rolls_v2_state",
        ),
    )
    op.create_index("ix_dice_rolls_v2_match_id", "dice_rolls_v2", ["match_id"])
    op.create_table(
        "dice_anchors",
        sa.Column("match_id", sa.String(68), primary_key=True),
        sa.Column("seat", sa.SmallInteger(), primary_key=True),
        sa.Column("anchor", sa.String(64), nullable=False),
        sa.Column("registered_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("dice_anchors")
    op.drop_index("ix_dice_rolls_v2_match_id", table_name="dice_rolls_v2")
    op.drop_table("dice_rolls_v2")
