"""Match log: the client's action as sent (``request``), so that an action ID reused for a
different action is refused instead of being answered as a resend of the first.

Revision ID: 0005_action_request
Revises: 0004_match_start
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_action_request"
down_revision = "0004_match_start"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable: entries written before this revision, and the server's own entries (the
    # computer's actions, flags, rolls logged after a restart), have no client request.
    with op.batch_alter_table("match_log") as batch:
        batch.add_column(sa.Column("request", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_log") as batch:
        batch.drop_column("request")
