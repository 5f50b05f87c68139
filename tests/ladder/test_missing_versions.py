"""A bot version's folder removed from the store by hand (ladder/grounds.py, MissingVersions): drawn no more, its matches
held with no attempt counted, its rating left alone, and all of it played again once the folder is back."""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ladder.scheduler import add_duplicate_set, entrants, fill_queue
from ladder.service import Ladder, LadderConfig
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
