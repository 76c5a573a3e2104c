"""Ratings: rated seeks with an optional range for the opponent's rating, each player's rating
per variant, the rated matches (rated exactly once) and every rating change.

Revision ID: 0009_ratings
Revises: 0008_dice_report_requests
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0009_ratings"
down_revision = "0008_dice_report_requests"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.add_column(
            sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("min_rating", sa.Float(), nullable=True))
        batch.add_column(sa.Column("max_rating", sa.Float(), nullable=True))
    op.create_table(
        "player_ratings",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("variant", sa.String(12), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False, index=True),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("experience", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
    )
    op.create_table(
        "rated_matches",
        sa.Column("match_id", sa.String(68), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("rated_at", UTCDateTime(), nullable=True),
    )
    op.create_table(
        "rating_changes",
        sa.Column("match_id", sa.String(68), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True, index=True),
        sa.Column("variant", sa.String(12), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_changes")
    op.drop_table("rated_matches")
    op.drop_table("player_ratings")
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("max_rating")
        batch.drop_column("min_rating")
        batch.drop_column("rated")
