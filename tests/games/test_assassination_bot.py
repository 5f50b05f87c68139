"""The heuristic Assassination Game bot beats three random bots clearly, and plays legally from the decision alone."""

from __future__ import annotations

import pytest

from referee.games.assassination import Assassination
from referee.server.inprocess import play
from tests.games.test_assassination_support import PURE_RULES_ONLY, cell_question, sniper_detention_question
from tests.support import load_bot_class

HeuristicBot = load_bot_class("assassination_heuristic", "HeuristicBot")
RandomBot = load_bot_class("random", "RandomBot")


@pytest.mark.bot_strength
def test_heuristic_average_rank_is_better_than_2_against_three_random_bots() -> None:
    ranks: list[int] = []
    for seed in range(200):
        seat = seed % 4  # the heuristic bot sits in every seat in turn
        bots = [HeuristicBot() if s == seat else RandomBot(seed * 4 + s) for s in range(4)]
        record = play(Assassination(4, seed), bots)
        assert not record.result.seats[seat].verdicts, record.result.seats[seat].verdicts
        ranks.append(record.result.seats[seat].rank)
    average = sum(ranks) / len(ranks)
    assert average < 2.0, f"average rank {average:.2f} over 200 games"


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


@PURE_RULES_ONLY
def test_the_bots_answer_the_questions_of_the_action_stage_legally() -> None:
    """The sniper's detention and leaving the cell come up rarely in random play: each is set up here, and the SDK's
    sampler and the heuristic bot must answer it legally from the protobuf decision alone, with every answer
    open to them over a few draws."""
    import random

    from arena.v1 import referee_pb2 as pb
    from arena_sdk.bot import Request
    from arena_sdk.games import assassination as sdk
    from referee.protocol.messages import GameCodec

    codec = GameCodec(Assassination)

    for g in (sniper_detention_question(False), sniper_detention_question(True), cell_question()):
        for seat in g.to_act():
            raw = pb.DecisionRequest(view=codec.view(g.view(seat)), decision=codec.decision(g.decision(seat)))
            request = Request(raw, pb.GameStart(game="assassination", seat=seat, num_seats=4))
            answers = {sdk.sample(request, random.Random(k)).SerializeToString() for k in range(20)}
            answers.add(HeuristicBot().act(request).SerializeToString())
            decoded = []
            for data in answers:
                envelope = pb.Action()
                envelope.assassination.ParseFromString(data)
                decoded.append(codec.decode_action(envelope))
                assert g.check(seat, decoded[-1]) is None, (g.decision(seat), seat, decoded[-1])
            assert set(decoded) == set(g.legal_actions(seat)), (g.decision(seat), seat)
