"""Runs a bot in its container and hands on its output's first bytes only: the Docker sandbox starts every bot through this.

Docker's daemons copy all a container's output to a log of their own, on the host's CPU, outside the container's
limits: a bot writing without end kept dockerd and containerd busy (0.4 to 1 core for one bot). Run as the
container's first process, this script starts the bot with its stdout and stderr on a pipe, writes the first CAP
bytes of it to its own output (which Docker carries to the referee), then a line saying it was cut, and reads the
rest and drops it, on the container's CPU. The bot is never held up by its output.

As the container's first process it also reaps the bot's orphans (a zombie kept counting against the container's
process limit) and ends as soon as the bot does, with its exit code, or 128 + the signal that killed it (as Docker
tells a container's end), whatever the bot left running: the container's end then kills those.

Run with the standard library alone, its source handed to ``python -I -S -c`` with the cap and the bot's command:
nothing has to be mounted for it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

TRUNCATED = b"\n[log truncated by the referee]\n"
#: How long the output still read after the bot's end may take (what the bot left running may hold it open).
DRAIN_S = 0.5


def write_all(data: bytes) -> None:
    """Write ``data`` to this process's stdout; an output gone (the referee stopped reading) drops it."""
    while data:
        try:
            data = data[os.write(1, data) :]
        except OSError:
            return


def hand_on(source: int, cap: int) -> None:
    """Copy the first ``cap`` bytes read from ``source`` to stdout, then TRUNCATED; read and drop the rest, to its end."""
    left = cap
    while chunk := os.read(source, 65536):
        if left > 0:
            write_all(chunk[:left])
            left -= len(chunk[:left])
            if left == 0:
                write_all(TRUNCATED)


def wait_for(bot: int) -> int:
    """The bot's wait status when it ends; the orphans that end meanwhile (this process adopts them) are reaped."""
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == bot:
            return status


def not_dumpable() -> None:
    """Keep the bot out of this process's /proc entries (PR_SET_DUMPABLE 0; the bot's own exec makes it dumpable again).

    The bot runs as this process's user: it could open /proc/1/fd/1, this process's own output, and write to Docker's
    log past the cap, on the host's CPU (0.5 core measured). A process that is not dumpable has its /proc entries
    owned by root, and the bot has no capability to reach them.
    """
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except (ImportError, OSError, AttributeError):  # a Python without ctypes: the cap holds for a bot that does not look
        pass


def main(argv: list[str]) -> None:
    not_dumpable()
    # A container's first process takes from inside it only the signals it handles: Python's SIGINT handler let the bot
    # end it (KeyboardInterrupt). With none, the bot can signal it nothing (the container's end is Docker's to kill).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    cap, command = int(argv[0]), argv[1:]
    read, write = os.pipe()
    try:
        # SIGPIPE and SIGXFSZ back to their defaults (Python ignores them at start-up), as a bot started from a shell has them.
        actions = [(os.POSIX_SPAWN_DUP2, write, 1), (os.POSIX_SPAWN_DUP2, write, 2), (os.POSIX_SPAWN_CLOSE, read)]
        bot = os.posix_spawnp(command[0], command, os.environ, file_actions=actions, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
    except OSError as exc:
        write_all(f"[referee] cannot start {command[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    os.close(write)
    pump = threading.Thread(target=hand_on, args=(read, cap), daemon=True)
    pump.start()
    status = wait_for(bot)
    pump.join(DRAIN_S)
    os._exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))


if __name__ == "__main__":
    main(sys.argv[1:])
