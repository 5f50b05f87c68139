"""A match task cancelled before it ever ran (the ladder stopped at that moment) leaves nothing behind."""

from __future__ import annotations

import asyncio
import gc
import warnings
from types import SimpleNamespace
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from ladder import jobs
from ladder.jobs import MatchJob, play_job
from referee.server.session import TimeControl


def test_a_match_cancelled_before_its_first_step_leaves_no_coroutine_unawaited(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stopping the ladder printed "RuntimeWarning: coroutine 'run_local_match' was never awaited" now and then: the
    match's coroutine was made before its task, and a task cancelled before its first step never closed it."""
    started: list[str] = []

    async def run_local_match(*args: Any) -> Any:
        started.append("match")

    def keep_lease_as_the_ladder_stops(*args: Any) -> Any:
        current = asyncio.current_task()
        assert current is not None
        current.cancel()  # the stop arrives now: play_job's next await hands it on to the match's task, not yet run
        return asyncio.sleep(3600)

    monkeypatch.setattr(jobs, "run_local_match", run_local_match)
    monkeypatch.setattr(jobs, "_keep_lease", keep_lease_as_the_ladder_stops)
    monkeypatch.setattr(jobs, "release", lambda *args, **kwargs: True)  # the lease handed back: no database here
    job = MatchJob(1, "o", "generals-war", 1, {}, (), TimeControl(), 30)

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await asyncio.create_task(play_job(None, job, just_claimed=True))  # type: ignore[arg-type]

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(main())
        gc.collect()
    assert not [w for w in caught if "never awaited" in str(w.message) and "run_local_match" in str(w.message)], [str(w.message) for w in caught]
    assert started == []


def test_a_matchs_time_leaves_out_its_wait_for_a_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The local pool claims one match more than it plays at once, and that one waits a whole match for a seat: its
    time in /metrics (arena_match_duration_seconds, docs/deploy.md: from the worker's start to the result) counted
    the wait, about twice every match's real time with --workers 1."""
    clock = [1000.0]
    monkeypatch.setattr(jobs, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    async def run_local_match(*args: Any) -> Any:
        clock[0] += 2.0  # the match itself
        return SimpleNamespace(record=SimpleNamespace(result=pb.MatchResult()), engine_failures={})  # a result, of no seat

    async def recorded(*args: Any) -> bool:
        return True

    monkeypatch.setattr(jobs, "run_local_match", run_local_match)
    monkeypatch.setattr(jobs, "_keep_lease", lambda *args: asyncio.sleep(3600))
    job = MatchJob(1, "o", "generals-war", 1, {}, (), TimeControl(), 30)

    async def main() -> float:
        seats = asyncio.Semaphore(1)
        await seats.acquire()  # the match before it plays on
        playing = asyncio.create_task(play_job(None, job, "w", seats=seats, just_claimed=True, recorder=recorded))  # type: ignore[arg-type]
        for _ in range(20):
            await asyncio.sleep(0)
        clock[0] += 100.0  # the one before takes its time
        seats.release()
        outcome = await playing
        assert outcome.status == "recorded"
        return outcome.seconds

    assert asyncio.run(main()) == 2.0
