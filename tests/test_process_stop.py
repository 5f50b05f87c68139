"""How the process runner stops a bot: each of its steps, where the others do not cover for it (launchers.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from referee.server import launchers
from referee.server.launchers import LaunchSpec, ProcessLauncher, kill_pipe_holders, pipe_holders
from referee.server.manifest import load_manifest
from tests.test_process_launcher import script_bot, stop_and_check_gone
from tests.test_referee_killed import STUBBORN_BOT

#: The bot and its child let go of the bot's output (the log's pipe): the stop's pipe sweep cannot find them.
LETS_GO_OF_ITS_OUTPUT = "null = os.open(os.devnull, os.O_WRONLY)\nos.dup2(null, 1)\nos.dup2(null, 2)\nwhile True:"


def test_the_stops_sigterm_has_the_reaper_kill_what_left_the_group_and_its_output(tmp_path: Path) -> None:
    """Only the reaper knows a child in a session of its own that let go of the bot's output: the stop's SIGTERM goes
    to it, and it is given the time to kill that child before the group is killed."""
    script = STUBBORN_BOT.replace("start_new_session=True)", "start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)")
    stop_and_check_gone(tmp_path, script.replace("while True:", LETS_GO_OF_ITS_OUTPUT))


def test_a_bot_that_killed_its_reaper_and_let_go_of_its_output_dies_with_its_group(tmp_path: Path) -> None:
    """With its reaper killed, the bot and a child still in its process group are killed with the group at the stop."""
    script = STUBBORN_BOT.replace("start_new_session=True)", "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)")
    stop_and_check_gone(tmp_path, script.replace("while True:", f"os.kill(os.getppid(), signal.SIGKILL)\n{LETS_GO_OF_ITS_OUTPUT}"), kills_its_reaper=True)


def test_pipe_holders_are_found_past_processes_and_files_that_cannot_be_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another user's process (its /proc/PID/fd unreadable), or a process or file gone mid-scan, came before the bot's
    processes: the scan must go on past them, not stop there."""
    read, write = os.pipe()
    holder = subprocess.Popen(["sleep", "600"], stdout=write, stdin=subprocess.DEVNULL)
    os.close(write)
    real_listdir, real_readlink = os.listdir, os.readlink

    def listdir(path: str) -> list[str]:
        if path == "/proc":
            return ["999999999", *real_listdir(path)]  # first, a process that cannot be read
        if path == f"/proc/{holder.pid}/fd":
            return ["999", *real_listdir(path)]  # first, a file that is gone
        if path == "/proc/999999999/fd":
            raise PermissionError(13, "Permission denied")
        return real_listdir(path)

    def readlink(path: str) -> str:
        if path == f"/proc/{holder.pid}/fd/999":
            raise FileNotFoundError(2, "No such file or directory")
        return real_readlink(path)

    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "readlink", readlink)
    try:
        assert holder.pid in pipe_holders(os.fstat(read).st_ino)
    finally:
        holder.kill()
        holder.wait()
        os.close(read)


def test_a_holder_gone_between_the_scan_and_the_kill_is_no_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process found holding the pipe may end, and be reaped, before it is killed: the stop goes on."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    scans = iter([[gone.pid], []])
    monkeypatch.setattr(launchers, "pipe_holders", lambda inode: next(scans))
    kill_pipe_holders(0)
    assert next(scans, None) is None  # scanned again after the kill


def test_a_bot_that_ends_when_its_control_pipe_closes_is_let_end(tmp_path: Path) -> None:
    """A pooled bot, stopped, sees its control pipe close and ends as it likes within its grace, not killed at once."""
    bot = script_bot(tmp_path, "import sys\nsys.stdin.read()\nprint('the control pipe closed', flush=True)\n")
    (tmp_path / "seat").mkdir()
    spec = LaunchSpec(0, load_manifest(bot), bot, tmp_path / "seat", tmp_path / "home", {}, tmp_path / "bot.log", control=True)

    async def run() -> int | None:
        handle = await ProcessLauncher().launch(spec)
        assert isinstance(handle, launchers.ProcessHandle)
        await asyncio.wait_for(handle.stop(grace=60), 120)  # a hang detector
        return handle.proc.returncode

    assert asyncio.run(run()) == 0
    assert (tmp_path / "bot.log").read_text() == "the control pipe closed\n"
