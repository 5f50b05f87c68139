"""The Docker sandbox's first process in a container (referee/server/capped_output.py), run here on the host."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from referee.server.capped_output import TRUNCATED
from referee.server.sandbox import CAPPED_OUTPUT


def capped(cap: int, *command: str, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    # As the sandbox runs it: its source handed to the interpreter with -c.
    return subprocess.run([sys.executable, "-I", "-S", "-c", CAPPED_OUTPUT.read_text(), str(cap), *command], capture_output=True, timeout=timeout)


def test_the_output_is_cut_at_the_cap_and_the_rest_read_to_its_end() -> None:
    done = capped(10, "sh", "-c", "echo 0123456789abcdef; echo more >&2; head -c 1000000 /dev/zero; exit 4")
    assert done.stdout == b"0123456789" + TRUNCATED and done.returncode == 4, done


def test_a_bot_killed_by_a_signal_ends_it_with_128_and_the_signal_as_docker_tells_it() -> None:
    done = capped(1000, "sh", "-c", "echo before; kill -9 $$")
    assert done.stdout == b"before\n" and done.returncode == 128 + signal.SIGKILL, done


def test_a_command_that_cannot_start_is_said_and_ends_with_127() -> None:
    done = capped(1000, "no-such-program", "x")
    assert done.stdout == b"[referee] cannot start no-such-program: No such file or directory\n" and done.returncode == 127, done


def test_it_ends_with_the_bot_whatever_holds_the_output() -> None:
    """A child the bot left holds the pipe open: the container's end, not that child's, follows the bot's."""
    started = time.monotonic()
    done = capped(1000, "sh", "-c", "sleep 20 & echo left; exit 3")
    assert done.returncode == 3 and done.stdout == b"left\n" and time.monotonic() - started < 10, done
