"""referee.protocol.jsondict spells messages as protobuf's MessageToDict does, whatever the message holds."""

from __future__ import annotations

from google.protobuf import json_format
from google.protobuf.message import Message

from arena.v1 import assassination_pb2 as aspb
from arena.v1 import cards_pb2 as cpb
from arena.v1 import generals_war_pb2 as gwpb
from arena.v1 import referee_pb2 as pb
from referee.protocol.jsondict import message_to_dict


def protobufs_own(msg: Message) -> dict[str, object]:
    return json_format.MessageToDict(msg, preserving_proto_field_name=True)


def test_messages_with_maps_doubles_and_long_numbers_read_as_protobuf_reads_them() -> None:
    """A map, a double and a 64-bit number are each spelled in their own way by MessageToDict."""
    start = pb.GameStart(game="glory", seat=1, num_seats=4, options={"rounds": pb.OptionValue(int_value=6), "x": pb.OptionValue(bool_value=True)})
    result = pb.SeatResult(seat=2, rank=1, score=0.1 + 0.2)
    event = pb.Event(seq=2**40, generals_war=gwpb.Event(cards_drawn=gwpb.CardsDrawn(seat=1, count=2)))
    for msg in (start, result, event):
        assert message_to_dict(msg) == protobufs_own(msg)


def test_a_card_read_again_is_not_what_a_caller_changed() -> None:
    """Cards are kept once converted: each caller gets its own copy to change."""
    msg = gwpb.RevealChoice()
    msg.revealable.add(id=13, rank=1, suit=2)
    first = message_to_dict(msg)
    first["revealable"][0]["id"] = 99
    assert message_to_dict(msg) == protobufs_own(msg)
    # A leaf's own lists too: a piece's rooms visited, appended to by one caller, were every later caller's.
    pieces = aspb.View(pieces=[aspb.Piece(colour=1, visited=[aspb.COURTYARD])])
    message_to_dict(pieces)["pieces"][0]["visited"].append("HALL")
    assert message_to_dict(pieces) == protobufs_own(pieces)


def test_every_kind_of_field_is_spelled_as_protobuf_spells_it() -> None:
    """A 64-bit number is a string, an infinite double "Infinity", an enum its name (a number it lacks, the number),
    and two leaf messages of different types with the same bytes keep their own field names."""
    same_bytes = (gwpb.RoundStarted(round=1, attacker=2), gwpb.TargetChosen(attacker=1, target=2))
    assert same_bytes[0].SerializeToString() == same_bytes[1].SerializeToString()
    messages: list[Message] = [
        pb.OptionValue(int_value=-(2**40)),
        pb.SeatResult(seat=1, score=float("inf")),
        gwpb.Player(seat=1, suits=[cpb.HEARTS, cpb.SPADES]),
        gwpb.View(seat=0, phase=99),  # type: ignore[arg-type]  # proto3 enums are open: a number no name has
        gwpb.Event(round_started=same_bytes[0]),
        gwpb.Event(target_chosen=same_bytes[1]),
    ]
    for msg in messages:
        assert message_to_dict(msg) == protobufs_own(msg), msg
