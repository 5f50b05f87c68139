"""Ratings rebuilt from the match log; they must equal the stored ones."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import Match, MatchSeat, Rating, RatingChange
from ladder.ratings import INITIAL, Skill, set_ranks, update

Key = tuple[int, str]


#: Sets whose seats are read in one query: a query per set (three, through the ORM) took 140 s at 84,000 sets.
CHUNK = 500


def rebuild(db: Session) -> dict[Key, tuple[Skill, int]]:
    """Replay every rating update, in order, from initial ratings: each match with RatingChange rows, combined with
    the matches of its duplicate set that were rated with it (``rated_with``)."""
    order = (
        select(RatingChange.match_id, func.min(RatingChange.id).label("first"))
        .group_by(RatingChange.match_id)
        .order_by("first")
    )
    rating_matches = [match_id for match_id, _ in db.execute(order).all()]
    members: dict[int, list[int]] = {}
    rated = select(Match.id, Match.rated_with).where(Match.rated_with.is_not(None)).order_by(Match.id)
    for match_id, rated_with in db.execute(rated):
        assert rated_with is not None
        members.setdefault(rated_with, []).append(match_id)
    state: dict[Key, tuple[Skill, int]] = {}
    for start in range(0, len(rating_matches), CHUNK):
        chunk = rating_matches[start:start + CHUNK]
        sets = {match_id: members.get(match_id) or [match_id] for match_id in chunk}
        every = [m for combined in sets.values() for m in combined]
        games = {match_id: game for match_id, game in db.execute(select(Match.id, Match.game).where(Match.id.in_(chunk)))}
        by_match: dict[int, list[tuple[int, int | None]]] = {}
        seats = select(MatchSeat.match_id, MatchSeat.bot_version_id, MatchSeat.rank).where(MatchSeat.match_id.in_(every))
        for match_id, version, rank in db.execute(seats.order_by(MatchSeat.match_id, MatchSeat.seat)):
            by_match.setdefault(match_id, []).append((version, rank))
        for match_id in chunk:
            combined = sets[match_id]
            order_ids = [version for version, _ in by_match[match_id]]
            ranks = set_ranks(([(v, rank or len(order_ids)) for v, rank in by_match[m]] for m in combined), order_ids)
            keys = [(v, games[match_id]) for v in order_ids]
            skills = [state.get(k, (INITIAL, 0))[0] for k in keys]
            new = update(skills, ranks)
            for key, skill in zip(keys, new):
                state[key] = (skill, state.get(key, (INITIAL, 0))[1] + len(combined))
    return state


def mismatches(db: Session, tolerance: float = 1e-9) -> list[str]:
    """Where the stored ratings differ from the rebuilt ones (empty when they agree)."""
    rebuilt = rebuild(db)
    problems = []
    stored = db.scalars(select(Rating)).all()
    for rating in stored:
        skill, games = rebuilt.get((rating.bot_version_id, rating.game), (INITIAL, 0))
        if abs(skill.mu - rating.mu) > tolerance or abs(skill.sigma - rating.sigma) > tolerance or games != rating.games:
            problems.append(
                f"version {rating.bot_version_id} in {rating.game}: stored mu={rating.mu:.6f} sigma={rating.sigma:.6f} games={rating.games},"
                f" rebuilt mu={skill.mu:.6f} sigma={skill.sigma:.6f} games={games}"
            )
    # A version the log rates whose stored rating is gone (deleted by hand, or by a bug) is off the leaderboards.
    for version, game in sorted(rebuilt.keys() - {(rating.bot_version_id, rating.game) for rating in stored}):
        skill, games = rebuilt[version, game]
        problems.append(f"version {version} in {game}: no stored rating, rebuilt mu={skill.mu:.6f} sigma={skill.sigma:.6f} games={games}")
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
