"""A match held for a bot version whose files are gone, then cancelled (ladder/grounds.py, MissingVersions), is
``cancelled``, not ``failed``: it was never played, and nothing failed. Finished all the same: its deal settles, what its
set played is rated as for a failure, and it is counted apart on /metrics; matches cancelled before the status existed
are given it by migration 0009."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from sqlalchemy import select, text, update

from ladder import queries
from ladder.db import alembic_config, make_engine, migrate
from ladder.models import Match, RatingChange
from ladder.rebuild import mismatches
from ladder.service import Ladder
from ladder.worker import record_outcome
from tests.ladder.test_bookkeeping import claim_all, result
from tests.ladder.test_missing_versions import held_ladder, queue, statuses


def matches_gauge(ladder: Ladder, status: str) -> float | None:
    return ladder.metrics.registry.get_sample_value("arena_matches", {"status": status})


def cancel_one_of_a_set(tmp_path: Path) -> tuple[Ladder, int, int]:
    """A duplicate set of two placements, the first played and recorded, the second held for its version's folder and
    cancelled after the hold: the ladder, the played match, the cancelled one."""
    ladder, greedy, _, third, folder = held_ladder(tmp_path, hold_missing_seconds=600)
    clock = [1000.0]
    ladder.missing.clock = lambda: clock[0]
    played, held = queue(ladder, greedy, third)
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id.in_([played, held])).values(created_at=500.0))
        db.commit()
    claim_all(ladder.make, [played])
    assert record_outcome(ladder.make, played, "w", result([1, 2]))
    ladder._sweep_failed_sets()  # nothing to rate yet: its twin is still to play
    folder.rename(tmp_path / "away")
    assert ladder.missing.look(ladder.make, now=True) == {third}
    clock[0] = 1600.0
    ladder.missing.look(ladder.make, now=True)
    return ladder, played, held


def test_a_cancelled_held_match_is_cancelled_not_failed_and_settles_its_deal(tmp_path: Path) -> None:
    """It was shown as failed, though never played: an operator or spectator read a failure where there was none."""
    ladder, played, held = cancel_one_of_a_set(tmp_path)
    [(status, error, attempts)] = statuses(ladder, [held])
    assert (status, attempts) == ("cancelled", 0) and error.startswith("the files of third #1"), (status, error)
    with ladder.make() as db:
        summary = queries.match_summary(db, db.get_one(Match, held))
        listed = {m["id"]: m for m in queries.recent_matches(db)}
    assert (summary["status"], summary["settled"]) == ("cancelled", True), "finished: its page and its twin's are shown"
    assert listed[held]["status"] == "cancelled" and listed[played]["settled"], listed


def test_the_set_of_a_cancelled_match_is_rated_from_what_was_played_at_the_next_sweep(tmp_path: Path) -> None:
    """As for a failed match: the played half counts, the cancelled one changes no rating, and the sweep runs at once
    (it waited for a new failure, else a minute)."""
    ladder, played, held = cancel_one_of_a_set(tmp_path)
    ladder._sweep_failed_sets()
    with ladder.make() as db:
        rated = {m: w for m, w in db.execute(select(Match.id, Match.rated_with).where(Match.id.in_([played, held])))}
        changes = set(db.scalars(select(RatingChange.match_id)))
        assert mismatches(db) == []
    assert rated == {played: played, held: None} and changes == {played}, (rated, changes)


def test_metrics_count_cancelled_matches_apart_from_the_start(tmp_path: Path) -> None:
    ladder, *_ = held_ladder(tmp_path)
    assert matches_gauge(ladder, "cancelled") == 0, "every status's series from the start, as the others'"
    ladder, _, _ = cancel_one_of_a_set(tmp_path / "cancelling")
    assert (matches_gauge(ladder, "cancelled"), matches_gauge(ladder, "failed")) == (1, 0)


OLD_CANCELLATIONS = [
    "cancelled, as third #1 is off the ladder (withdrawn by its owner) and its files are gone from the ladder's bot store",
    "cancelled, as the files of third #1 were gone from the ladder's bot store for 1 h, the longest a match waits for them",
]
FAILURES = ["the ladder could not play or record this match (OSError; the details are in its log)", "cancelled, as you asked"]


def test_migration_0009_gives_matches_cancelled_before_it_their_status_and_takes_it_back_down(any_url: str) -> None:
    """Cancelled before the status existed, a match was failed with the cancellation's error: converted, its error
    without "cancelled, as " (its status says so), so that the lists tell it apart; a failure whose error merely starts
    alike is left alone. Down again, an older ladder (which knows no "cancelled" and would never settle its deal) gets
    them back as it wrote them."""
    config = alembic_config(any_url)
    command.upgrade(config, "0008")
    engine = make_engine(any_url)
    row = ("INSERT INTO matches (game, seed, num_players, options, kind, status, priority, deal, attempts, created_at, finished_at, error)"
           " VALUES ('generals-war', 1, 2, '{}', 'placement', 'failed', 0, :deal, :attempts, 1.0, 2.0, :error)")
    read = text("SELECT status, error FROM matches ORDER BY id")
    try:
        with engine.begin() as conn:
            for i, error in enumerate(OLD_CANCELLATIONS + FAILURES):
                conn.execute(text(row), {"deal": f"d{i}", "attempts": i % 2, "error": error})
            before = [tuple(r) for r in conn.execute(read)]
        migrate(any_url)
        with engine.connect() as conn:
            assert [tuple(r) for r in conn.execute(read)] == [
                *(("cancelled", e.removeprefix("cancelled, as ")) for e in OLD_CANCELLATIONS), *(("failed", e) for e in FAILURES)
            ]
        command.downgrade(config, "0008")
        with engine.connect() as conn:
            assert [tuple(r) for r in conn.execute(read)] == before
    finally:
        engine.dispose()
