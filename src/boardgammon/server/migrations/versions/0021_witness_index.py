"""An index on the co-signatures by witness key (issue #25, witness flood): ``GET
/api/log/witnesses?key=`` lists one witness's co-signatures, newest head first, which without
it scanned the co-signatures of every witness (the table's key starts with the tree size).

Revision ID: 0021_witness_index
Revises: 0020_first_roll_wait
Create Date: 2026-12-03
"""

from alembic import op

revision = "0021_witness_index"
down_revision = "0020_first_roll_wait"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_log_cosignatures_witness", "log_cosignatures",
                    ["witness_key", "tree_size"])


def downgrade() -> None:
    op.drop_index("ix_log_cosignatures_witness", table_name="log_cosignatures")
