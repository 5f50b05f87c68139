"""Bots as local processes: each in its own process group, with capped logs, killed at the end."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

from referee.server.manifest import BotManifest

LOG_CAP_BYTES = 1024 * 1024
#: Address space a bot process may use (the subprocess runner's memory limit).
MEMORY_LIMIT_BYTES = 4 * 1024 * 1024 * 1024


@dataclass
class BotProcess:
    seat: int
    manifest: BotManifest
    log_path: Path
    proc: asyncio.subprocess.Process | None = None
    pump: asyncio.Task[None] | None = None
    log_truncated: bool = field(default=False)


def with_limits(command: list[str]) -> list[str]:
    """Run ``command`` under the subprocess runner's limits (no core files, capped memory).

    The limits are set by a shell that then execs the bot: a Python ``preexec_fn``
    would run Python code in a forked copy of the multi-threaded referee, which
    is not safe.
    """
    script = f'ulimit -c 0; ulimit -v {MEMORY_LIMIT_BYTES // 1024}; exec "$@"'
    return ["/bin/sh", "-c", script, "arena-bot", *command]


def resolve_command(command: tuple[str, ...]) -> list[str]:
    """``python`` in a manifest means the referee's own interpreter, which has the SDK installed."""
    first, *rest = command
    if first in ("python", "python3"):
        first = sys.executable
    return [first, *rest]


def bot_environment(home: Path, extra: dict[str, str]) -> dict[str, str]:
    """A bot sees none of the referee's environment (it may hold secrets): only what it needs to run."""
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "TMPDIR": str(home),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        **extra,
    }


async def start_bot(bot: BotProcess, env: dict[str, str], home: Path) -> None:
    """Start the bot's command in its directory, with ``home`` as its private, fresh HOME and TMPDIR."""
    bot.log_path.parent.mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    full_env = bot_environment(home, env)
    try:
        bot.proc = await asyncio.create_subprocess_exec(
            *with_limits(resolve_command(bot.manifest.command)),
            cwd=bot.manifest.path,
            env=full_env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        bot.log_path.write_text(f"could not start {bot.manifest.command!r}: {exc}\n")
        return
    bot.pump = asyncio.create_task(_pump_log(bot))


async def _pump_log(bot: BotProcess) -> None:
    """Copy the bot's output to its log, up to LOG_CAP_BYTES; the rest is read and dropped."""
    assert bot.proc is not None and bot.proc.stdout is not None
    written = 0
    with bot.log_path.open("wb") as out:
        while chunk := await bot.proc.stdout.read(65536):
            if written < LOG_CAP_BYTES:
                piece = chunk[: LOG_CAP_BYTES - written]
                out.write(piece)
                written += len(piece)
                if written >= LOG_CAP_BYTES:
                    out.write(b"\n[log truncated by the referee]\n")
                    bot.log_truncated = True
            out.flush()


def kill_group(proc: asyncio.subprocess.Process) -> None:
    """Kill the bot and everything it started."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def stop_bot(bot: BotProcess, grace: float = 1.0) -> None:
    if bot.proc is None:
        return
    if bot.proc.returncode is None:
        try:
            await asyncio.wait_for(bot.proc.wait(), grace)
        except TimeoutError:
            pass
    kill_group(bot.proc)  # also any children left behind
    await bot.proc.wait()
    if bot.pump is not None:
        try:
            await asyncio.wait_for(bot.pump, 2.0)
        except TimeoutError:
            bot.pump.cancel()
