"""A match task cancelled before it ever ran (the ladder stopped at that moment) leaves nothing behind."""

from __future__ import annotations

import asyncio
import gc
import warnings
from typing import Any

import pytest

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
