"""A message the codec can read but a record refuses is a malformed message, never a crash of the referee."""

from __future__ import annotations

from dataclasses import dataclass, make_dataclass

import pytest

from arena.v1 import glory_pb2
from referee.protocol.codec import CodecError, decode, encode


@dataclass(frozen=True)
class Heal:
    """Stands in for a record whose constructor checks what it is given, as a compiled record checks types."""

    card_id: int

    def __post_init__(self) -> None:
        if self.card_id > 1000:
            raise TypeError(f"card {self.card_id} is not of any deck")


def test_a_value_the_record_refuses_is_a_codec_error() -> None:
    good = glory_pb2.Action(heal=glory_pb2.Heal(card_id=7))
    assert decode(good, (Heal,)) == Heal(7)
    bad = glory_pb2.Action(heal=glory_pb2.Heal(card_id=5000))
    with pytest.raises(CodecError, match="card 5000 is not of any deck"):
        decode(bad, (Heal,))


@dataclass(frozen=True)
class Drifted:
    """A record with a field its message lacks, as a .proto that drifted from its dataclass would be."""

    card_id: int
    bonus: int


def test_a_record_and_a_message_that_drifted_apart_are_a_codec_error_not_lost_data() -> None:
    with pytest.raises(CodecError, match="has no field 'bonus' for Drifted"):
        encode(Drifted(7, 2), glory_pb2.Heal())
    drifted_heal = make_dataclass("Heal", [("card_id", int), ("bonus", int)], frozen=True)  # read for the kind "heal"
    with pytest.raises(CodecError, match="has no field 'bonus'"):
        decode(glory_pb2.Action(heal=glory_pb2.Heal(card_id=7)), (drifted_heal,))
