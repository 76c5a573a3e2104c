"""``matches.rematch_of``: the finished match a match is the rematch of, unique, so that asking
twice for a rematch against the computer (which agrees at once) answers the one rematch
instead of starting a second, and ``GET …/rematch`` can name it (found by an outside review,
2026-12-04). Matches made before have none.

Revision ID: 0022_rematch_of
Revises: 0021_witness_index
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0022_rematch_of"
down_revision = "0021_witness_index"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("rematch_of", sa.String(68), nullable=True))
    op.create_index("ix_matches_rematch_of", "matches", ["rematch_of"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_matches_rematch_of", table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rematch_of")
