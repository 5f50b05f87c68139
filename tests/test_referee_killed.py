"""A referee killed outright (SIGKILL, a hard crash) leaves no bot running: docs/faults.md.

Each test starts a stand-in referee in a process of its own, has it start a bot that ignores SIGTERM, sleeps
for ever and leaves a child in a session of its own, kills the stand-in with SIGKILL and waits for the bot and
its child to go.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import ROOT, docker_ready

#: Ignores SIGTERM, leaves a child in a new session, says both pids, then sleeps for ever.
STUBBORN_BOT = """\
import os, signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "600"], start_new_session=True)
print(f"bot pid {os.getpid()}", flush=True)
print(f"escaped pid {child.pid}", flush=True)
while True:
    time.sleep(60)
"""

#: A runner of the referee's (process or docker) starting the bot in the stand-in's main thread, as a match does.
BY_LAUNCHER = """\
import asyncio, sys
from pathlib import Path
from referee.server.launchers import LaunchSpec
from referee.server.manifest import load_manifest
from referee.server.runner import launcher_for

async def main() -> None:
    bot, work, sandbox, match_id = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    (work / "seat").mkdir()
    spec = LaunchSpec(0, load_manifest(bot), bot, work / "seat", work / "home", {"ARENA_MATCH_ID": match_id}, work / "bot.log")
    await launcher_for(sandbox).launch(spec)
    print("started", flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""

#: The reaper's command line as the process runner builds it, started from a thread that then ends, as the
#: ladder's threads do: a parent-death signal (PR_SET_PDEATHSIG) would fire at the thread's end, killing the bot.
BY_THREAD = """\
import subprocess, sys, threading, time
from pathlib import Path
from referee.server.launchers import reaped, resolve_command, with_limits

bot, work = Path(sys.argv[1]), Path(sys.argv[2])
started = []
def start() -> None:
    log = (work / "bot.log").open("wb")
    command = reaped(with_limits(resolve_command(("python", "bot.py"))))
    started.append(subprocess.Popen(command, cwd=bot, stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
thread = threading.Thread(target=start)
thread.start()
thread.join()
print("started", flush=True)
time.sleep(3600)
"""


def started_at(pid: int) -> int | None:
    """When the running process ``pid`` started (clock ticks since boot), telling it from a later one given the same pid;
    None once it is gone, or dead and not yet reaped by whoever its parent now is (a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()  # after the command name, which may hold spaces
    return None if fields[0] == b"Z" else int(fields[19])


def all_gone(started: dict[int, int | None]) -> bool:
    return all(started_at(pid) != start for pid, start in started.items())


def wait_until(condition: Callable[[], bool], deadline_s: float) -> bool:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def start_stand_in(script: str, bot: Path, work: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "sdk" / "python")])}
    stand_in = subprocess.Popen([sys.executable, "-c", script, str(bot), str(work), *args], stdout=subprocess.PIPE, text=True, env=env)
    assert stand_in.stdout is not None
    line = stand_in.stdout.readline()
    assert line == "started\n", f"the stand-in referee did not start its bot: {line!r}"
    return stand_in


def bot_pids(log: Path) -> list[int]:
    """The bot's pid and its escaped child's, once the bot has said them."""
    found: list[int] = []

    def said() -> bool:
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        found[:] = [int(line.split()[-1]) for line in lines if line.startswith(("bot pid ", "escaped pid "))]
        return len(found) == 2

    assert wait_until(said, 30), f"the bot never said its pids: {log.read_text(errors='replace') if log.exists() else 'no log'}"
    return found


def stubborn_bot(tmp: Path) -> tuple[Path, Path]:
    """The bot's folder, and an empty folder for the stand-in referee's seat, home and log."""
    bot, work = tmp / "bot", tmp / "work"
    bot.mkdir()
    work.mkdir()
    (bot / "bot.py").write_text(STUBBORN_BOT)
    (bot / "bot.toml").write_text('name = "stubborn"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "bot.py"]\n')
    return bot, work


@pytest.mark.parametrize("started_by", ["launcher", "thread"])
def test_a_process_bot_and_what_it_started_die_with_a_killed_referee(tmp_path: Path, started_by: str) -> None:
    bot, work = stubborn_bot(tmp_path)
    stand_in = start_stand_in(BY_LAUNCHER, bot, work, "process", "killed-referee") if started_by == "launcher" else start_stand_in(BY_THREAD, bot, work)
    started: dict[int, int | None] = {}
    try:
        started = {pid: started_at(pid) for pid in bot_pids(work / "bot.log")}
        assert None not in started.values(), f"the bot or its child is not running: {started}"
        if started_by == "thread":
            # The thread that started the reaper has ended: the bot must outlive it (no parent-death signal). On purpose
            # a fixed time: what is checked is that nothing happens in it, and there is no event to wait for.
            time.sleep(1.5)
            assert all(started_at(pid) == start for pid, start in started.items()), "the bot died when the thread that started it ended"
        stand_in.send_signal(signal.SIGKILL)
        stand_in.wait()
        assert wait_until(lambda: all_gone(started), 10), f"still running 10 s after the referee was killed: {[p for p, t in started.items() if started_at(p) == t]}"
    finally:
        stand_in.kill()
        for pid, start in started.items():
            if started_at(pid) == start:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def containers_of(match_id: str) -> list[str]:
    label = f"label=arena.match={match_id}"  # this test's only: other tests may run containers meanwhile
    return subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=True).stdout.split()


@contextlib.contextmanager
def docker_stand_in(tmp_path: Path, name: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A stand-in referee whose stubborn bot runs in a container, and the match id its container is labelled with."""
    bot, work = stubborn_bot(tmp_path)
    match_id = f"{name}-{os.getpid()}-{time.monotonic_ns()}"
    stand_in = start_stand_in(BY_LAUNCHER, bot, work, "docker", match_id)
    try:
        bot_pids(work / "bot.log")  # the bot runs, and has left a child in a session of its own
        yield stand_in, match_id
    finally:
        stand_in.kill()
        if left := containers_of(match_id):
            subprocess.run(["docker", "rm", "-f", *left], capture_output=True)


# In CI the Docker tests must run: a missing engine or image fails them instead of skipping (as in test_faults.py).
@pytest.mark.skipif(not os.environ.get("CI") and not docker_ready(), reason="no Docker engine or image here")
def test_a_docker_bot_is_removed_with_a_killed_referee(tmp_path: Path) -> None:
    with docker_stand_in(tmp_path, "killed-referee") as (stand_in, match_id):
        assert containers_of(match_id), "the bot's container is not there"
        stand_in.send_signal(signal.SIGKILL)
        stand_in.wait()
        assert wait_until(lambda: not containers_of(match_id), 30), "the bot's container outlived the referee by 30 s"


def processes_naming(text: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if text.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
    return pids


@pytest.mark.skipif(not os.environ.get("CI") and not docker_ready(), reason="no Docker engine or image here")
def test_containers_of_a_referee_killed_with_its_watcher_are_removed_by_the_next_referee(tmp_path: Path) -> None:
    """A cgroup killed whole (a service's stop, the OOM killer) takes the watcher too: its containers ran on for ever.

    Any referee of this machine sweeps such orphans at its first container, so another test's referee running meanwhile
    (pytest -n) may remove this one first: a try where the container went before the sweep asked of it is played again,
    and only three such tries in a row fail (a container that goes by itself every time is what this test is about).
    """
    from referee.server.sandbox import docker_client, remove_orphans

    for attempt in range(3):
        (tmp_path / str(attempt)).mkdir()
        with docker_stand_in(tmp_path / str(attempt), "killed-with-watcher") as (stand_in, match_id):
            (container,) = containers_of(match_id)
            token = subprocess.run(["docker", "inspect", "-f", '{{index .Config.Labels "arena.owner"}}', container],
                                   capture_output=True, text=True, check=True).stdout.strip()
            (watcher,) = processes_naming(f"sandbox_watch.py\0{token}")
            os.kill(watcher, signal.SIGKILL)
            stand_in.send_signal(signal.SIGKILL)
            stand_in.wait()
            time.sleep(3)  # on purpose: nothing of this test's is to remove it meanwhile, so there is no event to wait for
            if containers_of(match_id) != [container]:
                continue  # gone: another referee's sweep, or (every try) nothing keeps it, which fails below
            removed = remove_orphans(docker_client())
            if removed == 0 and not containers_of(match_id):
                continue  # another referee's sweep took it between the two looks
            assert removed >= 1
            assert wait_until(lambda: not containers_of(match_id), 10)
            return
    pytest.fail("three times the container was gone before the sweep: it should outlive its referee and its watcher")


@pytest.mark.skipif(not os.environ.get("CI") and not docker_ready(), reason="no Docker engine or image here")
def test_the_sweep_leaves_live_referees_and_other_machines_containers_alone() -> None:
    from referee.server.launchers import process_start, this_machine
    from referee.server.sandbox import IMAGE, docker_client, remove_orphans

    client = docker_client()
    match_id = f"sweep-{os.getpid()}-{time.monotonic_ns()}"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    live, live_start = os.getppid(), process_start(os.getppid()) or ""
    assert live_start, "no start time in /proc: the reused-pid case cannot be told"
    owners = {
        "dead here": (f"{int(gone.stdout)}-x", "", this_machine()),
        "alive here": (f"{live}-x", live_start, this_machine()),
        "alive here, start unrecorded (older labels)": (f"{live}-x", "", this_machine()),
        "dead here, its pid reused by another process": (f"{live}-x", str(int(live_start) - 1), this_machine()),
        "dead elsewhere": (f"{int(gone.stdout)}-x", "", "another-host/pid:[1]"),
    }
    made = {
        name: client.containers.create(
            IMAGE, command=["/none"], labels={"arena.owner": owner, "arena.owner-start": start, "arena.machine": machine, "arena.match": match_id}
        )
        for name, (owner, start, machine) in owners.items()
    }
    try:
        remove_orphans(client)
        kept = set(containers_of(match_id))
        assert {name for name, c in made.items() if c.id[:12] in kept} == {"alive here", "alive here, start unrecorded (older labels)", "dead elsewhere"}
    finally:
        if left := containers_of(match_id):
            subprocess.run(["docker", "rm", "-f", *left], capture_output=True)


def test_a_referee_that_keeps_starting_containers_sweeps_again_now_and_then(monkeypatch: pytest.MonkeyPatch) -> None:
    """Swept only at its first container, a ladder running for weeks never saw the orphans of referees killed beside it."""
    import threading

    from referee.server import sandbox

    now = [1000.0]
    swept: list[float] = []
    done = threading.Semaphore(0)

    def count(client: object) -> int:
        swept.append(now[0])
        done.release()
        return 0

    monkeypatch.setattr(sandbox, "_last_sweep", {})
    monkeypatch.setattr("referee.server.sandbox.time.monotonic", lambda: now[0])
    monkeypatch.setattr(sandbox, "docker_client", lambda: object())
    monkeypatch.setattr(sandbox, "remove_orphans", count)
    for at in (1000.0, 1001.0, 1000.0 + sandbox.SWEEP_EVERY_S - 1, 1000.0 + sandbox.SWEEP_EVERY_S + 1, 1000.0 + sandbox.SWEEP_EVERY_S + 2):
        now[0] = at
        sandbox.sweep_orphans()
    for _ in range(2):
        assert done.acquire(timeout=10)
    assert not done.acquire(timeout=0.5)
    assert swept == [1000.0, 1000.0 + sandbox.SWEEP_EVERY_S + 1]
