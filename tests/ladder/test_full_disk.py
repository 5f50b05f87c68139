"""The ladder's own disk full or read-only (ladder/grounds.py, Grounds.unwritable): the local pool plays nothing and
counts no attempt until a probe writes again; a remote worker's full disk costs its match an attempt, as before."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ladder.grounds import Grounds
from ladder.jobs import MatchJob, play_job
from ladder.service import Ladder, LadderConfig
from referee.server.runner import LocalMatch
from referee.server.session import TimeControl
from tests.ladder.conftest import enter, until
from tests.ladder.test_data_folder_gone import BOTS, claimed


class FullDisk:
    """The disk of ``root`` full while ``full`` is set: its replays cannot be written, nor any file made under it by
    ``os.open`` (the ladder's probe); the rest of the machine writes as ever."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path, errno_: int = errno.ENOSPC) -> None:
        self.root, self.errno, self.full, self.probes = root.absolute(), errno_, True, 0
        write_text, os_open = Path.write_text, os.open

        def refuse(path: Any) -> None:
            if self.full and Path(path).absolute().is_relative_to(self.root):
                raise OSError(self.errno, os.strerror(self.errno), str(path))

        def write(path: Path, data: str, *args: Any, **kwargs: Any) -> int:
            if path.parent.name == "replays":
                refuse(path)
            return write_text(path, data, *args, **kwargs)

        def opening(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
            if flags & os.O_CREAT and Path(path).absolute().is_relative_to(self.root):
                self.probes += 1
                refuse(path)
            return os_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(Path, "write_text", write)
        monkeypatch.setattr(os, "open", opening)


def attempts(db_file: Path, match_id: int) -> tuple[str, int]:
    with sqlite3.connect(db_file) as conn:
        return conn.execute("SELECT status, attempts FROM matches WHERE id = ?", (match_id,)).fetchone()


@pytest.mark.parametrize(
    "errno_,own_disk,status,counted",
    [(errno.ENOSPC, True, "disk_unwritable", 0), (errno.EROFS, True, "disk_unwritable", 0), (errno.ENOSPC, False, "unfit", 1)],
    ids=["local pool, disk full", "local pool, read-only", "remote worker, disk full"],
)
def test_a_match_the_ladders_own_full_disk_could_not_record_costs_no_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, errno_: int, own_disk: bool, status: str, counted: int
) -> None:
    """The local pool plays in the ladder's process: its full disk failed each match at its third try, one a minute,
    played and thrown away. The match goes back with no attempt counted. A remote worker's (own_disk off) still costs
    one, so that one bad machine of a cluster does not hold a match for ever."""
    ladder, job = claimed(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    FullDisk(monkeypatch, tmp_path / "data", errno_)
    outcome = asyncio.run(play_job(ladder.make, job, "here", just_claimed=True, own_disk=own_disk))
    assert outcome.status == status, outcome
    assert attempts(tmp_path / "data" / "ladder.db", job.match_id) == ("queued", counted)
    if own_disk:
        assert outcome.detail.startswith(f"{tmp_path / 'data' / 'replays'} cannot be written ("), outcome.detail


def test_a_local_match_refused_a_file_of_its_own_on_a_disk_that_writes_still_costs_an_attempt(tmp_path: Path) -> None:
    """Permission denied on a file of the match's own (the disk writes fine, as the probe finds): the match's trouble,
    not the ladder's, so its attempt is counted and the ladder does not stop."""
    ladder, job = claimed(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))

    async def refused(job: MatchJob, played: LocalMatch, worker: str) -> bool:
        raise PermissionError(errno.EACCES, "Permission denied", "some-file")

    outcome = asyncio.run(play_job(ladder.make, job, "here", just_claimed=True, recorder=refused, own_disk=True))
    assert outcome.status == "unfit" and attempts(tmp_path / "data" / "ladder.db", job.match_id) == ("queued", 1)


def test_the_grounds_probe_the_disk_no_more_than_every_few_seconds_until_it_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ladder.grounds

    (tmp_path / "replays").mkdir()
    grounds = Grounds(tmp_path, None)
    disk = FullDisk(monkeypatch, tmp_path)
    assert grounds.unwritable() is None and disk.probes == 0, "no probe before a match found the disk unwritable"
    grounds.cannot_write("the replays cannot be written")
    for _ in range(100):
        assert grounds.unwritable() == "the replays cannot be written"
    assert disk.probes == 0, "not probed again within PROBE_EVERY_S"
    monkeypatch.setattr(ladder.grounds, "PROBE_EVERY_S", 0.0)
    assert grounds.unwritable() == f"{tmp_path / 'replays'} cannot be written (No space left on device)" and disk.probes == 1
    disk.full = False
    assert grounds.unwritable() is None
    assert grounds.unwritable() is None and disk.probes == 3, "probed (replays/ and the data folder here) once more, then no more"
    assert sorted(p.name for p in tmp_path.rglob(".arena-probe*")) == [], "the probes' files are removed"


def test_a_serving_ladder_on_a_full_disk_plays_nothing_counts_no_attempt_and_goes_on_once_it_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """While its disk was full, the ladder handed out a match, saw it come back, slowed down, and failed each match at
    its third try, about one a minute. Now the matches in play go back with no attempt counted, nothing more is claimed
    or queued until a probe writes again, the log says so once, and play goes on by itself once the disk has room."""
    import ladder.grounds

    monkeypatch.setattr(ladder.grounds, "PROBE_EVERY_S", 0.5)
    config = LadderConfig(tmp_path / "data", workers=2, samples=False, games=["generals-war"], recorder=False, seed=3,
                          time_control=TimeControl(move_time_ms=2000))
    lad = Ladder(config)
    enter(lad, BOTS, validate=False)
    db_file = tmp_path / "data" / "ladder.db"
    caplog.set_level(logging.INFO, "arena.ladder")

    def count(where: str) -> int:
        with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as conn:
            return int(conn.execute(f"SELECT count(*) FROM matches WHERE {where}").fetchone()[0])

    def given_back() -> float:
        return lad.metrics.registry.get_sample_value("arena_match_outcomes_total", {"outcome": "disk_unwritable"}) or 0

    async def go() -> tuple[tuple[int, ...], tuple[int, ...]]:
        runner = asyncio.create_task(lad.run(serve_http=False))
        try:
            async with asyncio.timeout(400):  # past until's own deadlines, which say what was awaited
                while count("status = 'done'") < 2:
                    await asyncio.sleep(0.1)
                disk = FullDisk(monkeypatch, tmp_path / "data")
                while lad.grounds.unwritable() is None:  # a match in play came back
                    assert not runner.done()
                    await asyncio.sleep(0.1)
                claims, matches = lad._claims, count("1 = 1")
                while count("status = 'running'"):  # the others in play come back too
                    await asyncio.sleep(0.1)
                before = (claims, matches, count("status = 'done'"))
                probed = disk.probes
                await until("the ladder to probe its full disk three more times", lambda: disk.probes >= probed + 3)
                after = (lad._claims, count("1 = 1"), count("status = 'done'"), count("status = 'running'"))
                disk.full = False
                while count("status = 'done'") < before[2] + 2:
                    assert not runner.done()
                    await asyncio.sleep(0.1)
                return before, after
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    before, after = asyncio.run(go())
    assert after == (*before, 0), "nothing claimed, played or queued meanwhile"
    assert given_back() >= 1, "those in play when the disk filled were given back"
    assert count("status = 'failed' OR attempts > 0 OR error != ''") == 0
    said = [r.getMessage() for r in caplog.records if r.name == "arena.ladder" and "cannot be written" in r.getMessage()]
    assert len(said) == 1 and "this ladder claims and schedules no match until it can be written again" in said[0], said
    assert f"{tmp_path / 'data' / 'replays'} can be written again: matches are claimed and scheduled again" in caplog.text


def test_a_match_given_back_while_the_sqlite_file_on_the_full_disk_refuses_writes_is_queued_once_it_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database, an SQLite file on the full disk, refused the giving back too: the match stayed running until its
    lease ran out, and the reaper took it back at the cost of an attempt (seen on a ladder whose disk filled: three
    matches, each told "it goes back to the queue", came back a minute later with an attempt each). The dispatcher's
    settling now gives it back, tried again at each turn until the disk writes."""
    from sqlalchemy.exc import OperationalError

    import time

    import ladder.grounds
    import ladder.jobs
    import ladder.service
    import ladder.worker

    lad, job = claimed(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    disk = FullDisk(monkeypatch, tmp_path / "data")
    released = ladder.worker.release

    def refused(*args: Any, **kwargs: Any) -> None:
        if disk.full:
            raise OperationalError("UPDATE matches ...", {}, sqlite3.OperationalError("database or disk is full"))
        released(*args, **kwargs)

    monkeypatch.setattr(ladder.jobs, "release", refused)
    monkeypatch.setattr(ladder.service, "release", refused)
    db_file = tmp_path / "data" / "ladder.db"

    async def go() -> None:
        future = asyncio.ensure_future(play_job(lad.make, job, "here", just_claimed=True, own_disk=True))
        outcome = await future
        assert outcome.status == "disk_unwritable" and attempts(db_file, job.match_id) == ("running", 0)
        with pytest.raises(OperationalError):  # still full: the dispatcher keeps it, and tries again at its next turn
            lad._settle(future, job.match_id, job.owner)
        assert lad._gone() is not None, "nothing is claimed meanwhile"
        disk.full = False
        lad._settle(future, job.match_id, job.owner)
        assert attempts(db_file, job.match_id) == ("queued", 0)
        monkeypatch.setattr(ladder.grounds, "PROBE_EVERY_S", 0.0)
        assert lad._gone() is None
        # No lease was renewed meanwhile either: those of the matches in play are renewed before the reaper looks.
        assert lad._reap_after > time.monotonic() + lad.config.lease_seconds / 2

    asyncio.run(go())
