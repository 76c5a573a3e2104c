"""Which live v2 matches still wait for their first roll, as a column with a partial index
(issue #25, live-play latency): ``matches.awaiting_first_roll_since`` is the time an active live
v2 match without a roll began to wait (its ``created_at``), ``NULL`` for every other match. The
server's background round (``MatchRepository.due_ids``, every 0.25 s) found these matches by an
anti-join of the active matches against ``dice_rolls_v2``; it now reads the index, which holds
only the waiting ones. Existing rows get the value the anti-join would have given them.

Revision ID: 0020_first_roll_wait
Revises: 0019_anchor_leaves
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0020_first_roll_wait"
down_revision = "0019_anchor_leaves"
branch_labels = None
depends_on = None

WAITING = sa.text("awaiting_first_roll_since IS NOT NULL")


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("awaiting_first_roll_since", UTCDateTime(), nullable=True))
    op.execute(
        "UPDATE matches SET awaiting_first_roll_since = created_at"
        " WHERE status = 'active' AND dice = 'v2' AND mode = 'live'"
        " AND NOT EXISTS (SELECT 1 FROM dice_rolls_v2 WHERE dice_rolls_v2.match_id = matches.id)"
    )
    op.create_index("ix_matches_awaiting_first_roll", "matches", ["awaiting_first_roll_since"],
                    sqlite_where=WAITING, postgresql_where=WAITING)


def downgrade() -> None:
    op.drop_index("ix_matches_awaiting_first_roll", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("awaiting_first_roll_since")
