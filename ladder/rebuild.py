"""Ratings rebuilt from the match log; they must equal the stored ones."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import Match, MatchSeat, Rating, RatingChange
from ladder.ratings import INITIAL, Skill, set_ranks, update

Key = tuple[int, str]


def rebuild(db: Session) -> dict[Key, tuple[Skill, int]]:
    """Replay every rating update, in order, from initial ratings: each match with RatingChange rows, combined with
    the matches of its duplicate set that were rated with it (``rated_with``)."""
    order = (
        select(RatingChange.match_id, func.min(RatingChange.id).label("first"))
        .group_by(RatingChange.match_id)
        .order_by("first")
    )
    state: dict[Key, tuple[Skill, int]] = {}
    for match_id, _ in db.execute(order).all():
        match = db.get_one(Match, match_id)
        combined = db.scalars(select(Match.id).where(Match.rated_with == match_id).order_by(Match.id)).all() or [match_id]
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id.in_(combined)).order_by(MatchSeat.match_id, MatchSeat.seat)).all()
        by_match: dict[int, list[MatchSeat]] = {}
        for seat in seats:
            by_match.setdefault(seat.match_id, []).append(seat)
        order_ids = [s.bot_version_id for s in by_match[match_id]]
        ranks = set_ranks(([(s.bot_version_id, s.rank or len(order_ids)) for s in by_match[m]] for m in combined), order_ids)
        keys = [(v, match.game) for v in order_ids]
        skills = [state.get(k, (INITIAL, 0))[0] for k in keys]
        new = update(skills, ranks)
        for key, skill in zip(keys, new):
            state[key] = (skill, state.get(key, (INITIAL, 0))[1] + len(combined))
    return state


def mismatches(db: Session, tolerance: float = 1e-9) -> list[str]:
    """Where the stored ratings differ from the rebuilt ones (empty when they agree)."""
    rebuilt = rebuild(db)
    problems = []
    for rating in db.scalars(select(Rating)).all():
        skill, games = rebuilt.get((rating.bot_version_id, rating.game), (INITIAL, 0))
        if abs(skill.mu - rating.mu) > tolerance or abs(skill.sigma - rating.sigma) > tolerance or games != rating.games:
            problems.append(
                f"version {rating.bot_version_id} in {rating.game}: stored mu={rating.mu:.6f} sigma={rating.sigma:.6f} games={rating.games},"
                f" rebuilt mu={skill.mu:.6f} sigma={skill.sigma:.6f} games={games}"
            )
    return problems


def check(make: sessionmaker[Session]) -> list[str]:
    """``mismatches`` read from one snapshot of the database, so that a running ladder recording results meanwhile
    (each SELECT would otherwise see the latest commit) is not taken for ratings that went wrong."""
    with make() as db:
        if db.get_bind().dialect.name == "sqlite":
            db.connection().exec_driver_sql("BEGIN")  # pysqlite begins no transaction before a SELECT by itself
        else:
            db.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        return mismatches(db)
