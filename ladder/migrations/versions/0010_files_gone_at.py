"""when the ladder first found a bot version's folder gone from the bot store

Revision ID: 0010
Revises: 0009

The matches held for such a version are cancelled --hold-missing-seconds after that moment. Kept in the ladder's memory,
it was timed again at each start, and a ladder restarted more often than the hold never cancelled them.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("files_gone_at", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("files_gone_at")
