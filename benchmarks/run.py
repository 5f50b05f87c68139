"""Run every benchmark and write docs/benchmarks.md: ``python -m benchmarks.run``."""

from __future__ import annotations

import asyncio
import os
import platform
import time
from pathlib import Path

from benchmarks.engine import decisions_per_second
from benchmarks.startup import median_ms, time_to_hello
from benchmarks.wire import bare_round_trips, referee_round_trips, summary
from referee.games.registry import GAMES

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "benchmarks.md"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import grpc

    return f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, grpcio {grpc.__version__}, {platform.system()} {platform.release()}"


def main() -> int:
    lines = [
        "# Benchmarks",
        "",
        f"Written by `python -m benchmarks.run` on {time.strftime('%Y-%m-%d')}; machine: {machine()}.",
        "Each figure below comes from that one command, in one run, on the same machine.",
        "",
        "## Engine: decisions per second in process",
        "",
        "Command: `python -m benchmarks.run` (benchmarks/engine.py). Random legal play; each decision",
        "costs the acting seat's view, its decision, the legal actions the referee would list (up to 64)",
        "and the action applied. About 3 seconds per configuration.",
        "",
        "| game | players | decisions/s | games played |",
        "|---|---|---|---|",
    ]
    for game_id, cls in GAMES.items():
        for n in cls.spec.player_counts:
            rate, games = decisions_per_second(game_id, n)
            lines.append(f"| {game_id} | {n} | {rate:,.0f} | {games} |")
            print(lines[-1], flush=True)
    samples, request_size, answer_size = asyncio.run(referee_round_trips())
    ref_median, ref_p99 = summary(samples)
    bare = asyncio.run(bare_round_trips(request_size, answer_size))
    bare_median, bare_p99 = summary(bare)
    lines += [
        "",
        "## The wire: one decision's round trip",
        "",
        "Command: `python -m benchmarks.run` (benchmarks/wire.py). Unix socket, client in its own process,",
        "timed on the serving side. Referee: General's War matches between two SDK random bots",
        f"({len(samples)} decisions), from the request handed to gRPC to the legal answer handled by the session.",
        f"Bare: a gRPC bidirectional ping-pong with the same mean sizes ({request_size} bytes out, {answer_size} back), {len(bare)} rounds.",
        "",
        "| path | median ms | p99 ms |",
        "|---|---|---|",
        f"| referee + SDK | {ref_median:.3f} | {ref_p99:.3f} |",
        f"| bare gRPC ping-pong | {bare_median:.3f} | {bare_p99:.3f} |",
        f"| ratio | {ref_median / bare_median:.2f} | {ref_p99 / bare_p99:.2f} |",
        "",
    ]
    from referee.server.launchers import ProcessLauncher

    process = median_ms(asyncio.run(time_to_hello(ProcessLauncher())))
    lines += [
        "## Bot start-up: process and container",
        "",
        "Command: `python -m benchmarks.run` (benchmarks/startup.py). Median of 5 launches of the random sample bot,",
        "from launch to its Hello reaching the referee.",
        "",
        "| launcher | median ms |",
        "|---|---|",
        f"| process | {process:.0f} |",
    ]
    try:
        from referee.server.sandbox import DockerLauncher

        docker = median_ms(asyncio.run(time_to_hello(DockerLauncher())))
        lines += [f"| docker | {docker:.0f} |", f"| extra for a container | {docker - process:.0f} |", ""]
    except Exception as exc:  # no engine or image on this machine
        lines += ["", f"Docker: not measured ({exc}).", ""]
    print("\n".join(lines[-16:]))
    OUT.write_text("\n".join(lines))
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
