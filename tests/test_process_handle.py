"""Stopping a bot's process whose end comes as its grace runs out."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from referee.server.launchers import ProcessHandle, start_process
from tests.waiting import until


def test_a_bot_that_exits_as_its_grace_runs_out_is_stopped_without_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that took its whole grace to exit after its control pipe closed (a Node bot on a slow machine) ended
    between the grace's timeout and the terminate that follows: asyncio's terminate raised ProcessLookupError, and
    `arena tournament` failed with it. Here the timeout is made to fire just after the process has ended."""
    real_wait_for = asyncio.wait_for
    calls = 0
    handles: list[ProcessHandle] = []

    def let_go() -> bool:
        """Whether asyncio has let go of the process: a signal to it then raises ProcessLookupError (0 tests only)."""
        try:
            handles[0].proc.send_signal(0)
        except ProcessLookupError:
            return True
        return False

    async def late_wait_for(aw: Any, timeout: float | None) -> Any:
        nonlocal calls
        calls += 1
        if calls > 1:
            return await real_wait_for(aw, timeout)
        await aw  # the process ends (its pipes close and asyncio lets go of it) ...
        await until("asyncio to let go of the ended process", let_go, timeout=30, every=0.01)
        raise TimeoutError  # ... and only then does the grace's timeout fire

    async def scenario() -> int | None:
        handle = await start_process("sh", "-c", "read line; exit 3", log_path=tmp_path / "bot.log", control=True)
        handles.append(handle)
        monkeypatch.setattr(asyncio, "wait_for", late_wait_for)
        await handle.stop(grace=1.0)
        return handle.proc.returncode

    assert asyncio.run(scenario()) == 3
    assert calls >= 2  # the grace timed out and the stop went on to the terminate


def test_a_log_that_cannot_be_written_is_still_drained() -> None:
    """On a full disk (/dev/full here) writing a bot's log raised, which ended the task reading its output: the bot,
    its pipe then full, hung on its next print until its time ran out, and stopping it raised the error out of the
    match. Its output is now read to its end whatever becomes of the log."""
    from referee.server.launchers import pump_log

    async def scenario() -> bool:
        output = asyncio.StreamReader()
        output.feed_data(b"x" * 300_000)
        output.feed_eof()
        await pump_log(output, Path("/dev/full"))
        return output.at_eof()

    assert asyncio.run(scenario())
