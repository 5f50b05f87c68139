"""Match seeds too many to try (referee/server/seeds.py, migration 0012).

A seed deals every card, and the rules are public: drawn below 2**31, a bot could try every seed against its first
hand, or look it up in a table built once, and read every other hand of the deal.
"""

from __future__ import annotations

import random

from alembic import command
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.db import alembic_config, make_engine, migrate, sessions
from ladder.models import Match
from ladder.scheduler import fill_queue
from referee.server.seeds import SEED_BOUND, bot_seed, draw_seed
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)


def test_the_scheduler_and_a_challenge_draw_seeds_past_32_bits(make: sessionmaker[Session]) -> None:  # noqa: F811
    add_bots(make, ["generals-war"], 4)
    with make() as db:
        fill_queue(db, random.Random(1), target=40, games=["generals-war"])
        db.commit()
        seeds = set(db.scalars(select(Match.seed)))
    assert len(seeds) >= 5 and all(0 <= s < SEED_BOUND for s in seeds)
    assert sum(s >= 2**32 for s in seeds) >= len(seeds) - 1, sorted(seeds)  # 2**53 wide: all but one in a million past 32 bits
    drawn = {draw_seed() for _ in range(50)}
    assert len(drawn) == 50 and max(drawn) >= 2**32 and max(drawn) < SEED_BOUND


def test_migration_0012_makes_the_seed_column_hold_53_bits(any_url: str) -> None:
    """On PostgreSQL the column was a 32-bit integer: a seed past 2**31 - 1 was refused ("integer out of range")."""
    config = alembic_config(any_url)
    command.upgrade(config, "0011")
    engine = make_engine(any_url)
    insert = ("INSERT INTO matches (game, seed, num_players, options, kind, status, priority, deal, attempts, created_at, error)"
              " VALUES ('generals-war', :seed, 2, '{}', 'rated', 'queued', 0, 'd', 0, 1.0, '')")
    try:
        with engine.begin() as conn:
            conn.execute(text(insert), {"seed": 7})
        migrate(any_url)
        with sessions(engine)() as db:
            db.execute(update(Match).values(seed=SEED_BOUND - 1))
            db.commit()
            assert db.scalars(select(Match.seed)).all() == [SEED_BOUND - 1]
    finally:
        engine.dispose()


def test_a_bot_seed_is_exact_in_javascript_and_differs_by_seat_and_match() -> None:
    seeds = {bot_seed(s, seat) for s in (0, 1, SEED_BOUND - 1) for seat in range(4)}
    assert len(seeds) == 12 and all(0 <= int(s) < 2**48 for s in seeds)
