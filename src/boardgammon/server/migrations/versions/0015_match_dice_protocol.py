"""Which dice protocol a match rolls with, chosen at its creation: ``v1`` for every match made
before this revision (they keep rolling and verifying with v1), ``v2`` for new ones; and
an index of the v2 rolls by state, for the server's look for requested rolls whose opponent's
link is overdue.

Revision ID: 0015_match_dice_protocol
Revises: 0014_clock_resumptions
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0015_match_dice_protocol"
down_revision = "0014_clock_resumptions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("dice", sa.String(4), nullable=False, server_default="v1"))
    op.create_index("ix_dice_rolls_v2_state", "dice_rolls_v2", ["state"])


def downgrade() -> None:
    op.drop_index("ix_dice_rolls_v2_state", table_name="dice_rolls_v2")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("dice")
