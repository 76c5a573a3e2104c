"""Match analysis: the version of the analysis that made each row, so that the worker analyses
a match again when the analysis changes (a fix, new weights).

Revision ID: 0006_analysis_version
Revises: 0005_action_request
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_analysis_version"
down_revision = "0005_action_request"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Rows written before this revision were made by version 1 of the analysis.
    with op.batch_alter_table("match_analyses") as batch:
        batch.add_column(sa.Column("version", sa.SmallInteger(), nullable=False,
                                   server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("match_analyses") as batch:
        batch.drop_column("version")
