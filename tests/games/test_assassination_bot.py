"""The heuristic Assassination Game bot beats three random bots clearly, and its time is measured."""

from __future__ import annotations

import time

from referee.games.assassination import Assassination
from referee.server.inprocess import play
from tests.support import load_bot_class

HeuristicBot = load_bot_class("assassination_heuristic", "HeuristicBot")
RandomBot = load_bot_class("random", "RandomBot")


def test_heuristic_average_rank_is_better_than_2_against_three_random_bots() -> None:
    ranks: list[int] = []
    think = 0.0
    decisions = 0

    class Timed(HeuristicBot):  # type: ignore[misc, valid-type]
        def act(self, request):  # type: ignore[no-untyped-def]
            nonlocal think, decisions
            start = time.perf_counter()
            try:
                return super().act(request)
            finally:
                think += time.perf_counter() - start
                decisions += 1

    for seed in range(200):
        seat = seed % 4  # the heuristic bot sits in every seat in turn
        bots = [Timed() if s == seat else RandomBot(seed * 4 + s) for s in range(4)]
        record = play(Assassination(4, seed), bots)
        assert not record.result.seats[seat].verdicts, record.result.seats[seat].verdicts
        ranks.append(record.result.seats[seat].rank)
    average = sum(ranks) / len(ranks)
    assert average < 2.0, f"average rank {average:.2f} over 200 games"
    assert think / decisions < 0.005, f"{1000 * think / decisions:.2f} ms per decision"


def test_random_bots_sample_legal_actions_from_the_decision_alone() -> None:
    """With no legal actions listed, the SDK's sampler must still play legally for every kind of decision."""
    kinds: set[str] = set()
    for seed in range(12):
        bots = [RandomBot(seed * 4 + s) for s in range(4)]
        record = play(Assassination(4, seed), bots, list_limit=0)
        assert all(not s.verdicts for s in record.result.seats), [list(s.verdicts) for s in record.result.seats]
        kinds.update(type(e.payload).__name__ for e in record.events)
    assert {"ActionTaken", "RoundEnded", "PresidentMoved"} <= kinds


def test_the_heuristic_bot_plays_legally_with_actions_unlisted() -> None:
    for seed in range(4):
        bots = [HeuristicBot() if s == seed % 4 else RandomBot(seed * 4 + s) for s in range(4)]
        record = play(Assassination(4, seed), bots, list_limit=0)
        assert all(not s.verdicts for s in record.result.seats)


def test_the_heuristic_sniper_does_not_reveal_himself_when_he_cannot_shoot() -> None:
    """A sniper sharing a room with a revealed bomber has nothing to do once the president is dead: detaining is
    not his, and playing an action card would only show everyone what he is."""
    from arena.v1 import assassination_pb2 as asn

    view = asn.View(identity=asn.SNIPER, colour=0, president=asn.President(room=asn.HALL, status=asn.KILLED))
    view.pieces.extend([asn.Piece(colour=0, room=asn.COURTYARD), asn.Piece(colour=1, room=asn.COURTYARD)])
    view.revealed.append(asn.Revealed(colour=1, identity=asn.BOMBER))
    bot = HeuristicBot()
    assert not bot.wants_to_act(view)
    # While the president lives, the same sniper in the tower with the president on the podium still snipes.
    view.president.status, view.president.room, view.pieces[0].room = asn.UNHARMED, asn.PODIUM, asn.TOWER
    del view.revealed[:]
    view.pieces[1].room = asn.HALL
    assert bot.best_kind(view) == (asn.SNIPE, None, None)
