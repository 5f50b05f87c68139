"""Where an engine decision's time goes: the same loop as benchmarks/engine.py, each part timed.

``python -m benchmarks.engine_parts`` prints, for every game at its smallest and largest table,
microseconds per decision for choosing the seat (``to_act``), the view, the decision, the listing,
choosing the random action and applying it, and how many decisions had a list of 8 or fewer actions,
9 to 64, or none (more than 64, described by the decision alone).
"""

from __future__ import annotations

import random
import time
from collections import Counter

from benchmarks.engine import LIST_LIMIT
from referee.games.registry import GAMES

PARTS = ("to_act", "view", "decision", "listing", "choice", "apply")


def parts(game_id: str, n: int, seconds: float = 2.0) -> tuple[dict[str, float], Counter[str]]:
    """(µs per decision for each of PARTS, decisions by the size of their list)."""
    cls = GAMES[game_id]
    spent: dict[str, float] = dict.fromkeys(PARTS, 0.0)
    sizes: Counter[str] = Counter()
    clock = time.perf_counter
    decisions = seed = 0
    start = clock()
    while clock() - start < seconds:
        game = cls(n, seed)
        rng = random.Random(seed)
        while True:
            t0 = clock()
            acting = game.to_act()
            if not acting:
                break
            seat = rng.choice(acting)
            t1 = clock()
            game.view(seat)
            t2 = clock()
            game.decision(seat)
            t3 = clock()
            listed = game.listing(seat, LIST_LIMIT)
            t4 = clock()
            action = rng.choice(listed) if listed else game.random_action(seat, rng)
            t5 = clock()
            game.apply(seat, action)
            t6 = clock()
            for name, took in zip(PARTS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5)):
                spent[name] += took
            sizes["none" if listed is None else "≤ 8" if len(listed) <= 8 else "9–64"] += 1
            decisions += 1
        seed += 1
    return {name: spent[name] / decisions * 1e6 for name in PARTS}, sizes


if __name__ == "__main__":
    for game_id, cls in GAMES.items():
        for n in sorted({min(cls.spec.player_counts), max(cls.spec.player_counts)}):
            times, sizes = parts(game_id, n)
            print(game_id, n, " ".join(f"{k}={v:.1f}µs" for k, v in times.items()), dict(sizes))
