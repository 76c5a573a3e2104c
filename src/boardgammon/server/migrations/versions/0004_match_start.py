"""Match start time: the opening roll of a match with a clock is on the clock from the start.

Revision ID: 0004_match_start
Revises: 0003_match_analysis
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_match_start"
down_revision = "0003_match_analysis"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: matches created before this revision replay as they did (no clock ran before
    # their first opening roll).
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("start_t", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("start_t")
