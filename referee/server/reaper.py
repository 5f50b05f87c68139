"""Runs one bot command and leaves nothing of it behind: the process runner starts every bot through this script.

A process group does not hold everything a bot starts: a child that calls
setsid (``start_new_session``, a daemon's double fork) leaves the group, and
killing the group at the end of a match left it running, holding the bot's log
pipe. This script marks itself a child subreaper (Linux), so every orphan of
the bot becomes its child instead of init's; when the bot exits, or on SIGTERM
(the referee stopping the bot), it kills every process below it, then exits as
the bot did (its exit code, or the same signal).

Run as a file with the standard library alone (``python -I -S reaper.py COMMAND...``): it starts in a few milliseconds.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


class Stop(Exception):
    """SIGTERM: the referee stops the bot."""


def children_by_parent() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:  # gone meanwhile
            continue
        parent = int(stat[stat.rindex(b")") + 2 :].split()[1])  # after the command name, which may hold spaces
        found.setdefault(parent, []).append(int(name))
    return found


def descendants(root: int) -> list[int]:
    tree, found, todo = children_by_parent(), [], [root]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def kill_everything_below() -> None:
    """Kill every process below this one until none is left: the orphans of killed ones come here, and are killed in turn."""
    while found := descendants(os.getpid()):
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:  # reap what has died (a zombie still shows in /proc); never block: a child born after the scan lives on
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.005)


def exit_as(status: int) -> None:
    """End as the bot ended: with its exit code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        die_by(os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def die_by(sig: int) -> None:
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)  # a signal whose default is not to end the process


def main(command: list[str]) -> None:
    def on_term(signum: int, frame: object) -> None:
        raise Stop

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # exit_as may die of the bot's SIGXCPU, whose default dumps core
    signal.signal(signal.SIGTERM, on_term)
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"[referee] cannot become a subreaper: {os.strerror(ctypes.get_errno())}", flush=True)
    status: int | None = None
    try:
        try:
            bot = os.posix_spawnp(command[0], command, os.environ)
        except OSError as exc:
            print(f"[referee] cannot start {command[0]}: {exc.strerror}", flush=True)
            os._exit(127)
        while status is None:
            pid, ended = os.waitpid(-1, 0)  # the bot, or an orphan of its that ended
            if pid == bot:
                status = ended
    except Stop:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    kill_everything_below()
    if status is None:
        die_by(signal.SIGTERM)  # stopped: ends as a process killed by SIGTERM
    else:
        exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
