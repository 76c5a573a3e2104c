"""``match_action_labels``: the action IDs of a client's actions that add no entry to the
match's record (a v2 roll's request, an anchor). Before, such an ID was kept nowhere (issue
#25, found by a new user's trial): the opponent could send an action under the roller's
request's ID and have it applied, and the roller's exact resend was then refused as
``duplicate_action_id``. Actions from before have no label: their IDs were kept nowhere, so
none can be filled in, and they stay free as they were.

Revision ID: 0025_match_action_labels
Revises: 0024_match_link_wait
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0025_match_action_labels"
down_revision = "0024_match_link_wait"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_action_labels",
        sa.Column("match_id", sa.String(68), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("action_id", sa.String(100), primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("events", sa.Text, nullable=False),
        sa.Column("request", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("match_action_labels")
