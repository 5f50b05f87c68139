"""`arena ladder check-ratings` (ladder/rebuild.py): the ratings rebuilt from the match log equal the stored ones
whatever order the sets were rated in and however their seats ranked, and a stored rating that differs is told."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from arena.cli.main import app
from ladder.models import Match, Rating
from ladder.rebuild import mismatches
from ladder.scheduler import queue_duplicate_set
from ladder.worker import record_outcome
from tests.ladder.test_bookkeeping import add_bots, claim_all, make, result  # noqa: F401  (the fixture)

GAME = "land-and-castle"


def queue(make: sessionmaker[Session], versions: list[int], seed: int) -> list[int]:
    with make() as db:
        ids = queue_duplicate_set(db.connection(), GAME, versions, seed, "rated")
        db.commit()
    claim_all(make, ids)
    return ids


def test_sets_rated_in_another_order_than_their_ids_rebuild_to_the_stored_ratings(make: sessionmaker[Session]) -> None:
    """The set queued first is played last: replayed by match id, its update came first and every rating differed."""
    a, b, c = add_bots(make, [GAME], 3)
    early, late = queue(make, [a, b], 1), queue(make, [a, c], 2)
    for match_id in late:
        assert record_outcome(make, match_id, "w", result([1, 2]))  # a wins from both seats
    for match_id in early:
        assert record_outcome(make, match_id, "w", result([2, 1]))  # the seat after a's wins, each deal
    with make() as db:
        assert [m.rated_with for m in db.scalars(select(Match).order_by(Match.id))] == [early[1], early[1], late[1], late[1]]
        assert mismatches(db) == []


def test_a_seat_without_a_rank_is_rebuilt_as_last_as_it_was_rated(make: sessionmaker[Session]) -> None:
    """The worker rates an unranked seat (0 in the result) last; rebuilt as first, the check reported a healthy ladder."""
    a, b = add_bots(make, [GAME], 2)
    first, second = queue(make, [a, b], 1)
    assert record_outcome(make, first, "w", result([0, 1]))
    assert record_outcome(make, second, "w", result([1, 0]))
    with make() as db:
        assert mismatches(db) == []


def test_a_stored_games_count_that_differs_is_told(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    for match_id in queue(make, [a, b], 1):
        assert record_outcome(make, match_id, "w", result([1, 2]))
    with make() as db:
        assert mismatches(db) == []
        db.execute(update(Rating).where(Rating.bot_version_id == a).values(games=Rating.games + 1))
        told = mismatches(db)
    assert len(told) == 1 and f"version {a} in {GAME}" in told[0] and "games=3," in told[0] and "games=2" in told[0], told


@pytest.mark.parametrize("column", ["mu", "sigma"])
def test_a_stored_skill_that_differs_is_told(make: sessionmaker[Session], column: str) -> None:
    """A rating's mean or its uncertainty off by a hundredth (a lost update, a hand edit) is a mismatch."""
    a, b = add_bots(make, [GAME], 2)
    for match_id in queue(make, [a, b], 1):
        assert record_outcome(make, match_id, "w", result([1, 2]))
    with make() as db:
        db.execute(update(Rating).where(Rating.bot_version_id == b).values({column: getattr(Rating, column) + 0.01}))
        told = mismatches(db)
    assert len(told) == 1 and f"version {b} in {GAME}" in told[0], told


def test_a_rating_that_moved_with_no_match_in_the_log_is_told(make: sessionmaker[Session]) -> None:
    """A version that never played keeps the initial rating: anything else has no match to account for it."""
    a, b, idle = add_bots(make, [GAME], 3)
    for match_id in queue(make, [a, b], 1):
        assert record_outcome(make, match_id, "w", result([1, 2]))
    with make() as db:
        db.execute(update(Rating).where(Rating.bot_version_id == idle).values(mu=Rating.mu + 1))
        told = mismatches(db)
    assert len(told) == 1 and f"version {idle} in {GAME}" in told[0] and "games=0" in told[0], told


def test_a_played_versions_rating_gone_from_the_database_is_told(make: sessionmaker[Session]) -> None:
    """The log rates a version whose stored rating is missing (it left the leaderboard): the check said all was well."""
    a, b = add_bots(make, [GAME], 2)
    for match_id in queue(make, [a, b], 1):
        assert record_outcome(make, match_id, "w", result([1, 2]))
    with make() as db:
        db.execute(delete(Rating).where(Rating.bot_version_id == a))
        told = mismatches(db)
    assert len(told) == 1 and f"version {a} in {GAME}: no stored rating" in told[0] and "games=2" in told[0], told


def test_the_command_prints_each_mismatch_and_exits_1(make: sessionmaker[Session], tmp_path: Path) -> None:
    """A script (cron, CI) running `arena ladder check-ratings` learns of a mismatch from its exit status."""
    a, b = add_bots(make, [GAME], 2)
    for match_id in queue(make, [a, b], 1):
        assert record_outcome(make, match_id, "w", result([1, 2]))
    with make() as db:
        db.execute(update(Rating).where(Rating.bot_version_id == b).values(games=Rating.games + 1))
        db.commit()
    done = CliRunner().invoke(app, ["ladder", "check-ratings", "--data", str(tmp_path)])
    assert done.exit_code == 1, done.output
    assert f"version {b} in {GAME}" in " ".join(done.output.split()) and "ratings match" not in done.output
