"""The data folder gone while the ladder serves (ladder/grounds.py): it plays nothing, fails nothing, and goes on once it is back."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from ladder.grounds import DatabaseReplaced
from ladder.jobs import FILES, JobSettings, MatchJob, build_job, play_job, record_played
from ladder.scheduler import add_duplicate_set
from ladder.service import Ladder, LadderConfig
from ladder.worker import claim
from referee.server.runner import LocalMatch
from referee.server.session import TimeControl
from tests.ladder.conftest import check_rated_once, enter, until
from tests.support import SAMPLE_BOTS

BOTS = [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"]


def statuses(db_file: Path) -> dict[str, int]:
    """The matches by status, read from the file itself (the ladder's connections may hold a file moved away)."""
    with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as conn:
        return dict(conn.execute("SELECT status, count(*) FROM matches GROUP BY status").fetchall())


def serving_ladder(tmp_path: Path) -> Ladder:
    config = LadderConfig(tmp_path / "data", workers=1, samples=False, games=["generals-war"], recorder=False, seed=3,
                          time_control=TimeControl(move_time_ms=2000))
    ladder = Ladder(config)
    enter(ladder, BOTS, validate=False)
    return ladder


def claimed(config: LadderConfig) -> tuple[Ladder, MatchJob]:
    """A ladder with a duplicate set queued and its first match claimed by "w", and that match's job (files kept)."""
    ladder = Ladder(config)
    versions = enter(ladder, BOTS, validate=False)
    with ladder.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")
        db.commit()
    match_id = claim(ladder.make, "w", 30)
    assert match_id is not None
    settings = JobSettings(ladder.store, TimeControl(), 30, keep=FILES, data_dir=config.data_dir.resolve())
    return ladder, build_job(ladder.make, match_id, "w", settings)


def test_a_data_folder_moved_away_stops_the_play_fails_no_match_and_the_ladder_goes_on_once_it_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Moved away mid-play, every match handed out failed at once (its bots' folders gone), some 150 a second, and the
    scheduler queued more; the ladder now claims and schedules nothing, says so, and plays again once it is back."""
    ladder = serving_ladder(tmp_path)
    data, away = tmp_path / "data", tmp_path / "away"
    caplog.set_level(logging.INFO, "arena.ladder")

    async def go() -> tuple[dict[str, int], dict[str, int]]:
        runner = asyncio.create_task(ladder.run(serve_http=False))
        try:
            async with asyncio.timeout(300):  # past until's own deadlines, which say what was awaited
                while statuses(data / "ladder.db").get("done", 0) < 2:
                    await asyncio.sleep(0.1)
                data.rename(away)
                await until("the ladder to see its data folder gone and the match in play to end",
                            lambda: ladder._away is not None and "running" not in statuses(away / "ladder.db"))
                while_away, claims = statuses(away / "ladder.db"), ladder._claims
                await asyncio.sleep(1)  # on purpose: a ladder that claimed on would claim, fail or queue matches meanwhile
                assert statuses(away / "ladder.db") == while_away, "nothing was played nor queued while it was away"
                assert ladder._claims == claims, "nothing was claimed while it was away (its job would give it back unplayed)"
                assert not data.exists(), ("the data folder was not made again", sorted(str(p) for p in data.rglob("*")))
                away.rename(data)
                while statuses(data / "ladder.db").get("done", 0) < while_away.get("done", 0) + 2:
                    assert not runner.done()
                    await asyncio.sleep(0.1)
                return while_away, statuses(data / "ladder.db")
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    while_away, after = asyncio.run(go())
    assert "failed" not in while_away and "failed" not in after, (while_away, after)
    said = caplog.text
    assert f"the data folder {data.absolute()} is gone: this ladder claims and schedules no match" in said, said
    assert f"the data folder {data.absolute()} is back" in said, said
    with ladder.make() as db:
        check_rated_once(db)


def test_a_database_file_replaced_under_the_ladder_stops_it(tmp_path: Path) -> None:
    """A backup restored over the database while the ladder served: its connections wrote on to the old file, every
    result lost. It stops, saying why, rather than serve two files at once."""
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    db_file = tmp_path / "data" / "ladder.db"

    async def go() -> None:
        runner = asyncio.create_task(ladder.run(serve_http=False))
        await until("the ladder to hold its database, serving it", lambda: ladder.hold.held or runner.done())
        shutil.copy(db_file, tmp_path / "copy.db")
        os.replace(tmp_path / "copy.db", db_file)
        await asyncio.wait_for(runner, 120)  # it looks every second; a busy machine may take far longer

    with pytest.raises(DatabaseReplaced, match="was replaced while the ladder served it"):
        asyncio.run(go())


def test_a_match_whose_data_folder_went_during_it_is_queued_again_not_failed(tmp_path: Path) -> None:
    """Played, then its replay could not be written (the data folder gone): it was failed, the played match thrown
    away for good, and writing the replay made the data folder again. Now it is queued again, no attempt counted."""
    config = LadderConfig(tmp_path / "data", url=f"sqlite:///{tmp_path / 'elsewhere.db'}", samples=False, games=["generals-war"])
    ladder, job = claimed(config)
    match_id = job.match_id

    async def gone_then_recorded(job: MatchJob, played: LocalMatch, worker: str) -> bool:
        shutil.rmtree(config.data_dir)
        return await asyncio.to_thread(record_played, ladder.make, job, played, worker)

    outcome = asyncio.run(play_job(ladder.make, job, "here", just_claimed=True, recorder=gone_then_recorded))
    assert outcome.status == "unfit" and "is gone" in outcome.detail, outcome
    assert statuses(tmp_path / "elsewhere.db") == {"queued": 2}
    with sqlite3.connect(tmp_path / "elsewhere.db") as conn:
        assert conn.execute("SELECT attempts, error FROM matches WHERE id = ?", (match_id,)).fetchone() == (0, "")
    assert not config.data_dir.exists(), "the data folder was not made again"


def test_a_data_folder_back_ends_the_slow_claiming_its_absence_caused(tmp_path: Path) -> None:
    """The matches given back while the folder was gone counted as a worker's trouble: once it was back, the dispatcher
    still claimed one match at a time, up to a minute apart, until one was recorded."""
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    (tmp_path / "data").rename(tmp_path / "away")
    assert ladder._gone() == f"the data folder {(tmp_path / 'data').absolute()}"
    for _ in range(5):
        ladder._worker_trouble()
    assert ladder._pause_until > 0
    (tmp_path / "away").rename(tmp_path / "data")
    assert ladder._gone() is None
    assert (ladder._failing, ladder._pause_until) == (0, 0.0)


def test_a_replay_the_full_disk_cut_short_is_not_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk full as the replay was written: the match went back to the queue, and an empty or half file was left
    in replays/ at each try, named by nothing and never removed."""
    import errno

    ladder, job = claimed(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    write_text = Path.write_text

    def full(self: Path, data: str, *args: object, **kwargs: object) -> int:
        if self.parent.name != "replays":
            return write_text(self, data, *args, **kwargs)  # type: ignore[arg-type]
        write_text(self, data[:10])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    assert asyncio.run(play_job(ladder.make, job, "here", just_claimed=True)).status == "unfit"
    assert list((tmp_path / "data" / "replays").iterdir()) == []


def test_a_match_whose_bots_folder_is_gone_from_the_store_goes_back_with_no_attempt_counted(tmp_path: Path) -> None:
    """One version's folder removed by hand: every match it was drawn for failed at once, some 150 a second with a
    traceback each (1,500 in ten seconds on a ladder of two bots); then each went back at the cost of an attempt and
    failed at its third, its opponent's with it. Now it goes back with none counted, as "bot_files_gone", on which the
    dispatcher holds that version's matches until the folder is back (tests/ladder/test_missing_versions.py)."""
    ladder, job = claimed(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    shutil.rmtree(ladder.store / "random")
    outcome = asyncio.run(play_job(ladder.make, job, "here", just_claimed=True))
    assert outcome.status == "bot_files_gone" and "gone from the bot store" in outcome.detail, outcome
    with sqlite3.connect(tmp_path / "data" / "ladder.db") as conn:
        status, attempts, error = conn.execute("SELECT status, attempts, error FROM matches WHERE id = ?", (job.match_id,)).fetchone()
    assert (status, attempts, error) == ("queued", 0, "")


def test_a_data_folder_moved_as_the_bots_start_is_not_made_again_and_costs_no_attempt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Moved between the job's look at it and its bots' start: each seat's start made its log folder with its parents,
    the data folder with them (the folder moved back then went inside that one), and the match, which no bot could
    play, went back at the cost of an attempt. Now no folder is made, and it goes back with none counted."""
    from referee.server.launchers import ProcessLauncher

    config = LadderConfig(tmp_path / "data", url=f"sqlite:///{tmp_path / 'elsewhere.db'}", samples=False, games=["generals-war"])
    ladder, job = claimed(config)
    launch = ProcessLauncher.launch

    async def moved_first(self: ProcessLauncher, spec: object) -> object:
        if config.data_dir.exists():
            config.data_dir.rename(tmp_path / "away")
        return await launch(self, spec)  # type: ignore[arg-type]

    monkeypatch.setattr(ProcessLauncher, "launch", moved_first)
    outcome = asyncio.run(play_job(ladder.make, job, "here", just_claimed=True))
    assert not config.data_dir.exists(), ("the data folder was made again", sorted(str(p) for p in config.data_dir.rglob("*")))
    assert outcome.status == "unfit" and "is gone" in outcome.detail, outcome
    with sqlite3.connect(tmp_path / "elsewhere.db") as conn:
        assert conn.execute("SELECT status, attempts FROM matches WHERE id = ?", (job.match_id,)).fetchone() == ("queued", 0)
