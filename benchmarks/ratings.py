"""How many games per bot a rating scheme needs before its order is the true order.

The family: tests/bots/gw_noisy, the greedy General's War bot that plays a
random legal action with probability ``noise``; lower noise is stronger. The
matches are real (the session and the SDK driver in process,
referee.server.inprocess), and the ladder's side uses the ladder's own code
without its database: its matchmaking (ladder/scheduler.py ``choose_table``:
mostly the neighbours in the order by mu likeliest in the wrong order, else the
bot with the fewest games against random opponents), every deal played from every
seat (``set_orders``: the order's rotations), and the set rated as one comparison
(ladder/ratings.py ``set_ranks``, as ladder/worker.py ``rate_set`` does).
The baseline is TrueSkill with uniformly random tables and a fresh deal for
every match. Both sort by the ladder's conservative rating (mu - 3 sigma).

The figure is the games per bot (seats played / bots) from which Kendall's tau
between the rating order and the true order is at or above 0.9 and stays there
for the next HOLD games per bot (with eight bots, 0.9 allows one swapped pair).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import multiprocessing
import random
import statistics
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from referee.games.generals_war import GeneralsWar
from referee.server.inprocess import play_async

ROOT = Path(__file__).resolve().parent.parent
NOISES = (0.0, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.0)
TAU = 0.9
#: tau must hold at or above TAU for this many more games per bot to count as reached.
HOLD = 10


def _noisy_class() -> Any:
    spec = importlib.util.spec_from_file_location("gw_noisy_bot", ROOT / "tests" / "bots" / "gw_noisy" / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    greedy = importlib.util.spec_from_file_location("gw_greedy_bot", ROOT / "sample_bots" / "generals_war_greedy" / "bot.py")
    assert greedy is not None and greedy.loader is not None
    greedy_module = importlib.util.module_from_spec(greedy)
    greedy.loader.exec_module(greedy_module)
    module.greedy_class = lambda: greedy_module.GreedyBot  # type: ignore[attr-defined]  # the bot finds it by path on its command line otherwise
    return module.NoisyBot


def kendall_tau(order: list[int]) -> float:
    """Kendall's tau between ``order`` (bot indices, best first) and 0, 1, 2, ... (the true order)."""
    n = len(order)
    concordant = sum(1 for i in range(n) for j in range(i + 1, n) if order[i] < order[j])
    pairs = n * (n - 1) // 2
    return (2 * concordant - pairs) / pairs


class Family:
    def __init__(self, seed: int) -> None:
        cls = _noisy_class()
        self.bots = [cls(noise) for noise in NOISES]
        for i, bot in enumerate(self.bots):
            bot.rng = random.Random(seed * 100 + i)

    def play(self, table: list[int], deal: int) -> list[int]:
        """Ranks (1-based) of ``table``'s bots, in seat order, in a match of deal ``deal``."""
        box: list[Any] = []

        async def go() -> None:  # the record is not the main task's result: asyncio.run would repr it in full at exit
            box.append(await play_async(GeneralsWar(len(table), deal), [self.bots[b] for b in table]))

        asyncio.run(go())
        record = box[0]
        ranks = {s.seat: int(s.rank) for s in record.result.seats}
        return [ranks[i] for i in range(len(table))]


def converge(scheme: str, seed: int, max_games_per_bot: int) -> float | None:
    """Games per bot from which tau stays >= TAU for HOLD more; None if not within the run."""
    from ladder.ratings import INITIAL, set_ranks, update
    from ladder.scheduler import Entrant, choose_table, set_orders

    rng = random.Random(seed)
    family = Family(seed)
    n = len(NOISES)
    skills = [INITIAL] * n
    games = [0] * n
    history: list[tuple[float, float]] = []  # (games per bot, tau) after each match

    def record(table: list[int], ranks: list[int], played: int) -> None:
        new = update([skills[b] for b in table], ranks)
        for b, s in zip(table, new):
            skills[b] = s
            games[b] += played
        order = sorted(range(n), key=lambda b: -skills[b].conservative)
        history.append((sum(games) / n, kendall_tau(order)))

    counts = [c for c in GeneralsWar.spec.player_counts if c <= n]
    while sum(games) / n < max_games_per_bot:
        size = rng.choice(counts)
        if scheme == "ladder":
            pool = [Entrant(b, str(b), skills[b], games[b]) for b in range(n)]
            table = [e.version_id for e in choose_table(pool, size, rng)]
            deal = rng.randrange(2**31)
            orders = set_orders(table)
            ranks = set_ranks([list(zip(order, family.play(order, deal))) for order in orders], orders[-1])
            record(orders[-1], ranks, len(orders))
        else:
            table = rng.sample(range(n), size)
            record(table, family.play(table, rng.randrange(2**31)), 1)
    return reached(history)


def reached(history: list[tuple[float, float]]) -> float | None:
    """The games per bot from which tau, in ``history``'s (games per bot, tau) after each match, stays >= TAU for
    HOLD more games per bot; None if it never does within the run."""
    for i, (g, _) in enumerate(history):
        window = [tau for h, tau in history[i:] if h <= g + HOLD]
        if history[-1][0] >= g + HOLD and all(tau >= TAU for tau in window):
            return g
    return None


def _converge_one(job: tuple[str, int, int]) -> float | None:
    scheme, seed, max_games_per_bot = job
    return converge(scheme, seed, max_games_per_bot)


def compare(
    trials: int = 3, max_games_per_bot: int = 100, progress: Callable[[str], None] = print, workers: int = 1
) -> dict[str, list[float | None]]:
    """Each scheme's games per bot (``converge``) for seeds 1000, 1001, ...; ``workers`` processes share the runs.

    One run's figure swings widely with its seed (from about 30 to beyond 250 games per bot on the same
    schemes), so a comparison needs many seeds: with five, one scheme's median can land at half or at
    twice another's by luck alone.
    """
    schemes = ("ladder", "trueskill-random")
    jobs = [(scheme, 1000 + trial, max_games_per_bot) for trial in range(trials) for scheme in schemes]
    out: dict[str, list[float | None]] = {scheme: [] for scheme in schemes}
    with contextlib.ExitStack() as stack:
        figures: Iterator[float | None] = map(_converge_one, jobs)
        if workers > 1:
            # spawned, not forked: the caller may hold gRPC's threads (benchmarks/run.py ran the wire before)
            pool = stack.enter_context(ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")))
            figures = pool.map(_converge_one, jobs)
        for (scheme, seed, _), figure in zip(jobs, figures):
            out[scheme].append(figure)
            progress(f"ratings: {scheme} seed {seed}: {figure}")
    return out


def quartiles(values: list[float | None], cap: float) -> tuple[float, float, float]:
    """The first quartile, median and third quartile, a run that never got there counted as beyond ``cap``."""
    filled = [v if v is not None else cap * 10 for v in values]
    q1, median, q3 = statistics.quantiles(filled, n=4, method="inclusive")
    return q1, median, q3


if __name__ == "__main__":
    print(compare(1, 40))
