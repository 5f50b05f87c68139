"""matches cancelled while held for a bot version whose files were gone get their own status, "cancelled"

Revision ID: 0009
Revises: 0008

Such a match was never played, yet was stored as "failed" (no attempt counted, an error saying why), and every list
showed a failure where there was none. The status column is a free string: no schema change, only the matches cancelled
before this migration converted, told by the error only the cancellation wrote (ladder/grounds.py ``cancel_held``):
"cancelled, as ..." naming the ladder's bot store, which loses its "cancelled, as " now that the status says so. Down
again they are failed with it, as an older ladder writes them (one that met "cancelled" would count the match neither
to play nor finished, and never settle its deal).
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

#: What the error of a match cancelled before this migration starts with.
SAID = "cancelled, as "


def upgrade() -> None:
    op.execute(
        f"UPDATE matches SET status = 'cancelled', error = SUBSTR(error, {len(SAID) + 1})"
        f" WHERE status = 'failed' AND error LIKE '{SAID}%' AND error LIKE '%gone from the ladder''s bot store%'"
    )


def downgrade() -> None:
    op.execute(f"UPDATE matches SET status = 'failed', error = '{SAID}' || error WHERE status = 'cancelled'")
