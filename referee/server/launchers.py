"""Starting bots: as local processes (the default) or in Docker containers (referee/server/sandbox.py).

Either way a bot gets its directory, a private writable HOME, a seat directory
holding the only socket it may reach, and the ARENA_* variables; its output
goes to a capped log; it is killed, with everything it started, when the
match ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from referee.server import cpus
from referee.server.capped_output import TRUNCATED as TRUNCATED
from referee.server.cpus import CpuClaim
from referee.server.manifest import BotManifest

LOG_CAP_BYTES = 1024 * 1024
#: Past its log's cap a bot's output is read one chunk (64 KiB) this far apart, at most 6.4 MB/s: read as fast as
#: the bot wrote it, it took 0.1 core of the referee's event loop for each such bot.
DRAIN_PAUSE_S = 0.01
#: Address space a bot process may use (the subprocess runner's memory limit).
MEMORY_LIMIT_BYTES = 2 * 1024 * 1024 * 1024
#: CPU seconds a bot process may use in one match.
CPU_LIMIT_SECONDS = 900


@dataclass(frozen=True)
class LaunchSpec:
    seat: int
    manifest: BotManifest
    bot_dir: Path  # the bot's files (the runner may hand a fresh copy)
    seat_dir: Path  # holds referee.sock, this seat's only way out
    home: Path  # private writable directory
    env: dict[str, str]  # ARENA_* variables; the launcher adds ARENA_ADDRESS, pointing into seat_dir, unless ``control``
    log_path: Path
    #: Keep the bot's stdin open as a control pipe: it is handed one match per line (ARENA_CONTROL=stdin).
    control: bool = False


class BotHandle(Protocol):
    """A started bot."""

    async def wait(self) -> int:
        """Wait for the bot to end; its exit code."""
        ...

    async def stop(self, grace: float = 1.0) -> None:
        """Let the bot end within ``grace`` seconds, then kill it and all it started; finish its log."""
        ...


def why_ended(handle: BotHandle, code: int) -> str:
    """The detail of the CRASH verdict of a bot that ended before its match: its exit code, unless its handle is
    no process and says why it ended (``why_ended``: the keyboard's seat of `arena play`, whose player resigned)."""
    return str(getattr(handle, "why_ended", "")) or f"the bot's process exited with code {code}"


def resigned(handle: BotHandle) -> bool:
    """Whether the seat ended because its player resigned (``resigned``: the keyboard's seat of `arena play`): a
    RESIGNED verdict, not a CRASH."""
    return bool(getattr(handle, "resigned", False))


class Launcher(Protocol):
    name: str

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        """Start a bot; raises LaunchError when it cannot be started at all."""
        ...


class LaunchError(RuntimeError):
    """A bot that could not be started (the message goes to its log and its verdict)."""


class EngineUnavailable(LaunchError):
    """A bot not started because the sandbox's engine did not answer (dockerd down or restarting): the platform's
    fault, not the bot's. Its seat is a CRASH all the same; the ladder plays the match again rather than rate it."""


def copy_failure(exc: OSError) -> str:
    """Why a copy of a bot's folder failed: shutil.copytree gathers its files' errors into one, as a list."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        return "; ".join(str(reason) for _, _, reason in exc.args[0][:3])
    return str(exc)


def resolve_command(command: tuple[str, ...], python: str = sys.executable) -> list[str]:
    """``python`` in a manifest means the referee's own interpreter, which has the SDK installed."""
    first, *rest = command
    if first in ("python", "python3"):
        first = python
    return [first, *rest]


def with_limits(command: list[str]) -> list[str]:
    """Run ``command`` under the subprocess runner's limits (no core files, capped memory and CPU time).

    A shell sets the limits and then execs the bot: a Python ``preexec_fn``
    would run Python code in a forked copy of the multi-threaded referee, which
    is not safe.
    """
    script = f'ulimit -c 0; ulimit -v {MEMORY_LIMIT_BYTES // 1024}; ulimit -t {CPU_LIMIT_SECONDS}; exec "$@"'
    return ["/bin/sh", "-c", script, "arena-bot", *command]


#: Starts each bot of the process runner and kills, when the bot ends or is stopped, everything it started (reaper.py).
REAPER = Path(__file__).with_name("reaper.py")
#: How long a stopped bot's reaper may take to kill what the bot started, before its process group is killed instead.
REAP_TIMEOUT_S = 5.0
#: How long a bot's output may take to close once its process group is gone, before what else holds it is looked for.
SETTLE_S = 0.5


def reaped(command: list[str], cpu: int | None = None) -> list[str]:
    """Run ``command`` under the reaper, which kills all it started when it ends, even what left its process group.

    The reaper is to be started by this process, whose pid it is given: it also kills all it started once this
    process is gone, should the referee be killed outright (SIGKILL) or crash, and could stop nothing itself.
    With ``cpu`` the reaper pins itself to that CPU before it starts the command, which is so born pinned, it and
    all it starts (reaper.py ``pin``).
    """
    pinned = [f"--cpu={cpu}"] if cpu is not None else []
    return [sys.executable, "-I", "-S", str(REAPER), f"--parent={os.getpid()}", *pinned, *command]


#: Variables of the referee's environment its bots are handed: ``ARENA_LOG_LEVEL=DEBUG arena match ...`` sets the
#: SDKs' level in the bots it starts, as it does for a bot run by hand. Nothing else: the rest may hold secrets.
HANDED_ON = ("ARENA_LOG_LEVEL",)


def handed_on() -> dict[str, str]:
    """The HANDED_ON variables set here (a level is a word: longer values are not handed on)."""
    return {name: value for name in HANDED_ON if (value := os.environ.get(name, "")) and len(value) <= 16}


def bot_environment(home: Path, extra: dict[str, str]) -> dict[str, str]:
    """A bot sees none of the referee's environment (it may hold secrets): only what it needs to run."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TMPDIR": str(home),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        **handed_on(),
        **extra,
    }


def write_capped(out: BinaryIO, chunk: bytes, written: int) -> int:
    """Write what of ``chunk`` fits in a log's first LOG_CAP_BYTES (then TRUNCATED, once); returns the bytes written so far."""
    if written >= LOG_CAP_BYTES:
        return written
    piece = chunk[: LOG_CAP_BYTES - written]
    out.write(piece)
    written += len(piece)
    if written >= LOG_CAP_BYTES:
        out.write(TRUNCATED)
    out.flush()
    return written


async def pump_log(stream: asyncio.StreamReader, path: Path) -> None:
    """Copy a bot's output to its log, up to LOG_CAP_BYTES; the rest is read and dropped, DRAIN_PAUSE_S a chunk.

    A log that cannot be written (a full disk) keeps what it has, and the output is still read to its end: the bot,
    its pipe full, hung on its next print, and the error came out of the match when the bot was stopped."""
    written = 0
    out: BinaryIO | None = None
    with contextlib.suppress(OSError):
        out = path.open("wb")
    try:
        while chunk := await stream.read(65536):
            if out is not None and written < LOG_CAP_BYTES:
                try:
                    written = write_capped(out, chunk, written)
                except OSError:
                    written = LOG_CAP_BYTES  # nothing more is written
            if written >= LOG_CAP_BYTES or out is None:
                await asyncio.sleep(DRAIN_PAUSE_S)  # what is dropped is read slowly: the bot waits, not the referee
    finally:
        if out is not None:
            with contextlib.suppress(OSError):  # the last of it not written either
                out.close()


def this_machine() -> str:
    """The host name and PID namespace: where a process id recorded by another process names the same process."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = "-"
    return f"{socket.gethostname()}/{namespace}"[:200]


def process_alive(pid: int) -> bool:
    """Whether a process of this PID namespace has that id (another user's counts; a reused id reads as alive)."""
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:
        return True
    return True


def process_start(pid: int) -> str | None:
    """When the process ``pid`` started (clock ticks since boot, from /proc), which tells it from a later process
    given the same id; None if there is no such process, "" where /proc does not say."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return "" if process_alive(pid) else None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, counting from the state (field 3) after the command's name


def same_process(pid: int, started: str) -> bool:
    """Whether ``pid`` still names the process that ``process_start`` gave ``started`` for: a pid of a process gone
    and reused by another reads as gone. Where either start time is unknown (""), a live pid is taken as the same."""
    now = process_start(pid)
    return now is not None and (now == "" or started == "" or now == started)


class _ExitWatch(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's protocol for a process's streams, telling also the moment the process itself ends: its Process.wait()
    returns only once the output's pipe has closed too, which a process the bot moved to a session of its own may
    hold open long after the bot and its reaper are gone."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit, loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


async def start_process(*command: str, log_path: Path, control: bool = False, **options: Any) -> ProcessHandle:
    """Start ``command`` in a session of its own, its output (stdout and stderr) going to ``log_path``; ``control``:
    keep its stdin open as a pipe. ``options`` go to asyncio's subprocess_exec (cwd, env)."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _ExitWatch(2**16, loop),
        *command,
        stdin=asyncio.subprocess.PIPE if control else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
        **options,
    )
    return ProcessHandle(transport, protocol, log_path)


def pipe_holders(inode: int) -> list[int]:
    """The processes, this one aside, with an end of the pipe ``inode`` open (those of other users are not seen)."""
    link, me, found = f"pipe:[{inode}]", os.getpid(), []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            fds = os.listdir(f"/proc/{name}/fd")
        except OSError:  # gone meanwhile, or another user's
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{name}/fd/{fd}") == link:
                    found.append(int(name))
                    break
            except OSError:
                continue
    return found


def kill_pipe_holders(inode: int, rounds: int = 100) -> None:
    """Kill every process that holds the pipe ``inode`` open, and what they start meanwhile (``rounds`` scans at most)."""
    for _ in range(rounds):
        if not (found := pipe_holders(inode)):
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)  # a killed process closes its files as it exits


class ProcessHandle:
    """A process started by ``start_process``: the reaper, running the bot."""

    def __init__(self, transport: asyncio.SubprocessTransport, protocol: _ExitWatch, log_path: Path) -> None:
        self.transport = transport
        self.exited = protocol.exited
        self.proc = asyncio.subprocess.Process(transport, protocol, asyncio.get_running_loop())
        assert self.proc.stdout is not None
        output = transport.get_pipe_transport(1)
        assert output is not None
        self.output_pipe = os.fstat(output.get_extra_info("pipe").fileno()).st_ino
        self.pump = asyncio.create_task(pump_log(self.proc.stdout, log_path))
        self.log_path = log_path
        self.cpu: int | None = None  # the CPU it is pinned to (ProcessLauncher's pin_cpus)

    def send_control(self, line: str) -> None:
        """Hand a bot started with a control pipe one line (its next match); BrokenPipeError if it is gone."""
        if self.proc.stdin is None or self.proc.returncode is not None:
            raise BrokenPipeError("the bot's process has ended")
        self.proc.stdin.write(line.encode() + b"\n")

    def close_control(self) -> None:
        """No more matches: a bot reading its matches on stdin sees the end of it and exits."""
        if self.proc.stdin is not None and not self.proc.stdin.is_closing():
            self.proc.stdin.close()

    async def wait(self) -> int:
        """The exit code once the process has ended, whoever still holds its output open."""
        await asyncio.shield(self.exited)  # a waiter cancelled must not cancel the end for the others
        assert self.proc.returncode is not None
        return self.proc.returncode

    def kill_group(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    async def stop(self, grace: float = 1.0) -> None:
        self.close_control()
        if self.proc.returncode is None:
            try:
                await asyncio.wait_for(self.wait(), grace)
            except TimeoutError:
                try:
                    self.proc.terminate()  # the reaper kills the bot and everything it started, then exits
                    # A bot may have stopped its reaper (SIGSTOP): continued, it does that work at once, where the
                    # stop waited REAP_TIMEOUT_S for it and then killed its group, and the pipes' holders one by one.
                    os.kill(self.proc.pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass  # it ended as the grace ran out: asyncio has already let go of it
                try:
                    await asyncio.wait_for(self.wait(), REAP_TIMEOUT_S)
                except TimeoutError:
                    pass
        self.kill_group()  # whatever is left in the group, should the reaper be gone (a bot may kill it)
        with contextlib.suppress(TimeoutError):  # the reaper was in the group: this is a moment
            await asyncio.wait_for(self.wait(), REAP_TIMEOUT_S)
        await self.finish_log()

    async def finish_log(self) -> None:
        """Read the output to its end and close it. A bot that killed or stopped its reaper may have left processes in
        sessions of their own holding it open: they are found by the pipe they hold, and killed."""
        await asyncio.wait({self.pump}, timeout=SETTLE_S)
        if not self.pump.done():
            await asyncio.to_thread(kill_pipe_holders, self.output_pipe)
        try:
            await asyncio.wait_for(self.pump, 2.0)
        except TimeoutError:
            pass  # wait_for has cancelled it
        # Closed here, on the running loop: left to the garbage collector after the loop's end, an open pipe said
        # "Event loop is closed".
        self.transport.close()


class ProcessLauncher:
    """Each bot in its own process group (its own session), with resource limits, killed with all it started.

    ``pin_cpus``: each bot held to one CPU, as a container is (cpus.py chooses which): a bot that spreads its search
    over threads no longer takes the cores its opponent would use. Where the platform cannot pin (macOS), bots run
    unpinned and that is said once in the log; the CLI refuses the option there instead (``cpus.available``).
    """

    name = "process"

    def __init__(self, pin_cpus: bool = False) -> None:
        self.pin_cpus = pin_cpus

    def claim_cpu(self) -> CpuClaim | None:
        """A CPU for the next bot, counted until it ends; None when not pinning."""
        if not self.pin_cpus:
            return None
        if not cpus.available():
            cpus.warn_unavailable()
            return None
        return cpus.claim()

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        # Its folder made again if it went, not its parents: its caller made them (a ladder's data folder moved away as the
        # match started was made again around a seat's log).
        spec.log_path.parent.mkdir(exist_ok=True)
        spec.home.mkdir(parents=True, exist_ok=True)
        # A pooled process learns each match's address from its control pipe: an address here would name no socket.
        extra = {"ARENA_CONTROL": "stdin", **spec.env} if spec.control else {"ARENA_ADDRESS": f"unix:{spec.seat_dir / 'referee.sock'}", **spec.env}
        held = self.claim_cpu()
        command = reaped(with_limits(resolve_command(spec.manifest.command)), held.cpu if held is not None else None)
        try:
            handle = await start_process(*command, log_path=spec.log_path, control=spec.control, cwd=spec.bot_dir, env=bot_environment(spec.home, extra))
        except BaseException as exc:
            if held is not None:
                held.release()  # not started (or cancelled as it started): its CPU is free again
            if isinstance(exc, (OSError, ValueError)):  # ValueError: a NUL in an argument or the environment
                raise LaunchError(f"could not start {spec.manifest.command!r}: {exc}") from None
            raise
        if held is not None:
            handle.cpu = held.cpu
            handle.exited.add_done_callback(lambda _: held.release())  # the reaper is gone, and all below it with it
        return handle
