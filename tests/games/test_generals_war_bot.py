"""The greedy General's War bot beats the random bot in at least 70% of 200 seeded two-player games."""

from __future__ import annotations

import pytest

from referee.games.generals_war import GeneralsWar
from referee.server.inprocess import play
from tests.support import load_bot_class

GreedyBot = load_bot_class("generals_war_greedy", "GreedyBot")
RandomBot = load_bot_class("random", "RandomBot")


@pytest.mark.bot_strength
def test_greedy_wins_at_least_70_percent_against_random() -> None:
    wins = 0
    for seed in range(200):
        greedy_seat = seed % 2  # alternate who attacks first
        bots = [GreedyBot(), RandomBot(seed)] if greedy_seat == 0 else [RandomBot(seed), GreedyBot()]
        record = play(GeneralsWar(2, seed), bots)
        ranks = [s.rank for s in record.result.seats]
        if ranks[greedy_seat] == 1 and ranks[1 - greedy_seat] == 2:
            wins += 1
    assert wins >= 140, f"greedy won {wins} of 200"
