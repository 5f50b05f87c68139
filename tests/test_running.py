"""Stopping a command: Ctrl-C and SIGTERM cancel it once and its clean-up runs to the end (arena/cli/running.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.support import ROOT

#: A command whose clean-up lasts until the test writes a line: a signal sent in it is sent during the clean-up.
COMMAND = """
import asyncio, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # pytest's workers may start us with SIGINT ignored
from arena.cli import running

async def main():
    try:
        print("ready", flush=True)
        await asyncio.sleep(60)
    finally:
        print("cleaning", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        print("cleaned", flush=True)

try:
    running.run(main())
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
except running.Terminated as exc:
    print("terminated", flush=True)
    raise
"""


def start() -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", COMMAND], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "ready\n"
    return proc


def test_a_second_ctrl_c_lets_the_clean_up_finish() -> None:
    proc = start()
    assert proc.stdout is not None and proc.stdin is not None
    proc.send_signal(signal.SIGINT)
    assert proc.stdout.readline() == "cleaning\n"
    proc.send_signal(signal.SIGINT)  # asyncio.run raised KeyboardInterrupt into the clean-up here
    proc.stdin.write("go on\n")
    proc.stdin.flush()
    out, err = proc.communicate(timeout=30)
    assert out.splitlines() == ["cleaned", "interrupted"], err
    assert proc.returncode == 130
    assert "Ctrl-C again quits at once" in err
    assert "Traceback" not in err


def test_a_third_ctrl_c_quits_at_once() -> None:
    proc = start()
    assert proc.stdout is not None
    proc.send_signal(signal.SIGINT)
    assert proc.stdout.readline() == "cleaning\n"
    proc.send_signal(signal.SIGINT)
    assert "Ctrl-C again" in (proc.stderr.readline() if proc.stderr else "")
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 130  # stdin left open: the clean-up waits for a line that never comes
    assert "cleaned" not in proc.stdout.read()


def test_sigterm_cleans_up_once_and_says_so() -> None:
    proc = start()
    assert proc.stdout is not None and proc.stdin is not None
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout.readline() == "cleaning\n"
    proc.send_signal(signal.SIGTERM)  # ignored while it cleans up
    proc.stdin.write("go on\n")
    proc.stdin.flush()
    out, err = proc.communicate(timeout=30)
    assert out.splitlines() == ["cleaned", "terminated"]
    assert proc.returncode == 143
    assert "stopped by SIGTERM" in err
