"""The codec's fallback for classes compiled with mypyc names the same types as the annotations do.

A compiled dataclass keeps only erased annotations (``tuple``, ``object``), so the codec
finds the record or enum a message field holds by its protobuf name in the dataclass's
module (referee/protocol/codec.py, ``_field_types``). This checks, on the pure classes, that
every such name leads to the very class the annotation declares.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from enum import Enum

import pytest

from referee.compiled import in_use
from referee.games.registry import GAMES
from referee.protocol.codec import CARD_MESSAGE, _type_name


def records(game_id: str) -> list[type]:
    package = GAMES[game_id].__module__.rsplit(".", 1)[0]
    found = []
    for name, module in list(sys.modules.items()):
        if name.startswith(package + "."):
            found += [v for v in vars(module).values() if isinstance(v, type) and dataclasses.is_dataclass(v) and v.__module__ == name]
    return found


@pytest.mark.skipif(in_use(), reason="reads the annotations of the pure classes; compiled ones keep them erased")
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_message_and_enum_field_is_found_by_its_protobuf_name(game_id: str) -> None:
    pb = GAMES[game_id].proto_module
    checked = 0
    for cls in records(game_id):
        message = getattr(pb, cls.__name__, None)
        if message is None:  # kept by the rules only (a fight under way, a secret ledger): never on the wire
            continue
        module = sys.modules[cls.__module__]
        for name, hint in typing.get_type_hints(cls).items():
            fd = message.DESCRIPTOR.fields_by_name[name]
            if (fd.message_type is None or fd.message_type.full_name == CARD_MESSAGE) and fd.enum_type is None:
                continue
            args = [a for a in typing.get_args(hint) if a is not type(None) and a is not Ellipsis]
            declared = args[0] if args else hint
            if declared is int:  # an enum kept as its number on the Python side (a suit): the fallback must keep it too
                assert getattr(module, _type_name(fd), None) is None, f"{cls.__name__}.{name} would decode to {_type_name(fd)}"
                checked += 1
                continue
            assert isinstance(declared, type) and (dataclasses.is_dataclass(declared) or issubclass(declared, Enum)), (cls, name)
            assert getattr(module, _type_name(fd), None) is declared, f"{cls.__name__}.{name}: {_type_name(fd)} is not {declared}"
            checked += 1
    assert checked > 0
