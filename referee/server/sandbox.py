"""The Docker sandbox: every bot in a container of its own, built locally, never pulled.

The image is empty but for a user, a few mount points and the dynamic
linker's cache (``FROM scratch``): at run time the host's /usr and Python
installation, and a runtime folder holding the bot SDK and its dependencies,
are mounted read-only. The container has no network, a read-only root with a
small tmpfs, memory, CPU and process limits, no capabilities, no new
privileges and an unprivileged user. Its only way out is the seat directory
holding the referee's socket for that seat alone.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import os
import shutil
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.game import OptionError
from referee.server.launchers import LOG_CAP_BYTES, TRUNCATED, BotHandle, LaunchError, LaunchSpec, resolve_command

IMAGE = "arena-bot-runtime:1"
BOT_UID = 10001
RUNTIME_MOUNT = "/opt/arena"
#: Third-party packages a bot needs at run time, copied from the referee's own environment.
RUNTIME_MODULES = ("grpc", "google.protobuf", "typing_extensions")


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
        raise SandboxError(f"no Docker engine can be reached ({exc}); start dockerd, or use --sandbox process") from None


def sdk_sources() -> dict[str, Path]:
    """The SDK and the protocol stubs, mounted read-only from where they live, so containers never run a stale copy."""
    return {
        "lib/arena_sdk": Path(importlib.import_module("arena_sdk").__file__ or "").parent,
        "lib/arena/v1": Path(importlib.import_module("arena.v1").__file__ or "").parent,
    }


def build_runtime(target: Path) -> Path:
    """Copy the SDK's dependencies into ``target``/site-packages, with mount points for the SDK and the stubs."""
    if target.exists():
        shutil.rmtree(target)
    site = target / "site-packages"
    site.mkdir(parents=True)
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
    for mount_point in sdk_sources():
        (target / mount_point).mkdir(parents=True)
    (target / "lib" / "arena" / "__init__.py").write_text('"""Protocol stubs for bots."""\n')
    for path in [target, *target.rglob("*")]:
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


class DockerHandle:
    def __init__(self, container: Any, log_path: Path) -> None:
        self.container = container
        self.log_path = log_path

    async def wait(self) -> int:
        result = await asyncio.to_thread(self.container.wait)
        return int(result.get("StatusCode", -1))

    async def stop(self, grace: float = 1.0) -> None:
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
        try:
            data = self.container.logs(stdout=True, stderr=True)
            self.log_path.write_bytes(data[:LOG_CAP_BYTES] + (TRUNCATED if len(data) > LOG_CAP_BYTES else b""))
        finally:
            self.container.remove(force=True)


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

    def _run(self, spec: LaunchSpec) -> Any:
        bot = spec.home / "bot"  # a fresh, readable copy: the container's user is not the owner
        shutil.copytree(spec.bot_dir, bot, symlinks=False, dirs_exist_ok=False)
        for path in [bot, *bot.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        command = resolve_command(spec.manifest.command, python=f"{self.python}/bin/python3")
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
            **spec.env,
        }
        import docker

        return self.client.containers.run(
            IMAGE,
            command=command,
            detach=True,
            environment=env,
            user=f"{BOT_UID}:{BOT_UID}",
            working_dir="/bot",
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"size={self.limits.tmpfs},mode=1777"},
            mem_limit=self.limits.memory,
            memswap_limit=self.limits.memory,
            nano_cpus=int(self.limits.cpus * 1e9),
            pids_limit=self.limits.pids,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            volumes={
                "/usr": {"bind": "/usr", "mode": "ro"},
                self.python: {"bind": self.python, "mode": "ro"},
                self.runtime: {"bind": RUNTIME_MOUNT, "mode": "ro"},
                **{str(source): {"bind": f"{RUNTIME_MOUNT}/{point}", "mode": "ro"} for point, source in sdk_sources().items()},
                str(bot): {"bind": "/bot", "mode": "ro"},
                str(spec.seat_dir): {"bind": "/arena", "mode": "rw"},
            },
            log_config=docker.types.LogConfig(type="json-file", config={"max-size": "1m", "max-file": "1"}),
            labels={"arena.seat": str(spec.seat), "arena.match": spec.env.get("ARENA_MATCH_ID", "")},
        )

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        spec.home.mkdir(parents=True, exist_ok=True)
        try:
            container = await asyncio.to_thread(self._run, spec)
        except Exception as exc:
            raise LaunchError(f"could not start the container: {exc}") from None
        return DockerHandle(container, spec.log_path)
