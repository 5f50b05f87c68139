"""The database out of reach for a while (PostgreSQL restarted): the ladder's loops go on, and no match pays for it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

import ladder.service
from arena.cli.main import app
from ladder.hold import Hold, HoldLost
from ladder.jobs import JobOutcome, MatchJob
from ladder.models import BotVersion, Match
from ladder.scheduler import add_duplicate_set
from ladder.service import FAILING_RUN, Ladder, LadderConfig
from ladder.worker import claim, reap, release, renew
from referee.server.session import TimeControl
from tests.ladder.conftest import enter
from tests.ladder.test_failing_workers import FailingWorkers, run_ladder
from tests.support import SAMPLE_BOTS


def gone() -> OperationalError:
    """What psycopg's driver raises through SQLAlchemy while the server restarts."""
    return OperationalError("UPDATE matches SET ...", {}, Exception("server closed the connection unexpectedly"))


def failing_first(real: Callable[..., Any], times: int, calls: list[float]) -> Callable[..., Any]:
    """``real``, raising the database's error on its first ``times`` calls; each call's time goes to ``calls``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        calls.append(time.monotonic())
        if len(calls) <= times:
            raise gone()
        return real(*args, **kwargs)

    return call


class NoRoom(FailingWorkers):
    """An executor that plays nothing: the queue is the scheduler's alone to fill."""

    async def capacity(self) -> int:
        return 0


def ladder_of_two(tmp_path: Path, executor: Any, lease_seconds: float = 60.0) -> Ladder:
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], time_control=TimeControl(move_time_ms=500),
                          seed=1, lease_seconds=lease_seconds)
    lad = Ladder(config, executor=executor)
    enter(lad, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    return lad


def run_until(lad: Ladder, done: Callable[[], bool], timeout: float = 20.0) -> None:
    async def go() -> None:
        runner = asyncio.create_task(lad.run(serve_http=False))
        try:
            async with asyncio.timeout(timeout):
                while not done():
                    assert not runner.done(), f"the ladder stopped: {runner.exception()!r}"
                    await asyncio.sleep(0.1)
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(go())


def versions_of(lad: Ladder) -> list[int]:
    with lad.make() as db:
        return list(db.scalars(select(BotVersion.id).where(BotVersion.status == "active").order_by(BotVersion.id)))


def count(make: sessionmaker[Session], *where: Any) -> int:
    with make() as db:
        return int(db.scalar(select(func.count()).select_from(Match).where(*where)) or 0)


def test_the_scheduler_goes_on_reaping_and_queueing_after_the_database_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One error of the database ended the scheduler's task for good: after a PostgreSQL restart the ladder went on
    serving its pages while it queued no match and reaped no lost lease, and said nothing."""
    lad = ladder_of_two(tmp_path, NoRoom(), lease_seconds=1.0)  # a sweep for lost leases every quarter of a second
    versions = versions_of(lad)
    with lad.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")  # one match taken by a worker that is gone
        db.commit()
        lost = db.scalars(select(Match.id)).first()
    assert lost is not None and claim(lad.make, "a worker now gone", 60.0) == lost
    with lad.make() as db:
        db.execute(update(Match).where(Match.id == lost).values(lease_expires=time.time() - 1))
        db.commit()
    reaps: list[float] = []
    monkeypatch.setattr(ladder.service, "reap", failing_first(reap, 3, reaps))
    with caplog.at_level(logging.INFO, "arena.ladder"):
        run_until(lad, lambda: len(reaps) > 3 and count(lad.make, Match.status == "queued") > 2)
    with lad.make() as db:
        again = db.get_one(Match, lost)
    assert (again.status, again.attempts) == ("queued", 1), "reaped once the database answered again"
    said = [r.getMessage() for r in caplog.records if r.name == "arena.ladder"]
    out = [s for s in said if "out of reach" in s]
    assert out == [out[0]] and out[0].startswith("the scheduler: the database is out of reach (OperationalError"), said
    assert "\n" not in out[0] and any(s.startswith("the scheduler: going again, after 3 failed tries") for s in said), said
    assert not any(r.exc_info for r in caplog.records if r.name == "arena.ladder"), "no traceback for the database restarting"


class DatabaseGone(FailingWorkers):
    """Workers whose jobs cannot reach the database (to renew or record): they give every match back with its error."""

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        self.handed()

        async def fail() -> JobOutcome:
            raise gone()

        return asyncio.ensure_future(fail())


def test_a_match_given_back_for_want_of_the_database_costs_no_attempt(tmp_path: Path) -> None:
    """Each match in flight during an outage lost an attempt: three short outages during one match failed it."""
    workers = DatabaseGone()
    lad = run_ladder(tmp_path, workers, 3.0)
    assert workers.submitted > FAILING_RUN, "the dispatcher went on"
    assert workers.submitted <= 10, "and slowed down, in case its workers never reach the database"
    assert count(lad.make, (Match.attempts > 0) | (Match.status == "failed") | (Match.error != "")) == 0


def test_a_settling_the_database_refused_is_done_at_the_next_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match whose giving back failed (the database down) was dropped from the matches in flight: only its lease,
    a minute later, and a live reaper could bring it back."""
    workers = DatabaseGone()
    releases: list[float] = []
    monkeypatch.setattr(ladder.service, "release", failing_first(release, 2, releases))
    lad = run_ladder(tmp_path, workers, 2.5)
    assert len(releases) > 2
    assert count(lad.make, Match.status == "running") == 0, "every match given back, none left to its lease"


def test_a_ladder_whose_scheduler_ends_stops_rather_than_serve_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(self: Ladder) -> None:
        raise RuntimeError("the scheduler's own bug")

    monkeypatch.setattr(Ladder, "scheduler", broken)
    lad = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], port=0), executor=NoRoom())

    async def go() -> None:
        async with asyncio.timeout(20):
            await lad.run(serve_http=True)

    with pytest.raises(RuntimeError, match="the scheduler's own bug"):
        asyncio.run(go())


def test_a_lost_hold_ends_the_command_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def taken(self: Ladder, serve_http: bool = True) -> None:
        raise HoldLost("this ladder's hold on its database was taken by the ladder on host h, pid 7")

    monkeypatch.setattr(Ladder, "run", taken)
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path / "d"), "--port", "0", "--no-samples"])
    assert result.exit_code == 1, result.output
    assert "error: the ladder stopped: this ladder's hold on its database was taken by the ladder on host h, pid 7" in result.output
    assert "Traceback" not in result.output


def test_a_second_ladder_from_another_folder_is_told_of_the_first(tmp_path: Path) -> None:
    """Started from another folder, it was told its bot store held none of the database's bots, not of the ladder
    that serves the database."""
    first = ladder_of_two(tmp_path / "first", NoRoom())
    Hold(first.make, "http://127.0.0.1:9999").take()
    url = f"sqlite:///{first.config.data_dir / 'ladder.db'}"
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path / "elsewhere"), "--db", url, "--port", "0", "--no-samples"])
    assert result.exit_code == 2, result.output
    assert "another ladder serves this database at http://127.0.0.1:9999" in result.output, result.output
    assert not (tmp_path / "elsewhere").exists(), "the folder it made is gone again"


def test_on_postgresql_leases_are_timed_by_the_servers_clock(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker whose clock ran behind the ladder's by more than a lease had its live matches reaped under it;
    a ladder whose clock ran ahead did the same."""
    lad = Ladder(LadderConfig(tmp_path / "data", url=pg_url, samples=False, games=["generals-war"]), executor=NoRoom())
    enter(lad, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    with lad.make() as db:
        add_duplicate_set(db, "generals-war", versions_of(lad), 5, "rated")
        db.commit()
    real = time.time
    monkeypatch.setattr("ladder.db.time.time", lambda: real() - 600)  # the worker's clock, ten minutes behind
    match = claim(lad.make, "worker", 60.0)
    assert match is not None and renew(lad.make, match, "worker", 60.0)
    monkeypatch.setattr("ladder.db.time.time", lambda: real() + 600)  # the ladder's, ten minutes ahead
    assert reap(lad.make) == 0, "a lease renewed a moment ago is live"
    assert count(lad.make, Match.status == "running") == 1
