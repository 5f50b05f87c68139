"""Ladder throughput on Dask: General's War matches per minute between the sample bots, with 1, 2, ... workers.

    python -m benchmarks.dask_throughput [--workers 1 2] [--seconds 60] [--db URL] [--local]

For each worker count, a ladder (SQLite in a temporary folder unless --db)
runs its scheduler and dispatcher with a Dask LocalCluster of that many
worker processes, each playing one match at a time (``matches=1``); after a
warm-up, the matches recorded during ``--seconds`` are counted. The sample
bots of General's War (gw-greedy and random) are entered once, validated as
the ladder validates any bot. ``--local`` adds the in-process pool with the
same number of matches at once, for comparison. Not a pass/fail test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from ladder.service import Ladder, LadderConfig, count_done, register_samples
from referee.server.session import TimeControl

GAME = "generals-war"


def config(data: Path, url: str | None, executor: str, workers: int, move_time_ms: int) -> LadderConfig:
    return LadderConfig(
        data, url=url, workers=workers, samples=False, games=[GAME], time_control=TimeControl(move_time_ms=move_time_ms), seed=1,
        executor=executor, dask_workers=workers, matches_per_worker=1,
    )


async def measure(ladder: Ladder, capacity: int, seconds: float, warmup: int) -> tuple[int, float]:
    """Matches recorded in ``seconds`` once the workers are up and ``warmup`` matches are done."""
    runner = asyncio.create_task(ladder.run(serve_http=False))
    try:
        while ladder.capacity < capacity:
            if runner.done():
                runner.result()
            await asyncio.sleep(0.1)
        start = count_done(ladder.make)
        while count_done(ladder.make) < start + warmup:
            await asyncio.sleep(0.1)
        first, began = count_done(ladder.make), time.monotonic()
        await asyncio.sleep(seconds)
        return count_done(ladder.make) - first, time.monotonic() - began
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Dask worker counts to measure")
    parser.add_argument("--seconds", type=float, default=60.0, help="measuring window per configuration")
    parser.add_argument("--warmup", type=int, default=4, help="matches played before the window opens")
    parser.add_argument("--move-time-ms", type=int, default=1000)
    parser.add_argument("--db", default=None, help="SQLAlchemy URL of an empty database (default: SQLite in a temporary folder)")
    parser.add_argument("--local", action="store_true", help="also measure the in-process pool")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="arena-dask-bench-") as tmp:
        data = Path(tmp) / "data"
        first = Ladder(config(data, args.db, "local", 1, args.move_time_ms))
        asyncio.run(register_samples(first.make, first.store, [GAME]))
        runs = [("dask", n) for n in args.workers] + ([("local", n) for n in args.workers] if args.local else [])
        rows = []
        for executor, n in runs:
            ladder = Ladder(config(data, args.db, executor, n, args.move_time_ms))
            played, elapsed = asyncio.run(measure(ladder, n, args.seconds, args.warmup))
            rate = played / elapsed * 60
            label = f"Dask LocalCluster, {n} worker{'s' if n > 1 else ''} x 1 match" if executor == "dask" else f"local pool of {n}"
            rows.append((label, played, elapsed, rate))
            print(f"{label}: {played} matches in {elapsed:.0f} s = {rate:.1f} matches/min", flush=True)
    print()
    print(f"machine: {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}")
    print(f"command: {' '.join([Path(sys.executable).name, '-m', 'benchmarks.dask_throughput', *sys.argv[1:]])}")
    print()
    print("| executor | matches | seconds | matches/min |")
    print("|---|---|---|---|")
    for label, played, elapsed, rate in rows:
        print(f"| {label} | {played} | {elapsed:.0f} | {rate:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
