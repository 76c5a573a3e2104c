"""Sessions: when each was last used, for the server-side idle lifetime (the absolute one
counts from ``created_at``).

Revision ID: 0007_session_last_used
Revises: 0006_analysis_version
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from boardgammon.server.tables import UTCDateTime

revision = "0007_session_last_used"
down_revision = "0006_analysis_version"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("auth_tokens") as batch:
        batch.add_column(sa.Column("last_used_at", UTCDateTime(), nullable=True))
    # A session open before this revision counts as used when it was opened.
    op.execute("UPDATE auth_tokens SET last_used_at = created_at")
    with op.batch_alter_table("auth_tokens") as batch:
        batch.alter_column("last_used_at", existing_type=UTCDateTime(), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("auth_tokens") as batch:
        batch.drop_column("last_used_at")
