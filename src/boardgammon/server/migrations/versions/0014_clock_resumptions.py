"""The service times at which the clocks resumed after an outage (a fresh delay window for a
live clock running across one).

Revision ID: 0014_clock_resumptions
Revises: 0012_dice_v2
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_clock_resumptions"
down_revision = "0012_dice_v2"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table("clock_resumptions", sa.Column("at", sa.Float(), primary_key=True))


def downgrade() -> None:
    op.drop_table("clock_resumptions")
