"""The operator's request to remake the dice record's report now (``boardgammon stats
refresh-record``), one row seen by every server process.

Revision ID: 0008_dice_report_requests
Revises: 0007_session_last_used
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0008_dice_report_requests"
down_revision = "0007_session_last_used"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "dice_report_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("requested_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("dice_report_requests")
