"""Decisions per second for every game in process, with random legal play.

A decision costs what it costs the referee: the acting seat's view, its
decision and the legal actions it would list (when there are at most the
listing limit), then the chosen action applied.
"""

from __future__ import annotations

import random
import time

from referee.games.registry import GAMES

LIST_LIMIT = 64


def decisions_per_second(game_id: str, n: int, seconds: float = 3.0) -> tuple[float, int]:
    """Random legal play for about ``seconds``; returns (decisions per second, games finished)."""
    cls = GAMES[game_id]
    decisions = games = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = cls(n, seed)
        rng = random.Random(seed)
        while True:
            acting = game.to_act()
            if not acting:
                break
            seat = rng.choice(acting)
            game.view(seat)
            game.decision(seat)
            listed = game.listing(seat, LIST_LIMIT)
            # as the SDK's random bot plays: from the list when the referee sends one, else sampled from the decision
            game.apply(seat, rng.choice(listed) if listed else game.random_action(seat, rng))
            decisions += 1
        games += 1
        seed += 1
    return decisions / (time.perf_counter() - start), games
