"""The fault matrix: a test bot per fault, in both runners where it makes sense (docs/faults.md)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from referee.server.launchers import LOG_CAP_BYTES, TRUNCATED, ProcessLauncher
from referee.server.runner import LocalMatch, MatchSetup, launcher_for, run_local_match
from referee.server.session import TimeControl
from tests.support import ROOT, SAMPLE_BOTS, docker_ready
from tests.test_referee_killed import started_at

FAULTY = ROOT / "tests" / "bots" / "faulty"
TC = TimeControl(move_time_ms=400, time_bank_ms=0, strike_limit=1, max_rejections=20, connect_timeout_ms=30_000)  # a container started on a busy machine took over 8 s


DOCKER = docker_ready()


def runners(*names: str) -> list[object]:
    out: list[object] = []
    for name in names:
        if name == "docker":
            # In CI the Docker tests must run: a missing engine or image fails them instead of skipping.
            marks = [] if DOCKER or os.environ.get("CI") else [pytest.mark.skip(reason="no Docker engine or image here")]
            out.append(pytest.param(name, marks=marks, id=name))
        else:
            out.append(pytest.param(name, id=name))
    return out


def faulty_bot(tmp: Path, fault: str) -> Path:
    path = tmp / f"faulty-{fault}"
    shutil.copytree(FAULTY, path)
    (path / "bot.toml").write_text(
        f'name = "faulty-{fault.replace("_", "-")}"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "bot.py", "{fault}"]\n'
    )
    return path


def play(tmp: Path, fault: str, sandbox: str, tc: TimeControl = TC) -> tuple[LocalMatch, list[str], str]:
    setup = MatchSetup("generals-war", [faulty_bot(tmp, fault), SAMPLE_BOTS / "random"], 5, {}, tc, tmp / "logs", sandbox)
    played = asyncio.run(run_local_match(setup))
    kinds = [pb.VerdictKind.Name(v.kind) for v in played.record.result.seats[0].verdicts]
    log = played.logs[0].read_text(errors="replace") if played.logs[0].exists() else ""
    # Whatever the fault: the match finished, the other seat was unaffected and won.
    assert played.record.game.is_over()
    assert not played.record.result.seats[1].verdicts
    return played, kinds, log


FORFEITS = {
    "crash_at_start": ["CRASH", "FORFEIT"],
    "crash_mid_game": ["CRASH", "FORFEIT"],
    "wrong_token": ["CRASH", "FORFEIT"],
    "hang": ["TIMEOUT", "TIMEOUT", "FORFEIT"],
    "too_slow": ["TIMEOUT", "TIMEOUT", "FORFEIT"],
    "garbage": ["MALFORMED", "DISCONNECT", "DISCONNECT", "FORFEIT"],
    "oversized": ["MALFORMED", "DISCONNECT", "DISCONNECT", "FORFEIT"],
    "huge": ["DISCONNECT", "DISCONNECT", "FORFEIT"],  # gRPC ends the stream (RESOURCE_EXHAUSTED): the session never sees it
}


#: Faults whose bot never gets into the match: the referee may see the exit first (CRASH) or the connect timeout (NO_SHOW).
NEVER_IN = {"crash_at_start", "wrong_token"}


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
@pytest.mark.parametrize("fault", sorted(FORFEITS))
def test_faults_that_forfeit(tmp_path: Path, fault: str, sandbox: str) -> None:
    played, kinds, log = play(tmp_path, fault, sandbox)
    if fault in NEVER_IN and kinds == ["NO_SHOW", "FORFEIT"]:
        kinds = FORFEITS[fault]  # a slow start (a loaded machine) may let the connect timeout come before the exit
    assert kinds == FORFEITS[fault], log[-2000:]
    assert played.record.result.seats[0].rank == 2 and played.record.result.seats[1].rank == 1
    for verdict in played.record.result.seats[0].verdicts:
        if verdict.kind == pb.CRASH:  # the log ends saying how the bot ended: one that died before it printed has nothing else
            assert log.endswith(f"[referee] at decision {verdict.decision_index}: {verdict.detail}\n"), log[-2000:]


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_a_memory_hog_is_stopped(tmp_path: Path, sandbox: str) -> None:
    played, kinds, log = play(tmp_path, "memory_hog", sandbox)
    # The hog crashes at its memory limit, unless filling memory up to it outlasts its time and it forfeits first;
    # a killed bot's stream may drop before its exit is known (DISCONNECT at the next deadline).
    assert kinds[-1] == "FORFEIT" and set(kinds[:-1]) <= {"TIMEOUT", "CRASH", "DISCONNECT"} and kinds[:-1], log[-2000:]
    if "CRASH" in kinds and sandbox == "docker":
        assert "code 137" in played.record.result.seats[0].verdicts[kinds.index("CRASH")].detail  # the OOM killer


@pytest.mark.parametrize("sandbox", runners("docker"))
@pytest.mark.parametrize("who", ["bot", "child"])
def test_a_bot_killed_at_its_memory_limit_is_told_so(tmp_path: Path, sandbox: str, who: str) -> None:
    """docs/faults.md, "a memory hog": the kernel kills it at its container's limit, and Docker tells that as exit code
    137 with nothing in the log; "the bot's process exited with code 137" left its author to guess. The bot itself
    killed, or a process it started (the bot then ends as it will)."""
    from referee.server.launchers import LaunchSpec, why_ended
    from referee.server.manifest import load_manifest
    from referee.server.sandbox import DockerLauncher, Limits

    bot = tmp_path / "hog"
    bot.mkdir()
    hog = "h = []\nwhile True: h.append(bytearray(8 << 20))\n"
    (bot / "hog.py").write_text(hog if who == "bot" else f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {hog!r}])\nsys.exit(4)\n")
    (bot / "bot.toml").write_text('name = "hog"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "hog.py"]\n')
    manifest = load_manifest(bot)

    async def main() -> str:
        (tmp_path / "seat").mkdir()
        spec = LaunchSpec(0, manifest, bot, tmp_path / "seat", tmp_path / "home", {"ARENA_MATCH_ID": f"hog-{os.getpid()}"}, tmp_path / "bot.log")
        handle = await DockerLauncher(Limits(memory="64m")).launch(spec)
        try:
            return why_ended(handle, await asyncio.wait_for(handle.wait(), 120))
        finally:
            await handle.stop(0)

    detail = asyncio.run(main())
    if who == "bot":
        assert detail == "the bot's process was killed at its memory limit of 64 MiB (out of memory; exit code 137)", detail
    else:
        assert detail == "the bot's process exited with code 4 (a process of its container was killed at its memory limit of 64 MiB)", detail


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_endless_illegal_actions(tmp_path: Path, sandbox: str) -> None:
    tc = TimeControl(move_time_ms=10_000, time_bank_ms=0, strike_limit=1, max_rejections=20)  # time for every retry
    played, kinds, _ = play(tmp_path, "illegal_forever", sandbox, tc)
    # Each decision: max_rejections rejections, then the strike; past the strike limit, the forfeit.
    per_decision = tc.max_rejections + 1
    assert kinds == ["ILLEGAL_ACTION"] * per_decision * (tc.strike_limit + 1) + ["FORFEIT"]


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_illegal_actions_until_the_sdk_gives_up(tmp_path: Path, sandbox: str) -> None:
    """The SDK's own retries used up, it says give_up: the referee ends the decision then, with its deadline's strike
    (the detail tells the two apart), 30 s before that deadline would come."""
    tc = TimeControl(move_time_ms=30_000, time_bank_ms=0, strike_limit=1, max_rejections=20)
    played, kinds, log = play(tmp_path, "illegal_then_give_up", sandbox, tc)
    per_decision = ["ILLEGAL_ACTION"] * 4 + ["TIMEOUT"]  # the first answer and its 3 retries, then the give_up
    assert kinds == per_decision * (tc.strike_limit + 1) + ["FORFEIT"], log[-2000:]
    gave_up = {v.detail for v in played.record.result.seats[0].verdicts if v.kind == pb.TIMEOUT}
    assert gave_up == {"the bot gave up on the decision"} and log.count("giving up on decision") == tc.strike_limit + 1


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_another_seats_socket_refuses(tmp_path: Path, sandbox: str) -> None:
    played, kinds, log = play(tmp_path, "other_seat", sandbox)
    assert kinds == [], log[-2000:]
    if sandbox == "process":
        assert "PERMISSION_DENIED" in log  # the socket is there to try, and it refuses
    else:
        assert "BREACH" not in log  # the container cannot even see it


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_breakout_attempts_are_contained(tmp_path: Path, sandbox: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("NOT FOR BOTS")
    secret.chmod(0o600)
    bot = faulty_bot(tmp_path, "breakout")
    (bot / "leak.txt").symlink_to(secret)  # a link in a bot's folder must not hand the container a file of the host's
    setup = MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], 5, {}, TC, tmp_path / "logs", sandbox)
    played = asyncio.run(run_local_match(setup))
    log = played.logs[0].read_text(errors="replace")
    assert not played.record.result.seats[0].verdicts, log[-3000:]
    assert "network blocked" in log and "write to /usr/planted refused" in log and "write to /bot/planted refused" in log
    # The seat's folder is read-only: the bot can reach its socket but neither fill the host's disk there nor move it.
    assert "write to /arena/planted refused" in log and "moving the socket refused" in log
    assert "leak.txt unreadable" in log and "NOT FOR BOTS" not in log


#: File systems a container gets from Docker itself (/proc, /dev, cgroups...): the bot's own mounts are the others.
PSEUDO_FS = {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "tmpfs"}


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_the_container_is_confined_as_docs_faults_promises(tmp_path: Path, sandbox: str) -> None:
    """Each confinement, read from inside the container: without it the breakout probes still passed (the user alone
    stops writes to /, /usr, /bot and /arena; a bot under its limits never shows them), so one lost went unseen."""
    from referee.server.sandbox import BOT_UID, BOT_UIDS, Limits

    played, kinds, log = play(tmp_path, "confinement", sandbox)
    assert kinds == [], log[-3000:]
    lines = set(log.splitlines())
    (ids,) = [line.split() for line in lines if line.startswith("uid ")]
    assert int(ids[1]) in BOT_UIDS and ids[3] == str(BOT_UID) and "user bot" in lines, log[:3000]
    assert {"HOME writable", "TMPDIR writable"} <= lines, log[:3000]
    assert {"noexec /tmp", "noexec /dev/shm"} <= lines, "docs/protocol.md: nothing written there can be run"
    assert {"status CapBnd 0000000000000000", "status CapEff 0000000000000000", "status NoNewPrivs 1"} <= lines, log[:3000]
    # No core files, as in the process runner, and none to be allowed: a host whose core_pattern is a pipe (apport,
    # systemd-coredump) runs its helper on the host, as root, for each core a container dumps, and keeps the cores.
    assert "rlimit core 0 0" in lines, log[:3000]
    cgroup = {line.split()[1]: line.split(" ", 2)[2] for line in lines if line.startswith("cgroup ")}
    limits = Limits()
    memory = 512 * 1024 * 1024
    assert limits.memory == "512m" and cgroup["memory"] == str(memory), cgroup
    if cgroup["swap"] != "None":  # cgroup v2
        assert cgroup["swap"] == "0", cgroup
    elif cgroup["memsw"] != "None":  # cgroup v1, a host that accounts swap
        assert cgroup["memsw"] == str(memory), cgroup
    assert cgroup["pids"] == str(limits.pids), cgroup
    quota, period = cgroup["cpu"].split()
    assert quota.isdigit() and int(quota) / int(period) == limits.cpus, cgroup
    mounts = {point: (kind, mode) for _, point, kind, mode in (line.split() for line in lines if line.startswith("mount "))}
    assert {"/", "/usr", "/bot", "/arena", "/opt/arena"} <= set(mounts) and mounts["/tmp"][0] == "tmpfs", mounts
    writable = {point for point, (kind, mode) in mounts.items() if kind not in PSEUDO_FS and mode != "ro"}
    assert not writable, f"mounted writable in the container: {writable}"


def left_containers(match_id: str) -> str:
    label = f"label=arena.match={match_id}"  # this match only: other tests may run containers meanwhile
    return subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_a_flooded_log_keeps_its_start(tmp_path: Path, sandbox: str) -> None:
    played, kinds, log = play(tmp_path, "log_flood", sandbox)
    assert kinds == []
    data = played.logs[0].read_bytes()
    assert data.startswith(b"FIRST LINE OF THE LOG\n") and data.endswith(TRUNCATED)
    assert len(data) == LOG_CAP_BYTES + len(TRUNCATED)


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_processes_that_left_the_bots_group_are_killed_with_it(tmp_path: Path, sandbox: str) -> None:
    """A child in a session of its own, and a daemon's double fork, outlived the match under the process runner,
    holding the bot's log pipe open (its log's pump gave up; a traceback when the command exited)."""
    played, kinds, log = play(tmp_path, "escape", sandbox)
    assert kinds == [], log[-2000:]
    pids = [int(line.split()[-1]) for line in log.splitlines() if line.startswith("escaped pid ")]
    assert len(pids) == 2, log[-2000:]
    if sandbox == "process":
        for pid in pids:
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
    else:
        assert left_containers(played.record.match_id) == ""
    assert "match over" in log  # the log was read to its end


def test_a_bot_that_killed_its_reaper_crashes_and_what_it_left_goes(tmp_path: Path) -> None:
    """asyncio's wait for the bot's process (its reaper) returned only once the output's pipe closed: a bot that left a
    process in a session of its own, holding that pipe, killed its reaper and crashed was never seen to end (a
    DISCONNECT, not a CRASH), and the process it left outlived the match."""
    played, kinds, log = play(tmp_path, "kill_reaper", "process")
    assert kinds == ["CRASH", "FORFEIT"], log[-2000:]
    crash = played.record.result.seats[0].verdicts[0]
    assert crash.detail == f"the bot's process exited with code {-signal.SIGKILL}", crash.detail
    assert log.endswith(f"[referee] at decision {crash.decision_index}: {crash.detail}\n"), log[-2000:]
    (pid,) = [int(line.split()[-1]) for line in log.splitlines() if line.startswith("escaped pid ")]
    assert started_at(pid) is None, "the process the bot left outlived the match"


def test_a_process_bot_starts_with_the_default_signal_dispositions() -> None:
    """The reaper is Python, which ignores SIGPIPE and SIGXFSZ at start-up; its bots inherited that, so a bot in C or
    shell writing to a closed pipe got EPIPE instead of dying as it would started from a shell."""
    from referee.server.launchers import reaped

    out = subprocess.run(reaped(["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"]), capture_output=True, text=True, check=True).stdout
    masks = {line.split(":")[0]: int(line.split()[-1], 16) for line in out.splitlines()}
    ignored = masks["SigIgn"]
    assert not ignored & (1 << (signal.SIGPIPE - 1)) and not ignored & (1 << (signal.SIGXFSZ - 1)), out
    # The reaper blocks SIGTERM and SIGCHLD for itself: a bot inheriting that could not be stopped by a SIGTERM of its own.
    assert masks["SigBlk"] == 0, out


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_filling_the_disk_stops_at_the_tmpfs(tmp_path: Path, sandbox: str) -> None:
    played, kinds, log = play(tmp_path, "fill_disk", sandbox)
    assert kinds == [] and "disk full after" in log and "shm full after" in log, log[-2000:]
    assert int(log.split("disk full after ")[1].split()[0]) <= 64
    assert int(log.split("shm full after ")[1].split()[0]) <= 64, "/dev/shm, writable too, is Docker's 64 MiB tmpfs"


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_a_command_that_does_not_exist_is_a_crash_that_names_it(tmp_path: Path, sandbox: str) -> None:
    bot = faulty_bot(tmp_path, "none")
    (bot / "bot.toml").write_text('name = "no-such"\nversion = "1"\ngames = ["generals-war"]\ncommand = ["./no-such-program"]\n')
    played = asyncio.run(run_local_match(MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], 5, {}, TC, tmp_path / "logs", sandbox)))
    assert [pb.VerdictKind.Name(v.kind) for v in played.record.result.seats[0].verdicts] == ["CRASH", "FORFEIT"]
    assert "no-such-program" in played.logs[0].read_text()
    assert "exited with code 127" in played.record.result.seats[0].verdicts[0].detail


class Broken(ProcessLauncher):
    """A launcher whose start of seat 0 fails with an error of its own, not a LaunchError (a NUL in an argument)."""

    async def launch(self, spec: Any) -> Any:
        if spec.seat == 0:
            raise ValueError("embedded null byte")
        return await super().launch(spec)


def test_a_launcher_that_fails_unexpectedly_is_a_crash_at_once(tmp_path: Path) -> None:
    """A ValueError from the launch (a NUL in an argument) ended the seat's watcher unseen: the bot was reported as
    never connecting, after the connection timeout, with a log path that did not exist."""
    setup = MatchSetup("generals-war", [SAMPLE_BOTS / "random", SAMPLE_BOTS / "random"], 5, {}, TimeControl(connect_timeout_ms=60_000), tmp_path / "logs")
    played = asyncio.run(run_local_match(setup, Broken()))
    (crash, *_) = played.record.result.seats[0].verdicts
    assert pb.VerdictKind.Name(crash.kind) == "CRASH", crash
    # it never ran: not told as a process that ran and exited before connecting
    assert crash.detail == "the bot could not be started (ValueError: embedded null byte)"
    assert played.logs[0].read_text().startswith("the bot could not be started (ValueError: embedded null byte)\n")


def test_a_bot_that_cannot_be_started_nor_logged_is_still_a_crash_at_once(tmp_path: Path) -> None:
    """Its log cannot be written (a full disk; here a folder in its place): the seat's CRASH was never told, and the
    bot was reported as never connecting, after the connection timeout."""
    (tmp_path / "logs" / "m1-seat0-random.log").mkdir(parents=True)
    setup = MatchSetup("generals-war", [SAMPLE_BOTS / "random", SAMPLE_BOTS / "random"], 5, {}, TimeControl(connect_timeout_ms=60_000), tmp_path / "logs", match_id="m1")
    played = asyncio.run(run_local_match(setup, Broken()))
    (crash, *_) = played.record.result.seats[0].verdicts
    assert (pb.VerdictKind.Name(crash.kind), crash.detail) == ("CRASH", "the bot could not be started (ValueError: embedded null byte)")


def test_bots_whose_log_folder_cannot_be_made_are_crashes_at_once(tmp_path: Path) -> None:
    """The log folder's path runs through a file: each seat's watcher died making it, unseen, and both bots were
    reported as never connecting, after the connection timeout."""
    (tmp_path / "file").write_text("")
    setup = MatchSetup("generals-war", [SAMPLE_BOTS / "random"] * 2, 5, {}, TimeControl(connect_timeout_ms=60_000), tmp_path / "file" / "logs")
    played = asyncio.run(run_local_match(setup))
    for seat in played.record.result.seats:
        assert pb.VerdictKind.Name(seat.verdicts[0].kind) == "CRASH" and "NotADirectoryError" in seat.verdicts[0].detail, seat


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_command_that_does_not_exist_in_a_container_is_a_crash_that_names_it(tmp_path: Path, sandbox: str) -> None:
    bot = faulty_bot(tmp_path, "none")
    (bot / "bot.toml").write_text('name = "no-such"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["no-such-program"]\n')
    setup = MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], 5, {}, TC, tmp_path / "logs", sandbox)
    played = asyncio.run(run_local_match(setup))
    kinds = [pb.VerdictKind.Name(v.kind) for v in played.record.result.seats[0].verdicts]
    assert kinds == ["CRASH", "FORFEIT"]
    assert played.logs[0].read_text().startswith("[referee] cannot start no-such-program: No such file or directory\n")
    assert "exited with code 127" in played.record.result.seats[0].verdicts[0].detail
    assert left_containers(played.record.match_id) == ""


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_container_that_cannot_start_is_not_left_behind(tmp_path: Path, sandbox: str) -> None:
    """Created, then refused by the engine at its start (its seat folder a file, mounted on a folder): removed."""
    from referee.server.launchers import LaunchError, LaunchSpec
    from referee.server.manifest import load_manifest

    manifest = load_manifest(SAMPLE_BOTS / "random")
    match_id = f"unstartable-{os.getpid()}"
    (tmp_path / "seat").write_text("not a folder")
    spec = LaunchSpec(0, manifest, manifest.path, tmp_path / "seat", tmp_path / "home", {"ARENA_MATCH_ID": match_id}, tmp_path / "bot.log")
    with pytest.raises(LaunchError, match="could not start the container"):
        asyncio.run(launcher_for(sandbox).launch(spec))
    assert left_containers(match_id) == ""


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_an_executable_in_the_bot_folder_runs(tmp_path: Path, sandbox: str) -> None:
    """A compiled bot or a script as the command: the Docker copy of the folder made every file 0644 ("permission denied")."""
    bot = tmp_path / "script-bot"
    bot.mkdir()
    (bot / "run.sh").write_text("#!/bin/sh\necho the script ran\nexit 3\n")
    (bot / "run.sh").chmod(0o755)
    (bot / "bot.toml").write_text('name = "script"\nversion = "1"\ngames = ["generals-war"]\ncommand = ["./run.sh"]\n')
    setup = MatchSetup("generals-war", [bot, SAMPLE_BOTS / "random"], 5, {}, TC, tmp_path / "logs", sandbox)
    played = asyncio.run(run_local_match(setup))
    log = played.logs[0].read_text()
    assert log.startswith("the script ran\n"), log
    assert "exited with code 3" in played.record.result.seats[0].verdicts[0].detail


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_launch_cancelled_midway_leaves_no_container(tmp_path: Path, sandbox: str) -> None:
    """Ctrl-C while containers start: the thread starting one cannot be stopped, so what it started is removed."""
    from referee.server.launchers import LaunchSpec
    from referee.server.manifest import load_manifest

    launcher = launcher_for(sandbox)
    manifest = load_manifest(SAMPLE_BOTS / "random")

    async def cancel_after(delay: float, match_id: str) -> None:
        seat_dir = tmp_path / match_id / "seat"
        seat_dir.mkdir(parents=True)
        spec = LaunchSpec(0, manifest, manifest.path, seat_dir, tmp_path / match_id / "home", {"ARENA_MATCH_ID": match_id}, tmp_path / f"{match_id}.log")
        task = asyncio.create_task(launcher.launch(spec))
        await asyncio.sleep(delay)  # on purpose: the cancel comes at each of several moments of the launch
        task.cancel()
        done = await asyncio.gather(task, return_exceptions=True)
        if not isinstance(done[0], BaseException):
            await done[0].stop(0)  # started before the cancel came: stopped the usual way

    ids = [f"cancel-{os.getpid()}-{i}" for i in range(5)]
    for i, match_id in enumerate(ids):
        asyncio.run(cancel_after(0.1 * i, match_id))
    assert [left_containers(match_id) for match_id in ids] == [""] * len(ids)


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_fork_bomb_hits_the_process_limit(tmp_path: Path, sandbox: str) -> None:
    before = len(os.listdir("/proc"))
    from referee.server.sandbox import Limits

    played, kinds, log = play(tmp_path, "fork_bomb", sandbox)
    assert "fork refused after" in log
    # docs/faults.md: the container's 64 tasks are the bot, the process that caps its output with its thread, and 61 children.
    assert int(log.split("fork refused after ")[1].split()[0]) <= Limits().pids - 3, log[:2000]
    # With every process slot taken, the bomber cannot start the threads it needs to play: it loses by forfeit.
    assert kinds[-1] == "FORFEIT" and set(kinds[:-1]) <= {"TIMEOUT", "CRASH", "DISCONNECT", "NO_SHOW"}, kinds
    assert len(os.listdir("/proc")) < before + 50, "the bomb's processes outlived the match"
    assert left_containers(played.record.match_id) == "", "a bot container outlived its match"


def test_a_match_cancelled_while_it_cleans_up_still_stops_its_bots_and_servers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C or SIGTERM arriving as a match ended cut its clean-up short: the seats' gRPC servers ran on until the
    interpreter exited (a traceback each), and the bots not yet stopped were left to the end of the process."""
    from referee.server import runner
    from referee.server.launchers import ProcessHandle
    from referee.server.service import make_server as real_make

    made: list[object] = []
    real_stop = ProcessHandle.stop

    def make(service: object) -> object:
        made.append(server := real_make(service))  # type: ignore[arg-type]
        return server

    stopped: list[ProcessHandle] = []
    cleaning, cancelled = asyncio.Event(), asyncio.Event()

    async def slow_stop(self: ProcessHandle, grace: float = 1.0) -> None:
        stopped.append(self)
        cleaning.set()
        await asyncio.wait_for(cancelled.wait(), 60)  # the stop goes on once the cancellation has come
        await real_stop(self, grace)

    monkeypatch.setattr(runner, "make_server", make)
    monkeypatch.setattr(ProcessHandle, "stop", slow_stop)

    async def main() -> bool:
        setup = MatchSetup("generals-war", [SAMPLE_BOTS / "random"] * 2, 1, {}, TimeControl(), tmp_path)
        task = asyncio.create_task(run_local_match(setup))
        await cleaning.wait()
        task.cancel()
        cancelled.set()
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert asyncio.run(main()), "the cancellation still reaches the caller, after the clean-up"
    assert len(made) == 2 and not any(s._server.is_running() for s in made), "every seat's server stopped"  # type: ignore[attr-defined]
    assert len(stopped) == 2 and all(h.proc.returncode is not None for h in stopped), "both bots stopped"


def test_a_process_bot_is_stopped_at_its_cpu_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/faults.md: a bot process gets CPU_LIMIT_SECONDS of CPU (900; 1 here), then the kernel ends it (SIGXCPU):
    a bot that spins in a loop the referee has stopped waiting for does not burn a core for ever."""
    import sys
    import resource

    from referee.server import launchers

    monkeypatch.setattr(launchers, "CPU_LIMIT_SECONDS", 1)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    spin = subprocess.run(launchers.with_limits([sys.executable, "-c", "while True: pass"]), timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert spin.returncode in (-signal.SIGXCPU, -signal.SIGKILL), spin.returncode
    # What the limit bounds is CPU, not wall time (a busy host stretches the latter): the soft limit's second, and the
    # hard limit's one more at most before SIGKILL.
    used = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert used < 2.5, f"the spinning bot used {used:.1f} s of CPU under a limit of 1 s"


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_containers_endless_output_stops_at_the_log_cap_inside_it(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "write to stdout without end": Docker's daemons carried all of a container's output to a log of
    their own, outside the container's CPU limit (dockerd and containerd burnt 0.4 to 1 core for one bot writing
    without end). Now the output is cut to its first LOG_CAP_BYTES inside the container, on its own CPU, and the bot is
    not held up: it writes 64 MiB and exits."""
    from referee.server.launchers import LaunchSpec
    from referee.server.manifest import load_manifest
    from referee.server.sandbox import DockerHandle

    bot = tmp_path / "writer"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "writer"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\n'
        'command = ["python", "-c", "import os\\nfor _ in range(1024): os.write(1, b\'y\' * 65536)\\nraise SystemExit(5)"]\n'
    )
    manifest = load_manifest(bot)

    async def main() -> tuple[int, int]:
        (tmp_path / "seat").mkdir()
        spec = LaunchSpec(0, manifest, bot, tmp_path / "seat", tmp_path / "home", {"ARENA_MATCH_ID": f"writer-{os.getpid()}"}, tmp_path / "bot.log")
        handle = await launcher_for(sandbox).launch(spec)
        assert isinstance(handle, DockerHandle)
        try:
            code = await asyncio.wait_for(handle.wait(), 120)
            kept_by_docker = len(handle.container.logs(stdout=True, stderr=True))
        finally:
            await handle.stop(0)
        return code, kept_by_docker

    code, kept_by_docker = asyncio.run(main())
    assert code == 5, "the bot wrote all it meant to, and its exit code came through"
    assert kept_by_docker == LOG_CAP_BYTES + len(TRUNCATED), kept_by_docker
    data = (tmp_path / "bot.log").read_bytes()
    assert data.startswith(b"yyyy") and data.endswith(TRUNCATED) and len(data) == LOG_CAP_BYTES + len(TRUNCATED)


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_bot_cannot_write_past_the_cap_through_its_containers_first_process(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "write to the container's first process's output": the bot runs as the user of the process that
    caps its output, and opened that process's stdout (/proc/1/fd/1) to write to Docker's log past the cap, on the
    host's CPU (dockerd and containerd spent 0.5 core on it). That process is not dumpable now: its /proc entries are
    root's."""
    from referee.server.launchers import LaunchSpec
    from referee.server.manifest import load_manifest

    bot = tmp_path / "past-the-cap"
    bot.mkdir()
    (bot / "probe.py").write_text(
        "import os\n"
        "for fd in (1, 2):\n"
        "    try:\n"
        "        os.write(os.open(f'/proc/1/fd/{fd}', os.O_WRONLY), b'PAST THE CAP')\n"
        "        raise SystemExit(3)\n"
        "    except PermissionError:\n"
        "        print(f'pid 1 fd {fd} refused', flush=True)\n"
    )
    (bot / "bot.toml").write_text('name = "past"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\ncommand = ["python", "probe.py"]\n')
    manifest = load_manifest(bot)

    async def main() -> int:
        (tmp_path / "seat").mkdir()
        spec = LaunchSpec(0, manifest, bot, tmp_path / "seat", tmp_path / "home", {"ARENA_MATCH_ID": f"past-{os.getpid()}"}, tmp_path / "bot.log")
        handle = await launcher_for(sandbox).launch(spec)
        try:
            return await asyncio.wait_for(handle.wait(), 120)
        finally:
            await handle.stop(0)

    code = asyncio.run(main())
    log = (tmp_path / "bot.log").read_text()
    assert code == 0 and "PAST THE CAP" not in log, log
    assert "pid 1 fd 1 refused" in log and "pid 1 fd 2 refused" in log, log


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_output_without_end_is_cut_and_the_bot_plays_on(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "write to stdout and stderr without end": the log keeps its first 1 MiB, the bot is not held up."""
    played, kinds, log = play(tmp_path, "output_forever", sandbox)
    assert kinds == [], log[:200]
    data = played.logs[0].read_bytes()
    assert data.startswith(b"FIRST LINE OF THE LOG\n") and data.endswith(TRUNCATED) and len(data) == LOG_CAP_BYTES + len(TRUNCATED)


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_a_bot_slow_to_start_plays_if_it_connects_in_time(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "a slow start": 5 s before it connects, within the 30 s it has, costs nothing."""
    played, kinds, log = play(tmp_path, "slow_start", sandbox)
    assert kinds == [], log[-2000:]


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_a_bot_that_never_connects_is_a_no_show_its_log_says(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "never connects": NO_SHOW, FORFEIT. Its log was empty: a bot that printed nothing and never
    connected left its author nothing to read; now the log ends saying so, with the time it had."""
    tc = TimeControl(move_time_ms=400, time_bank_ms=0, strike_limit=1, connect_timeout_ms=4_000)
    played, kinds, log = play(tmp_path, "never_connect", sandbox, tc)
    assert kinds == ["NO_SHOW", "FORFEIT"], log[-2000:]
    no_show = played.record.result.seats[0].verdicts[0]
    assert no_show.detail == "the bot never connected within its 4 s to connect", no_show.detail
    assert log.endswith(f"[referee] at decision {no_show.decision_index}: {no_show.detail}\n"), log[-2000:]


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_a_bot_that_ignores_sigterm_is_killed_at_the_end_with_what_it_started(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "ignore SIGTERM": the bot and a child in a session of its own ignore it and sleep on after the
    game; the match still ends (within the stop's grace and the kill) and neither outlives it."""
    import time

    started = time.monotonic()
    played, kinds, log = play(tmp_path, "ignore_sigterm", sandbox)
    assert kinds == [] and "game over, sleeping on" in log, log[-2000:]
    assert time.monotonic() - started < 60
    if sandbox == "process":
        (pid,) = [int(line.split()[-1]) for line in log.splitlines() if line.startswith("escaped pid ")]
        assert started_at(pid) is None, "the child that ignores SIGTERM outlived the match"
    else:
        assert left_containers(played.record.match_id) == ""


@pytest.mark.parametrize("sandbox", runners("process", "docker"))
def test_orphans_that_end_are_reaped(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "leave orphans that end": in Docker the bot was the container's first process, which orphans
    come to; a Python bot reaps none, so each stayed a zombie counting against the 64 processes, and after 60 the bot
    could neither fork nor start a thread. Now the process that caps its output, first in the container, reaps them
    (in the process runner, the reaper does)."""
    played, kinds, log = play(tmp_path, "orphans", sandbox)
    assert kinds == [] and "100 orphans left" in log, log[-2000:]


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_bot_cannot_end_its_containers_first_process(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "signal its container's first process": a container's first process takes from inside it only
    the signals it handles. Python handles SIGINT: a bot's SIGINT to it ended its container, with a traceback of the
    referee's in the bot's log (KeyboardInterrupt)."""
    played, kinds, log = play(tmp_path, "signal_pid_1", sandbox)
    assert kinds == [] and "pid 1 signalled" in log and "Traceback" not in log, log[-2000:]


@pytest.mark.parametrize("sandbox", runners("docker"))
def test_a_bot_cannot_use_up_what_the_kernel_counts_per_user_for_other_containers(tmp_path: Path, sandbox: str) -> None:
    """docs/faults.md, "take every inotify instance its user may have": the kernel counts some things per user of the
    host, not per container (inotify instances, POSIX message queues' bytes). Every container ran as uid 10001: one
    bot holding its 128 inotify instances left none to any other bot on the machine, the other seat included. Each
    container now has a user of its own."""
    bots = [faulty_bot(tmp_path / str(seat), "inotify_hog") for seat in (0, 1)]
    setup = MatchSetup("generals-war", bots, 5, {}, TC, tmp_path / "logs", sandbox)
    played = asyncio.run(run_local_match(setup))
    logs = [log.read_text(errors="replace") for log in played.logs]
    for log in logs:
        (said,) = [line for line in log.splitlines() if line.startswith("inotify instances: ")]
        held, limit = said.removeprefix("inotify instances: ").split(" of ")
        assert held == limit, logs
    assert not any(seat.verdicts for seat in played.record.result.seats), logs
