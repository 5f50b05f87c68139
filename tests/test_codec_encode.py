"""Encoding for the seats: a decision request says whether its actions are listed, options keep their types."""

from __future__ import annotations

import dataclasses

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.assassination import Assassination
from referee.core.cards import CARDS_PER_DECK, rank_of, suit_of
from referee.games.generals_and_assassins import GeneralsAndAssassins
from referee.games.generals_and_assassins.enums import Side
from referee.games.generals_and_assassins.types import AssistGiven
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import RevealChoice
from referee.protocol.codec import CodecError
from referee.protocol.messages import GameCodec, option_values


@pytest.mark.parametrize("limit", [0, 1000])
def test_a_request_says_whether_it_lists_the_actions(limit: int) -> None:
    game = GeneralsWar(2, 3)
    codec = GameCodec(GeneralsWar)
    seat = game.to_act()[0]
    listed = game.listing(seat, limit)
    msg = pb.DecisionRequest()
    codec.fill_request(msg, game.view(seat), game.decision(seat), listed)
    sent = pb.DecisionRequest.FromString(msg.SerializeToString())
    if listed is None:
        assert not sent.legal_actions_listed and not sent.legal_actions
    else:
        assert sent.legal_actions_listed and [codec.decode_action(a) for a in sent.legal_actions] == listed
    assert sent.view == codec.view(game.view(seat)) and sent.decision == codec.decision(game.decision(seat))


def test_an_event_carries_its_number_in_the_log() -> None:
    game = GeneralsWar(2, 1)
    codec = GameCodec(GeneralsWar)
    event = game.opening_events()[0]
    msg = codec.event(event.payload, 17)
    assert msg.seq == 17
    assert codec.event_to_json(event, 17)["seq"] == 17
    assert codec.event_to_json(event, 17, msg) == codec.event_to_json(event, 17)


def test_options_are_sent_with_their_types() -> None:
    sent = option_values({"rounds": 6, "bad_cop": False, "style": "fancy", "zero": 0})
    assert sent == {
        "rounds": pb.OptionValue(int_value=6),
        "bad_cop": pb.OptionValue(bool_value=False),
        "style": pb.OptionValue(string_value="fancy"),
        "zero": pb.OptionValue(int_value=0),
    }
    assert sent["bad_cop"].WhichOneof("value") == "bool_value" and sent["zero"].WhichOneof("value") == "int_value"


def test_a_game_the_protocol_has_no_messages_for_is_refused() -> None:
    class Unknown(Assassination):
        spec = dataclasses.replace(Assassination.spec, id="chess")

    with pytest.raises(CodecError, match="the protocol has no messages for chess"):
        GameCodec(Unknown)



@pytest.mark.parametrize("deck", [0, 3, 4, 9])
def test_a_card_of_any_deck_is_sent_with_its_own_rank_and_suit(deck: int) -> None:
    """Cards of the first decks are copied from a table, the others are built: both must say the same."""
    ids = [deck * CARDS_PER_DECK + k for k in (0, 12, 13, 38, 51, 52, 53)]
    decision = GameCodec(GeneralsWar).decision(RevealChoice(tuple(ids)))
    sent = decision.generals_war.reveal_choice.revealable
    assert [(c.id, c.rank, c.suit) for c in sent] == [(c, int(rank_of(c)), int(suit_of(c))) for c in ids]
    assert [(c.rank, c.suit) for c in sent] == [(1, 1), (13, 1), (1, 2), (13, 3), (13, 4), (14, 0), (14, 0)]


def test_a_single_card_field_is_sent_with_its_rank_and_suit() -> None:
    queen_of_hearts = 2 * 13 + 11
    msg = GameCodec(GeneralsAndAssassins).event(AssistGiven(2, Side.DEFENDER, queen_of_hearts), 4)
    sent = msg.generals_and_assassins.assist_given
    assert (sent.seat, sent.side, sent.card.id, sent.card.rank, sent.card.suit) == (2, int(Side.DEFENDER), queen_of_hearts, 12, 3)


def test_an_events_json_says_everyone_for_a_public_event_and_the_seats_in_order_for_a_private_one() -> None:
    """``visible_to`` None is everyone (a replay shows it to every seat); an empty list would be no one."""
    codec = GameCodec(GeneralsWar)
    event = GeneralsWar(2, 1).opening_events()[0]
    assert codec.event_to_json(dataclasses.replace(event, visible_to=None), 3)["visible_to"] is None
    assert codec.event_to_json(dataclasses.replace(event, visible_to=frozenset({3, 0, 2})), 3)["visible_to"] == [0, 2, 3]
