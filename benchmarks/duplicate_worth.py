"""What a duplicate pair is worth in each game with two seats: could another game than General's War let
duplicates halve the games section 4 counts?

A family like section 4's in every game: its sample heuristic bot (General's War's greedy one) that plays a random
legal action with probability ``noise``. Two bots a step apart in noise play duplicate pairs: one deal, then the
same deal with the seats swapped, each bot with fresh dice. rho is the correlation of the stronger bot's two
results in a pair (1 a win, 0.5 a draw, 0 a loss): -1 when the cards decide, 0 when the deal tells nothing. A pair's
two matches carry 1 / (1 + rho) times the information of two independent matches, so halving the games through
duplicates alone needs rho near -0.5.

    python -m benchmarks.duplicate_worth --sets 300        # every two-seat game, two pairs of noises each
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import math
import random
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arena_sdk import Bot, Request, random_action
from referee.games.registry import GAMES
from referee.server.inprocess import play_async

ROOT = Path(__file__).resolve().parent.parent
#: The sample bot each family is built on.
HEURISTICS = {
    "generals-war": ("generals_war_greedy", "GreedyBot"),
    "generals-and-assassins": ("generals_and_assassins_heuristic", "HeuristicBot"),
    "glory": ("glory_heuristic", "HeuristicBot"),
    "land-and-castle": ("land_and_castle_heuristic", "HeuristicBot"),
}
#: The strongest pair of neighbours, and a pair in the middle (section 4's noises).
PAIRS = ((0.0, 0.15), (0.45, 0.6))


def heuristic_class(game: str) -> Any:
    folder, name = HEURISTICS[game]
    spec = importlib.util.spec_from_file_location(f"heuristic_{folder}", ROOT / "sample_bots" / folder / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


class Noisy(Bot):
    """The heuristic bot, but a random legal action with probability ``noise``."""

    def __init__(self, inner: Bot, noise: float, seed: float) -> None:
        self.inner, self.noise, self.rng = inner, noise, random.Random(seed)

    def act(self, request: Request) -> Any:
        return random_action(request, self.rng) if self.rng.random() < self.noise else self.inner.act(request)


def ranks(game: str, bots: list[Bot], deal: int) -> list[int]:
    box: list[Any] = []

    async def go() -> None:
        box.append(await play_async(GAMES[game](len(bots), deal), bots))

    asyncio.run(go())
    by_seat = {s.seat: int(s.rank) for s in box[0].result.seats}
    return [by_seat[i] for i in range(len(bots))]


def score(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def pairs(job: tuple[str, float, float, int, int]) -> tuple[list[float], list[float]]:
    """The stronger bot's results in ``sets`` duplicate pairs: (first match of each, second)."""
    game, strong, weak, sets, seed = job
    cls = heuristic_class(game)
    rng = random.Random(seed)
    first, second = [], []
    for _ in range(sets):
        deal = rng.randrange(2**31)
        a, b = Noisy(cls(), strong, rng.random()), Noisy(cls(), weak, rng.random())
        r = ranks(game, [a, b], deal)
        first.append(score(r[0], r[1]))
        a, b = Noisy(cls(), strong, rng.random()), Noisy(cls(), weak, rng.random())
        r = ranks(game, [b, a], deal)
        second.append(score(r[1], r[0]))
    return first, second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sets", type=int, default=300, help="duplicate pairs per pair of noises")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    chunks = args.workers * 2
    jobs = [(g, s, w) for g in HEURISTICS for s, w in PAIRS]
    with ProcessPoolExecutor(args.workers) as pool:
        done = {
            job: list(pool.map(pairs, [(*job, args.sets // chunks + (i < args.sets % chunks), args.seed * 1000 + i) for i in range(chunks)]))
            for job in jobs
        }
    print("| game | noises | stronger bot's score | rho | a pair worth (independent pairs) |")
    print("|---|---|---|---|---|")
    for (game, strong, weak), parts in done.items():
        first = [x for f, _ in parts for x in f]
        second = [x for _, s in parts for x in s]
        rho = statistics.correlation(first, second) if len(set(first)) > 1 and len(set(second)) > 1 else math.nan
        print(f"| {game} | {strong} vs {weak} | {statistics.mean(first + second):.3f} | {rho:+.3f} | {1 / (1 + rho):.2f} |")


if __name__ == "__main__":
    main()
