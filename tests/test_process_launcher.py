"""The process runner (referee/server/launchers.py, reaper.py): its limits, the environment a bot sees, and how a bot ends."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.server import launchers
from referee.server.launchers import REAPER, LaunchSpec, ProcessHandle, ProcessLauncher, process_alive, process_start, resolve_command, with_limits
from referee.server.manifest import load_manifest
from tests.support import ROOT
from tests.test_referee_killed import STUBBORN_BOT, all_gone, started_at, wait_until
from tests.waiting import until


def script_bot(tmp_path: Path, script: str) -> Path:
    """A bot folder whose command runs ``script`` with the referee's Python."""
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text(script)
    (bot / "bot.toml").write_text('name = "b"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "bot.py"]\n')
    return bot


def spec_for(tmp_path: Path, bot: Path) -> LaunchSpec:
    (tmp_path / "seat").mkdir()
    return LaunchSpec(0, load_manifest(bot), bot, tmp_path / "seat", tmp_path / "home", {"ARENA_MATCH_ID": "m1"}, tmp_path / "bot.log")


def run_to_end(tmp_path: Path, bot: Path) -> int:
    """Start the bot, wait for its end, and finish its log; its exit code."""

    async def run() -> int:
        handle = await ProcessLauncher().launch(spec_for(tmp_path, bot))
        code = await handle.wait()
        await handle.stop(0)
        return code

    return asyncio.run(run())


def test_a_process_bot_runs_under_its_limits() -> None:
    """docs/faults.md: no core files, 2 GiB of address space, 900 s of CPU."""
    out = subprocess.run(with_limits(["sh", "-c", "ulimit -c; ulimit -v; ulimit -t"]), capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", str(launchers.MEMORY_LIMIT_BYTES // 1024), str(launchers.CPU_LIMIT_SECONDS)]
    assert launchers.MEMORY_LIMIT_BYTES == 2 * 1024**3 and launchers.CPU_LIMIT_SECONDS == 900


def test_python_or_python3_in_a_command_is_the_referees_interpreter() -> None:
    """The referee's interpreter has the SDK installed; another python3 on the PATH may not."""
    assert resolve_command(("python3", "bot.py")) == [sys.executable, "bot.py"]
    assert resolve_command(("python", "-u", "bot.py")) == [sys.executable, "-u", "bot.py"]
    assert resolve_command(("./bot", "python")) == ["./bot", "python"]


def test_a_process_bot_sees_none_of_the_referees_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee's environment may hold secrets (a ladder's database password): a bot sees only what it needs."""
    monkeypatch.setenv("ARENA_TEST_SECRET", "do-not-leak")
    bot = script_bot(tmp_path, "import os\nfor k, v in sorted(os.environ.items()):\n    print(f'{k}={v}')\n")

    assert run_to_end(tmp_path, bot) == 0
    seen = dict(line.split("=", 1) for line in (tmp_path / "bot.log").read_text().splitlines())
    assert "ARENA_TEST_SECRET" not in seen and "do-not-leak" not in seen.values()
    assert seen["HOME"] == seen["TMPDIR"] == str(tmp_path / "home")
    assert seen["ARENA_ADDRESS"] == f"unix:{tmp_path / 'seat' / 'referee.sock'}" and seen["ARENA_MATCH_ID"] == "m1"


async def said_pids(log: Path) -> list[int]:
    """The bot's pid and its child's, once it has said them (its log is written on this event loop: no thread waits)."""
    for _ in range(600):
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        if len(found := [int(line.split()[-1]) for line in lines if line.startswith(("bot pid ", "escaped pid "))]) == 2:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"the bot never said its pids: {log.read_text(errors='replace') if log.exists() else 'no log'}")


def running(started: dict[int, int | None]) -> list[int]:
    return [pid for pid, start in started.items() if started_at(pid) == start]


def stop_and_check_gone(tmp_path: Path, script: str, kills_its_reaper: bool = False) -> int | None:
    """Start ``script``, which says its pid and its escaped child's (then, with ``kills_its_reaper``, kills its reaper,
    which the stop waits for), stop it, and check both are gone; how the bot's handle says it ended."""
    bot = script_bot(tmp_path, script)
    started: dict[int, int | None] = {}

    async def run() -> int | None:
        handle = await ProcessLauncher().launch(spec_for(tmp_path, bot))
        assert isinstance(handle, ProcessHandle)
        try:
            started.update({pid: started_at(pid) for pid in await said_pids(tmp_path / "bot.log")})
            if kills_its_reaper:
                await until("the bot to kill its reaper", lambda: started_at(handle.proc.pid) is None, every=0.02)
        finally:
            await asyncio.wait_for(handle.stop(grace=0.1), 60)  # a hang detector, not a measure
        return await asyncio.wait_for(handle.wait(), 10)

    try:
        ended = asyncio.run(run())
        assert None not in started.values(), f"the bot or its child was not running: {started}"
        assert wait_until(lambda: all_gone(started), 10), f"still running after the stop: {running(started)}"
        return ended
    finally:
        for pid in running(started):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def test_a_stopped_bot_that_ignores_sigterm_goes_with_what_left_its_group(tmp_path: Path) -> None:
    """The stop's SIGTERM goes to the reaper, which kills the bot and its child in a session of its own: killing
    the reaper or the process group instead would leave that child running."""
    stop_and_check_gone(tmp_path, STUBBORN_BOT)


def test_a_bot_that_killed_its_reaper_is_still_killed_at_the_stop(tmp_path: Path) -> None:
    """docs/faults.md: a bot can kill its reaper; the bot itself, still in the reaper's process group, dies at the stop."""
    script = STUBBORN_BOT.replace("while True:", "os.kill(os.getppid(), signal.SIGKILL)\nwhile True:").replace(
        'child = subprocess.Popen(["sleep", "600"], start_new_session=True)', 'child = subprocess.Popen(["sleep", "600"])'
    )
    stop_and_check_gone(tmp_path, script, kills_its_reaper=True)


def test_a_bot_killed_by_a_signal_is_reported_so(tmp_path: Path) -> None:
    """The reaper ends as the bot did: a bot killed by SIGSEGV reads as killed by SIGSEGV, not as an exit code."""
    bot = script_bot(tmp_path, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")

    assert run_to_end(tmp_path, bot) == -signal.SIGSEGV


def test_a_reaper_whose_referee_is_already_gone_starts_nothing(tmp_path: Path) -> None:
    """The referee died while its reaper started: no one would stop the bot, so it is never started."""
    gone = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True).stdout)
    marker = tmp_path / "started"
    reaper = subprocess.run([sys.executable, "-I", "-S", str(REAPER), f"--parent={gone}", "touch", str(marker)], timeout=60)
    assert reaper.returncode == -signal.SIGTERM
    assert not marker.exists()


def test_a_process_start_time_stays_while_it_runs_and_tells_later_processes_apart() -> None:
    """The sweep of orphaned containers keeps a referee's containers while its pid names a process of the same start
    time: a value that changed as the referee ran (its memory, its CPU time) would have its live bots removed."""
    grow = "import sys; sys.stdin.readline(); big = bytearray(200 * 1024 * 1024); print('grown', flush=True); sys.stdin.readline()"
    child = subprocess.Popen([sys.executable, "-c", grow], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    try:
        mine, before = process_start(os.getpid()), process_start(child.pid)
        child.stdin.write("grow\n")
        child.stdin.flush()
        assert child.stdout.readline() == "grown\n"  # its memory and CPU time have changed meanwhile
        assert mine and before and process_start(child.pid) == before
        assert int(before) >= int(mine)  # started after this process
    finally:
        child.kill()
        child.wait()
    assert process_start(child.pid) is None


def test_a_process_of_another_user_counts_as_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    """kill(pid, 0) on another user's process says EPERM: it is there (its containers are not orphans)."""

    def refused(pid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "kill", refused)
    assert process_alive(12345)


def test_a_bot_that_stopped_its_reaper_cannot_hang_the_stop(tmp_path: Path) -> None:
    """asyncio's wait() for the reaper returned only once the bot's output pipe closed: a bot that stopped its reaper
    (SIGSTOP) and left a process in a session of its own, holding that pipe, hung the stop, and the match's end, as
    long as that process ran; once the wait was bounded, that process outlived the match. The stop continues the
    reaper, which ends on the stop's SIGTERM as it would have unstopped (it was left stopped until its group was
    killed, SIGKILL, the pipe's holders found one by one)."""
    ended = stop_and_check_gone(tmp_path, STUBBORN_BOT.replace("while True:", "os.kill(os.getppid(), signal.SIGSTOP)\nwhile True:"))
    assert ended == -signal.SIGTERM


def test_a_bot_that_killed_its_reaper_goes_with_what_left_its_group(tmp_path: Path) -> None:
    """A bot that killed its reaper left its child in a session of its own running after the match: no reaper was
    there to kill it. It holds the bot's output, and is found and killed by it."""
    stop_and_check_gone(tmp_path, STUBBORN_BOT.replace("while True:", "os.kill(os.getppid(), signal.SIGKILL)\nwhile True:"), kills_its_reaper=True)


#: Leaves a process in a session of its own holding the bot's output (saying both pids), then, once a file named go is
#: in its folder, kills its reaper and exits.
KILLS_ITS_REAPER = STUBBORN_BOT.replace(
    "while True:\n    time.sleep(60)\n",
    "while not os.path.exists('go'):\n    time.sleep(0.01)\nos.kill(os.getppid(), signal.SIGKILL)\nos._exit(1)\n",
)


def test_a_bot_that_killed_its_reaper_is_seen_to_end_whatever_its_child_holds(tmp_path: Path) -> None:
    """asyncio's wait() returned only once the bot's output closed: a bot that killed its reaper while a process it
    left in a session of its own held that output open was not seen to end, and got TIMEOUT or DISCONNECT instead of
    CRASH. Its end is the reaper's: killed by SIGKILL."""
    bot = script_bot(tmp_path, KILLS_ITS_REAPER)
    child: dict[int, int | None] = {}

    async def run() -> int:
        handle = await ProcessLauncher().launch(spec_for(tmp_path, bot))
        try:
            child_pid = (await said_pids(tmp_path / "bot.log"))[1]
            child[child_pid] = started_at(child_pid)
            ended = asyncio.create_task(handle.wait())
            await asyncio.sleep(0)  # waiting from before the end (asyncio's wait() returned the code at once after it)
            (bot / "go").touch()
            code = await asyncio.wait_for(ended, 60)  # a hang detector: without the fix, it waited for the child
            assert running(child) == [child_pid], "the child was to hold the output open while the bot's end was seen"
            return code
        finally:
            await handle.stop(grace=0.1)

    try:
        assert asyncio.run(run()) == -signal.SIGKILL
        assert wait_until(lambda: all_gone(child), 10), "the process the bot left outlived the stop"
    finally:
        for pid in running(child):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


#: Plays KILLS_ITS_REAPER's bot to its stop, in a process of its own so that what asyncio prints as it ends is seen;
#: with "cannot-kill", as if the process holding the output could not be killed. Says the code and the child's pid.
STAND_IN = """\
import asyncio, sys
from pathlib import Path
from referee.server import launchers
from tests.test_process_launcher import said_pids, spec_for

async def main() -> None:
    bot, work = Path(sys.argv[1]), Path(sys.argv[2])
    if sys.argv[3] == "cannot-kill":
        launchers.kill_pipe_holders = lambda inode: None
    handle = await launchers.ProcessLauncher().launch(spec_for(work, bot))
    child = (await said_pids(work / "bot.log"))[1]
    print(f"child {child}", flush=True)
    (bot / "go").touch()
    print(f"code {await asyncio.wait_for(handle.wait(), 60)}", flush=True)
    await handle.stop(grace=0.1)

asyncio.run(main())
"""


@pytest.mark.parametrize("holder", ["killed", "cannot-kill"])
def test_an_output_held_open_after_the_bot_ended_is_closed_quietly(tmp_path: Path, holder: str) -> None:
    """A process the bot left holding its output kept the output's pipe open past the stop: asyncio printed a
    traceback ("Event loop is closed") as the referee's event loop was gone. It is closed at the stop, held or not."""
    bot = script_bot(tmp_path, KILLS_ITS_REAPER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "sdk" / "python")])}
    stand_in = subprocess.run([sys.executable, "-c", STAND_IN, str(bot), str(tmp_path), holder], capture_output=True, text=True, env=env, timeout=120)
    said = dict(line.split() for line in stand_in.stdout.splitlines())
    try:
        assert stand_in.returncode == 0 and stand_in.stderr == "", stand_in.stderr
        assert said["code"] == str(-signal.SIGKILL)
    finally:
        if "child" in said and started_at(int(said["child"])) is not None:
            os.kill(int(said["child"]), signal.SIGKILL)
#: Starts $0 in a session of its own, says its pid, and ends once it runs under its name (not yet exec'd, it is found).
SETSID_UNDER_NAME = 'setsid "$0" 600 & echo $!; while [ "$(cat /proc/$!/comm)" != "$(basename "$0")" ]; do sleep 0.01; done'


def test_a_process_named_with_a_parenthesis_is_killed_too(tmp_path: Path) -> None:
    """/proc/PID/stat puts the command's name in parentheses, and a name may hold ") S 1": read up to the first ")",
    the process's parent is misread, and what left the bot's group under such a name outlived it."""
    named = tmp_path / "x) S 1 1"
    named.symlink_to("/bin/sleep")  # the name a process gets is its file's
    log = tmp_path / "out"
    with log.open("w") as out:
        subprocess.run([sys.executable, "-I", "-S", str(REAPER), "sh", "-c", SETSID_UNDER_NAME, str(named)], stdout=out, timeout=60)
    pid = int(log.read_text())
    try:
        assert wait_until(lambda: started_at(pid) is None, 10), f"{Path(f'/proc/{pid}/stat').read_text()} outlived its bot"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_output_past_the_log_cap_is_read_slowly(tmp_path: Path) -> None:
    """docs/faults.md, "write to stdout and stderr without end": past its log's cap a bot's output was read as fast as
    the bot wrote it, on the referee's event loop: 0.1 core of the referee's for each such bot (0.54 s of CPU in 5 s).
    Now it is read DRAIN_PAUSE_S apart, and the bot waits on its side of the pipe.

    What is asserted is what the bot got written, which a busy machine can only make smaller: at most one read of
    64 KiB per pause in the span, and a pipe's buffer or two. The referee's own CPU, measured here before, passed
    0.1 s once under a loaded CI run with nothing wrong."""
    import time

    counter = tmp_path / "written"
    flood = [
        sys.executable,
        "-c",
        "import os, sys\nfd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)\nn = 0\n"
        "while True:\n    n += os.write(1, b'y' * 65536)\n    os.pwrite(fd, b'%20d' % n, 0)",
        str(counter),
    ]

    def written() -> int:
        return int(counter.read_bytes() or b"0")

    async def main() -> tuple[int, float]:
        handle = await launchers.start_process(*launchers.reaped(with_limits(flood)), log_path=tmp_path / "bot.log")
        try:
            log = tmp_path / "bot.log"
            await until("the log to reach its cap", lambda: log.exists() and log.stat().st_size >= launchers.LOG_CAP_BYTES, every=0.05)
            began, before = time.monotonic(), written()
            await asyncio.sleep(1)  # on purpose: the span the bot's writes are counted over
            return written() - before, time.monotonic() - began
        finally:
            await handle.stop(0)

    got_written, span = asyncio.run(main())
    allowed = (span / launchers.DRAIN_PAUSE_S + 1) * 65536 + 2 * 65536
    assert got_written <= allowed, f"the bot wrote {got_written} bytes in {span:.2f} s past its log's cap; at most {allowed:.0f} if read slowly"
    assert (tmp_path / "bot.log").stat().st_size == launchers.LOG_CAP_BYTES + len(launchers.TRUNCATED)
