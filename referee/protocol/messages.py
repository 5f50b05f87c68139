"""Building the protocol's envelope messages (arena.v1) for one game."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format

from arena.v1 import referee_pb2 as pb
from referee.core.game import Event, Game, OptionValue
from referee.protocol.codec import CodecError, decode, encode, foreign_fields
from referee.protocol.jsondict import message_to_dict

PROTOCOL_VERSION = 1


def game_field(game_id: str) -> str:
    """The field of a game in the envelope oneofs: ``generals-war`` -> ``generals_war``."""
    return game_id.replace("-", "_")


class GameCodec:
    """Turns one game's Python objects into envelope messages and back."""

    def __init__(self, game_cls: type[Game[Any]]) -> None:
        self.game_cls = game_cls
        self.field = game_field(game_cls.spec.id)
        if self.field not in pb.Action.DESCRIPTOR.fields_by_name:
            raise CodecError(f"the protocol has no messages for {game_cls.spec.id}")

    def view(self, view: Any) -> pb.View:
        msg = pb.View()
        encode(view, getattr(msg, self.field))
        return msg

    def decision(self, decision: Any) -> pb.Decision:
        msg = pb.Decision()
        encode(decision, getattr(msg, self.field))
        return msg

    def fill_request(self, msg: pb.DecisionRequest, view: Any, decision: Any, actions: list[Any] | None) -> None:
        """Encode ``view``, ``decision`` and the listed ``actions`` (None: not listed) straight into ``msg``.

        The same bytes as building each message on its own and copying it in, without the copies.
        """
        encode(view, getattr(msg.view, self.field))
        msg.view.SetInParent()
        encode(decision, getattr(msg.decision, self.field))
        msg.decision.SetInParent()
        if actions is not None:
            add = msg.legal_actions.add
            field = self.field
            for action in actions:
                encode(action, getattr(add(), field))
            msg.legal_actions_listed = True

    def action(self, action: Any) -> pb.Action:
        msg = pb.Action()
        encode(action, getattr(msg, self.field))
        return msg

    def event(self, payload: Any, seq: int) -> pb.Event:
        msg = pb.Event(seq=seq)
        encode(payload, getattr(msg, self.field))
        return msg

    def decode_action(self, msg: pb.Action) -> Any:
        """The game's action in ``msg``; CodecError when it is of another game or malformed."""
        which = msg.WhichOneof("game")
        if which != self.field:
            got = f"one of {which}" if which else f"none{foreign_fields(msg)}"
            raise CodecError(f"expected an action of {self.field}, got {got}")
        return decode(getattr(msg, self.field), self.game_cls.action_types)

    def action_to_json(self, action: Any) -> dict[str, Any]:
        return message_to_dict(getattr(self.action(action), self.field))

    def action_from_json(self, data: dict[str, Any]) -> Any:
        inner = json_format.ParseDict(data, self.game_cls.proto_module.Action())
        return decode(inner, self.game_cls.action_types)

    def event_to_json(self, event: Event, seq: int, encoded: pb.Event | None = None) -> dict[str, Any]:
        """The event as JSON; ``encoded`` is its message when already encoded (for the seats)."""
        body = message_to_dict(getattr(encoded if encoded is not None else self.event(event.payload, seq), self.field))
        return {
            "seq": seq,
            "visible_to": None if event.visible_to is None else sorted(event.visible_to),
            "event": body,
        }

    def view_to_json(self, view: Any) -> dict[str, Any]:
        return message_to_dict(getattr(self.view(view), self.field))


def option_values(options: dict[str, OptionValue]) -> dict[str, pb.OptionValue]:
    out: dict[str, pb.OptionValue] = {}
    for name, value in options.items():
        if isinstance(value, bool):
            out[name] = pb.OptionValue(bool_value=value)
        elif isinstance(value, int):
            out[name] = pb.OptionValue(int_value=value)
        else:
            out[name] = pb.OptionValue(string_value=str(value))
    return out
