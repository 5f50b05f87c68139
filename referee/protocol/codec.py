"""Generic conversion between a game's dataclasses and its protobuf messages.

Games speak in frozen dataclasses; each game's .proto file mirrors them field
by field. A union type (an action, a decision, an event) maps to a message
whose ``kind`` oneof has one field per dataclass, named as the class in
snake_case. Fields typed ``arena.v1.Card`` hold card ids on the Python side.
Any mismatch raises ``CodecError`` at once, so a proto that drifts from its
dataclasses fails the conformance suite instead of dropping data.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import typing
from enum import Enum
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from arena.v1 import cards_pb2
from referee.core.cards import rank_of, suit_of

CARD_MESSAGE = "arena.v1.Card"
ONEOF = "kind"


class CodecError(ValueError):
    """A dataclass and its protobuf message do not match, or a message cannot be decoded."""


def _message_name(fd: FieldDescriptor) -> str:
    return fd.message_type.full_name if fd.message_type is not None else ""


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def fill_card(msg: Any, card: int) -> None:
    msg.id = card
    msg.rank = int(rank_of(card))
    msg.suit = int(suit_of(card))


@cache
def _is_union(descriptor: Descriptor) -> bool:
    return ONEOF in descriptor.oneofs_by_name


def encode(obj: Any, msg: Message) -> Message:
    """Fill ``msg`` from dataclass ``obj`` (wrapping it in the ``kind`` oneof if ``msg`` is a union)."""
    descriptor = msg.DESCRIPTOR
    if _is_union(descriptor) and descriptor.name != type(obj).__name__:
        field = _union_field(descriptor, obj.__class__)
        inner = getattr(msg, field)
        _fill(obj, inner)
        inner.SetInParent()  # an empty payload still selects its kind
        return msg
    _fill(obj, msg)
    return msg


@cache
def _union_field(descriptor: Descriptor, cls: Any) -> str:
    field = snake(cls.__name__)
    if field not in descriptor.fields_by_name:
        raise CodecError(f"{descriptor.full_name} has no kind {field!r} for {cls.__name__}")
    return field


# How each field of a dataclass is written into its message.
SCALAR, ENUM, REPEATED, REPEATED_CARDS, REPEATED_MESSAGES, CARD, MESSAGE = range(7)


@cache
def _plan(cls: Any, descriptor: Descriptor) -> tuple[tuple[str, int], ...]:
    name = getattr(cls, "__name__", repr(cls))
    if not dataclasses.is_dataclass(cls):
        raise CodecError(f"cannot encode a {name} into {descriptor.full_name}")
    plan: list[tuple[str, int]] = []
    for f in dataclasses.fields(cls):
        fd = descriptor.fields_by_name.get(f.name)
        if fd is None:
            raise CodecError(f"{descriptor.full_name} has no field {f.name!r} for {name}")
        is_message = fd.type == FieldDescriptor.TYPE_MESSAGE
        is_card = is_message and _message_name(fd) == CARD_MESSAGE
        if fd.is_repeated:
            kind = REPEATED_CARDS if is_card else REPEATED_MESSAGES if is_message else REPEATED
        elif is_message:
            kind = CARD if is_card else MESSAGE
        else:
            kind = ENUM if fd.type == FieldDescriptor.TYPE_ENUM else SCALAR
        plan.append((f.name, kind))
    return tuple(plan)


_RANKS = [int(rank_of(c)) for c in range(54)]
_SUITS = [int(suit_of(c)) for c in range(54)]
#: A Card message for each id of the first decks, appended (copied) into repeated fields: cheaper than add(**fields).
_CARDS = [cards_pb2.Card(id=c, rank=_RANKS[c % 54], suit=_SUITS[c % 54]) for c in range(54 * 4)]  # type: ignore[arg-type]


def _fill(obj: Any, msg: Any) -> None:
    _filler(obj.__class__, msg.DESCRIPTOR)(obj, msg)


@cache
def _filler(cls: Any, descriptor: Descriptor) -> Any:
    """A function that fills a ``descriptor`` message from a ``cls`` object, written out field by field.

    It does what a loop over ``_plan`` would, in the same order, without deciding each field's kind again
    for every object (the codec is on the referee's hot path: every view, decision, action and event).
    """
    lines = ["def fill(obj, msg):"]
    for name, kind in _plan(cls, descriptor):
        lines.append(f"    v = obj.{name}")
        lines.append("    if v is not None:")
        if kind == SCALAR:
            lines.append(f"        msg.{name} = v")
        elif kind == REPEATED_CARDS:
            lines += [
                f"        c = msg.{name}",
                "        for x in v:",
                "            if 0 <= x < n_cards:",
                "                c.append(cards[x])",
                "            else:",
                "                k = x % 54",
                "                c.add(id=x, rank=ranks[k], suit=suits[k])",
            ]
        elif kind == REPEATED:
            lines.append(f"        msg.{name}.extend(e.value if isinstance(e, Enum) else e for e in v)")
        elif kind == ENUM:
            lines.append(f"        msg.{name} = int(v)")
        elif kind == CARD:
            lines.append(f"        fill_card(msg.{name}, v)")
        elif kind == MESSAGE:
            lines += [f"        t = msg.{name}", "        encode(v, t)", "        t.SetInParent()"]
        else:
            lines += [f"        c = msg.{name}", "        for e in v:", "            encode(e, c.add())"]
    lines.append("    return None")
    scope: dict[str, Any] = {
        "Enum": Enum, "encode": encode, "fill_card": fill_card, "cards": _CARDS, "n_cards": len(_CARDS), "ranks": _RANKS, "suits": _SUITS,
    }
    exec("\n".join(lines), scope)  # noqa: S102 - field names come from dataclasses checked against the descriptor
    return scope["fill"]


def decode(msg: Message, types: tuple[type, ...]) -> Any:
    """The dataclass for union message ``msg``, chosen among ``types`` by the set ``kind``."""
    kind = msg.WhichOneof(ONEOF)
    if kind is None:
        raise CodecError(_no_kind(msg.DESCRIPTOR) + foreign_fields(msg))
    cls = _by_kind(types).get(kind)
    if cls is None:
        raise CodecError(f"unknown kind {kind!r}")
    return _build(cls, getattr(msg, kind))


def foreign_fields(msg: Message) -> str:
    """What ``msg`` held that its message type does not define, for the error that says it is empty or has no kind
    set ("" when it held nothing else): a bot whose .proto files differ from the referee's (a field renumbered, an
    older or a hand-written copy) sends fields the referee's parser keeps aside, and "an empty message" or "has no
    kind set" alone told it to set what it believed it had set."""
    held = UnknownFieldSet(msg)
    numbers = sorted({held[i].field_number for i in range(len(held))})
    if not numbers:
        return ""
    listed = ", ".join(map(str, numbers))
    return (f"; it holds field{'s' if len(numbers) > 1 else ''} {listed}, which {msg.DESCRIPTOR.full_name} does not define"
            " (or not with the wire type sent): are the bot's .proto files the referee's (proto/arena/v1/)?")


@cache
def _no_kind(descriptor: Descriptor) -> str:
    """Why a union message with no kind set is malformed, naming its kinds: a bot's library drops a name it does not
    know (a decision's kind, ``castle_choice``, sent as the action's) and may leave out a kind that is an empty message,
    and "has no kind set" alone said neither."""
    kinds = descriptor.oneofs_by_name[ONEOF].fields
    text = f"{descriptor.full_name} has no kind set: set one of {', '.join(f.name for f in kinds)}"
    empty = [f.name for f in kinds if f.message_type is not None and not f.message_type.fields]
    if empty:
        named = empty[0] if len(empty) == 1 else f"{', '.join(empty[:-1])} and {empty[-1]}"
        text += f" ({named}, {'an empty message' if len(empty) == 1 else 'empty messages'}, must be set all the same: docs/protocol.md)"
    return text


@cache
def _by_kind(types: tuple[type, ...]) -> dict[str, type]:
    """The oneof field name of each union member (worked out once: a regex per type per action was 2% of a match)."""
    return {snake(t.__name__): t for t in types}


@cache
def _field_types(cls: Any, descriptor: Descriptor) -> dict[str, Any]:
    """Each field's declared type, with ``X | None`` and ``tuple[X, ...]`` unwrapped to X.

    A class compiled with mypyc keeps only erased annotations (``tuple[Offer, ...]`` is ``tuple``):
    where a field holding a record or an enum has such a hint, the class named as the message's
    field type in the dataclass's module is taken (tests/test_codec_names.py checks that the two agree).
    """
    module = sys.modules[cls.__module__]
    out: dict[str, Any] = {}
    for name, hint in typing.get_type_hints(cls).items():
        args = [a for a in typing.get_args(hint) if a is not type(None) and a is not Ellipsis]
        declared = args[0] if args else hint
        fd = descriptor.fields_by_name.get(name)
        if fd is not None and not _holds(declared, fd):
            declared = getattr(module, _type_name(fd), declared)
        out[name] = declared
    return out


def _type_name(fd: FieldDescriptor) -> str:
    """The short name of the message or enum a field holds ('' for scalars)."""
    if fd.message_type is not None:
        return str(fd.message_type.name)
    if fd.enum_type is not None:
        return str(fd.enum_type.name)
    return ""


_ERASED = (tuple, type, object)


def _holds(hint: Any, fd: FieldDescriptor) -> bool:
    """False where ``hint`` was erased (``tuple``; ``type`` or ``object`` for a union) but the field holds a record or an enum."""
    return hint not in _ERASED or _type_name(fd) == ""


def _bad_enum(fd: FieldDescriptor, value: int, hint: type[Enum]) -> str:
    """Why an enum field's number is no value of the game, naming the field and the names it takes. "0 is not a valid
    kind" named neither (and in TakeAction, "kind" read as the action's oneof); 0 is also what a library that
    converts names (Node's proto-loader) sends for a name it does not know, as "hall" or "NOWHERE"."""
    assert fd.enum_type is not None
    known = {e.value for e in hint}
    names = ", ".join(v.name for v in fd.enum_type.values if v.number in known)
    said = str(value)
    if value == 0 and 0 in fd.enum_type.values_by_number:
        said += f" ({fd.enum_type.values_by_number[0].name}: not set, or set to a name the bot's protobuf library did not know)"
    return f"{fd.full_name} is {said}, where one of {names} belongs"


def _build(cls: type, msg: Any) -> Any:
    kwargs: dict[str, Any] = {}
    types = _field_types(cls, msg.DESCRIPTOR)
    for f in dataclasses.fields(cls):
        name = f.name
        fd = msg.DESCRIPTOR.fields_by_name.get(name)
        if fd is None:
            raise CodecError(f"{msg.DESCRIPTOR.full_name} has no field {name!r}")
        value = getattr(msg, name)
        if fd.is_repeated:
            kwargs[name] = tuple(_value(types[name], fd, item) for item in value)
        elif fd.type == FieldDescriptor.TYPE_MESSAGE or fd.has_presence:
            kwargs[name] = _value(types[name], fd, value) if msg.HasField(name) else None
        else:
            kwargs[name] = _value(types[name], fd, value)
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a record that checks its fields (a compiled one checks their types) refused a value
        raise CodecError(f"{msg.DESCRIPTOR.full_name}: {exc}") from None


def _value(hint: Any, fd: FieldDescriptor, value: Any) -> Any:
    if fd.type != FieldDescriptor.TYPE_MESSAGE:
        if isinstance(hint, type) and issubclass(hint, Enum):
            try:
                return hint(value)
            except ValueError:
                raise CodecError(_bad_enum(fd, value, hint)) from None
        return value
    if _message_name(fd) == CARD_MESSAGE:
        return int(value.id)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _build(hint, value)
    raise CodecError(f"cannot decode {_message_name(fd)} into {hint!r}")
