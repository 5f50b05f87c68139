"""matches whose logs or replay the operator pruned (arena ladder prune), with the age in days they were pruned at

Revision ID: 0008
Revises: 0007

A pruned log or replay is answered "pruned" (410), not "no such file" (404): the match row says so.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("logs_pruned_days", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("replay_pruned_days", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("replay_pruned_days")
        batch_op.drop_column("logs_pruned_days")
