"""The order the ladder settled its finished matches in: ``matches.recorded``, 1, 2, 3, ... given to every match of a
deal (a duplicate set) in the commit that finishes the last of them, which ``/api/matches?after=ID`` lists by
(ladder/web/listing.py).

Settled, not finished: until every match of its deal is over, a match's seed, deal, ranks, scores and verdicts are
held back (ladder/queries.py ``settled``). Numbered as it finished, a match was read by a poller with those nulls, and
the poller was never told when they came: it had to ask again for every match it saw unsettled. Numbered when its deal
settles, each match is read once, complete. The column keeps the name ``recorded``: the place the ladder recorded it
in the feed.

``finished_at`` cannot be that order: it is read from the recorder's clock before its transaction commits, and a
recorder that waits on the ratings' row locks (or whose machine's clock is behind) commits after a match that ended
later. A poller that had read the later one never saw the other. Nor can an id from a database sequence: one allocated
in a transaction may commit after a higher one allocated in another.

So each transaction that finishes matches (a result recorded, a failure, a cancellation, a lease given up for good)
calls ``number_settled`` last thing before it commits: under a lock that no other numbering transaction can take until
this one has committed, it looks whether the deals of the matches it finished still have a match to play, and numbers
every match of each deal that has none, with the highest number so far plus one. Whoever takes the lock next sees this
one's finishes and numbers. On SQLite that lock is the database's single write lock, held by every writer from its
first write (here, the one that finished the matches) to its commit. On PostgreSQL it is a transaction-scoped advisory
lock (``RECORD_LOCK``), which also makes the next holder's statements see this one's commit (READ COMMITTED, the
ladder's isolation level).

The lock is taken BEFORE the look at the deal, not only before the numbering: two twins finished at once in two
transactions would each, looking first, see the other still running (not yet committed), and neither would number the
deal, for ever. With the look under the lock, the one that takes it last looks after the other has committed, sees
every match of the deal over, and numbers them all; the one before saw its twin still running and numbered nothing.

Taken last, after the ratings' and versions' row locks, the lock is held only for the look, the numbering and the
commit. Its holder updates no row that another holder of it may have locked: the matches it numbers are finished by
commits it sees, and a row being finished by a transaction not yet committed is still running to it. The numbers seen
by a reader are therefore always 1 to N with no gap that a later commit fills, so a poller that asked for those after N
misses none. The unique index makes a numbering that broke these rules fail loudly rather than list twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

from sqlalchemy import Connection, Table, bindparam, func, select, update

from ladder.models import PENDING, Match

#: The key of the PostgreSQL advisory lock that numbering holds to its commit ("recorded" in ASCII, as one number).
RECORD_LOCK = int.from_bytes(b"recorded", "big") & (2**63 - 1)

_MATCHES = cast(Table, Match.__table__)
_LAST = _MATCHES.alias("numbered")
_TWIN, _OTHER = _MATCHES.alias("twin"), _MATCHES.alias("other")
_TAKE_LOCK = select(func.pg_advisory_xact_lock(RECORD_LOCK))
_DEALS = select(_TWIN.c.deal).where(_TWIN.c.id.in_(bindparam("ids", expanding=True)))
#: A match of the same deal still to play (along the deal index: the few matches of one deal, not every queued one).
_PENDING_TWIN = select(_OTHER.c.id).where(_OTHER.c.deal == _MATCHES.c.deal, _OTHER.c.status.in_(PENDING)).exists()
#: The matches of the deals of ``:ids`` that are settled (none of them left to play), finished and not yet numbered.
_TO_NUMBER = (
    select(_MATCHES.c.id)
    .where(_MATCHES.c.deal.in_(_DEALS), ~_PENDING_TWIN, _MATCHES.c.recorded.is_(None), _MATCHES.c.finished_at.is_not(None))
    .order_by(_MATCHES.c.id)
)
#: One match numbered, if finished and not yet numbered: the highest number so far, read in the same statement (on
#: SQLite, then, under the write lock that statement holds), plus one.
_NUMBER = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("m"), _MATCHES.c.recorded.is_(None), _MATCHES.c.finished_at.is_not(None))
    .values(recorded=select(func.coalesce(func.max(_LAST.c.recorded), 0) + 1).scalar_subquery())
)


def number_settled(conn: Connection, match_ids: Iterable[int]) -> list[int]:
    """Number the matches of each deal of ``match_ids`` (the matches this transaction finished) that has no match left
    to play, in the order of their ids; call it last before the commit, after every write that finishes or queues a
    match (see the module's docstring). A match already numbered keeps its number. Returns the ids numbered."""
    ids = sorted(set(match_ids))
    if not ids:
        return []
    if conn.dialect.name == "postgresql":
        conn.execute(_TAKE_LOCK)  # before the look at the deals: see the module's docstring
    settled = [int(i) for i in conn.execute(_TO_NUMBER, {"ids": ids}).scalars()]
    for match_id in settled:  # one at a time: each reads the number the one before it wrote
        conn.execute(_NUMBER, {"m": match_id})
    return settled
