"""CPU per match of the process that referees, over the timed matches only, split by thread.

``python -m benchmarks.ladder_cpu RUNNER [MATCHES]`` plays pooled General's War matches as section 3 of
benchmarks/run.py does, through ``tournament`` (the bare runner), ``ladder`` (results recorded by its books
process, the default) or ``ladder-here`` (recorded on a thread of the ladder's own process), and prints the
rate and the process's CPU per match between the second match done and the last, by thread name from
/proc (Linux). Run each runner in a process of its own, alternating, as the figures in benchmarks/CHANGES.md were.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from benchmarks import matches

TICK = os.sysconf("SC_CLK_TCK")
WARM = 2  # matches done before the window opens


def thread_cpu() -> dict[str, tuple[str, float]]:
    """Each thread of this process: (name, user + system CPU seconds)."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                stat = f.read()
            with open(f"/proc/self/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        out[tid] = ("main" if tid == str(os.getpid()) else name, (int(fields[11]) + int(fields[12])) / TICK)
    return out


def measure(runner: str, n: int) -> tuple[float, float, dict[str, float]]:
    """(matches per minute, process CPU ms per match, CPU ms per match by thread name) over ``n`` matches."""
    snaps: dict[str, tuple[dict[str, tuple[str, float]], float]] = {}

    def seen(done: int) -> None:
        if done == WARM:
            snaps["start"] = (thread_cpu(), time.process_time())
        elif done == WARM + n:
            snaps["end"] = (thread_cpu(), time.process_time())

    if runner.startswith("ladder"):
        from ladder import executors, service

        settle, init = service.Ladder._settle, executors.LocalExecutor.__init__

        def counting(self: Any, *args: Any) -> None:
            settle(self, *args)
            seen(self.matches_played)

        def here(self: Any, make: Any, workers: int, pooled: bool = False, recorder: bool = False) -> None:
            init(self, make, workers, pooled, False)

        service.Ladder._settle = counting  # type: ignore[method-assign, assignment]
        if runner == "ladder-here":
            executors.LocalExecutor.__init__ = here  # type: ignore[method-assign]
        result = matches.ladder_rate(n, pooled=True)
        rate: float = result[0] if not isinstance(result, str) else 0.0
    else:
        from referee.tournament import run

        count = run._Player.count
        done = [0]

        def counted(self: Any, played: Any) -> None:
            count(self, played)
            done[0] += 1
            seen(done[0])

        run._Player.count = counted  # type: ignore[method-assign]
        rate = matches.tournament_rate(matches.sample_bots_for("generals-war"), n, 2, True)[0]
    (before, cpu0), (after, cpu1) = snaps["start"], snaps["end"]
    threads: dict[str, float] = {}
    for tid, (name, spent) in after.items():
        threads[name] = threads.get(name, 0.0) + (spent - before.get(tid, (name, 0.0))[1]) / n * 1000
    return rate, (cpu1 - cpu0) / n * 1000, threads


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "ladder"
    if which not in ("tournament", "ladder", "ladder-here"):
        sys.exit("usage: python -m benchmarks.ladder_cpu tournament|ladder|ladder-here [MATCHES]")
    rate, per_match, threads = measure(which, int(sys.argv[2]) if len(sys.argv) > 2 else 300)
    shown = " ".join(f"{name}={ms:.1f}" for name, ms in sorted(threads.items(), key=lambda t: -t[1]) if ms >= 0.05)
    print(f"{which}: {rate:.0f} matches/min, process CPU {per_match:.1f} ms per match ({shown})")
