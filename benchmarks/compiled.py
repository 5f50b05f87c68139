"""The engines with the rules compiled by mypyc beside the pure ones: ``python -m benchmarks.compiled``.

Arena plays with compiled rules when an operator runs ``arena compile`` and sets ``ARENA_COMPILED=1``
(referee/compiled.py, docs/deploy.md). This builds them the same way, into a scratch cache so that no
build of the user's is touched or reused, and times the loop of benchmarks/engine.py in a process that
imports the compiled rules, alternating with one that imports the pure ones.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiled_rates(
    configs: list[tuple[str, int]], seconds: float = 2.0, runs: int = 2
) -> tuple[dict[tuple[str, int], tuple[float, float]], float] | str:
    """{(game, players): (pure Python, compiled) decisions/s, medians of ``runs``}, and the compile's seconds; or why not."""
    from referee.compiled import BuildError, build

    with tempfile.TemporaryDirectory(prefix="arena-mypyc-") as tmp:
        cache = {"ARENA_COMPILED_CACHE": tmp}
        started = time.perf_counter()
        previous = os.environ.get("ARENA_COMPILED_CACHE")
        os.environ.update(cache)
        try:
            build()
        except BuildError as exc:
            return str(exc).splitlines()[0]
        finally:
            if previous is None:
                del os.environ["ARENA_COMPILED_CACHE"]
            else:
                os.environ["ARENA_COMPILED_CACHE"] = previous
        compile_seconds = time.perf_counter() - started
        rates: dict[tuple[str, int], tuple[list[float], list[float]]] = {c: ([], []) for c in configs}
        for _ in range(runs):
            for compiled in (False, True):
                found = _child_rates(configs, seconds, {**cache, "ARENA_COMPILED": "1" if compiled else "0"}, compiled)
                if isinstance(found, str):
                    return found
                for config, rate in zip(configs, found):
                    rates[config][int(compiled)].append(rate)
    return {c: (statistics.median(p), statistics.median(k)) for c, (p, k) in rates.items()}, compile_seconds


def _child_rates(configs: list[tuple[str, int]], seconds: float, env: dict[str, str], compiled: bool) -> list[float] | str:
    """The rates measured by a fresh process, with the compiled rules or not as ``env`` asks."""
    spec = [f"{g}:{n}" for g, n in configs]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.compiled", "--child", str(seconds), *spec],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=600, check=False,
    )
    if done.returncode != 0:
        return f"the {'compiled' if compiled else 'pure'} run failed: " + " / ".join(done.stderr.strip().splitlines()[-3:])
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if answer["compiled"] != compiled:
        return f"the {'compiled' if compiled else 'pure'} run imported the other build ({answer['where']})"
    return [float(x) for x in answer["rates"]]


def _child(seconds: float, spec: list[str]) -> None:
    import referee.core.game as core
    from benchmarks.engine import decisions_per_second
    from referee.compiled import in_use

    where = str(core.__file__)
    compiled = in_use()
    rates = [decisions_per_second(game, int(n), seconds)[0] for game, n in (s.rsplit(":", 1) for s in spec)]
    print(json.dumps({"compiled": compiled, "where": where, "rates": rates}))


def main() -> None:
    from referee.games.registry import GAMES

    configs = [(g, min(cls.spec.player_counts)) for g, cls in GAMES.items()]
    found = compiled_rates(configs)
    if isinstance(found, str):
        print("not measured:", found)
        return
    rates, compile_seconds = found
    print(f"compiled in {compile_seconds:.0f} s")
    for (game, n), (pure, fast) in rates.items():
        print(f"{game} {n}: pure {pure:,.0f}/s, compiled {fast:,.0f}/s ({fast / pure:.2f}x)")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        _child(float(sys.argv[2]), sys.argv[3:])
    else:
        main()
