"""Whole matches: one ``arena match`` per game, and matches per minute through the tournament runner and the ladder.

The tournament runner is measured twice with the same bots: a bot process
started per match (the default), and bot processes that play several matches
in a row (copies of the bots whose manifest sets ``matches_per_process``).
The ladder (ladder/, SQLite, two local workers, its sample bots) is measured as
it is: from the moment its first matches are done, so that bot validation at
submission is not counted, to ``matches`` more done.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from referee.games.registry import GAMES
from referee.server.manifest import load_manifest
from referee.server.session import TimeControl

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = ROOT / "sample_bots"
TC = TimeControl(move_time_ms=2000, time_bank_ms=10000)


def sample_bots_for(game_id: str) -> list[Path]:
    """The Python sample bots that play ``game_id``, the game's own heuristic bot first."""
    bots = []
    for path in sorted(SAMPLE_BOTS.iterdir()):
        if not (path / "bot.toml").exists():
            continue
        m = load_manifest(path)
        if m.plays(game_id) and m.language == "python":
            bots.append(path)
    bots.sort(key=lambda p: p.name == "random")  # the game's own bot(s) first, random last
    return bots


def arena_match_seconds(game_id: str, runs: int = 3) -> tuple[float, list[Path]]:
    """Median wall time of ``arena match`` (the CLI, in a process of its own) with the game's sample bots."""
    cls = GAMES[game_id]
    bots = sample_bots_for(game_id)
    n = min(cls.spec.player_counts)
    seats = [bots[i % len(bots)] for i in range(n)]
    times = []
    with tempfile.TemporaryDirectory(prefix="arena-bm-") as tmp:
        for seed in range(runs):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "arena.cli.main", "match", game_id, *map(str, seats), "--seed", str(seed), "--json",
                 "--replay", str(Path(tmp) / f"{seed}.json"), "--log-dir", str(Path(tmp) / "logs")],
                cwd=ROOT, check=True, capture_output=True,
            )
            times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], seats


def pooled_copies(bots: list[Path], tmp: Path, per_process: int) -> list[Path]:
    """Copies of ``bots`` whose manifests let one process play ``per_process`` matches."""
    out = []
    for bot in bots:
        copy = tmp / f"pooled-{bot.name}"
        if not copy.exists():
            shutil.copytree(bot, copy)
            text = (copy / "bot.toml").read_text()
            (copy / "bot.toml").write_text(text + f"\nmatches_per_process = {per_process}\n")
        out.append(copy)
    return out


def ladder_pins() -> bool:
    """Whether the ladder pins its process bots to a CPU each (ladder/jobs.py ``PIN_CPUS``, where the platform can): the
    runner is timed the same way, so that the ladder's overhead over it holds no difference of pinning."""
    from referee.server import cpus

    try:
        from ladder.jobs import PIN_CPUS
    except Exception:  # noqa: BLE001 - the ladder is optional here
        return False
    return PIN_CPUS and cpus.available()


def tournament_rate(bots: list[Path], games: int, concurrency: int, pooled: bool) -> tuple[float, int, int]:
    """Matches per minute of a round robin of ``bots`` (two-player General's War): (rate, matches timed, processes started).

    Timed as the ladder is (``ladder_rate``): over ``games`` matches from the moment the first ``concurrency``
    are done, so that neither figure holds the first bot processes' start-up or the last matches' tail.
    """
    from referee.tournament.run import TournamentConfig, run_tournament

    with tempfile.TemporaryDirectory(prefix="arena-bt-") as tmp:
        dirs = pooled_copies(bots, Path(tmp), 1000) if pooled else bots
        config = TournamentConfig(
            "generals-war", dirs, games=games + concurrency, seed=7, time_control=TC, log_dir=Path(tmp) / "logs", concurrency=concurrency,
            pin_cpus=ladder_pins(),
        )
        started = [0]
        done_at: list[tuple[float, int]] = []  # (when, processes started by then), per match done
        from referee.server import runner

        original = runner.BotPool._launch

        async def counting(self: runner.BotPool, *args: object) -> object:
            started[0] += 1
            return await original(self, *args)  # type: ignore[arg-type]

        runner.BotPool._launch = counting  # type: ignore[method-assign, assignment]
        try:
            asyncio.run(run_tournament(config, lambda *_: done_at.append((time.perf_counter(), started[0]))))
        finally:
            runner.BotPool._launch = original  # type: ignore[method-assign]
        (first, before), (last, after) = done_at[concurrency - 1], done_at[-1]
        matches = len(done_at) - concurrency
        processes = after - before if pooled else matches * 2
    return matches / (last - first) * 60, matches, processes


def ladder_rate(matches: int = 16, workers: int = 2, timeout: float = 300, pooled: bool = False) -> tuple[float, list[str], int] | str:
    """Matches per minute through the ladder on SQLite with local workers, General's War only; or why not measured.

    The sample bots of the game are submitted as any bot is (validated), as they are or (``pooled``) as copies
    whose manifests let a process play several matches. Returns (rate, bots, bot processes started while timed).
    """
    try:
        from ladder.accounts import house_user
        from ladder.service import Ladder, LadderConfig
        from ladder.submissions import submit
        from ladder.upload import zip_directory
    except Exception as exc:  # noqa: BLE001 - the ladder is optional here
        return f"the ladder does not import: {exc}"
    bots = sample_bots_for("generals-war")
    with tempfile.TemporaryDirectory(prefix="arena-bl-") as tmp:
        config = LadderConfig(Path(tmp) / "data", workers=workers, samples=False, games=["generals-war"], time_control=TC, seed=1)
        try:
            ladder = Ladder(config)
        except Exception as exc:  # noqa: BLE001
            return f"the ladder does not start: {exc}"
        launched = [0]

        async def go() -> float:
            with ladder.make() as db:
                house = house_user(db)
            for bot in pooled_copies(bots, Path(tmp), 1000) if pooled else bots:
                outcome = await submit(ladder.make, ladder.store, house, zip_directory(bot))
                if not outcome.accepted:
                    raise RuntimeError(f"{bot.name} refused: {outcome.reason}")
            task = asyncio.create_task(ladder.run(serve_http=False))
            # Counted by the ladder as it records (matches_played), not by asking the database: the
            # question, twenty times a second on the ladder's own loop, would be part of what is timed.
            try:
                async with asyncio.timeout(timeout):
                    while ladder.matches_played < workers:
                        if task.done():
                            task.result()
                        await asyncio.sleep(0.01)
                    first, start = ladder.matches_played, time.perf_counter()
                    pool = getattr(ladder.executor, "pool", None)
                    before = pool.started if pool is not None else 0
                    while ladder.matches_played < first + matches:
                        if task.done():
                            task.result()
                        await asyncio.sleep(0.01)
                    done = ladder.matches_played - first
                    launched[0] = (pool.started - before) if pooled and pool is not None else done * 2
                    return done / (time.perf_counter() - start) * 60
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

        try:
            rate = asyncio.run(go())
        except Exception as exc:  # noqa: BLE001
            return f"the ladder failed: {type(exc).__name__}: {exc}"
    return rate, [p.name for p in bots], launched[0]


if __name__ == "__main__":
    for gid in GAMES:
        print(gid, arena_match_seconds(gid, 1))
    bots = sample_bots_for("generals-war")
    print("fresh", tournament_rate(bots, 4, 2, False))
    print("pooled", tournament_rate(bots, 4, 2, True))
    print("ladder", ladder_rate(8))
    print("ladder pooled", ladder_rate(8, pooled=True))
    print(json.dumps([str(b) for b in bots]))
