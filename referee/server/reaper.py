"""Runs one bot command and leaves nothing of it behind: the process runner starts every bot through this script.

A process group does not hold everything a bot starts: a child that calls
setsid (``start_new_session``, a daemon's double fork) leaves the group, and
killing the group at the end of a match left it running, holding the bot's log
pipe. This script marks itself a child subreaper (Linux), so every orphan of
the bot becomes its child instead of init's; when the bot exits, on SIGTERM
(the referee stopping the bot), or when the referee that started it is gone
(killed outright, so it could stop nothing), it kills every process below it,
then exits as the bot did (its exit code, or the same signal) or as if killed
by SIGTERM.

The referee is watched by its pid (``--parent=PID``, before the command): the
moment it dies this script's parent changes, to init or the nearest subreaper
above. A parent-death signal (PR_SET_PDEATHSIG) would not do: it fires when
the *thread* that started this process ends, and the ladder starts bots from
threads.

With ``--cpu=N`` (after ``--parent``) it pins itself to CPU N before it starts the bot (``pin``).

Run as a file with the standard library alone (``python -I -S reaper.py [--parent=PID] [--cpu=N] COMMAND...``): it starts in a few milliseconds.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
#: How often, at most, the referee is checked for while the bot runs (seconds): a killed referee's bots die within this.
PARENT_CHECK_S = 0.5
#: Blocked for the script's whole life and taken with sigtimedwait: no handler, so nothing interrupts a waitpid or a cleanup.
WAITED = {signal.SIGTERM, signal.SIGCHLD}


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
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})  # SIGTERM is blocked
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)  # a signal whose default is not to end the process


def wait_for(bot: int, parent: int) -> int | None:
    """The bot's wait status when it ends; None when the referee stops it (SIGTERM) or is gone."""
    while True:
        while True:  # the bot, or orphans of its that ended
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == bot:
                return status
            if pid == 0:
                break
        woken = signal.sigtimedwait(WAITED, PARENT_CHECK_S)
        if woken is not None and woken.si_signo == signal.SIGTERM:
            return None
        if os.getppid() != parent:  # orphaned: the referee was killed
            return None


def pin(cpu: int) -> None:
    """Hold this process, and so the bot it is about to start and all the bot starts, to ``cpu``.

    Done here, before the bot exists, it is race-free: a CPU mask is inherited by every thread and child, and the bot
    has none yet. Set from the referee once the bot runs, it would miss the threads already started (a mask is a
    thread's); a ``preexec_fn`` would run Python in a forked copy of the multi-threaded referee (see ``with_limits``).
    """
    try:
        os.sched_setaffinity(0, {cpu})
    except (OSError, AttributeError) as exc:  # the CPU gone offline, or out of this process's cpuset, since it was chosen
        print(f"[referee] cannot pin the bot to CPU {cpu}: {exc}; it runs on any", flush=True)


def main(argv: list[str]) -> None:
    parent = int(argv.pop(0).removeprefix("--parent=")) if argv[:1] and argv[0].startswith("--parent=") else os.getppid()
    if argv[:1] and argv[0].startswith("--cpu="):
        pin(int(argv.pop(0).removeprefix("--cpu=")))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # exit_as may die of the bot's SIGXCPU, whose default dumps core
    signal.pthread_sigmask(signal.SIG_BLOCK, WAITED)  # from here a SIGTERM, or an ended child, waits for sigtimedwait
    if os.getppid() != parent:  # the referee died while this started: there is no one to play for
        die_by(signal.SIGTERM)
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"[referee] cannot become a subreaper: {os.strerror(ctypes.get_errno())}", flush=True)
    try:
        # The bot starts with no signal blocked, and with the two Python ignores at start-up back to their defaults, as
        # subprocess's restore_signals does: a bot writing to a closed pipe dies of SIGPIPE as it would from a shell.
        bot = os.posix_spawnp(argv[0], argv, os.environ, setsigmask=(), setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
    except OSError as exc:
        print(f"[referee] cannot start {argv[0]}: {exc.strerror}", flush=True)
        os._exit(127)
    status = wait_for(bot, parent)
    kill_everything_below()
    if status is None:
        die_by(signal.SIGTERM)  # stopped: ends as a process killed by SIGTERM
    else:
        exit_as(status)


if __name__ == "__main__":
    main(sys.argv[1:])
