"""A replay is in the ladder's folder whole or not at all: the process that records it (the books process, a Dask
worker) may die mid-write (SIGKILL, the OOM killer), where its clean-up never runs. It left an empty replay file, found
when the books process was killed with the next record already sent to it (tests/ladder/test_books.py)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

from ladder.jobs import play_job
from ladder.service import LadderConfig
from tests.ladder.test_data_folder_gone import claimed


def test_a_recorder_killed_mid_write_leaves_no_replay_file(tmp_path: Path) -> None:
    ladder, job = claimed(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    replays = tmp_path / "data" / "replays"

    def record_and_die_writing() -> None:
        """Plays the match, and is killed once half of its replay is on the disk."""
        write_text = Path.write_text

        def half_then_killed(path: Path, data: str, *args: Any, **kwargs: Any) -> int:
            if path.parent.name == "replays":
                write_text(path, data[: len(data) // 2], *args, **kwargs)
                os.kill(os.getpid(), signal.SIGKILL)
            return write_text(path, data, *args, **kwargs)

        Path.write_text = half_then_killed  # type: ignore[method-assign, assignment]  # in the child process only
        asyncio.run(play_job(ladder.make, job, "here", just_claimed=True, own_disk=True))

    child = multiprocessing.get_context("fork").Process(target=record_and_die_writing)
    child.start()
    child.join(120)
    assert child.exitcode == -signal.SIGKILL, f"the recorder was not killed writing (exit {child.exitcode})"
    written = sorted(p.name for p in replays.iterdir())
    assert written and not [name for name in written if name.endswith(".json")], written
