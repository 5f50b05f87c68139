"""each settled match's place in the order the ladder settled them in: what /api/matches?after= lists by

Revision ID: 0011
Revises: 0010

Listed after a cursor by end time, a match whose result was written after one that ended later (a recorder that waited
on the ratings' locks, a worker's clock behind) was never seen by a poller that had read the other; and a match listed
before its deal was settled came with no ranks, and a poller was never told when they came (ladder/recorded.py). The
finished matches of the deals settled before this migration are numbered in the order they were listed in: by end time,
then id. Those of a deal with a match still to play are left unnumbered: they are numbered when that match finishes.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("recorded", sa.Integer(), nullable=True))
    # One statement (SQLite 3.33 and PostgreSQL both update from a subquery): a correlated count per match read the
    # finished matches once for each of them.
    op.execute(
        "UPDATE matches SET recorded = numbered.n"
        " FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY finished_at, id) AS n FROM matches WHERE finished_at IS NOT NULL"
        " AND deal NOT IN (SELECT deal FROM matches WHERE status IN ('queued', 'running'))) AS numbered"
        " WHERE matches.id = numbered.id"
    )
    op.create_index("ix_matches_recorded", "matches", ["recorded"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_matches_recorded", table_name="matches")
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("recorded")
