"""Encoding for the seats: a decision request says whether its actions are listed, options keep their types."""

from __future__ import annotations

import dataclasses

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.assassination import Assassination
from referee.games.generals_war import GeneralsWar
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

