"""The Docker sandbox: every bot in a container of its own, built locally, never pulled.

The image is empty but for a user, a few mount points and the dynamic
linker's cache (``FROM scratch``): at run time the host's /usr and Python
installation, and a runtime folder holding the bot SDK and its dependencies,
are mounted read-only. The container has no network, a read-only root with a
small tmpfs, memory, CPU and process limits, no capabilities, no new
privileges and an unprivileged user. Its only way out is the seat directory
holding the referee's socket for that seat alone, mounted read-only (a unix
socket can be connected to on a read-only mount).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import io
import os
import secrets
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.game import OptionError
from referee.server.launchers import (
    LOG_CAP_BYTES, BotHandle, EngineUnavailable, LaunchError, LaunchSpec, copy_failure, handed_on, process_start, resolve_command, same_process, this_machine, write_capped,
)

IMAGE = "arena-bot-runtime:1"
BOT_UID = 10001
#: Each container's own user, drawn from these (its group is BOT_UID): the kernel counts some things per user of the
#: host, not per container (inotify instances, POSIX message queues' bytes), and one user for every container let one
#: bot use them up for all the others on the machine.
BOT_UIDS = range(100_000, 1_100_000)
RUNTIME_MOUNT = "/opt/arena"
#: Third-party packages a bot needs at run time, copied from the referee's own environment.
RUNTIME_MODULES = ("grpc", "google.protobuf", "typing_extensions")
#: The most a bot folder may hold to be copied into a container.
BOT_COPY_LIMIT_BYTES = 1024 * 1024 * 1024
#: The container's first process: runs the bot and hands on its output's first LOG_CAP_BYTES only (capped_output.py).
CAPPED_OUTPUT = Path(__file__).with_name("capped_output.py")
#: Removes this process's containers once it is gone, even killed outright (sandbox_watch.py).
WATCHER = Path(__file__).with_name("sandbox_watch.py")


class SandboxError(OptionError):
    """The sandbox cannot be used: no Docker engine, or no image (run `arena sandbox build`)."""


@dataclass(frozen=True)
class Limits:
    memory: str = "512m"
    cpus: float = 1.0
    pids: int = 64
    tmpfs: str = "64m"


def runtime_dir() -> Path:
    return Path(os.environ.get("ARENA_SANDBOX_DIR", Path.home() / ".cache" / "arena" / "sandbox"))


def docker_client() -> Any:
    try:
        import docker

        client = docker.from_env()
        client.ping()
        return client
    except Exception as exc:  # the SDK raises several kinds; all mean "no engine here"
        cause: BaseException | None = exc
        while cause is not None and not isinstance(cause, PermissionError):
            cause = cause.__cause__ or cause.__context__
        if cause is not None:  # the engine runs, but its socket is not this user's to use: "start dockerd" misled
            raise SandboxError(
                f"the Docker engine refused this user ({exc}): run as root or as a user in the docker group "
                "(`usermod -aG docker USER`, then log in again), or use --sandbox process"
            ) from None
        raise SandboxError(f"no Docker engine can be reached ({exc}); start dockerd, or use --sandbox process") from None


def sdk_sources() -> dict[str, Path]:
    """The SDK and the protocol stubs, mounted read-only from where they live, so containers never run a stale copy."""
    return {
        "lib/arena_sdk": Path(importlib.import_module("arena_sdk").__file__ or "").parent,
        "lib/arena/v1": Path(importlib.import_module("arena.v1").__file__ or "").parent,
    }


def build_runtime(target: Path) -> Path:
    """Copy the SDK's dependencies into ``target``/site-packages, with mount points for the SDK and the stubs.

    Built again in place, never removed first: running containers have ``target`` mounted (and the SDK mounted on its
    mount points), and `arena sandbox build` run beside a ladder emptied it under them. Their bots' next import failed
    (a CRASH, and a forfeit charged to the bot), as did every bot started while it was rebuilt. The new site-packages
    is made beside the old, then takes its place.
    """
    target.mkdir(parents=True, exist_ok=True)
    site = Path(tempfile.mkdtemp(prefix=".site-packages-", dir=target))
    old, gone = target / "site-packages", target / f".old-site-packages-{uuid.uuid4().hex[:8]}"
    try:
        for name in RUNTIME_MODULES:
            module = importlib.import_module(name)
            source = Path(module.__file__ or "")
            top = name.split(".")[0]
            if source.name == "__init__.py":
                root = source.parent
                for _ in name.split(".")[1:]:
                    root = root.parent
                shutil.copytree(root, site / top, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(source, site / source.name)
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        if old.exists():
            old.rename(gone)
        site.rename(old)
    finally:
        shutil.rmtree(site, ignore_errors=True)
    shutil.rmtree(gone, ignore_errors=True)
    for mount_point in sdk_sources():
        (target / mount_point).mkdir(parents=True, exist_ok=True)
    (target / "lib" / "arena" / "__init__.py").write_text('"""Protocol stubs for bots."""\n')
    for path in [target, *(target / "lib").rglob("*"), target / "lib"]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def _image_context() -> bytes:
    """A build context: the Dockerfile and a tiny root file system."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:

        def add_file(name: str, data: bytes, mode: int = 0o644) -> None:
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))

        def add_dir(name: str, mode: int = 0o755) -> None:
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)

        def add_link(name: str, target: str) -> None:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)

        add_file("Dockerfile", f"FROM scratch\nCOPY rootfs/ /\nUSER {BOT_UID}:{BOT_UID}\nWORKDIR /bot\n".encode())
        for d in ("rootfs", "rootfs/etc", "rootfs/usr", "rootfs/bot", "rootfs/arena", "rootfs/opt", "rootfs/opt/arena", "rootfs/root", "rootfs/proc", "rootfs/dev", "rootfs/sys"):
            add_dir(d)
        add_dir("rootfs/tmp", 0o1777)
        for name, target in (("bin", "usr/bin"), ("lib", "usr/lib"), ("lib64", "usr/lib64"), ("sbin", "usr/sbin")):
            add_link(f"rootfs/{name}", target)
        add_file("rootfs/etc/passwd", f"root:x:0:0:root:/root:/bin/sh\nbot:x:{BOT_UID}:{BOT_UID}:bot:/tmp:/bin/sh\n".encode())
        add_file("rootfs/etc/group", f"root:x:0:\nbot:x:{BOT_UID}:\n".encode())
        add_file("rootfs/etc/ld.so.cache", Path("/etc/ld.so.cache").read_bytes())
    return buffer.getvalue()


def build_image(client: Any | None = None) -> str:
    """Build the runtime image and the runtime folder; returns the image id."""
    client = client or docker_client()
    site = build_runtime(runtime_dir())
    image, _ = client.images.build(
        fileobj=io.BytesIO(_image_context()),
        custom_context=True,
        tag=IMAGE,
        rm=True,
        pull=False,
        labels={"arena.runtime": str(site), "arena.python": sys.base_prefix},
    )
    return str(image.id)


def copy_bot(source: Path, target: Path, limit: int = BOT_COPY_LIMIT_BYTES) -> None:
    """Copy a bot folder for a container: links stay links, so they resolve inside the container, never to the host's files.

    Everything in the copy is readable by the container's user, and what its owner could run stays executable.

    Only regular files, folders and links are copied, ``limit`` bytes at most: a bot folder is not trusted
    (a link to /dev/zero, followed, would fill the disk), and the copy runs on a thread nothing can cancel.
    """
    total = 0

    def copy_file(src: str, dst: str) -> str:
        nonlocal total
        info = os.lstat(src)
        if not stat.S_ISREG(info.st_mode):
            raise LaunchError(f"the bot folder holds {src}, which is not a regular file, a folder or a link")
        total += info.st_size
        if total > limit:
            raise LaunchError(f"the bot folder holds more than {limit:,} bytes; the sandbox copies at most that")
        return str(shutil.copy2(src, dst, follow_symlinks=False))

    try:
        shutil.copytree(source, target, symlinks=True, copy_function=copy_file)
    except shutil.Error as exc:  # copytree gathers the errors of its files
        raise LaunchError(f"could not copy the bot folder: {copy_failure(exc)}") from None
    for folder, _, files in os.walk(target):  # links are not followed, and chmod on one would change its target
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                # Readable by the container's user; a file its owner could run (a compiled bot, a script) stays runnable.
                os.chmod(path, 0o755 if os.stat(path).st_mode & stat.S_IXUSR else 0o644)


@dataclass
class _Owner:
    """This process's token, labelling its containers ``arena.owner``, and the watcher that removes them once it is gone."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    pid: int = 0  # the process that started the watcher: a forked child starts one of its own
    token: str = ""
    watcher: subprocess.Popen[bytes] | None = None


_OWNER = _Owner()


def owner_token() -> str:
    """The label value of this process's containers; starts the watcher, or starts it again should it have died."""
    with _OWNER.lock:
        if _OWNER.pid != os.getpid():
            if _OWNER.watcher is not None and _OWNER.watcher.stdin is not None:
                _OWNER.watcher.stdin.close()  # the parent's: held here, it would hide the parent's end from its watcher
            _OWNER.pid, _OWNER.token, _OWNER.watcher = os.getpid(), f"{os.getpid()}-{uuid.uuid4().hex[:12]}", None
        if _OWNER.watcher is None or _OWNER.watcher.poll() is not None:
            try:
                # The pipe's write end stays here alone (not inherited past exec); the watcher reads its end when this process ends.
                _OWNER.watcher = subprocess.Popen(
                    [sys.executable, "-I", str(WATCHER), _OWNER.token], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True
                )
            except OSError as exc:
                raise LaunchError(f"could not start the container watcher: {exc}") from None
        return _OWNER.token


def remove_orphans(client: Any) -> int:
    """Remove the containers of this machine's referees that died together with their watchers; returns how many.

    The watcher removes a dead referee's containers, but it can die with it: a service stopped by killing its
    whole cgroup, the OOM killer. Their bots then ran on. A referee that starts containers sweeps for containers
    labelled with this machine whose owner's process is gone (SWEEP_EVERY_S). A live referee's are left alone;
    a dead one's pid since given to another process is told apart by its start time (``arena.owner-start``).
    """
    removed = 0
    for container in client.containers.list(all=True, filters={"label": f"arena.machine={this_machine()}"}):
        labels = container.labels or {}
        pid = str(labels.get("arena.owner", "")).split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or same_process(int(pid), str(labels.get("arena.owner-start", ""))):
            continue
        _remove(container)
        removed += 1
    return removed


#: A referee that keeps starting containers sweeps again this long after its last sweep: a ladder runs for
#: weeks, and a referee killed beside it meanwhile (another ladder's worker, a tournament) leaves its bots running.
SWEEP_EVERY_S = 600.0
_last_sweep: dict[int, float] = {}  # per process (a forked child sweeps again, harmlessly): when it last swept


def sweep_orphans() -> None:
    """``remove_orphans`` on a thread of its own, at a process's first container and then every SWEEP_EVERY_S at most:
    a match does not wait for it."""
    now = time.monotonic()
    last = _last_sweep.get(os.getpid())
    if last is not None and now - last < SWEEP_EVERY_S:
        return
    _last_sweep[os.getpid()] = now

    def sweep() -> None:
        try:
            if removed := remove_orphans(docker_client()):
                print(f"[referee] removed {removed} bot containers left by referees of this machine that were killed", file=sys.stderr, flush=True)
        except Exception:  # noqa: BLE001 - the engine went away: the next sweep tries again
            pass

    threading.Thread(target=sweep, daemon=True, name="arena-sweep-orphans").start()


class _LogPump(threading.Thread):
    """Copies a container's output to its log as it comes, the first LOG_CAP_BYTES of it.

    Docker's own log (json-file, capped) keeps the newest output and drops the oldest; the start of a
    bot's output, where its errors usually are, is what its author needs.
    """

    def __init__(self, container: Any, log_path: Path, stopping: threading.Event | None = None) -> None:
        super().__init__(daemon=True, name=f"arena-log-{log_path.name}")
        self.container, self.log_path = container, log_path
        self.stopping = stopping or threading.Event()

    def run(self) -> None:
        written = 0
        try:
            out = self.log_path.open("wb")
        except OSError:  # a full disk, a folder gone: Docker keeps the output, and the bot is not held up by it
            return
        with out:
            while True:
                try:
                    stream = self.container.logs(stdout=True, stderr=True, stream=True, follow=True)
                    try:
                        # Read again from its start after the engine came back: what the log has already is skipped.
                        skip = written
                        for chunk in stream:
                            chunk, skip = chunk[skip:], max(0, skip - len(chunk))
                            if chunk:
                                written = write_capped(out, chunk, written)
                            if written >= LOG_CAP_BYTES:
                                break
                    finally:
                        getattr(stream, "close", lambda: None)()
                    # The stream ends with the container, and also, as quietly, when the engine stops answering
                    # (dockerd restarted with live-restore): the bot plays on, and its log ended there. Docker keeps all
                    # of it (its output is cut in the container, to less than Docker's log's size): read again.
                    if written >= LOG_CAP_BYTES or not self._running():
                        return
                except Exception as exc:  # noqa: BLE001 - the container went away mid-stream: the log keeps what came
                    if _engine_answered(exc):
                        return
                if self.stopping.wait(ENGINE_RETRY_S):
                    return

    def _running(self) -> bool:
        """Whether the container runs still, or cannot be told to have ended (the engine does not answer)."""
        try:
            self.container.reload()
            return bool(self.container.attrs["State"]["Running"])
        except Exception as exc:  # noqa: BLE001 - no such container, or no engine
            return not _engine_answered(exc) and hasattr(self.container, "reload")


class DockerHandle:
    def __init__(self, container: Any, log_path: Path, memory: str = Limits.memory) -> None:
        self.container = container
        self.log_path = log_path
        self.memory = memory
        #: The CRASH verdict's detail when the kernel killed a process of the container at its memory limit (launchers.why_ended).
        self.why_ended = ""
        self._stopping = threading.Event()  # the match is over: the wait for the container's end gives up on an engine gone
        self.pump = _LogPump(container, log_path, self._stopping)
        self.pump.start()
        loop = asyncio.get_running_loop()
        self._exit: asyncio.Future[int] = loop.create_future()
        # On a thread of its own, not asyncio's default executor: that has cpu count + 4 threads (6 on two cores),
        # and the containers of two four-seat matches waited on all of them, so that a stop's kill never ran.
        threading.Thread(target=self._wait_for_exit, args=(loop,), daemon=True, name=f"arena-wait-{log_path.name}").start()

    def _wait_for_exit(self, loop: asyncio.AbstractEventLoop) -> None:
        while True:
            try:
                code = int(self.container.wait().get("StatusCode", -1))
                break
            except Exception as exc:  # noqa: BLE001 - the engine answered with an error, or did not answer
                if _engine_answered(exc) or self._stopping.wait(ENGINE_RETRY_S):
                    code = -1  # the container is gone (removed by another hand), or the match is over: its end is unknown
                    break
                # The engine stopped answering (dockerd restarted, killed): the bot plays on, on the referee's socket,
                # and was told as a CRASH "exited with code -1" while it did. Asked again until the match ends.
        self.why_ended = self._out_of_memory(code)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(self._exited, code)

    def _out_of_memory(self, code: int) -> str:
        """Why the container ended, if the kernel killed a process of it at its memory limit; else "".

        Docker tells a killed bot's end as exit code 137 (128 + SIGKILL), and nothing reaches its log: "exited with
        code 137" left its author to guess at a signal from nowhere."""
        try:
            self.container.reload()
            killed = bool(self.container.attrs["State"]["OOMKilled"])
        except Exception:  # noqa: BLE001 - removed meanwhile, or the engine is gone: the exit code alone is told
            return ""
        if not killed:
            return ""
        units = {"k": " KiB", "m": " MiB", "g": " GiB"}
        limit = self.memory[:-1] + units[self.memory[-1].lower()] if self.memory[-1:].lower() in units else f"{self.memory} bytes"
        if code == 128 + 9:
            return f"the bot's process was killed at its memory limit of {limit} (out of memory; exit code {code})"
        return f"the bot's process exited with code {code} (a process of its container was killed at its memory limit of {limit})"

    def _exited(self, code: int) -> None:
        if not self._exit.done():
            self._exit.set_result(code)

    async def wait(self) -> int:
        return await asyncio.shield(self._exit)

    async def stop(self, grace: float = 1.0) -> None:
        self._stopping.set()
        try:
            await asyncio.wait_for(self.wait(), grace)
        except TimeoutError:
            pass
        await asyncio.to_thread(self._finish)

    def _finish(self) -> None:
        try:
            self.container.kill()
        except Exception:  # already gone
            pass
        self.pump.join(5.0)
        _remove(self.container)


#: How often the end of a container is asked for again while the engine does not answer.
ENGINE_RETRY_S = 1.0


def _engine_answered(exc: Exception) -> bool:
    """Whether ``exc`` is the engine's answer (an HTTP error: no such container), not a connection to it that failed."""
    try:
        import docker.errors

        return isinstance(exc, docker.errors.APIError)
    except ImportError:
        return True


def _engine_unreachable(exc: Exception) -> bool:
    """Whether ``exc`` is a connection to the engine that failed or timed out (not an answer of the engine's, which may
    be the bot's doing: a command that does not exist)."""
    try:
        import requests.exceptions
    except ImportError:
        return False
    return isinstance(exc, (requests.exceptions.ConnectionError, requests.exceptions.Timeout))


def _remove(container: Any) -> None:
    try:
        container.remove(force=True)
    except Exception:  # noqa: BLE001 - already removed, or the engine is gone: nothing more to do here
        pass


@dataclass
class _Start:
    """One container's start, shared between the thread that starts it and the task that waits for it.

    The thread cannot be stopped: when the task is cancelled (Ctrl-C, a match ended early), whichever
    of the two comes second removes the container.
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    abandoned: bool = False
    container: Any = None


class DockerLauncher:
    """Starts each bot in a fresh container of the locally built image."""

    name = "docker"

    def __init__(self, limits: Limits = Limits(), client: Any | None = None) -> None:
        self.client = client or docker_client()
        self.limits = limits
        try:
            image = self.client.images.get(IMAGE)
        except Exception:
            raise SandboxError(f"the sandbox image {IMAGE} is missing; build it with `arena sandbox build`") from None
        labels = image.labels or {}
        self.runtime = labels.get("arena.runtime", "")
        self.python = labels.get("arena.python", "")
        if not Path(self.runtime).is_dir() or not Path(self.python).is_dir():
            raise SandboxError(f"the runtime of {IMAGE} is gone from this machine; rebuild it with `arena sandbox build`")
        sweep_orphans()

    def _run(self, spec: LaunchSpec, start: _Start) -> Any:
        sweep_orphans()  # again now and then: a ladder starts containers for weeks
        bot = spec.home / "bot"  # a fresh, readable copy: the container's user is not the owner
        copy_bot(spec.bot_dir, bot)
        python = f"{self.python}/bin/python3"
        # Its output cut inside the container, on its CPU: Docker's daemons carried it all, on the host's.
        command = [python, "-I", "-S", "-c", CAPPED_OUTPUT.read_text(), str(LOG_CAP_BYTES), *resolve_command(spec.manifest.command, python=python)]
        uid = BOT_UIDS[secrets.randbelow(len(BOT_UIDS))]
        passwd = spec.home / "passwd"  # the container's user by name too (whoami, Node's os.userInfo)
        passwd.write_text(f"root:x:0:0:root:/root:/bin/sh\nbot:x:{uid}:{BOT_UID}:bot:/tmp:/bin/sh\n")
        passwd.chmod(0o644)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONPATH": f"{RUNTIME_MOUNT}/lib:{RUNTIME_MOUNT}/site-packages",
            "PYTHONNOUSERSITE": "1",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "ARENA_ADDRESS": "unix:/arena/referee.sock",
            **handed_on(),
            **spec.env,
        }
        import docker

        container = self.client.containers.create(
            IMAGE,
            command=command,
            name=f"arena-{spec.env.get('ARENA_MATCH_ID', 'match')}-seat{spec.seat}-{uuid.uuid4().hex[:8]}",
            environment=env,
            user=f"{uid}:{BOT_UID}",
            working_dir="/bot",
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"size={self.limits.tmpfs},mode=1777"},
            mem_limit=self.limits.memory,
            memswap_limit=self.limits.memory,
            nano_cpus=int(self.limits.cpus * 1e9),
            pids_limit=self.limits.pids,
            # No core files, and no raising the limit: a host whose core_pattern is a pipe runs its helper on the host for
            # each core a container dumps, and keeps the cores there.
            ulimits=[docker.types.Ulimit(name="core", soft=0, hard=0)],
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            volumes={
                "/usr": {"bind": "/usr", "mode": "ro"},
                self.python: {"bind": self.python, "mode": "ro"},
                self.runtime: {"bind": RUNTIME_MOUNT, "mode": "ro"},
                **{str(source): {"bind": f"{RUNTIME_MOUNT}/{point}", "mode": "ro"} for point, source in sdk_sources().items()},
                str(bot): {"bind": "/bot", "mode": "ro"},
                str(spec.seat_dir): {"bind": "/arena", "mode": "ro"},
                str(passwd): {"bind": "/etc/passwd", "mode": "ro"},
            },
            log_config=docker.types.LogConfig(type="json-file", config={"max-size": "4m", "max-file": "1"}),
            labels={
                "arena.seat": str(spec.seat), "arena.match": spec.env.get("ARENA_MATCH_ID", ""), "arena.owner": owner_token(),
                "arena.machine": this_machine(), "arena.owner-start": process_start(os.getpid()) or "",
            },
        )
        try:
            container.start()
        except Exception:
            _remove(container)  # created but not started (a command that does not exist): not left behind
            raise
        with start.lock:
            start.container = container
            abandoned = start.abandoned
        if abandoned:
            _remove(container)
            raise LaunchError("the match ended while the container started")
        return container

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        spec.home.mkdir(parents=True, exist_ok=True)
        start = _Start()
        try:
            container = await asyncio.to_thread(self._run, spec, start)
        except asyncio.CancelledError:
            with start.lock:
                start.abandoned = True
                started = start.container
            if started is not None:  # the thread got there first: this task removes it
                await asyncio.to_thread(_remove, started)
            raise
        except LaunchError:
            raise
        except Exception as exc:
            if _engine_unreachable(exc):
                raise EngineUnavailable(f"could not start the container: the Docker engine did not answer ({type(exc).__name__})") from None
            raise LaunchError(f"could not start the container: {exc}") from None
        return DockerHandle(container, spec.log_path, self.limits.memory)
