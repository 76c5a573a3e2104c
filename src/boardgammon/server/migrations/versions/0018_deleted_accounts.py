"""Deleted accounts (issue #23): ``users.deleted_at``, when the player deleted the account
(``NULL`` for every account that exists). The row stays, so that finished matches, their dice
records and the opponents' histories keep a seat to point to; its name becomes a placeholder
and its lower-cased old name stays taken (``docs/api.md`` §Deleting an account).

Revision ID: 0018_deleted_accounts
Revises: 0015_match_dice_protocol
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0018_deleted_accounts"
down_revision = "0015_match_dice_protocol"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("deleted_at")
