"""The heuristic Glory bot beats the random bot clearly, and plays legally at every table size."""

from __future__ import annotations

import pytest

from referee.games.glory import Glory
from referee.server.inprocess import play
from tests.support import load_bot_class

HeuristicBot = load_bot_class("glory_heuristic", "HeuristicBot")
RandomBot = load_bot_class("random", "RandomBot")


@pytest.mark.bot_strength
def test_heuristic_average_rank_is_better_than_2_against_three_random_bots() -> None:
    ranks: list[int] = []
    for seed in range(200):
        seat = seed % 4  # the heuristic bot sits in every seat in turn
        bots = [HeuristicBot() if s == seat else RandomBot(seed * 4 + s) for s in range(4)]
        record = play(Glory(4, seed), bots)
        assert not record.result.seats[seat].verdicts, record.result.seats[seat].verdicts
        ranks.append(record.result.seats[seat].rank)
    average = sum(ranks) / len(ranks)
    assert average < 2.0, f"average rank {average:.2f} over 200 games"


def test_heuristic_and_random_bots_play_legally_at_every_table_size() -> None:
    for n in (2, 3, 5, 6):
        for seed in range(3):
            bots = [HeuristicBot() if s == seed % n else RandomBot(seed * 10 + s) for s in range(n)]
            record = play(Glory(n, seed), bots)
            assert all(not s.verdicts for s in record.result.seats), [list(s.verdicts) for s in record.result.seats]
            assert sorted(s.rank for s in record.result.seats)[0] == 1
