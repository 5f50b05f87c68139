"""A local match: the referee serving each seat on its own unix socket, one bot process (or container) per seat."""

from __future__ import annotations

import asyncio
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

import grpc

from referee.core.game import OptionError
from referee.games.registry import game_class
from referee.server.launchers import BotHandle, Launcher, LaunchError, LaunchSpec, ProcessLauncher
from referee.server.manifest import BotManifest, load_manifest
from referee.server.service import RefereeService, make_server
from referee.server.session import MatchRecord, MatchSession, TimeControl

SOCKET = "referee.sock"


@dataclass
class MatchSetup:
    game: str
    bot_dirs: list[Path]
    seed: int
    options: dict[str, str]
    time_control: TimeControl
    log_dir: Path
    sandbox: str = "process"  # or "docker"


@dataclass
class LocalMatch:
    record: MatchRecord
    manifests: list[BotManifest]
    logs: list[Path]


def prepare(game_id: str, bot_dirs: list[Path]) -> list[BotManifest]:
    """Check the game and the bots before anything starts; raises OptionError or ManifestError."""
    cls = game_class(game_id)
    cls.spec.check_players(len(bot_dirs))
    manifests = [load_manifest(d) for d in bot_dirs]
    for m in manifests:
        if not m.plays(game_id):
            raise OptionError(f"bot {m.name} ({m.path}) does not play {game_id} (its games: {', '.join(m.games)})")
    return manifests


def launcher_for(sandbox: str) -> Launcher:
    if sandbox == "process":
        return ProcessLauncher()
    if sandbox == "docker":
        from referee.server.sandbox import DockerLauncher

        return DockerLauncher()
    raise OptionError(f"unknown sandbox {sandbox!r} (process or docker)")


async def run_local_match(setup: MatchSetup, launcher: Launcher | None = None) -> LocalMatch:
    manifests = prepare(setup.game, setup.bot_dirs)
    launcher = launcher or launcher_for(setup.sandbox)
    game = game_class(setup.game)(len(manifests), setup.seed, setup.options)
    match_id = secrets.token_hex(8)
    session = MatchSession(game, [m.name for m in manifests], setup.time_control, match_id=match_id)
    logs = [setup.log_dir / f"{match_id}-seat{seat}-{m.name}.log" for seat, m in enumerate(manifests)]
    servers: list[grpc.aio.Server] = []
    handles: list[BotHandle | None] = [None] * len(manifests)
    watchers: list[asyncio.Task[None]] = []
    with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
        try:
            for seat in range(len(manifests)):
                # One socket per seat, in a directory of its own: a bot can reach only its own seat.
                seat_dir = Path(tmp) / f"seat{seat}"
                seat_dir.mkdir()
                service = RefereeService(only_seat=seat)
                service.add(session)
                server = make_server(service)
                server.add_insecure_port(f"unix:{seat_dir / SOCKET}")
                await server.start()
                servers.append(server)
                os.chmod(seat_dir, 0o777)  # a container's unprivileged user must reach the socket
                os.chmod(seat_dir / SOCKET, 0o777)
            for seat, (manifest, token) in enumerate(zip(manifests, session.tokens())):
                spec = LaunchSpec(
                    seat=seat,
                    manifest=manifest,
                    bot_dir=manifest.path,
                    seat_dir=Path(tmp) / f"seat{seat}",
                    home=Path(tmp) / f"home{seat}",
                    env={"ARENA_MATCH_ID": match_id, "ARENA_TOKEN": token, "ARENA_BOT_SEED": str(setup.seed * 1000 + seat)},
                    log_path=logs[seat],
                )
                watchers.append(asyncio.create_task(_start_and_watch(launcher, spec, session, handles)))
            record = await session.run()
        finally:
            for w in watchers:
                w.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
            await asyncio.gather(*(h.stop() for h in handles if h is not None))
            await asyncio.gather(*(s.stop(grace=0.2) for s in servers))
    return LocalMatch(record, manifests, logs)


async def _start_and_watch(launcher: Launcher, spec: LaunchSpec, session: MatchSession, handles: list[BotHandle | None]) -> None:
    """Start one bot, then tell the session if it ends before the match does."""
    spec.log_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        handle = await launcher.launch(spec)
    except LaunchError as exc:
        spec.log_path.write_text(f"{exc}\n")
        session.process_ended(spec.seat, str(exc))
        return
    handles[spec.seat] = handle
    code = await handle.wait()
    if not session.finished:
        session.process_ended(spec.seat, f"the bot's process exited with code {code}")
