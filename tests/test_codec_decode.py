"""Decoding a bot's action: what cannot be read as one of the game's actions is malformed (CodecError), never an illegal move.

The session tells the two apart by the exception alone: a CodecError is a protocol error
(MALFORMED_ACTION), an action that decodes is given to the rules, which may refuse it.
"""

from __future__ import annotations

import random
from typing import cast

import pytest
from google.protobuf import json_format

from arena.v1 import assassination_pb2 as apb
from arena.v1 import glory_pb2
from arena.v1 import land_and_castle_pb2 as lc_pb2
from arena.v1 import referee_pb2 as pb
from referee.games.assassination import Assassination
from referee.games.assassination.types import ActionKind, MovePresident, Room, StartRound, TakeAction
from referee.games.generals_and_assassins import GeneralsAndAssassins
from referee.games.generals_and_assassins.enums import Side
from referee.games.generals_and_assassins.types import AssistGiven
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import RevealGenerals
from referee.games.registry import GAMES
from referee.protocol.codec import CodecError, decode
from referee.protocol.messages import GameCodec
from tests.test_session import V, driver_answers, kinds, run_session

CODEC = GameCodec(Assassination)


def test_an_action_of_another_game_is_malformed() -> None:
    other = pb.Action(glory=glory_pb2.Action(pass_turn=glory_pb2.PassTurn()))
    with pytest.raises(CodecError, match="expected an action of assassination, got one of glory"):
        CODEC.decode_action(other)
    with pytest.raises(CodecError, match="expected an action of assassination, got none$"):
        CODEC.decode_action(pb.Action())


def test_an_action_of_no_kind_is_malformed_and_told_its_kinds() -> None:
    """A bot whose library dropped a name it does not know (a decision's kind sent as the action's) or left out an
    empty kind read "has no kind set" alone: the kinds are named, and the empty ones said to be set all the same."""
    with pytest.raises(CodecError) as told:
        CODEC.decode_action(pb.Action(assassination=apb.Action()))
    kinds = [f.name for f in apb.Action.DESCRIPTOR.oneofs_by_name["kind"].fields]
    assert str(told.value).startswith(f"arena.v1.assassination.Action has no kind set: set one of {', '.join(kinds)} (")
    assert "(start_round, an empty message, must be set all the same: docs/protocol.md)" in str(told.value)
    with pytest.raises(CodecError) as told:
        GameCodec(GAMES["glory"]).decode_action(pb.Action(glory=glory_pb2.Action()))
    assert "(pass_turn, decline_assist and start_round, empty messages, must be set all the same" in str(told.value)
    with pytest.raises(CodecError) as told:
        GameCodec(GAMES["land-and-castle"]).decode_action(pb.Action(land_and_castle=lc_pb2.Action()))
    assert str(told.value).endswith("set one of place_castle, place_general, swap_card, attack, defend, control, capture")


def test_fields_the_referees_proto_does_not_define_are_named_where_an_action_reads_empty() -> None:
    """A bot whose .proto files number a kind (or the game's field) otherwise than the referee's sent what its library
    set, and was told "has no kind set" or "got none" alone: the field numbers the referee could not read are named."""
    with pytest.raises(CodecError) as told:
        CODEC.decode_action(pb.Action(assassination=apb.Action.FromString(b"\xa0\x01\x01")))  # field 20, a varint
    assert str(told.value).endswith(
        "; it holds field 20, which arena.v1.assassination.Action does not define (or not with the wire type sent):"
        " are the bot's .proto files the referee's (proto/arena/v1/)?"
    )
    with pytest.raises(CodecError) as told:
        CODEC.decode_action(pb.Action.FromString(b"\x3a\x00\x40\x01"))  # fields 7 (a message) and 8
    assert str(told.value).startswith("expected an action of assassination, got none; it holds fields 7, 8, which arena.v1.Action")


def test_a_kind_that_is_not_among_the_games_actions_is_malformed() -> None:
    with pytest.raises(CodecError, match="unknown kind 'start_round'"):
        decode(apb.Action(start_round=apb.StartRound()), (MovePresident, TakeAction))


def test_an_enum_number_the_game_does_not_know_is_malformed() -> None:
    good = pb.Action(assassination=apb.Action(move_president=apb.MovePresident(room=cast(apb.Room, Room.TOWER))))
    assert CODEC.decode_action(good) == MovePresident(Room.TOWER)
    bad = pb.Action(assassination=apb.Action(move_president=apb.MovePresident(room=cast(apb.Room, 99))))
    with pytest.raises(CodecError) as told:
        CODEC.decode_action(bad)
    # The field by its whole name ("99 is not a valid room" named neither message nor field) and the names it takes.
    assert str(told.value) == (
        "arena.v1.assassination.MovePresident.room is 99, where one of "
        + ", ".join(r.name for r in Room)
        + " belongs"
    )


def test_an_optional_field_left_out_is_none_and_one_set_to_zero_is_zero() -> None:
    """Colour 0 is a piece: a target left out must not be read as it."""
    kind = next(iter(ActionKind))
    bare = CODEC.decode_action(pb.Action(assassination=apb.Action(take_action=apb.TakeAction(kind=cast(apb.ActionKind, kind)))))
    assert bare == TakeAction(kind, None, None)
    zero = CODEC.decode_action(pb.Action(assassination=apb.Action(take_action=apb.TakeAction(kind=cast(apb.ActionKind, kind), target_colour=0))))
    assert zero == TakeAction(kind, 0, None)
    sent = CODEC.action(TakeAction(kind, None, None)).assassination.take_action
    assert not sent.HasField("target_colour") and not sent.HasField("target_room")


def test_an_action_without_fields_still_says_its_kind() -> None:
    msg = CODEC.action(StartRound())
    assert msg.assassination.WhichOneof("kind") == "start_round"
    assert CODEC.decode_action(pb.Action.FromString(msg.SerializeToString())) == StartRound()


def test_a_bot_answering_with_another_games_action_gets_malformed_not_a_rejection() -> None:
    """The session plays General's War; a Glory action is answered with a protocol error and the same request stands."""
    sent = {"done": False}
    inner = driver_answers(3)

    def confused(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and not sent["done"]:
            sent["done"] = True
            inner(msg)  # the driver learns of the request; its answer is replaced
            other = pb.Action(glory=glory_pb2.Action(pass_turn=glory_pb2.PassTurn()))
            return [pb.BotMessage(action=pb.ActionResponse(request_id=msg.decision.request_id, action=other))] + inner(msg)
        return inner(msg)

    record, links = run_session([confused, driver_answers(4)])
    assert [e.code for e in links[0].of("error")][:1] == [pb.MALFORMED_ACTION]
    assert not links[0].of("rejection")
    assert V.MALFORMED in kinds(record, 0) and V.ILLEGAL_ACTION not in kinds(record, 0)


def test_an_action_read_from_a_replay_with_a_misspelled_field_is_refused_not_read_as_another() -> None:
    """A replay re-plays its actions from their JSON: a field dropped unread would re-play a different action."""
    codec = GameCodec(GeneralsWar)
    assert codec.action_from_json({"reveal_generals": {"card_ids": [0, 13]}}) == RevealGenerals((0, 13))
    with pytest.raises(json_format.ParseError, match="card_idz"):
        codec.action_from_json({"reveal_generals": {"card_idz": [0, 13]}})


def test_a_card_message_decodes_to_its_id() -> None:
    """No action holds an arena.v1.Card yet, but the codec reads any union: a card is its id, not its rank."""
    queen_of_hearts = 2 * 13 + 11
    sent = GameCodec(GeneralsAndAssassins).event(AssistGiven(2, Side.DEFENDER, queen_of_hearts), 0).generals_and_assassins
    assert decode(sent, (AssistGiven,)) == AssistGiven(2, Side.DEFENDER, queen_of_hearts)


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_event_and_decision_of_a_match_reads_back_as_itself(game_id: str) -> None:
    """Only actions are decoded in play, but the codec is one: nested records, cards, enums and None must all come back."""
    cls = GAMES[game_id]
    n = cls.spec.player_counts[-1]
    game = cls(n, 4)
    codec = GameCodec(cls)
    rng = random.Random(4)
    payloads = [e.payload for e in game.opening_events()]
    decisions = []
    while not game.is_over():
        seat = rng.choice(game.to_act())
        decisions.append(game.decision(seat))
        payloads += [e.payload for e in game.apply(seat, game.random_action(seat, rng))]
    for payload in payloads:
        assert decode(getattr(codec.event(payload, 0), codec.field), (type(payload),)) == payload
    for decision in decisions:
        assert decode(getattr(codec.decision(decision), codec.field), (type(decision),)) == decision



def _action_enum_fields() -> list[tuple[str, str, str]]:
    """(game id, action kind, field) of every enum field of every game's actions."""
    found = []
    for game_id, cls in GAMES.items():
        action = cls.proto_module.Action.DESCRIPTOR
        for kind in action.oneofs_by_name["kind"].fields:
            assert kind.message_type is not None
            found += [(game_id, kind.name, f.name) for f in kind.message_type.fields if f.enum_type is not None]
    return found


@pytest.mark.parametrize("game_id,kind,field", _action_enum_fields())
def test_an_enum_of_an_action_left_unset_is_malformed_as_docs_protocol_md_says(game_id: str, kind: str, field: str) -> None:
    """An enum field left at its ``_UNSPECIFIED`` 0 (the bot forgot to set it) holds no value the game knows: a
    MALFORMED_ACTION, not a rejection, though the .proto defines the number. An ``optional`` one left out is no
    value (None), so it is set to 0 here."""
    cls = GAMES[game_id]
    codec = GameCodec(cls)
    msg = pb.Action()
    inner = getattr(getattr(msg, codec.field), kind)
    inner.SetInParent()
    for other in inner.DESCRIPTOR.fields:  # every other enum set to a number the game knows, so that only ``field`` is wrong
        if other.enum_type is not None and other.name != field:
            setattr(inner, other.name, 1)
    if inner.DESCRIPTOR.fields_by_name[field].has_presence:
        setattr(inner, field, 0)
    assert getattr(inner, field) == 0
    with pytest.raises(CodecError) as told:
        codec.decode_action(msg)
    # "0 is not a valid kind" named no message, and TakeAction's field read as the action's oneof; 0 is also what a
    # library that converts names sends for one it does not know ("hall"), so the message says so.
    fd = inner.DESCRIPTOR.fields_by_name[field]
    assert str(told.value).startswith(
        f"{fd.full_name} is 0 ({fd.enum_type.values_by_number[0].name}: not set, or set to a name the bot's protobuf library did not know), where one of "
    )
