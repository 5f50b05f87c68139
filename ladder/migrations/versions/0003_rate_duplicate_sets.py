"""duplicate sets rated as one comparison: which match rated each one, and indexes to find a set and the unrated

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rated_with", sa.Integer(), nullable=True))
        batch_op.create_index("ix_matches_deal", ["deal"], unique=False)
        batch_op.create_index("ix_matches_rated_with_status", ["rated_with", "status"], unique=False)
    # Matches rated before: each was rated on its own.
    op.execute("UPDATE matches SET rated_with = id WHERE id IN (SELECT match_id FROM rating_changes)")


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_index("ix_matches_rated_with_status")
        batch_op.drop_index("ix_matches_deal")
        batch_op.drop_column("rated_with")
