"""Workers that fail every job (no ARENA_DB_URL, no Docker image): the dispatcher slows down instead of failing the queue."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from pathlib import Path

from sqlalchemy import func, select

from ladder.jobs import JobOutcome, MatchJob
from ladder.models import Match
from ladder.service import Ladder, LadderConfig
from referee.server.session import TimeControl
from tests.ladder.conftest import enter
from tests.support import SAMPLE_BOTS


class FailingWorkers:
    """An executor whose workers give every job back at once with an error, as a misconfigured Dask worker does."""

    name = "failing"
    remote = False

    def __init__(self) -> None:
        self.submitted = 0

    async def start(self) -> None:
        pass

    async def capacity(self) -> int:
        return 4

    def room(self) -> None:
        return None

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        self.submitted += 1

        async def fail() -> JobOutcome:
            raise RuntimeError("this worker has no ARENA_DB_URL and the ladder sends no database URL")

        return asyncio.ensure_future(fail())

    async def close(self) -> None:
        pass

    def describe(self) -> str:
        return "workers that fail every job"


def test_workers_that_fail_every_job_do_not_fail_the_queue_by_the_hundred(tmp_path: Path) -> None:
    """A `dask worker` without ARENA_DB_URL under --no-db-url-in-jobs failed 415 matches (3 attempts each) in about ten
    seconds: the dispatcher handed the next match over the moment the last came back."""
    workers = FailingWorkers()
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], time_control=TimeControl(move_time_ms=500), seed=1)
    ladder = Ladder(config, executor=workers)
    enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)

    async def run_for(seconds: float) -> None:
        task = asyncio.create_task(ladder.run(serve_http=False))
        await asyncio.sleep(seconds)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run_for(4.0))
    with ladder.make() as db:
        failed = db.scalar(select(func.count()).select_from(Match).where(Match.status == "failed"))
    # In a row: 4 at once, then one at a time after 1, 2 s...; without the pause, hundreds in four seconds.
    assert workers.submitted <= 10 and (failed or 0) <= 3, (workers.submitted, failed)
