"""``matches.link_wait_ms``: the wait for the opponent's link (whole milliseconds) that a v2
match's leaf in the public log states, fixed when the leaf is written with the match's first
roll (issue #25: the wait was a setting of each process, ``BOARDGAMMON_LINK_WAIT``, in no
record, so no verifier could check that a live ``absent`` roll waited that long, and a
restart with a smaller setting revealed the match's rolls sooner). The server never reveals
the match's roll without the link earlier than this after its request. Matches from before,
and correspondence matches (which wait for no link), have none.

Revision ID: 0024_match_link_wait
Revises: 0023_resumption_downtime
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0024_match_link_wait"
down_revision = "0023_resumption_downtime"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("link_wait_ms", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("link_wait_ms")
