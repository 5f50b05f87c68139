"""How far compiling the rules with mypyc would take the engines: ``python -m benchmarks.compiled``.

Not what Arena runs: its games are pure Python. This answers what a compiled core would buy
before anyone builds one. It copies ``referee/`` (and the protocol's ``arena/``) to a scratch folder, compiles the rules there
(``referee/core`` and ``referee/games``, with mypyc, which ships with mypy), and times the loop of
benchmarks/engine.py in a process that imports the compiled copy, alternating with one that
imports the tree as it is.

The games compile unchanged, with two allowances in the source: class constants marked ``Final``
and ``records.quicken`` leaving compiled classes alone. They are not held to the compiled build's
other differences, which a compiled build would have to settle first: a native class refuses a
value of the wrong type when it is built, so an ill-typed action fails with a TypeError where the
rules would have refused it; and a game class's attributes that are not marked as class variables
(such as ``proto_module``, which the codec reads from the class) are no longer there.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILED = ("referee/core", "referee/games")


def compiled_rates(
    configs: list[tuple[str, int]], seconds: float = 2.0, runs: int = 2
) -> tuple[dict[tuple[str, int], tuple[float, float]], float] | str:
    """{(game, players): (pure Python, compiled) decisions/s, medians of ``runs``}, and the compile's seconds; or why not."""
    if shutil.which("cc") is None:
        return "no C compiler (cc) on this machine"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with mypy: pip install -e '.[dev]')"
    with tempfile.TemporaryDirectory(prefix="arena-mypyc-") as tmp:
        for package in ("referee", "arena"):  # arena: the protocol's generated modules, which the rules import
            shutil.copytree(ROOT / package, Path(tmp) / package, ignore=shutil.ignore_patterns("__pycache__", "*.so"))

        started = time.perf_counter()
        built = subprocess.run(
            [sys.executable, "-m", "mypyc", *COMPILED], cwd=tmp, capture_output=True, text=True, timeout=1800, check=False
        )
        compile_seconds = time.perf_counter() - started
        if built.returncode != 0:
            tail = (built.stdout + built.stderr).strip().splitlines()[-3:]
            return "mypyc failed: " + " / ".join(tail)
        rates: dict[tuple[str, int], tuple[list[float], list[float]]] = {c: ([], []) for c in configs}
        for _ in range(runs):
            for compiled in (False, True):
                found = _child_rates(configs, seconds, Path(tmp) if compiled else ROOT, compiled)
                if isinstance(found, str):
                    return found
                for config, rate in zip(configs, found):
                    rates[config][int(compiled)].append(rate)
    return {c: (statistics.median(p), statistics.median(k)) for c, (p, k) in rates.items()}, compile_seconds


def _child_rates(configs: list[tuple[str, int]], seconds: float, cwd: Path, compiled: bool) -> list[float] | str:
    """The rates measured by a fresh process whose ``referee`` is the one in ``cwd`` (first on its path)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(cwd), str(ROOT), os.environ.get("PYTHONPATH", "")])}
    spec = [f"{g}:{n}" for g, n in configs]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.compiled", "--child", str(seconds), *spec],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False,
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

    where = str(core.__file__)
    compiled = where.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
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
