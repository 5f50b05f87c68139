"""one ladder per database: the row a serving ladder holds and renews

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "ladder_hold",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("holder", sa.String(128), nullable=True),
        sa.Column("host", sa.String(255), nullable=False, server_default=""),
        sa.Column("pid", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("process_start", sa.String(32), nullable=False, server_default=""),
        sa.Column("address", sa.String(255), nullable=False, server_default=""),
        sa.Column("started_at", sa.Float(), nullable=False, server_default="0"),
        sa.Column("renewed_at", sa.Float(), nullable=False, server_default="0"),
    )
    op.bulk_insert(table, [{"id": 1, "holder": None, "host": "", "pid": 0, "process_start": "", "address": "", "started_at": 0.0, "renewed_at": 0.0}])


def downgrade() -> None:
    op.drop_table("ladder_hold")
