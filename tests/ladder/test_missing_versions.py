"""A bot version's folder removed from the store by hand (ladder/grounds.py, MissingVersions): drawn no more, its matches
held with no attempt counted (and counted as no game coming for anyone), its rating left alone, and all of it played
again once the folder is back; held matches cancelled after --hold-missing-seconds, or at once for a version withdrawn."""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from arena.cli.ladder import serve
from ladder.grounds import HOLD_MISSING_S
from ladder.models import Bot, BotVersion, Match, MatchSeat, Rating
from ladder.scheduler import add_duplicate_set, challenge, entrants, fill_queue
from ladder.service import Ladder, LadderConfig
from ladder.submissions import withdraw
from ladder.worker import claim_next
from referee.server.session import TimeControl
from tests.ladder.conftest import enter, named_copy
from tests.support import SAMPLE_BOTS

BOTS = [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"]


def said(caplog: pytest.LogCaptureFixture, text: str) -> int:
    return sum(text in r.getMessage() for r in caplog.records if r.name == "arena.ladder")


def test_the_scheduler_draws_no_version_whose_folder_is_gone_and_its_queued_matches_wait(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The scheduler kept drawing it and the dispatcher claiming its matches, each failing at its third try. Now it is
    drawn for nothing, its queued matches are not claimed (nor do they fill the queue's places), and both come back
    once its folder is."""
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], seed=1))
    greedy, rand, third = enter(ladder, [*BOTS, named_copy(tmp_path / "src", "third")], validate=False)
    with ladder.make() as db:
        waiting = [m.id for m in add_duplicate_set(db, "generals-war", [greedy, third], 5, "placement")]
        db.commit()
    folder, away = ladder.store / "third" / "1", tmp_path / "away"
    folder.rename(away)
    caplog.set_level(logging.INFO, "arena.ladder")

    held = ladder.missing.look(ladder.make)
    assert held == {third}
    assert claim_next(ladder.make, "w", 30, held) is None, "its matches are not claimed"
    with ladder.make() as db:
        added = fill_queue(db, random.Random(1), target=8, games=["generals-war"], held=held)
        seated = db.connection().exec_driver_sql(
            "SELECT DISTINCT bot_version_id FROM match_seats WHERE match_id NOT IN (%s)" % ",".join(map(str, waiting))
        ).scalars().all()
    assert added == 8, "the held matches filled no place of the queue"
    assert set(seated) == {greedy, rand}, "the version is drawn for nothing"
    claimed = claim_next(ladder.make, "w", 30, ladder.missing.look(ladder.make, now=True))
    assert claimed is not None and claimed.match_id not in waiting
    assert said(caplog, "bot version third #1") == 1, caplog.text
    assert f"its folder {folder}) is gone from the bot store" in caplog.text

    away.rename(folder)
    assert ladder.missing.look(ladder.make, now=True) == frozenset()
    assert said(caplog, "bot version third #1") == 2 and "is back in the bot store" in caplog.text, caplog.text
    claimed = claim_next(ladder.make, "w", 30, ladder.missing.held)
    assert claimed is not None and claimed.match_id == waiting[0], "its matches are played again, first in line"


def test_a_serving_ladder_whose_versions_folder_goes_fails_nothing_and_plays_it_again_once_it_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Removed by hand while the ladder played: each match the version was in went back at the cost of an attempt,
    and failed at its third, about one a minute, its opponents' with it. Now no match fails nor costs an attempt, the
    version's rating stays as it was, the log says so once, and it plays again once its folder is back."""
    config = LadderConfig(tmp_path / "data", workers=2, samples=False, games=["generals-war"], recorder=False, seed=3,
                          time_control=TimeControl(move_time_ms=2000))
    ladder = Ladder(config)
    third = enter(ladder, [*BOTS, named_copy(tmp_path / "src", "third")], validate=False)[2]
    db_file, folder, away = tmp_path / "data" / "ladder.db", ladder.store / "third" / "1", tmp_path / "away"
    caplog.set_level(logging.INFO, "arena.ladder")

    def read(query: str) -> int:
        with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as conn:
            return int(conn.execute(query, {"v": third}).fetchone()[0])

    done = "SELECT count(*) FROM matches WHERE status = 'done'"
    done_with_it = "SELECT count(*) FROM matches m JOIN match_seats s ON s.match_id = m.id WHERE m.status = 'done' AND s.bot_version_id = :v"
    rating = "SELECT games FROM ratings WHERE bot_version_id = :v"
    running_with_it = done_with_it.replace("'done'", "'running'")

    async def go() -> None:
        runner = asyncio.create_task(ladder.run(serve_http=False))
        try:
            async with asyncio.timeout(240):
                while read(done_with_it) < 2:
                    await asyncio.sleep(0.1)
                folder.rename(away)
                # Until the ladder has found it gone and the matches it was playing are over (their copies were made before
                # the folder went: recorded, rated in the same transaction; a claim after it comes back, not played).
                while third not in ladder.missing.held or read(running_with_it):
                    assert not runner.done()
                    await asyncio.sleep(0.1)
                played, games = read(done_with_it), read(rating)
                target = read(done) + 8
                while read(done) < target:
                    assert not runner.done()
                    await asyncio.sleep(0.1)
                assert (read(done_with_it), read(rating)) == (played, games), "not played, its rating left alone"
                away.rename(folder)
                while read(done_with_it) < played + 2:
                    assert not runner.done()
                    await asyncio.sleep(0.1)
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(go())
    assert read("SELECT count(*) FROM matches WHERE status = 'failed' OR attempts > 0 OR error != ''") == 0
    assert said(caplog, "bot version third #1") == 2, caplog.text  # gone, once; back, once


def held_ladder(tmp_path: Path, **settings: Any) -> tuple[Ladder, int, int, int, Path]:
    """A ladder of three versions, entered unvalidated: their ids, and the third's folder (for the test to move away)."""
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], seed=1, **settings))
    greedy, rand, third = enter(ladder, [*BOTS, named_copy(tmp_path / "src", "third")], validate=False)
    return ladder, greedy, rand, third, ladder.store / "third" / "1"


def queue(ladder: Ladder, *versions: int) -> list[int]:
    with ladder.make() as db:
        made = [m.id for m in add_duplicate_set(db, "generals-war", list(versions), 5, "placement")]
        db.commit()
    return made


def statuses(ladder: Ladder, ids: list[int]) -> list[tuple[str, str, int]]:
    with ladder.make() as db:
        return [(s, e, a) for s, e, a in db.execute(select(Match.status, Match.error, Match.attempts).where(Match.id.in_(ids)).order_by(Match.id))]


def cancelled_count(ladder: Ladder) -> float:
    return ladder.metrics.registry.get_sample_value("arena_match_outcomes_total", {"outcome": "bot_files_cancelled"}) or 0.0


def test_held_matches_of_a_version_withdrawn_are_cancelled_and_its_opponents_freed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Withdrawn, a version whose folder is gone will never be drawn again, and its held matches waited for ever, their
    opponents' placements counted as coming. Now they are cancelled (no attempt counted, saying why) at the next
    look, counted on /metrics and said once; a withdrawn version whose folder is there still plays its queued matches."""
    ladder, greedy, rand, third, folder = held_ladder(tmp_path)
    held_set, other_set = queue(ladder, greedy, third), queue(ladder, greedy, rand)
    folder.rename(tmp_path / "away")
    caplog.set_level(logging.INFO, "arena.ladder")
    assert ladder.missing.look(ladder.make) == {third}
    with ladder.make() as db:
        withdraw(db, None, "third")
        withdraw(db, None, "gw-greedy")  # its folder is there: its matches are played, as a withdrawn bot's are

    ladder.missing.look(ladder.make, now=True)
    ended = statuses(ladder, held_set)
    assert [(status, attempts) for status, _, attempts in ended] == [("cancelled", 0)] * 2, ended
    assert all(error.startswith("third #1 is off the ladder (withdrawn by the operator)") for _, error, _ in ended), ended
    assert all(str(folder) not in error for _, error, _ in ended), "a public error names no path of the ladder's machine"
    assert [status for status, _, _ in statuses(ladder, other_set)] == ["queued"] * 2
    assert cancelled_count(ladder) == 2
    ladder.missing.look(ladder.make, now=True)
    assert said(caplog, "bot version third #1") == 2, caplog.text  # gone, then its matches cancelled: once each
    assert f"bot version third #1 (its folder {folder}) is off the ladder (withdrawn by the operator) and gone from the bot store:" \
           " its 2 queued matches are cancelled" in caplog.text
    assert claim_next(ladder.make, "w", 30, ladder.missing.held) is not None, "the other set is played"


def test_a_suspended_versions_held_matches_wait_and_a_replaced_ones_are_cancelled(tmp_path: Path) -> None:
    """Suspended, a version may be reinstated: its held matches wait the hold time. Retired by a newer version (no reason
    recorded), it is off the ladder as a withdrawn one: they are cancelled at once."""
    ladder, greedy, _, third, folder = held_ladder(tmp_path)
    waiting = queue(ladder, greedy, third)
    folder.rename(tmp_path / "away")
    for status, reason in (("suspended", "suspended: forfeited its last 5 matches"), ("retired", "")):
        with ladder.make() as db:
            db.execute(update(BotVersion).where(BotVersion.id == third).values(status=status, reason=reason))
            db.commit()
        ladder.missing.look(ladder.make, now=True)
        if status == "suspended":
            assert [s for s, _, _ in statuses(ladder, waiting)] == ["queued"] * 2
    assert {error for _, error, _ in statuses(ladder, waiting)} == {
        "third #1 is off the ladder and its files are gone from the ladder's bot store"
    }

def test_held_matches_are_cancelled_once_they_waited_the_hold_time_and_the_version_stays_out_of_the_draw(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A version's folder that never came back held its matches for ever. Now a match is cancelled once it has waited
    --hold-missing-seconds for it (timed from when the ladder found the folder gone, or from its queueing if later),
    said once; the version stays out of the draw, its rating and status untouched, until its folder is back."""
    ladder, greedy, rand, third, folder = held_ladder(tmp_path, hold_missing_seconds=600)
    clock = [1000.0]
    ladder.missing.clock = lambda: clock[0]
    waiting = queue(ladder, greedy, third)
    folder.rename(tmp_path / "away")
    caplog.set_level(logging.INFO, "arena.ladder")
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id.in_(waiting)).values(created_at=500.0))
        db.commit()
        rating = db.execute(select(Rating.mu, Rating.sigma, Rating.games).where(Rating.bot_version_id == third)).one()
    assert ladder.missing.look(ladder.make) == {third}

    clock[0] = 1599.0
    ladder.missing.look(ladder.make, now=True)
    assert [status for status, _, _ in statuses(ladder, waiting)] == ["queued"] * 2, "not before the hold time"
    with ladder.make() as db:  # queued now: it waits its own hold time
        owner = db.scalars(select(Bot.owner_id).where(Bot.name == "gw-greedy")).one()
        late = [m.id for m in challenge(db, owner, "gw-greedy", "third", "generals-war", 9)]
        db.execute(update(Match).where(Match.id.in_(late)).values(created_at=1599.0))
        db.commit()

    clock[0] = 1600.0
    assert ladder.missing.look(ladder.make, now=True) == {third}, "still held: drawn for nothing"
    ended = statuses(ladder, waiting)
    assert [(status, attempts) for status, _, attempts in ended] == [("cancelled", 0)] * 2, ended
    assert all(error == "the files of third #1 were gone from the ladder's bot store for 10 min, the longest a match waits for"
               " them" for _, error, _ in ended), ended
    assert [status for status, _, _ in statuses(ladder, late)] == ["queued"] * 2
    assert cancelled_count(ladder) == 2
    ladder.missing.look(ladder.make, now=True)
    assert said(caplog, "bot version third #1") == 2, caplog.text  # gone, then its matches cancelled: once each
    assert f"its folder {folder}) has been gone from the bot store for 10 min: its 2 queued matches are cancelled" in caplog.text
    with ladder.make() as db:
        assert db.execute(select(Rating.mu, Rating.sigma, Rating.games).where(Rating.bot_version_id == third)).one() == rating
        assert db.scalar(select(BotVersion.status).where(BotVersion.id == third)) == "active"
        assert fill_queue(db, random.Random(1), target=8, games=["generals-war"], held=ladder.missing.held) == 8
        seated = set(db.scalars(select(MatchSeat.bot_version_id).join(Match).where(Match.status == "queued", Match.kind != "challenge")))
    assert seated == {greedy, rand}, "it is drawn for nothing"

    clock[0] = 2199.0
    ladder.missing.look(ladder.make, now=True)
    assert [status for status, _, _ in statuses(ladder, late)] == ["cancelled"] * 2, "the later challenge, once it waited as long"
    assert cancelled_count(ladder) == 4
    (tmp_path / "away").rename(folder)
    assert ladder.missing.look(ladder.make, now=True) == frozenset(), "back: drawn again"


def test_a_hold_time_of_zero_holds_matches_for_ever(tmp_path: Path) -> None:
    ladder, greedy, _, third, folder = held_ladder(tmp_path, hold_missing_seconds=0)
    ladder.missing.clock = lambda: 1e12
    waiting = queue(ladder, greedy, third)
    folder.rename(tmp_path / "away")
    assert ladder.missing.look(ladder.make) == {third}
    assert [status for status, _, _ in statuses(ladder, waiting)] == ["queued"] * 2


def test_the_serve_commands_hold_default_is_the_ladders() -> None:
    assert inspect.signature(serve).parameters["hold_missing_seconds"].default == HOLD_MISSING_S == 3600
    assert LadderConfig(Path(".")).hold_missing_seconds == HOLD_MISSING_S


def test_held_matches_are_no_coming_games_for_anyone(tmp_path: Path) -> None:
    """The scheduler counted a held match as a game coming for its opponents (_ENTERED): they looked as if they had
    played more than they had, so that their placement was passed over and others were drawn in their place."""
    ladder, greedy, rand, third, folder = held_ladder(tmp_path)
    queue(ladder, greedy, third)
    queue(ladder, greedy, rand)
    folder.rename(tmp_path / "away")
    held = ladder.missing.look(ladder.make)
    with ladder.make() as db:
        assert {e.version_id: e.games for e in entrants(db, "generals-war")} == {greedy: 4, rand: 2, third: 2}
        assert {e.version_id: e.games for e in entrants(db, "generals-war", held)} == {greedy: 2, rand: 2}


def gone_at(ladder: Ladder, version: int) -> float | None:
    with ladder.make() as db:
        return db.scalar(select(BotVersion.files_gone_at).where(BotVersion.id == version))


def restarted(ladder: Ladder, at: float) -> Ladder:
    """Another ladder on the same data folder and settings, its clock at ``at``: the one before it stopped."""
    again = Ladder(ladder.config)
    again.missing.clock = lambda: at
    return again


def test_a_ladder_restarted_part_way_through_the_hold_cancels_at_the_original_deadline(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """When a version's files went was kept in the ladder's memory: each start timed the hold again from its first look,
    and a ladder restarted more often than --hold-missing-seconds (every half hour, an hour's hold) cancelled nothing. Now
    the moment the ladder first found them gone is kept with the version, and a restarted ladder holds to it."""
    ladder, greedy, _, third, folder = held_ladder(tmp_path, hold_missing_seconds=600)
    waiting = queue(ladder, greedy, third)
    with ladder.make() as db:
        db.execute(update(Match).where(Match.id.in_(waiting)).values(created_at=500.0))
        db.commit()
    folder.rename(tmp_path / "away")
    ladder.missing.clock = lambda: 1000.0
    assert ladder.missing.look(ladder.make) == {third}
    assert gone_at(ladder, third) == 1000.0

    caplog.set_level(logging.INFO, "arena.ladder")
    again = restarted(ladder, 1300.0)
    assert again.missing.look(again.make) == {third}
    assert [s for s, _, _ in statuses(again, waiting)] == ["queued"] * 2, "not before the hold time"
    assert gone_at(again, third) == 1000.0, "the first look's moment is kept"
    assert "10 min at most from when it was found gone (5 min ago), then cancelled" in caplog.text, caplog.text
    last = restarted(again, 1600.0)
    last.missing.look(last.make)
    assert [(s, a) for s, _, a in statuses(last, waiting)] == [("cancelled", 0)] * 2, "at the first ladder's deadline, 1600"
    assert cancelled_count(last) == 2


def test_the_moment_a_versions_files_went_is_forgotten_once_they_are_back(tmp_path: Path) -> None:
    """Back, whether the ladder saw it or was stopped meanwhile: gone again later, the hold starts again from then."""
    ladder, greedy, _, third, folder = held_ladder(tmp_path, hold_missing_seconds=600)
    away = tmp_path / "away"
    folder.rename(away)
    ladder.missing.clock = lambda: 1000.0
    ladder.missing.look(ladder.make)
    away.rename(folder)
    assert ladder.missing.look(ladder.make, now=True) == frozenset() and gone_at(ladder, third) is None

    folder.rename(away)
    ladder.missing.clock = lambda: 2000.0
    ladder.missing.look(ladder.make, now=True)
    assert gone_at(ladder, third) == 2000.0
    away.rename(folder)  # put back while no ladder serves
    again = restarted(ladder, 3000.0)
    assert again.missing.look(again.make) == frozenset() and gone_at(again, third) is None
    folder.rename(away)
    waiting = queue(again, greedy, third)
    with again.make() as db:
        db.execute(update(Match).where(Match.id.in_(waiting)).values(created_at=500.0))
        db.commit()
    again.missing.clock = lambda: 3599.0
    again.missing.look(again.make, now=True)
    assert [s for s, _, _ in statuses(again, waiting)] == ["queued"] * 2, "timed from 3599, not from 2000"
    assert gone_at(again, third) == 3599.0
