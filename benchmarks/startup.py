"""How long a bot takes from launch to its first message, as a process and in a container."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from referee.games.generals_war import GeneralsWar
from referee.server.launchers import Launcher, LaunchSpec
from referee.server.manifest import load_manifest
from referee.server.service import RefereeService, make_server
from referee.server.session import MatchSession, TimeControl

ROOT = Path(__file__).resolve().parent.parent


async def time_to_hello(launcher: Launcher, runs: int = 5) -> list[float]:
    """Seconds from launch() to the bot's Hello reaching the referee, for the random sample bot."""
    manifest = load_manifest(ROOT / "sample_bots" / "random")
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="arena-s-") as tmp:
            session = MatchSession(GeneralsWar(2, 1), ["a", "b"], TimeControl())
            service = RefereeService()
            service.add(session)
            server = make_server(service)
            seat_dir = Path(tmp) / "seat0"
            seat_dir.mkdir(mode=0o777)
            seat_dir.chmod(0o777)
            server.add_insecure_port(f"unix:{seat_dir / 'referee.sock'}")
            await server.start()
            (seat_dir / "referee.sock").chmod(0o777)
            spec = LaunchSpec(0, manifest, manifest.path, seat_dir, Path(tmp) / "home", {"ARENA_MATCH_ID": session.match_id, "ARENA_TOKEN": session.tokens()[0]}, Path(tmp) / "log")
            start = time.perf_counter()
            handle = await launcher.launch(spec)
            while not session.seats[0].ever_connected:
                await asyncio.sleep(0.002)
            samples.append(time.perf_counter() - start)
            await handle.stop(grace=0)
            await server.stop(grace=0)
    return samples


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000
