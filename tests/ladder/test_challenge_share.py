"""Challenges beside the ladder's own matches (ladder/worker.py, the claim's order; ladder/scheduler.py ``fill_queue``).

An owner who asks again for a challenge whenever one is over (a script retrying at every 429) kept three sets
open all the time: on a ladder of two workers, 220 challenge matches were played in a minute and not one of the
ladder's own (145 the minute before). Challenges still go first, but not twice running while the ladder's own
matches wait, and they no longer fill the places of the scheduler's queue.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ladder.db import make_engine, migrate, sessions
from ladder.models import PENDING, Match, User
from ladder.scheduler import OPEN_CHALLENGES, challenge, fill_queue
from ladder.worker import claim, record_outcome
from tests.ladder.test_bookkeeping import add_bots, make, result  # noqa: F401  (the fixture)

GAME = "generals-war"


@pytest.fixture
def either(any_url: str) -> sessionmaker[Session]:
    """A ladder's database on SQLite, then on PostgreSQL: the claim's order is one SQL statement on each."""
    migrate(any_url)
    return sessions(make_engine(any_url))


def keep_challenging(db: Session, owner: int, seed: int) -> None:
    """The owner's open challenges topped up to the cap, as a script asking again at every refusal does."""
    while (db.scalar(select(func.count(func.distinct(Match.deal))).where(Match.challenger_id == owner, Match.status.in_(PENDING))) or 0) < OPEN_CHALLENGES:
        seed += 1
        challenge(db, owner, "bot0", "bot1", GAME, seed)


def test_an_owner_challenging_without_pause_gets_about_half_the_matches_not_all(make: sessionmaker[Session]) -> None:
    add_bots(make, [GAME], 3)
    rng = random.Random(3)
    kinds = []
    for turn in range(40):
        with make() as db:
            owner = db.scalars(select(User.id)).one()
            keep_challenging(db, owner, 1000 * turn)
            fill_queue(db, rng, target=8, games=[GAME])
        match_id = claim(make, "w", 60)
        assert match_id is not None
        assert record_outcome(make, match_id, "w", result([1, 2]))
        with make() as db:
            kinds.append(db.get_one(Match, match_id).kind)
    challenges = kinds.count("challenge")
    assert 16 <= challenges <= 24, kinds  # every other match, while the ladder's own wait
    assert kinds[0] == "challenge", "a challenge still goes ahead of the queue"


def test_a_challenge_goes_first_unless_the_match_that_finished_last_was_one(either: sessionmaker[Session]) -> None:
    make = either
    add_bots(make, [GAME], 3)
    with make() as db:
        owner = db.scalars(select(User.id)).one()
        fill_queue(db, random.Random(1), target=2, games=[GAME])
        first, second = (m.id for m in challenge(db, owner, "bot0", "bot1", GAME, 5))
        own = db.scalars(select(Match.id).where(Match.kind != "challenge").order_by(Match.id)).all()
    assert claim(make, "w", 60) == first
    assert record_outcome(make, first, "w", result([1, 2]))
    assert claim(make, "w", 60) == own[0], "after a challenge, the ladder's own match waiting"
    assert record_outcome(make, own[0], "w", result([1, 2]))
    assert claim(make, "w", 60) == second, "after the ladder's own, the challenge again"
    assert record_outcome(make, second, "w", result([2, 1]))
    assert claim(make, "w", 60) == own[1]


def test_challenges_waiting_do_not_fill_the_schedulers_queue(make: sessionmaker[Session]) -> None:
    add_bots(make, [GAME], 3)
    with make() as db:
        owner = db.scalars(select(User.id)).one()
        keep_challenging(db, owner, 0)  # 3 sets: 6 matches waiting
        added = fill_queue(db, random.Random(2), target=6, games=[GAME])
    assert added >= 6, "the ladder's own matches keep their places beside the challenges"
