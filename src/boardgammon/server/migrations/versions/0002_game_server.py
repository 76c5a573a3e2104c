"""Game server: users, sessions, seeks, matches, the match action log, the service clock.

Revision ID: 0002_game_server
Revises: 0001_dice_record
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0002_game_server"
down_revision = "0001_dice_record"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("username_key", sa.String(20), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("guest", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("username_key", name="uq_users_username_key"),
    )
    op.create_table(
        "auth_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
    )
    op.create_index("ix_auth_tokens_user_id", "auth_tokens", ["user_id"])
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("length", sa.SmallInteger(), nullable=False),
        sa.Column("variant", sa.String(12), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("clock", sa.String(16), nullable=True),
        sa.Column("days", sa.SmallInteger(), nullable=True),
        sa.Column("invite_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("match_id", sa.String(68), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.CheckConstraint("mode IN ('live', 'correspondence')", name="ck_seeks_mode"),
        sa.CheckConstraint("state IN ('open', 'accepted', 'cancelled')", name="ck_seeks_state"),
    )
    for column in ("owner_id", "invite_id", "state"):
        op.create_index(f"ix_seeks_{column}", "seeks", [column])
    op.create_table(
        "matches",
        sa.Column("id", sa.String(68), primary_key=True),
        sa.Column("seat0_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("seat1_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("bot_seat", sa.SmallInteger(), nullable=True),
        sa.Column("bot_level", sa.String(20), nullable=True),
        sa.Column("bot_seed", sa.Integer(), nullable=True),
        sa.Column("length", sa.SmallInteger(), nullable=False),
        sa.Column("variant", sa.String(12), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("clock", sa.String(16), nullable=True),
        sa.Column("days", sa.SmallInteger(), nullable=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("turn_seat", sa.SmallInteger(), nullable=True),
        sa.Column("score0", sa.SmallInteger(), nullable=False),
        sa.Column("score1", sa.SmallInteger(), nullable=False),
        sa.Column("winner", sa.SmallInteger(), nullable=True),
        sa.Column("deadline_t", sa.Float(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.CheckConstraint("mode IN ('live', 'correspondence')", name="ck_matches_mode"),
        sa.CheckConstraint("status IN ('active', 'finished')", name="ck_matches_status"),
    )
    for column in ("seat0_id", "seat1_id", "status", "deadline_t"):
        op.create_index(f"ix_matches_{column}", "matches", [column])
    op.create_table(
        "match_log",
        sa.Column("match_id", sa.String(68), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("action_id", sa.String(100), nullable=True),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("events", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.UniqueConstraint("match_id", "action_id", name="uq_match_log_action"),
    )
    clock = op.create_table(
        "service_clock",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("downtime", sa.Float(), nullable=False),
        sa.Column("heartbeat", sa.Float(), nullable=False),
    )
    op.bulk_insert(clock, [{"id": 1, "downtime": 0.0, "heartbeat": 0.0}])


def downgrade() -> None:
    op.drop_table("service_clock")
    op.drop_table("match_log")
    for column in ("seat0_id", "seat1_id", "status", "deadline_t"):
        op.drop_index(f"ix_matches_{column}", table_name="matches")
    op.drop_table("matches")
    for column in ("owner_id", "invite_id", "state"):
        op.drop_index(f"ix_seeks_{column}", table_name="seeks")
    op.drop_table("seeks")
    op.drop_index("ix_auth_tokens_user_id", table_name="auth_tokens")
    op.drop_table("auth_tokens")
    op.drop_table("users")
