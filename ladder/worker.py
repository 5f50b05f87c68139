"""The lifecycle of a queued match in the database: claim with a lease, renew, record exactly once, rate.

A claim is a conditional update (queued -> running, with this worker's lease);
the result is recorded by another (running with this lease -> done), in the
same transaction as the rating update, so a result is counted once or not at
all. A worker that dies leaves a lease that runs out; the reaper queues the
match again. Playing a claimed match is ladder/jobs.py's.
"""

from __future__ import annotations

import gzip
import logging
import time
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, case, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder.db import database_time, unreachable
from ladder.models import PENDING, UNPLAYED, BotVersion, Match, MatchFile, MatchSeat, Rating, RatingChange
from ladder.ratings import Skill, set_ranks
from ladder.ratings import update as rate
from ladder.recorded import number_settled
from ladder.scheduler import CHALLENGE, SEATS_HELD, UNRATED
from ladder.suspension import SUSPEND_AFTER, announce
from ladder.suspension import check as check_suspensions
from referee.server.words import verdict_json

MAX_ATTEMPTS = 3
log = logging.getLogger("arena.ladder.worker")


@dataclass(frozen=True)
class Claimed:
    """A match just claimed, with what its job needs: each seat's bot version and its folder in the bot store."""

    match_id: int
    game: str
    seed: int
    options: dict[str, Any]
    seats: tuple[tuple[int, str], ...]  # (bot version id, store path) in seat order


def claim(make: sessionmaker[Session], owner: str, lease_seconds: float) -> int | None:
    """Take the most urgent queued match; returns its id, or None if there is nothing to play (see ``claim_next``)."""
    claimed = claim_next(make, owner, lease_seconds)
    return None if claimed is None else claimed.match_id


def claim_next(make: sessionmaker[Session], owner: str, lease_seconds: float, held: frozenset[int] = frozenset()) -> Claimed | None:
    """Take the most urgent queued match and read its seats; None if there is nothing to play. A match seating a version
    ``held`` (its folder gone from the store: ladder/grounds.py, MissingVersions) is not taken: it waits for the folder.

    One conditional update picks the match and takes it (queued -> running, with this lease). Two claimers
    that picked the same match both try; the update re-checks the status, so one gets it and the other
    tries again. In Core statements built once: the dispatcher claims once per match, in the process that
    referees the ladder's matches, and the ORM's statements took three times the CPU.
    """
    with make() as db:
        for _ in range(5):
            now = database_time(db)  # leases are timed by the database's clock, which every machine shares
            conn = db.connection()  # the transaction's: a new one after each commit
            values = {"owner": owner, "expires": now + lease_seconds, "now": now}
            taken = (conn.execute(_CLAIM_UNHELD, {**values, "held": sorted(held)}) if held else conn.execute(_CLAIM, values)).first()
            if taken is not None:
                seats = seats_of(conn, int(taken.id))
                db.commit()
                return Claimed(int(taken.id), taken.game, int(taken.seed), dict(taken.options or {}), seats)
            nothing = not anything_queued(conn, held)
            db.commit()
            if nothing:
                return None
    return None


def seats_of(conn: Connection, match_id: int) -> tuple[tuple[int, str], ...]:
    """Each seat's bot version and its folder in the bot store, in seat order."""
    return tuple((int(v), str(p)) for v, p in conn.execute(_CLAIMED_SEATS, {"m": match_id}))


def anything_queued(conn: Connection, held: frozenset[int] = frozenset()) -> bool:
    """Whether a match is queued (one that seats none of the versions ``held``)."""
    if held:
        return conn.execute(_ANY_QUEUED.where(~SEATS_HELD), {"held": sorted(held)}).first() is not None
    return conn.execute(_ANY_QUEUED).first() is not None


def renew(make: sessionmaker[Session], match_id: int, owner: str, lease_seconds: float) -> bool:
    with make() as db:
        done = db.execute(
            update(Match)
            .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
            .values(lease_expires=database_time(db) + lease_seconds)
        )
        db.commit()
        return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def reap(make: sessionmaker[Session]) -> int:
    """Queue again every running match whose lease ran out; give up after MAX_ATTEMPTS."""
    with make() as db:
        now = database_time(db)
        failed = db.scalars(
            update(Match)
            .where(Match.status == "running", Match.lease_expires < now, Match.attempts + 1 >= MAX_ATTEMPTS)
            .values(
                status="failed", lease_owner=None, lease_expires=None, attempts=Match.attempts + 1,
                error="abandoned by its workers too many times", finished_at=now,
            )
            .returning(Match.id)
        ).all()
        again = db.execute(
            update(Match)
            .where(Match.status == "running", Match.lease_expires < now)
            .values(status="queued", lease_owner=None, lease_expires=None, attempts=Match.attempts + 1)
        )
        number_settled(db.connection(), failed)
        db.commit()
        return int(again.rowcount) + len(failed)  # type: ignore[attr-defined]


# The tables, for the Core statements of claiming and recording (some of them built once).
_MATCHES, _SEATS, _RATINGS = cast(Table, Match.__table__), cast(Table, MatchSeat.__table__), cast(Table, Rating.__table__)
_FILES, _CHANGES = cast(Table, MatchFile.__table__), cast(Table, RatingChange.__table__)
_VERSIONS = cast(Table, BotVersion.__table__)
_SEAT_RESULT = (
    update(_SEATS)
    .where(_SEATS.c.match_id == bindparam("m"), _SEATS.c.seat == bindparam("s"))
    .values(rank=bindparam("rank"), score=bindparam("score"), verdicts=bindparam("verdicts"), log_path=bindparam("log"))
)
_RATING = update(_RATINGS).where(_RATINGS.c.id == bindparam("rid")).values(
    mu=bindparam("mu"), sigma=bindparam("sigma"), games=bindparam("played"), updated_at=bindparam("at")
)
_LAST = _MATCHES.alias("last_finished")
#: The kind of the match that finished last (along ix_matches_finished_at: one row read).
_LAST_KIND = select(_LAST.c.kind).where(_LAST.c.finished_at.is_not(None)).order_by(_LAST.c.finished_at.desc()).limit(1).scalar_subquery()
#: A match's place in the queue: its priority, but a challenge right after a challenge comes after the ladder's own
#: matches. Ahead of everything always, an owner asking again whenever a challenge was over kept three sets open,
#: and a ladder of two workers played nothing else (220 challenge matches in a minute, none of its own).
_URGENCY = case(((_MATCHES.c.kind == CHALLENGE) & (_LAST_KIND == CHALLENGE), -1), else_=_MATCHES.c.priority)


def _claim_statement(held: bool) -> Any:
    """The conditional update that takes the most urgent queued match (with ``held``: one seating none of ``:held``)."""
    first = select(_MATCHES.c.id).where(_MATCHES.c.status == "queued")
    if held:
        first = first.where(~SEATS_HELD)
    return (
        update(_MATCHES)
        .where(_MATCHES.c.id == first.order_by(_URGENCY.desc(), _MATCHES.c.id).limit(1).scalar_subquery(), _MATCHES.c.status == "queued")
        .values(status="running", lease_owner=bindparam("owner"), lease_expires=bindparam("expires"), started_at=bindparam("now"))
        .returning(_MATCHES.c.id, _MATCHES.c.game, _MATCHES.c.seed, _MATCHES.c.options)
    )


_CLAIM, _CLAIM_UNHELD = _claim_statement(False), _claim_statement(True)
_CLAIMED_SEATS = (
    select(_SEATS.c.bot_version_id, _VERSIONS.c.path)
    .join(_VERSIONS, _VERSIONS.c.id == _SEATS.c.bot_version_id)
    .where(_SEATS.c.match_id == bindparam("m"))
    .order_by(_SEATS.c.seat)
)
_ANY_QUEUED = select(_MATCHES.c.id).where(_MATCHES.c.status == "queued").limit(1)
_DONE = (
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("m"), _MATCHES.c.status == "running", _MATCHES.c.lease_owner == bindparam("owner"))
    .values(status="done", finished_at=bindparam("now"), replay_path=bindparam("replay"), lease_owner=None, lease_expires=None, played_by=bindparam("by"))
    .returning(_MATCHES.c.game, _MATCHES.c.deal, _MATCHES.c.kind)
)
_SEATED = select(_SEATS.c.bot_version_id).where(_SEATS.c.match_id == bindparam("m")).order_by(_SEATS.c.seat)
_LOCK_RATINGS = (
    select(_RATINGS.c.id, _RATINGS.c.bot_version_id, _RATINGS.c.mu, _RATINGS.c.sigma, _RATINGS.c.games)
    .where(_RATINGS.c.bot_version_id.in_(bindparam("versions", expanding=True)), _RATINGS.c.game == bindparam("game"))
    .order_by(_RATINGS.c.bot_version_id)
    .with_for_update()
)
_SET_MEMBERS = select(_MATCHES.c.id, _MATCHES.c.status, _MATCHES.c.rated_with).where(_MATCHES.c.deal == bindparam("deal")).order_by(_MATCHES.c.id)
_SET_RANKS = (
    select(_SEATS.c.match_id, _SEATS.c.bot_version_id, _SEATS.c.rank)
    .where(_SEATS.c.match_id.in_(bindparam("ids", expanding=True)))
    .order_by(_SEATS.c.match_id, _SEATS.c.seat)
)
_NEW_CHANGE = insert(_CHANGES)
_TAKE_WRITE_LOCK = update(_MATCHES).where(_MATCHES.c.id == bindparam("m")).values(id=_MATCHES.c.id)  # SQLite only: see rate_set
_RATED_WITH = update(_MATCHES).where(_MATCHES.c.id.in_(bindparam("ids", expanding=True))).values(rated_with=bindparam("m"))


def record_outcome(
    make: sessionmaker[Session],
    match_id: int,
    owner: str,
    result: pb.MatchResult,
    *,
    replay_path: str | None = None,
    log_paths: Sequence[str | None] | None = None,
    files: dict[str, bytes] | None = None,
    played_by: str | None = None,
    suspend_after: int = SUSPEND_AFTER,
) -> bool:
    """Record a finished match, its ratings and its files (replay, logs) in one transaction.

    The conditional update (running, with this lease owner -> done) makes the
    result count once: a second recorder of the same match (a retried task, a
    worker that lost its lease to the reaper) changes no row and rolls back.
    Returns False when the lease was lost. A version whose seat forfeited here and in the matches before it
    (``suspend_after`` in a row) is suspended in the same transaction (ladder/suspension.py).

    Written in SQLAlchemy Core, as ``rate_set``'s work (``_rate``): once per match, the ORM's
    unit of work took twice the CPU, in the process that referees the ladder's matches.
    """
    paths = log_paths or [None] * len(result.seats)
    now = time.time()
    with make() as db:
        conn = db.connection()
        done = conn.execute(_DONE, {"m": match_id, "owner": owner, "now": now, "replay": replay_path, "by": played_by}).first()
        if done is None:
            db.rollback()
            return False
        game, deal, kind = done
        verdicts = {
            outcome.seat: [verdict_json(v) for v in outcome.verdicts]
            for outcome in result.seats
        }
        conn.execute(
            _SEAT_RESULT,
            [
                {"m": match_id, "s": outcome.seat, "rank": outcome.rank, "score": outcome.score, "log": log, "verdicts": verdicts[outcome.seat]}
                for outcome, log in zip(result.seats, paths)
            ],
        )
        if files:
            conn.execute(
                insert(_FILES),
                [{"match_id": match_id, "name": name, "size": len(data), "data": gzip.compress(data, 6), "created_at": now} for name, data in files.items()],
            )
        if kind not in UNRATED:
            _rate(conn, match_id, game, deal, now)
        suspended = check_suspensions(conn, match_id, verdicts, suspend_after, kind)  # after _rate: its rating locks come first
        number_settled(conn, [match_id])  # last: its lock is held to the commit; numbers the deal if this was its last match
        db.commit()
        announce(suspended)
        return True


def rate_set(db: Session, match: Match) -> bool:
    """Rate ``match``'s duplicate set as one comparison if none of it is left to play; True if it rated.

    Its done, unrated matches are combined (set_ranks): each bot's ranks summed over them. The
    RatingChange rows go to ``match`` (the one that completed the set), every combined match is
    marked ``rated_with`` it, and each bot's games grow by the matches combined. A set whose other
    match failed is rated from what was played.

    The rating rows are locked in version-id order before the set is looked at: two recorders of
    one set (or of sets sharing bots) take turns, and on PostgreSQL the one that waited then sees
    what the other committed, so a set is rated exactly once and no two lock crosswise.
    """
    if match.kind in UNRATED:
        return False
    db.flush()  # seats and matches changed through the ORM in this session count
    conn = db.connection()
    if conn.dialect.name == "sqlite":
        # pysqlite begins a transaction at the first write, and SQLite has no FOR UPDATE: with nothing written yet (the
        # sweep of failed sets), the ratings were read outside any transaction, and a set recorded before this one's
        # write was lost from them. A write first takes the database's lock (record_outcome's conditional update does).
        conn.execute(_TAKE_WRITE_LOCK, {"m": match.id})
    rated = _rate(conn, match.id, match.game, match.deal, time.time())
    if rated:
        db.expire_all()  # ratings, matches and changes were written past the ORM: read them again
    return rated


def _rate(conn: Connection, match_id: int, game: str, deal: str, now: float) -> bool:
    """``rate_set``'s work, in Core statements on ``conn``."""
    versions = list(conn.execute(_SEATED, {"m": match_id}).scalars())
    # One query, its rows locked in the order it returns them (PostgreSQL locks after sorting).
    ratings = {row.bot_version_id: row for row in conn.execute(_LOCK_RATINGS, {"versions": sorted(set(versions)), "game": game})}
    missing = set(versions) - ratings.keys()
    assert not missing, f"no rating for versions {sorted(missing)} in {game}"
    members = conn.execute(_SET_MEMBERS, {"deal": deal}).all()
    if any(status in PENDING for _, status, _ in members):
        return False
    combined = [mid for mid, status, rated_with in members if status == "done" and rated_with is None]
    if match_id not in combined:
        return False
    by_match: dict[int, list[tuple[int, int]]] = {}
    for mid, version_id, rank in conn.execute(_SET_RANKS, {"ids": combined}):
        by_match.setdefault(mid, []).append((version_id, rank or len(versions)))
    ranks = set_ranks((by_match[mid] for mid in combined), versions)
    rows = [ratings[v] for v in versions]
    new = rate([Skill(r.mu, r.sigma) for r in rows], ranks)
    conn.execute(_RATING, [{"rid": r.id, "mu": k.mu, "sigma": k.sigma, "played": r.games + len(combined), "at": now} for r, k in zip(rows, new)])
    conn.execute(
        _NEW_CHANGE,
        [{"match_id": match_id, "bot_version_id": v, "game": game, "mu": k.mu, "sigma": k.sigma, "created_at": now} for v, k in zip(versions, new)],
    )
    conn.execute(_RATED_WITH, {"ids": combined, "m": match_id})
    return True


#: Sets a sweep of ``rate_settled_sets`` rates at most.
SWEEP_LIMIT = 50


def rate_settled_sets(make: sessionmaker[Session], limit: int = SWEEP_LIMIT, skip: set[int] | None = None) -> int:
    """Rate the sets whose last match ended without a result (failed or cancelled): what was played still counts.

    A set that cannot be rated (its rating raises) is logged once, its match put in ``skip`` (kept by the caller
    between sweeps) and passed over: it held up every set after it, and filled the log every sweep. A database
    error (busy, out of reach) is raised instead: skipped, every set of a sweep the database missed went unrated.
    """
    skip = set() if skip is None else skip
    rated = 0
    with make() as db:
        # Only sets with a match failed or cancelled: the others are rated when their last match is recorded, and the
        # first halves waiting for their second are many, each a few queries to look at, twice a second.
        # Nor those with a match still to play (at three seats and more, a failure comes before the set's end): each
        # was looked at and passed over at every sweep, and enough of them filled its limit before a set it could rate.
        failed_deals = select(Match.deal).where(Match.status.in_(UNPLAYED))
        playing_deals = select(Match.deal).where(Match.status.in_(PENDING))
        query = (
            select(Match.id)
            .where(
                Match.rated_with.is_(None), Match.status == "done", Match.deal.in_(failed_deals), Match.deal.not_in(playing_deals),
                Match.kind.not_in(sorted(UNRATED)),
            )
            .order_by(Match.finished_at, Match.id)
            .limit(limit)
        )
        if skip:
            query = query.where(Match.id.not_in(skip))
        for match_id in db.scalars(query).all():
            match = db.get_one(Match, match_id)
            try:
                done = rate_set(db, match)
            except Exception as exc:
                if unreachable(exc):
                    raise  # the database busy or out of reach for a moment, not the set: the next sweep tries again
                db.rollback()
                skip.add(match_id)
                log.exception("the duplicate set of match %s cannot be rated; it is skipped until the ladder restarts", match_id)
                continue
            if done:
                db.commit()
                rated += 1
            else:
                db.rollback()
    return rated


class WorkerUnfit(RuntimeError):
    """A worker set up so that it can play no match (no database URL, say); its message names the fix, and no secret."""


def public_error(exc: BaseException) -> str:
    """What a match's public page says of an unexpected error: its kind only. Its text (SQL statements, paths in
    the ladder's machine) belongs to the ladder's log, where the caller writes it. A worker's own set-up problem
    (WorkerUnfit) is told as it is: blaming the ladder sent operators to the wrong machine."""
    if isinstance(exc, WorkerUnfit):
        return f"a worker could not play this match: {exc}"
    return f"the ladder could not play or record this match ({type(exc).__name__}; the details are in its log)"


def fail_match(make: sessionmaker[Session], match_id: int, owner: str, error: str) -> None:
    with make() as db:
        failed = db.execute(
            update(Match)
            .where(Match.id == match_id, Match.lease_owner == owner, Match.status == "running")
            .values(status="failed", error=error[:2000], lease_owner=None, lease_expires=None, finished_at=time.time())
        )
        if failed.rowcount == 1:  # type: ignore[attr-defined]
            number_settled(db.connection(), [match_id])
        db.commit()


def release(make: sessionmaker[Session], match_id: int, owner: str, count_attempt: bool = False, error: str = "") -> bool:
    """Give a claimed match back to the queue (or fail it once it used up MAX_ATTEMPTS); only its lease owner can."""
    with make() as db:
        match = db.scalar(select(Match).where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner))
        if match is None:
            return False
        attempts = match.attempts + (1 if count_attempt else 0)
        status = "failed" if attempts >= MAX_ATTEMPTS else "queued"
        changed = db.execute(
            update(Match)
            .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
            .values(
                status=status, lease_owner=None, lease_expires=None, attempts=attempts, error=(error or match.error)[:2000],
                finished_at=time.time() if status == "failed" else None,
            )
        )
        if status == "failed" and changed.rowcount == 1:  # type: ignore[attr-defined]
            number_settled(db.connection(), [match_id])
        db.commit()
        return bool(changed.rowcount == 1)  # type: ignore[attr-defined]


def release_lease(make: sessionmaker[Session], owner: str) -> int:
    """Give back whatever match ``owner`` holds, no attempt counted; returns how many. For a claim whose answer was
    lost (the books process died after committing it): the caller knows the lease it asked for, not the match."""
    with make() as db:
        changed = db.execute(
            update(Match)
            .where(Match.status == "running", Match.lease_owner == owner)
            .values(status="queued", lease_owner=None, lease_expires=None)
        )
        db.commit()
        return int(changed.rowcount)  # type: ignore[attr-defined]


def renew_all(make: sessionmaker[Session], leases: dict[int, str], lease_seconds: float) -> int:
    """Renew the leases of several claimed matches (match id -> owner); returns how many were still held."""
    if not leases:
        return 0
    held = 0
    with make() as db:
        expires = database_time(db) + lease_seconds
        for match_id, owner in leases.items():
            done = db.execute(
                update(Match)
                .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
                .values(lease_expires=expires)
            )
            held += int(done.rowcount)  # type: ignore[attr-defined]
        db.commit()
    return held
