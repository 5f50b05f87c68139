"""A message the codec can read but a record refuses is a malformed message, never a crash of the referee."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from arena.v1 import glory_pb2
from referee.protocol.codec import CodecError, decode


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
