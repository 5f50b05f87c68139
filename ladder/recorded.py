"""The order the ladder recorded its finished matches in: ``matches.recorded``, 1, 2, 3, ... in the order of the commits
that finished them, which ``/api/matches?after=ID`` lists by (ladder/web/listing.py).

``finished_at`` cannot be that order: it is read from the recorder's clock before its transaction commits, and a
recorder that waits on the ratings' row locks (or whose machine's clock is behind) commits after a match that ended
later. A poller that had read the later one never saw the other. Nor can an id from a database sequence: one allocated
in a transaction may commit after a higher one allocated in another.

So each transaction that finishes matches (a result recorded, a failure, a cancellation, a lease given up for good)
numbers them last thing before it commits, with the highest number so far plus one, while it holds a lock that no other
numbering transaction can take until this one has committed: whoever takes it next sees this one's numbers. On SQLite
that lock is the database's single write lock, held by every writer from its first write to its commit (numbering is a
write, and comes after the write that finished the matches). On PostgreSQL it is a transaction-scoped advisory lock
(``RECORD_LOCK``), which also makes the next holder's statements see this one's commit (READ COMMITTED, the ladder's
isolation level). Taken last, after the ratings' and versions' row locks, it is held only for the numbering and the
commit, and its holder waits for no other lock meanwhile (it updates rows it locked already): no deadlock. The numbers
seen by a reader are therefore always 1 to N with no gap that a later commit fills, so a poller that asked for those
after N misses none. The unique index makes a numbering that broke these rules fail loudly rather than list twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from sqlalchemy import Connection, Table, bindparam, func, select, update

from ladder.models import Match

#: The key of the PostgreSQL advisory lock that numbering holds to its commit ("recorded" in ASCII, as one number).
RECORD_LOCK = int.from_bytes(b"recorded", "big") & (2**63 - 1)

_MATCHES = cast(Table, Match.__table__)
_LAST = _MATCHES.alias("numbered")
_TAKE_LOCK = select(func.pg_advisory_xact_lock(RECORD_LOCK))
#: One match numbered, if finished and not yet numbered: the highest number so far, read in the same statement (on
#: SQLite, then, under the write lock that statement holds), plus one.
_NUMBER = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("m"), _MATCHES.c.recorded.is_(None), _MATCHES.c.finished_at.is_not(None))
    .values(recorded=select(func.coalesce(func.max(_LAST.c.recorded), 0) + 1).scalar_subquery())
)


def number_recorded(conn: Connection, match_ids: Iterable[int]) -> None:
    """Give each of ``match_ids`` that this transaction finished its place in the recorded order, in the order of
    their ids; call it last before the commit (see the module's docstring). A match already numbered keeps its number."""
    ids = sorted(set(match_ids))
    if not ids:
        return
    if conn.dialect.name == "postgresql":
        conn.execute(_TAKE_LOCK)
    for match_id in ids:  # one at a time: each reads the number the one before it wrote
        conn.execute(_NUMBER, {"m": match_id})
