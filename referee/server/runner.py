"""A local match: a referee on a unix socket and one process per bot."""

from __future__ import annotations

import asyncio
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from referee.core.game import OptionError
from referee.games.registry import game_class
from referee.server.manifest import BotManifest, load_manifest
from referee.server.processes import BotProcess, start_bot, stop_bot
from referee.server.service import RefereeService, make_server
from referee.server.session import MatchRecord, MatchSession, TimeControl


@dataclass
class MatchSetup:
    game: str
    bot_dirs: list[Path]
    seed: int
    options: dict[str, str]
    time_control: TimeControl
    log_dir: Path


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


async def run_local_match(setup: MatchSetup) -> LocalMatch:
    manifests = prepare(setup.game, setup.bot_dirs)
    cls = game_class(setup.game)
    game = cls(len(manifests), setup.seed, setup.options)
    match_id = secrets.token_hex(8)
    session = MatchSession(game, [m.name for m in manifests], setup.time_control, match_id=match_id)
    service = RefereeService()
    service.add(session)
    server = make_server(service)
    with tempfile.TemporaryDirectory(prefix="arena-") as tmp:
        socket = Path(tmp) / "referee.sock"
        address = f"unix:{socket}"
        server.add_insecure_port(address)
        await server.start()
        bots = [
            BotProcess(seat, m, setup.log_dir / f"{match_id}-seat{seat}-{m.name}.log") for seat, m in enumerate(manifests)
        ]
        watchers: list[asyncio.Task[None]] = []
        try:
            for bot, token in zip(bots, session.tokens()):
                env = {
                    "ARENA_ADDRESS": address,
                    "ARENA_MATCH_ID": match_id,
                    "ARENA_TOKEN": token,
                    "ARENA_BOT_SEED": str(setup.seed * 1000 + bot.seat),
                }
                await start_bot(bot, env, Path(tmp) / f"home{bot.seat}")
                watchers.append(asyncio.create_task(_watch(bot, session)))
            record = await session.run()
        finally:
            for w in watchers:
                w.cancel()
            await asyncio.gather(*(stop_bot(b) for b in bots))
            await server.stop(grace=0.2)
    return LocalMatch(record, manifests, [b.log_path for b in bots])


async def _watch(bot: BotProcess, session: MatchSession) -> None:
    """Tell the session when a bot's process ends before the match does."""
    if bot.proc is None:
        session.process_ended(bot.seat, "the bot could not be started (see its log)")
        return
    code = await bot.proc.wait()
    if not session.finished:
        session.process_ended(bot.seat, f"the bot's process exited with code {code}")
