"""The machine's clock set forward while the ladder plays (ladder/service.py ``_clock_jumped``): on SQLite the
matches' leases are times of that clock, and every match in play looked lost."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

from ladder.models import Match
from tests.ladder.conftest import HeldExecutor
from tests.ladder.test_dispatch_stop import ladder_with
from tests.waiting import until


def test_a_clock_set_forward_does_not_take_back_the_matches_in_play(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Set an hour forward, the clock made the reaper take back the match being played, counting it an attempt (the
    third jump failed it) while its worker played on, to record nothing."""
    executor = HeldExecutor()  # plays its match until the test ends, the dispatcher renewing its lease every 20 s
    ladder = ladder_with(tmp_path, executor)

    def in_play() -> list[tuple[str, str | None, int]]:
        with ladder.make() as db:
            return [(m.status, m.lease_owner, m.attempts) for m in db.query(Match).where(Match.status != "queued")]

    async def go() -> None:
        running = asyncio.create_task(ladder.run(serve_http=False))
        try:
            await until("a match claimed", lambda: executor.jobs, timeout=60)
            claimed = in_play()
            assert claimed == [("running", executor.jobs[0].owner, 0)]
            real = time.time
            monkeypatch.setattr(time, "time", lambda: real() + 3600.0)
            jumped = "the machine's clock was set forward by 3600 s"
            await until("the reaper saw the jump", lambda: jumped in caplog.text, timeout=60)  # it looks every 5 s
            assert in_play() == claimed, "the match in play was taken back"
            assert not running.done()
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)

    with caplog.at_level(logging.WARNING, "arena.ladder"):
        asyncio.run(go())
