"""suspending a version that forfeits match after match: its seats read by match, and when it was reinstated

Revision ID: 0007
Revises: 0006

A version's seats are indexed by (version, match) rather than by version alone: recording a match in which a
seat forfeited reads that version's latest matches backwards along it (ladder/suspension.py), where the old
index gave every seat of the version to sort. It serves every query the old one did.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reinstated_at", sa.Float(), nullable=True))
    op.create_index("ix_match_seats_version_match", "match_seats", ["bot_version_id", "match_id"])
    op.drop_index("ix_match_seats_bot_version_id", table_name="match_seats")


def downgrade() -> None:
    op.create_index("ix_match_seats_bot_version_id", "match_seats", ["bot_version_id"])
    op.drop_index("ix_match_seats_version_match", table_name="match_seats")
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("reinstated_at")
