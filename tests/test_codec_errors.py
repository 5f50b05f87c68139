"""A message the codec can read but a record refuses is a malformed message, never a crash of the referee."""

from __future__ import annotations

from dataclasses import dataclass, make_dataclass

import pytest

from arena.v1 import generals_war_pb2 as gw_pb2
from arena.v1 import glory_pb2
from referee.games.generals_war.types import Battle, BattleResolved
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


@dataclass(frozen=True)
class Shout:
    """A record the union has no kind for."""

    loud: int


def test_a_record_the_union_has_no_kind_for_or_no_record_at_all_is_a_codec_error() -> None:
    with pytest.raises(CodecError, match="has no kind 'shout' for Shout"):
        encode(Shout(1), glory_pb2.Action())
    with pytest.raises(CodecError, match="cannot encode a object"):
        encode(object(), glory_pb2.Heal())


def test_a_message_field_read_into_a_field_that_is_no_record_is_a_codec_error() -> None:
    flat = make_dataclass("BattleResolved", [("battle", int)], frozen=True)  # the proto's field holds a Battle
    with pytest.raises(CodecError, match="cannot decode arena.v1.generals_war.Battle"):
        decode(gw_pb2.Event(battle_resolved=gw_pb2.BattleResolved(battle=gw_pb2.Battle(attacker=1))), (flat,))


def test_a_nested_record_with_nothing_set_is_sent_and_read_back_not_lost() -> None:
    """A nested record whose fields are all empty encodes to no bytes; it must still be there (not None) when read back.

    (No game's nested record is made of repeated and optional fields only, yet; a Battle cut down to one stands in.)
    """
    squads = make_dataclass("Battle", [("attacker_squad", tuple[int, ...])], frozen=True)
    resolved = make_dataclass("BattleResolved", [("battle", squads)], frozen=True)
    msg = gw_pb2.Event()
    encode(resolved(squads(())), msg)
    assert msg.battle_resolved.HasField("battle")
    assert decode(msg, (resolved,)) == resolved(squads(()))
    full = BattleResolved(Battle(0, 0, (), (), 0, 0, None))
    msg = gw_pb2.Event()
    encode(full, msg)
    assert decode(msg, (BattleResolved,)) == full
