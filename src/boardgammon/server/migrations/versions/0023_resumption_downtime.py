"""``clock_resumptions.downtime_before``: the service's whole downtime just before each
resumption's credit, so that a wall time from before a restart (a roll's ``requested_at``,
``committed_at``) converts to the service time it had then, not to one earlier by every gap
credited since (a review, 2026-12-05: a request written before a restart was put back on the
clock up to the gap too early, and the roller's thinking before it went uncharged).
Resumptions recorded before have none; wall times before them convert as before.

Revision ID: 0023_resumption_downtime
Revises: 0022_rematch_of
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0023_resumption_downtime"
down_revision = "0022_rematch_of"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("clock_resumptions") as batch:
        batch.add_column(sa.Column("downtime_before", sa.Float, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("clock_resumptions") as batch:
        batch.drop_column("downtime_before")
