"""Ratings rebuilt from the match log; they must equal the stored ones."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladder.models import Match, MatchSeat, Rating, RatingChange
from ladder.ratings import INITIAL, Skill, update

Key = tuple[int, str]


def rebuild(db: Session) -> dict[Key, tuple[Skill, int]]:
    """Replay every recorded match, in the order its ratings were updated, from initial ratings."""
    order = (
        select(RatingChange.match_id, func.min(RatingChange.id).label("first"))
        .group_by(RatingChange.match_id)
        .order_by("first")
    )
    state: dict[Key, tuple[Skill, int]] = {}
    for match_id, _ in db.execute(order).all():
        match = db.get_one(Match, match_id)
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)).all()
        keys = [(s.bot_version_id, match.game) for s in seats]
        skills = [state.get(k, (INITIAL, 0))[0] for k in keys]
        new = update(skills, [s.rank or len(seats) for s in seats])
        for key, skill in zip(keys, new):
            state[key] = (skill, state.get(key, (INITIAL, 0))[1] + 1)
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
