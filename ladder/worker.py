"""The lifecycle of a queued match in the database: claim with a lease, renew, record exactly once, rate.

A claim is a conditional update (queued -> running, with this worker's lease);
the result is recorded by another (running with this lease -> done), in the
same transaction as the rating update, so a result is counted once or not at
all. A worker that dies leaves a lease that runs out; the reaper queues the
match again. Playing a claimed match is ladder/jobs.py's.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Sequence

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder.models import Match, MatchFile, MatchSeat, Rating, RatingChange
from ladder.ratings import Skill, set_ranks
from ladder.ratings import update as rate
from referee.server.runner import LocalMatch

MAX_ATTEMPTS = 3


def claim(make: sessionmaker[Session], owner: str, lease_seconds: float) -> int | None:
    """Take the most urgent queued match; returns its id, or None if there is nothing to play.

    One conditional update picks the match and takes it (queued -> running, with this lease). Two claimers
    that picked the same match both try; the update re-checks the status, so one gets it and the other
    tries again.
    """
    with make() as db:
        for _ in range(5):
            first = select(Match.id).where(Match.status == "queued").order_by(Match.priority.desc(), Match.id).limit(1).scalar_subquery()
            now = time.time()
            taken = db.execute(
                update(Match)
                .where(Match.id == first, Match.status == "queued")
                .values(status="running", lease_owner=owner, lease_expires=now + lease_seconds, started_at=now)
                .returning(Match.id)
                .execution_options(synchronize_session=False)
            ).scalar_one_or_none()
            db.commit()
            if taken is not None:
                return int(taken)
            if db.scalar(select(Match.id).where(Match.status == "queued").limit(1)) is None:
                return None
    return None


def renew(make: sessionmaker[Session], match_id: int, owner: str, lease_seconds: float) -> bool:
    with make() as db:
        done = db.execute(
            update(Match)
            .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
            .values(lease_expires=time.time() + lease_seconds)
        )
        db.commit()
        return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def reap(make: sessionmaker[Session]) -> int:
    """Queue again every running match whose lease ran out; give up after MAX_ATTEMPTS."""
    now = time.time()
    with make() as db:
        failed = db.execute(
            update(Match)
            .where(Match.status == "running", Match.lease_expires < now, Match.attempts + 1 >= MAX_ATTEMPTS)
            .values(status="failed", lease_owner=None, error="abandoned by its workers too many times")
        )
        again = db.execute(
            update(Match)
            .where(Match.status == "running", Match.lease_expires < now)
            .values(status="queued", lease_owner=None, lease_expires=None, attempts=Match.attempts + 1)
        )
        db.commit()
        return int(again.rowcount + failed.rowcount)  # type: ignore[attr-defined]


def record_outcome(
    make: sessionmaker[Session],
    match_id: int,
    owner: str,
    played: LocalMatch,
    *,
    replay_path: str | None = None,
    log_paths: list[str | None] | None = None,
    files: dict[str, bytes] | None = None,
    played_by: str | None = None,
) -> bool:
    """Record a finished match, its ratings and its files (replay, logs) in one transaction.

    The conditional update (running, with this lease owner -> done) makes the
    result count once: a second recorder of the same match (a retried task, a
    worker that lost its lease to the reaper) changes no row and rolls back.
    Returns False when the lease was lost.
    """
    result = played.record.result
    paths = log_paths or [None] * len(result.seats)
    now = time.time()
    with make() as db:
        done = db.execute(
            update(Match)
            .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
            .values(status="done", finished_at=now, replay_path=replay_path, lease_owner=None, lease_expires=None, played_by=played_by)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            db.rollback()
            return False
        match = db.get_one(Match, match_id)
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)).all()
        for seat, outcome, log in zip(seats, result.seats, paths):
            seat.rank = outcome.rank
            seat.score = outcome.score
            seat.verdicts = [
                {"kind": pb.VerdictKind.Name(v.kind), "decision": v.decision_index, "detail": v.detail} for v in outcome.verdicts
            ]
            seat.log_path = log
        for name, data in (files or {}).items():
            db.add(MatchFile(match_id=match_id, name=name, size=len(data), data=gzip.compress(data, 6), created_at=now))
        rate_set(db, match, seats)
        db.commit()
        return True


def rate_set(db: Session, match: Match, seats: Sequence[MatchSeat] | None = None) -> bool:
    """Rate ``match``'s duplicate set as one comparison if none of it is left to play; True if it rated.

    Its done, unrated matches are combined (set_ranks): each bot's ranks summed over them. The
    RatingChange rows go to ``match`` (the one that completed the set), every combined match is
    marked ``rated_with`` it, and each bot's games grow by the matches combined. A set whose other
    match failed is rated from what was played.

    The rating rows are locked in version-id order before the set is looked at: two recorders of
    one set (or of sets sharing bots) take turns, and on PostgreSQL the one that waited then sees
    what the other committed, so a set is rated exactly once and no two lock crosswise.
    ``seats``: ``match``'s own seats in seat order, when the caller has them.
    """
    if seats is None:
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id == match.id).order_by(MatchSeat.seat)).all()
    seat_versions = [s.bot_version_id for s in seats]
    # One query, its rows locked in the order it returns them (PostgreSQL locks after sorting).
    found = db.scalars(
        select(Rating)
        .where(Rating.bot_version_id.in_(set(seat_versions)), Rating.game == match.game)
        .order_by(Rating.bot_version_id)
        .with_for_update()
    ).all()
    locked = {r.bot_version_id: r for r in found}
    missing = set(seat_versions) - locked.keys()
    assert not missing, f"no rating for versions {sorted(missing)} in {match.game}"
    members = db.execute(select(Match.id, Match.status, Match.rated_with).where(Match.deal == match.deal).order_by(Match.id)).all()
    if any(status in ("queued", "running") for _, status, _ in members):
        return False
    combined = [mid for mid, status, rated_with in members if status == "done" and rated_with is None]
    if match.id not in combined:
        return False
    by_match: dict[int, list[MatchSeat]] = {match.id: list(seats)}
    others = [mid for mid in combined if mid != match.id]
    if others:
        for seat in db.scalars(select(MatchSeat).where(MatchSeat.match_id.in_(others)).order_by(MatchSeat.match_id, MatchSeat.seat)):
            by_match.setdefault(seat.match_id, []).append(seat)
    order = list(seat_versions)
    ranks = set_ranks(([(s.bot_version_id, s.rank or len(order)) for s in by_match[mid]] for mid in combined), order)
    ratings = [locked[v] for v in order]
    new = rate([Skill(r.mu, r.sigma) for r in ratings], ranks)
    now = time.time()
    for rating, skill, version_id in zip(ratings, new, order):
        rating.mu, rating.sigma = skill.mu, skill.sigma
        rating.games += len(combined)
        rating.updated_at = now
        db.add(RatingChange(match_id=match.id, bot_version_id=version_id, game=match.game, mu=skill.mu, sigma=skill.sigma, created_at=now))
    db.execute(update(Match).where(Match.id.in_(combined)).values(rated_with=match.id))
    return True


def rate_settled_sets(make: sessionmaker[Session], limit: int = 50) -> int:
    """Rate the sets whose last match ended without a result (failed): what was played still counts."""
    rated = 0
    with make() as db:
        # Only sets with a failed match: the others are rated when their last match is recorded, and the
        # first halves waiting for their second are many, each a few queries to look at, twice a second.
        failed_deals = select(Match.deal).where(Match.status == "failed")
        waiting = db.scalars(
            select(Match.id)
            .where(Match.rated_with.is_(None), Match.status == "done", Match.deal.in_(failed_deals))
            .order_by(Match.finished_at, Match.id)
            .limit(limit)
        ).all()
        for match_id in waiting:
            match = db.get_one(Match, match_id)
            if rate_set(db, match):
                db.commit()
                rated += 1
            else:
                db.rollback()
    return rated


def fail_match(make: sessionmaker[Session], match_id: int, owner: str, error: str) -> None:
    with make() as db:
        db.execute(
            update(Match)
            .where(Match.id == match_id, Match.lease_owner == owner, Match.status == "running")
            .values(status="failed", error=error[:2000], lease_owner=None, lease_expires=None)
        )
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
            .values(status=status, lease_owner=None, lease_expires=None, attempts=attempts, error=(error or match.error)[:2000])
        )
        db.commit()
        return bool(changed.rowcount == 1)  # type: ignore[attr-defined]


def renew_all(make: sessionmaker[Session], leases: dict[int, str], lease_seconds: float) -> int:
    """Renew the leases of several claimed matches (match id -> owner); returns how many were still held."""
    if not leases:
        return 0
    expires = time.time() + lease_seconds
    held = 0
    with make() as db:
        for match_id, owner in leases.items():
            done = db.execute(
                update(Match)
                .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
                .values(lease_expires=expires)
            )
            held += int(done.rowcount)  # type: ignore[attr-defined]
        db.commit()
    return held
