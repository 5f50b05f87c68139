"""match seeds of 53 bits: a seed below 2**31 could be found by trying them all

Revision ID: 0012
Revises: 0011

A match's seed deals every card, and the rules are public: a bot that tried each of 2**31 seeds against its first hand
(or looked its hand up in a table built once) read every other hand of the deal. The ladder now draws seeds below
2**53 (referee/server/seeds.py), which no longer fit the column's 32-bit integer on PostgreSQL. SQLite's integers are
64-bit whatever the declared type; the batch makes the declared type match the model's there too.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=False)


def downgrade() -> None:
    # A seed past 2**31 - 1 would not fit back: such a database cannot go down past this migration.
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=False)
