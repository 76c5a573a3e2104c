"""Match analysis: one row per finished match analysed by the background worker.

Revision ID: 0003_match_analysis
Revises: 0002_game_server
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0003_match_analysis"
down_revision = "0002_game_server"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_analyses",
        sa.Column("match_id", sa.String(68), primary_key=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("plies", sa.SmallInteger(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("claimed_t", sa.Float(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.CheckConstraint("status IN ('pending', 'done', 'failed')",
                           name="ck_match_analyses_status"),
    )
    op.create_index("ix_match_analyses_status", "match_analyses", ["status"])


def downgrade() -> None:
    op.drop_index("ix_match_analyses_status", table_name="match_analyses")
    op.drop_table("match_analyses")
