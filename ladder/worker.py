"""Playing queued matches: claim with a lease, play in fresh copies of the bots, record exactly once.

A claim is a conditional update (queued -> running, with this worker's lease);
the result is recorded by another (running with this lease -> done), in the
same transaction as the rating update, so a result is counted once or not at
all. A worker that dies leaves a lease that runs out; the reaper queues the
match again.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingChange
from ladder.ratings import Skill
from ladder.ratings import update as rate
from referee.server.replay import write_replay
from referee.server.runner import LocalMatch, MatchSetup, run_local_match
from referee.server.session import TimeControl

MAX_ATTEMPTS = 3


@dataclass
class WorkerConfig:
    store: Path
    data_dir: Path
    time_control: TimeControl
    lease_seconds: float = 60.0
    sandbox: str = "process"


def claim(make: sessionmaker[Session], owner: str, lease_seconds: float) -> int | None:
    """Take the most urgent queued match; returns its id, or None if there is nothing to play."""
    with make() as db:
        for _ in range(5):
            candidate = db.scalar(
                select(Match.id).where(Match.status == "queued").order_by(Match.priority.desc(), Match.id).limit(1)
            )
            if candidate is None:
                return None
            now = time.time()
            taken = db.execute(
                update(Match)
                .where(Match.id == candidate, Match.status == "queued")
                .values(status="running", lease_owner=owner, lease_expires=now + lease_seconds, started_at=now)
            )
            db.commit()
            if taken.rowcount == 1:  # type: ignore[attr-defined]
                return candidate
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


def record_result(make: sessionmaker[Session], match_id: int, owner: str, played: LocalMatch, replay: Path, logs: list[Path]) -> bool:
    """Record a finished match and update ratings in one transaction; False if the lease was lost."""
    result = played.record.result
    with make() as db:
        done = db.execute(
            update(Match)
            .where(Match.id == match_id, Match.status == "running", Match.lease_owner == owner)
            .values(status="done", finished_at=time.time(), replay_path=str(replay), lease_owner=None, lease_expires=None)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            db.rollback()
            return False
        match = db.get(Match, match_id)
        assert match is not None
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)).all()
        for seat, outcome, log in zip(seats, result.seats, logs):
            seat.rank = outcome.rank
            seat.score = outcome.score
            seat.verdicts = [
                {"kind": pb.VerdictKind.Name(v.kind), "decision": v.decision_index, "detail": v.detail} for v in outcome.verdicts
            ]
            seat.log_path = str(log)
        apply_ratings(db, match, list(seats))
        db.commit()
        return True


def apply_ratings(db: Session, match: Match, seats: list[MatchSeat]) -> None:
    """TrueSkill update for one match's seats, with a RatingChange per seat."""
    ratings = []
    for seat in seats:
        rating = db.scalar(
            select(Rating).where(Rating.bot_version_id == seat.bot_version_id, Rating.game == match.game).with_for_update()
        )
        assert rating is not None, f"no rating for version {seat.bot_version_id} in {match.game}"
        ratings.append(rating)
    new = rate([Skill(r.mu, r.sigma) for r in ratings], [s.rank or len(seats) for s in seats])
    now = time.time()
    for rating, skill, seat in zip(ratings, new, seats):
        rating.mu, rating.sigma = skill.mu, skill.sigma
        rating.games += 1
        rating.updated_at = now
        db.add(RatingChange(match_id=match.id, bot_version_id=seat.bot_version_id, game=match.game, mu=skill.mu, sigma=skill.sigma, created_at=now))


async def play_match(make: sessionmaker[Session], match_id: int, owner: str, config: WorkerConfig) -> bool:
    """Play a claimed match in fresh copies of its bots and record it; returns whether it was recorded."""
    with make() as db:
        match = db.get(Match, match_id)
        assert match is not None
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)).all()
        paths = [config.store / db.get_one(BotVersion, s.bot_version_id).path for s in seats]
        game, seed, options = match.game, match.seed, dict(match.options)
    log_dir = config.data_dir / "logs" / str(match_id)
    replay = config.data_dir / "replays" / f"{match_id}.json"
    with tempfile.TemporaryDirectory(prefix=f"arena-m{match_id}-") as tmp:
        # Fresh storage per match: a bot never finds what it wrote in another match (or the other deal of its pair).
        copies = []
        for seat, path in enumerate(paths):
            copy = Path(tmp) / f"seat{seat}"
            shutil.copytree(path, copy, symlinks=False)
            copies.append(copy)
        setup = MatchSetup(game, copies, seed, options, config.time_control, log_dir, config.sandbox)
        keeper = asyncio.create_task(_keep_lease(make, match_id, owner, config.lease_seconds))
        try:
            played = await run_local_match(setup)
        finally:
            keeper.cancel()
    write_replay(played.record, replay)
    return record_result(make, match_id, owner, played, replay, played.logs)


async def _keep_lease(make: sessionmaker[Session], match_id: int, owner: str, lease_seconds: float) -> None:
    while True:
        await asyncio.sleep(lease_seconds / 3)
        renew(make, match_id, owner, lease_seconds)


def fail_match(make: sessionmaker[Session], match_id: int, owner: str, error: str) -> None:
    with make() as db:
        db.execute(
            update(Match)
            .where(Match.id == match_id, Match.lease_owner == owner, Match.status == "running")
            .values(status="failed", error=error[:2000], lease_owner=None, lease_expires=None)
        )
        db.commit()
