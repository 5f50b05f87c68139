"""Protocol messages as JSON-ready dicts, the same as ``json_format.MessageToDict(msg, preserving_proto_field_name=True)``.

MessageToDict walks every message through Python reflection; a replay holds
hundreds of events, so writing one took as long as playing the match. This
walks only the fields that are set (``ListFields``, in C) with a plan made
once per message type. Types it does not handle the same way (floats, whose
rounding MessageToDict does its own way, bytes, maps, well-known types) go
to MessageToDict as a whole.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

_F = FieldDescriptor
_LONG = {_F.TYPE_INT64, _F.TYPE_UINT64, _F.TYPE_SINT64, _F.TYPE_FIXED64, _F.TYPE_SFIXED64}
_UNHANDLED = {_F.TYPE_FLOAT, _F.TYPE_DOUBLE, _F.TYPE_BYTES, _F.TYPE_GROUP}


@cache
def _simple(descriptor: Descriptor) -> bool:
    """Whether every field, down through nested messages, converts as MessageToDict would by the rules below."""
    return _check(descriptor, set())


def _check(descriptor: Descriptor, seen: set[str]) -> bool:
    if descriptor.full_name in seen:
        return True
    seen.add(descriptor.full_name)
    if descriptor.full_name.startswith("google.protobuf.") or descriptor.GetOptions().map_entry:
        return False
    for field in descriptor.fields:
        if field.type in _UNHANDLED:
            return False
        if field.type == _F.TYPE_MESSAGE and (field.message_type is None or not _check(field.message_type, seen)):
            return False
    return True


def message_to_dict(msg: Message) -> dict[str, Any]:
    """``MessageToDict(msg, preserving_proto_field_name=True)``, faster for the protocol's messages."""
    if not _simple(msg.DESCRIPTOR):
        found: dict[str, Any] = json_format.MessageToDict(msg, preserving_proto_field_name=True)
        return found
    return _convert(msg)


@cache
def _leaf(descriptor: Descriptor) -> bool:
    """A message without message fields (a card, say): small, and the same ones again and again."""
    return all(field.type != _F.TYPE_MESSAGE for field in descriptor.fields)


#: Each leaf converted once: its dict, and whether that holds lists (a leaf's repeated fields, a piece's rooms visited).
_leaves: dict[bytes, tuple[dict[str, Any], bool]] = {}


def _convert_leaf(msg: Message) -> dict[str, Any]:
    key = msg.DESCRIPTOR.full_name.encode() + b"\0" + msg.SerializeToString(deterministic=True)
    kept = _leaves.get(key)
    if kept is None:
        if len(_leaves) > 20_000:
            _leaves.clear()
        converted = _convert(msg)
        kept = _leaves[key] = (converted, any(isinstance(value, list) for value in converted.values()))
    found, lists = kept
    # A copy, with its lists: the caller may change it.
    if lists:
        return {name: list(value) if isinstance(value, list) else value for name, value in found.items()}
    return dict(found)


def _convert(msg: Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field, value in msg.ListFields():
        kind = field.type
        repeated = field.is_repeated
        if kind == _F.TYPE_MESSAGE:
            convert = _convert_leaf if field.message_type is not None and _leaf(field.message_type) else _convert
            out[field.name] = [convert(v) for v in value] if repeated else convert(value)
        elif kind == _F.TYPE_ENUM:
            names = field.enum_type.values_by_number  # type: ignore[union-attr]  # an enum field has its enum type
            out[field.name] = [_enum(names, v) for v in value] if repeated else _enum(names, value)
        elif kind in _LONG:
            out[field.name] = [str(v) for v in value] if repeated else str(value)
        else:
            out[field.name] = list(value) if repeated else value
    return out


def _enum(names: Any, number: int) -> str | int:
    found = names.get(number)
    return number if found is None else str(found.name)
