"""The Docker launcher's own logic, with a stand-in for the Docker client (no engine needed): its clear errors, a start
cancelled at the worst moment, and the watcher that removes a killed referee's containers."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from referee.server import sandbox
from referee.server.launchers import LaunchSpec
from referee.server.manifest import load_manifest
from referee.server.sandbox import DockerLauncher, SandboxError
from tests.support import SAMPLE_BOTS
from tests.test_referee_killed import wait_until


class Container:
    def __init__(self) -> None:
        self.removed = False

    def start(self) -> None:
        pass

    def remove(self, force: bool = False) -> None:
        self.removed = True

    def logs(self, **kwargs: Any) -> list[bytes]:
        return [b"played\n"]

    def wait(self) -> dict[str, int]:
        return {"StatusCode": 0}

    def kill(self) -> None:
        pass


@dataclass
class Image:
    labels: dict[str, str]


class Client:
    """What DockerLauncher asks of the Docker client: the image, and containers to create."""

    def __init__(self, image: Image | None) -> None:
        self.image, self.created = image, list[Container]()
        self.images, self.containers = self, self

    def get(self, name: str) -> Image:
        if self.image is None:
            raise LookupError(f"No such image: {name}")  # the SDK raises docker.errors.ImageNotFound
        return self.image

    def create(self, image: str, **kwargs: Any) -> Container:
        self.created.append(container := Container())
        return container


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing reaches a real engine: no sweep for orphans, no watcher."""
    monkeypatch.setattr(sandbox, "sweep_orphans", lambda: None)
    monkeypatch.setattr(sandbox, "owner_token", lambda: "test-token")


def runtime_labels(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "runtime").mkdir(exist_ok=True)
    return {"arena.runtime": str(tmp_path / "runtime"), "arena.python": sys.base_prefix}


def test_a_missing_image_or_runtime_is_a_clear_error(tmp_path: Path, no_engine: None) -> None:
    """`arena ... --sandbox docker` says what to do (`arena sandbox build`), not a traceback or a container that cannot run."""
    with pytest.raises(SandboxError, match="the sandbox image arena-bot-runtime:1 is missing; build it with `arena sandbox build`"):
        DockerLauncher(client=Client(None))
    for gone in ("arena.runtime", "arena.python"):
        labels = {**runtime_labels(tmp_path), gone: str(tmp_path / "gone")}
        with pytest.raises(SandboxError, match="is gone from this machine; rebuild it with `arena sandbox build`"):
            DockerLauncher(client=Client(Image(labels)))
    DockerLauncher(client=Client(Image(runtime_labels(tmp_path))))


def test_no_engine_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'no-such.sock'}")
    with pytest.raises(SandboxError, match="no Docker engine can be reached .*use --sandbox process"):
        sandbox.docker_client()


def test_a_container_started_just_as_its_launch_is_cancelled_is_removed(tmp_path: Path, no_engine: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after the starting thread has the container but before the task has it: the task removes it."""
    handed = threading.Event()

    class Start(sandbox._Start):
        def __setattr__(self, name: str, value: Any) -> None:
            super().__setattr__(name, value)
            if name == "container" and value is not None:
                handed.set()

    monkeypatch.setattr(sandbox, "_Start", Start)
    client = Client(Image(runtime_labels(tmp_path)))
    launcher = DockerLauncher(client=client)
    manifest = load_manifest(SAMPLE_BOTS / "random")
    (tmp_path / "seat").mkdir()
    spec = LaunchSpec(0, manifest, manifest.path, tmp_path / "seat", tmp_path / "home", {"ARENA_MATCH_ID": "m"}, tmp_path / "bot.log")

    async def cancel_once_handed() -> None:
        task = asyncio.create_task(launcher.launch(spec))
        await asyncio.sleep(0)  # the task now waits for its thread
        assert handed.wait(60)  # blocking the loop: the thread's result cannot reach the task before the cancel
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_handed())
    assert [c.removed for c in client.created] == [True]


def test_every_launch_may_sweep_for_orphans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ladder starts containers for weeks: each start asks for a sweep (sweep_orphans runs one every SWEEP_EVERY_S at
    most), not only the launcher's creation, or orphans of referees killed later ran on."""
    swept: list[str] = []
    monkeypatch.setattr(sandbox, "sweep_orphans", lambda: swept.append("swept"))
    monkeypatch.setattr(sandbox, "owner_token", lambda: "test-token")
    client = Client(Image(runtime_labels(tmp_path)))
    launcher = DockerLauncher(client=client)
    manifest = load_manifest(SAMPLE_BOTS / "random")

    async def launch(seat: int) -> None:
        (tmp_path / f"seat{seat}").mkdir()
        spec = LaunchSpec(seat, manifest, manifest.path, tmp_path / f"seat{seat}", tmp_path / f"home{seat}", {}, tmp_path / f"bot{seat}.log")
        handle = await launcher.launch(spec)
        assert await handle.wait() == 0
        await handle.stop(0)

    for seat in range(2):
        asyncio.run(launch(seat))
    assert len(swept) == 3 and [c.removed for c in client.created] == [True, True]
    assert (tmp_path / "bot0.log").read_bytes() == b"played\n"


def test_a_forked_referee_labels_its_containers_with_a_token_of_its_own() -> None:
    """Its parent's token would have its containers removed when the parent ends, by the parent's watcher."""
    token = sandbox.owner_token()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(write, sandbox.owner_token().encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as said:
        child = said.read()
    os.waitpid(pid, 0)
    assert child.startswith(f"{pid}-") and token.startswith(f"{os.getpid()}-")


def test_a_dead_watcher_is_started_again_with_the_same_token() -> None:
    """docs/faults.md: a watcher that dies while its referee runs is started again at the next container."""
    token = sandbox.owner_token()
    first = sandbox._OWNER.watcher
    assert first is not None
    first.kill()
    first.wait()
    assert sandbox.owner_token() == token
    again = sandbox._OWNER.watcher
    assert again is not None and again is not first and again.poll() is None


def test_the_watcher_outlives_the_signals_that_stop_its_referee(tmp_path: Path) -> None:
    """Ctrl-C, or a stopped service signalling all its processes, must leave the watcher to see its referee go."""
    watcher = subprocess.Popen([sys.executable, "-I", str(sandbox.WATCHER), f"test-{os.getpid()}-no-such-owner"], stdin=subprocess.PIPE)
    assert watcher.stdin is not None
    try:

        def ignoring() -> bool:
            status = Path(f"/proc/{watcher.pid}/status").read_text()
            ignored = int(next(line for line in status.splitlines() if line.startswith("SigIgn:")).split()[1], 16)
            return all(ignored & (1 << (sig - 1)) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP))

        assert wait_until(ignoring, 30), "the watcher does not ignore SIGINT, SIGTERM and SIGHUP"
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            watcher.send_signal(sig)
        watcher.stdin.close()  # its referee is gone: it removes that referee's containers (none here) and ends
        assert watcher.wait(timeout=60) >= 0, "killed by a signal, not ended by its referee's end"
    finally:
        watcher.kill()
        watcher.wait()


def test_the_watcher_sweeps_twice_and_past_a_container_already_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its referee is gone: every container with its token is removed, one the referee or the engine removed
    meanwhile is passed over, and a second sweep removes one whose creation was under way."""
    import docker

    from referee.server import sandbox_watch

    class Owned:
        def __init__(self, gone: bool) -> None:
            self.gone, self.removed = gone, False

        def remove(self, force: bool = False) -> None:
            if self.gone:
                raise docker.errors.NotFound("No such container")
            self.removed = True

    sweeps = [[Owned(gone=True), Owned(gone=False)], [Owned(gone=False)]]  # the second: created as the referee died
    asked: list[dict[str, str]] = []

    class Engine:
        containers = None

        def list(self, all: bool, filters: dict[str, str]) -> list[Owned]:
            asked.append(filters)
            return sweeps[len(asked) - 1]

    engine = Engine()
    engine.containers = engine  # type: ignore[assignment]
    monkeypatch.setattr(docker, "from_env", lambda: engine)
    monkeypatch.setattr(sandbox_watch, "SECOND_SWEEP_AFTER_S", 0)
    monkeypatch.setattr(signal, "signal", lambda sig, handler: None)  # main() ignores SIGINT, SIGTERM, SIGHUP: pytest must not
    read, write = os.pipe()
    stdin = os.dup(0)
    try:
        os.dup2(read, 0)
        os.close(write)  # the referee's end: gone
        sandbox_watch.main("tok")
    finally:
        os.dup2(stdin, 0)
        os.close(stdin)
        os.close(read)
    assert asked == [{"label": "arena.owner=tok"}] * 2
    assert [[c.removed for c in sweep] for sweep in sweeps] == [[False, True], [True]]


def test_a_containers_log_that_cannot_be_written_ends_its_copying_quietly(tmp_path: Path) -> None:
    """A log folder gone (or a full disk): the thread copying the container's output died with a traceback on the
    referee's terminal. Docker keeps the output, and the bot is not held up by it."""

    class Talking:
        def logs(self, **_: Any) -> list[bytes]:
            return [b"hello\n"]

    pump = sandbox._LogPump(Talking(), tmp_path / "gone" / "bot.log")
    pump.run()  # in this thread: an error would come out here
    assert not (tmp_path / "gone").exists()
    kept = sandbox._LogPump(Talking(), tmp_path / "bot.log")
    kept.run()
    assert (tmp_path / "bot.log").read_bytes() == b"hello\n"


def test_building_the_runtime_again_keeps_it_for_the_containers_that_mount_it(tmp_path: Path) -> None:
    """`arena sandbox build` beside a running ladder removed the runtime folder and made it anew: the containers running
    had the old one mounted, emptied under them, and their bots' next import failed (a CRASH charged to the bot), as
    did every bot started meanwhile. Held open here as a container's mount holds it: it must still hold the runtime."""
    target = tmp_path / "runtime"
    sandbox.build_runtime(target)
    mounted = os.open(target, os.O_RDONLY | os.O_DIRECTORY)  # what a container's bind mount holds: that folder itself
    try:
        sdk_mount_point = os.stat(target / "lib" / "arena_sdk").st_ino  # the SDK is mounted on it: it must stay
        sandbox.build_runtime(target)
        assert os.stat("site-packages/grpc/__init__.py", dir_fd=mounted).st_size > 0
        assert os.stat("lib/arena_sdk", dir_fd=mounted).st_ino == sdk_mount_point
    finally:
        os.close(mounted)
    assert sorted(os.listdir(target)) == ["lib", "site-packages"], "nothing of the rebuild left beside it"
    assert all(oct(p.stat().st_mode & 0o777) in ("0o755", "0o644") for p in target.rglob("*"))


def test_an_engine_that_refuses_this_user_is_told_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """A user outside the docker group was told "no Docker engine can be reached ...; start dockerd" of an engine running."""
    import docker
    from docker.errors import DockerException

    class Refused:
        def ping(self) -> None:
            try:
                raise PermissionError(13, "Permission denied")
            except PermissionError as exc:
                raise DockerException(f"Error while fetching server API version: ('Connection aborted.', {exc!r})") from exc

    monkeypatch.setattr(docker, "from_env", lambda: Refused())
    with pytest.raises(SandboxError, match=r"the Docker engine refused this user .*: run as root or as a user in the docker group") as refused:
        sandbox.docker_client()
    assert "start dockerd" not in str(refused.value)


def test_a_container_the_engine_did_not_answer_for_is_told_apart_from_one_it_refused(tmp_path: Path, no_engine: None) -> None:
    """dockerd restarting as a bot starts is the platform's fault (EngineUnavailable: the ladder plays the match again);
    an answer of the engine's (a command that does not exist) may be the bot's, and stays a plain LaunchError."""
    import docker.errors
    import requests.exceptions

    from referee.server.launchers import EngineUnavailable, LaunchError

    class Failing(Client):
        def __init__(self, image: Image, error: Exception) -> None:
            super().__init__(image)
            self.error = error

        def create(self, image: str, **kwargs: Any) -> Container:
            raise self.error

    manifest = load_manifest(SAMPLE_BOTS / "random")
    (tmp_path / "seat").mkdir()
    def spec(n: int) -> LaunchSpec:
        return LaunchSpec(0, manifest, manifest.path, tmp_path / "seat", tmp_path / f"home{n}", {"ARENA_MATCH_ID": "m"}, tmp_path / "bot.log")

    image = Image(runtime_labels(tmp_path))
    down = DockerLauncher(client=Failing(image, requests.exceptions.ConnectionError("Connection aborted.")))
    with pytest.raises(EngineUnavailable, match=r"the Docker engine did not answer \(ConnectionError\)"):
        asyncio.run(down.launch(spec(1)))
    refusing = DockerLauncher(client=Failing(image, docker.errors.APIError("400 Client Error: executable file not found")))
    with pytest.raises(LaunchError, match="executable file not found") as refused:
        asyncio.run(refusing.launch(spec(2)))
    assert not isinstance(refused.value, EngineUnavailable)
