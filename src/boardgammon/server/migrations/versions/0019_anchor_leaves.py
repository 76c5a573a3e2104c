"""Accepted chain anchors are leaves of the public log (issue #25): a leaf of
``log_entries`` may belong to no roll, so ``log_entries.roll_id`` becomes nullable (``NULL``
for an anchor's leaf; ``docs/fair-dice.md`` §The public log). Existing rows keep their roll.

Revision ID: 0019_anchor_leaves
Revises: 0018_deleted_accounts
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0019_anchor_leaves"
down_revision = "0018_deleted_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("log_entries") as batch:
        batch.alter_column("roll_id", existing_type=sa.String(68), nullable=True)


def downgrade() -> None:
    # Anchor leaves have no roll to name: they keep their place in the tree under an empty
    # roll ID, since a leaf is never removed.
    op.execute("UPDATE log_entries SET roll_id = '' WHERE roll_id IS NULL")
    with op.batch_alter_table("log_entries") as batch:
        batch.alter_column("roll_id", existing_type=sa.String(68), nullable=False)
