"""The heuristic Land & Castle bot beats the random bot in at least 65% of 200 seeded games; the SDK samples legal actions."""

from __future__ import annotations

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.land_and_castle import LandAndCastle
from referee.server.inprocess import play
from tests.support import load_bot_class

HeuristicBot = load_bot_class("land_and_castle_heuristic", "HeuristicBot")
RandomBot = load_bot_class("random", "RandomBot")


@pytest.mark.bot_strength
def test_heuristic_wins_at_least_65_percent_against_random() -> None:
    wins = 0
    for seed in range(200):
        seat = seed % 2  # alternate who attacks first
        bots = [HeuristicBot(), RandomBot(seed)] if seat == 0 else [RandomBot(seed), HeuristicBot()]
        record = play(LandAndCastle(2, seed), bots)
        ranks = [s.rank for s in record.result.seats]
        if ranks[seat] == 1 and ranks[1 - seat] == 2:
            wins += 1
    assert wins >= 130, f"heuristic won {wins} of 200"


def test_sdk_sample_is_legal_from_the_decision_alone() -> None:
    """With no legal actions listed (and large options), the random bot's samples are never refused."""
    options = {"lands_per_player": 8, "hand_size": 8}
    for seed in range(12):
        game = LandAndCastle(2, seed, options)
        record = play(game, [RandomBot(seed), RandomBot(seed + 100)], list_limit=0)
        assert game.is_over()
        for seat in record.result.seats:
            assert not [v for v in seat.verdicts if v.kind == pb.ILLEGAL_ACTION], seat.verdicts
