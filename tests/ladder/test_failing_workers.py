"""Workers that fail every job (no ARENA_DB_URL, no Docker image): the dispatcher slows down instead of failing the queue."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path

import pytest
from sqlalchemy import func, select

from ladder.jobs import JobOutcome, MatchJob
from ladder.models import Match
from ladder.service import FAILING_RUN, Ladder, LadderConfig
from ladder.worker import WorkerUnfit
from referee.server.session import TimeControl
from tests.ladder.conftest import enter
from tests.support import SAMPLE_BOTS


class FailingWorkers:
    """An executor whose workers give every job back at once with an error, as a misconfigured Dask worker does."""

    name = "failing"
    remote = False

    def __init__(self) -> None:
        self.submitted = 0
        self.handing_out = asyncio.Event()  # the first job is submitted

    async def start(self) -> None:
        pass

    async def capacity(self) -> int:
        return 4

    def room(self) -> None:
        return None

    def trouble(self) -> None:
        return None

    def handed(self) -> None:
        self.submitted += 1
        self.handing_out.set()

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        self.handed()

        async def fail() -> JobOutcome:
            raise WorkerUnfit("this worker has no ARENA_DB_URL and the ladder sends no database URL")

        return asyncio.ensure_future(fail())

    async def close(self) -> None:
        pass

    def describe(self) -> str:
        return "workers that fail every job"


def run_ladder(tmp_path: Path, workers: FailingWorkers, seconds: float) -> Ladder:
    """A ladder of two sample bots on ``workers`` for ``seconds`` from the moment it hands out matches, then stopped."""
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], time_control=TimeControl(move_time_ms=500), seed=1)
    ladder = Ladder(config, executor=workers)
    enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)

    async def run_for() -> None:
        workers.handing_out = asyncio.Event()  # of this run's loop
        task = asyncio.create_task(ladder.run(serve_http=False))
        async with asyncio.timeout(60):  # its start and first queue took over two seconds on a busy machine
            await workers.handing_out.wait()
        await asyncio.sleep(seconds)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run_for())
    return ladder


def test_workers_that_fail_every_job_do_not_fail_the_queue_by_the_hundred(tmp_path: Path) -> None:
    """A `dask worker` without ARENA_DB_URL under --no-db-url-in-jobs failed 415 matches (3 attempts each) in about ten
    seconds: the dispatcher handed the next match over the moment the last came back."""
    workers = FailingWorkers()
    ladder = run_ladder(tmp_path, workers, 4.0)
    with ladder.make() as db:
        failed = db.scalar(select(func.count()).select_from(Match).where(Match.status == "failed"))
        attempts = db.scalar(select(func.sum(Match.attempts)))
    # In a row: 4 at once, then one at a time after 1, 2 s...; without the pause, hundreds in four seconds.
    assert workers.submitted <= 10, workers.submitted
    # Nor is one failed, nor an attempt counted: the worker's own want (no database URL, another Arena than the
    # ladder's, one an upgrade left behind) failed the first matches it was given, three tries each, within seconds.
    assert failed == 0 and not attempts, (failed, attempts)
    # The stored error is the worker's own: "the ladder could not play or record this match" sent operators to the ladder.
    with ladder.make() as db:
        errors = set(db.scalars(select(Match.error).where(Match.error != "")).all())
    assert errors == {"a worker could not play this match: this worker has no ARENA_DB_URL and the ladder sends no database URL"}
    # /metrics says so too: a worker that cannot play was counted with the tasks Dask lost (`no_result`).
    counted = {o: ladder.metrics.registry.get_sample_value("arena_match_outcomes_total", {"outcome": o}) for o in ("unfit", "no_result")}
    assert counted["no_result"] == 0 and (counted["unfit"] or 0) >= FAILING_RUN, counted


class LostScheduler(FailingWorkers):
    """An executor whose tasks come back cancelled, as Dask's client cancels every task in flight when it loses its scheduler."""

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        from distributed.client import FutureCancelledError

        self.handed()

        async def cancelled() -> JobOutcome:
            raise FutureCancelledError(f"arena-match-{job.match_id}", "scheduler-connection-lost", "Client lost the connection to the scheduler.")

        return asyncio.ensure_future(cancelled())


def test_matches_cancelled_by_a_lost_scheduler_are_queued_again_without_an_attempt(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A Dask scheduler restarted under the ladder cost each match in flight an attempt (three restarts failed it), set
    its error to 'the ladder could not play or record this match', slowed the dispatcher as if a worker were broken,
    and logged a two-line warning per match rather than the loss once (docs/deploy.md)."""
    workers = LostScheduler()
    with caplog.at_level(logging.INFO, "arena.ladder"):
        ladder = run_ladder(tmp_path, workers, 2.0)
    with ladder.make() as db:
        counted = db.scalars(select(Match.id).where((Match.attempts > 0) | (Match.status == "failed") | (Match.error != ""))).all()
    assert workers.submitted > FAILING_RUN, "the dispatcher went on handing matches out"
    assert counted == [], "no attempt counted, no error written"
    said = [r.getMessage() for r in caplog.records if r.name == "arena.ladder" and r.levelno >= logging.WARNING]
    assert len(said) == 1 and "scheduler-connection-lost" in said[0] and "\n" not in said[0], said


def settle(ladder: Ladder, status: str) -> None:
    """The dispatcher settles a job that came back with ``status`` (its match 1, under lease ladder-1)."""

    async def go() -> None:
        future: asyncio.Future[JobOutcome] = asyncio.get_running_loop().create_future()
        future.set_result(JobOutcome(1, "ladder-1", status, "w", 0.5))
        ladder._settle(future, 1, "ladder-1")

    asyncio.run(go())


@pytest.mark.parametrize("status", ["unfit", "database_unreachable"])
def test_matches_a_worker_gave_back_itself_slow_the_dispatcher_after_a_run_of_them(tmp_path: Path, status: str) -> None:
    """A worker without Docker (unfit) or that cannot reach the database reports the match handed back rather than
    raising; those count as the worker's trouble too, or each cost its match an attempt at full speed. The pause
    starts at the FAILING_RUN-th in a row."""
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], seed=1)
    ladder = Ladder(config, executor=FailingWorkers())
    for _ in range(FAILING_RUN - 1):
        settle(ladder, status)
    assert (ladder._failing, ladder._pause_until) == (FAILING_RUN - 1, 0.0)
    settle(ladder, status)
    assert ladder._failing == FAILING_RUN and ladder._pause_until > 0


def test_a_match_recorded_ends_the_slow_pace_of_a_run_of_failures(tmp_path: Path) -> None:
    """After a run of matches given back unplayed the dispatcher claims one at a time, after a pause, until one is
    recorded; without the reset a ladder whose workers recovered went on one match at a time for good."""
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], seed=1)
    ladder = Ladder(config, executor=FailingWorkers())
    for _ in range(FAILING_RUN + 1):
        ladder._worker_trouble()
    assert ladder._failing > FAILING_RUN and ladder._pause_until > 0, "slowed down"

    settle(ladder, "lost")  # someone else's lease: says nothing of the workers
    assert ladder._failing > FAILING_RUN
    settle(ladder, "recorded")
    assert (ladder._failing, ladder._pause_until, ladder.matches_played) == (0, 0.0, 1)


class WorkersOnAnotherDatabase(FailingWorkers):
    """An executor whose workers find no lease of any job: Dask workers whose ARENA_DB_URL names another database."""

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        self.handed()

        async def lost() -> JobOutcome:
            return JobOutcome(job.match_id, job.owner, "lost", "vm/w4", 0.0, "not started: the match had been handed back")

        return asyncio.ensure_future(lost())


def test_a_worker_on_another_database_gives_the_matches_back_and_slows_the_dispatcher(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A `dask worker` whose ARENA_DB_URL named another database (the deploy audit's, a restored copy) found each lease
    gone: the ladder, whose database held it still, left the match running until its lease ran out (then an attempt),
    and claimed the next at once: 3,775 matches running after 90 s, and the first failed after three reaps."""
    workers = WorkersOnAnotherDatabase()
    with caplog.at_level(logging.INFO, "arena.ladder"):
        ladder = run_ladder(tmp_path, workers, 4.0)
    with ladder.make() as db:
        running = db.scalar(select(func.count()).select_from(Match).where(Match.status == "running"))
        attempts = db.scalar(select(func.sum(Match.attempts)))
        errors = set(db.scalars(select(Match.error).where(Match.error != "")).all())
    assert workers.submitted <= 10, workers.submitted
    assert running == 0 and not attempts, (running, attempts)
    assert errors == {"a worker could not play this match: worker vm/w4: its database is not the ladder's (ARENA_DB_URL in its environment names another)"}
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len([m for m in said if "found no lease of it, which the ladder's database holds" in m]) == 1, said  # once a worker
