"""Replay files: the seed, every action, every event with its visibility, the result and the final state.

(seed, actions) is enough to replay a match exactly; ``replay_game`` does it and
checks that the events come out the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from arena.v1 import referee_pb2 as pb
from referee.core.game import Game
from referee.games.registry import game_class
from referee.protocol.messages import GameCodec
from referee.server.session import MatchRecord

FORMAT = "arena-replay"
VERSION = 1


class ReplayError(ValueError):
    """A replay file that cannot be read, or whose actions do not reproduce its events."""


def replay_dict(record: MatchRecord) -> dict[str, Any]:
    game = record.game
    codec = record.codec
    encoded = record.encoded_events
    return {
        "format": FORMAT,
        "version": VERSION,
        "match_id": record.match_id,
        "game": game.spec.id,
        "num_players": game.num_players,
        "seed": game.seed,
        "options": game.options,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                **{
                    k: v
                    for k, v in json_format.MessageToDict(
                        record.result.seats[s.seat], preserving_proto_field_name=True, always_print_fields_with_no_presence=True
                    ).items()
                    if k != "seat"
                },
            }
            for s in record.seats
        ],
        "actions": [{"seat": a.seat, "auto": a.auto, "action": codec.action_to_json(a.action)} for a in record.actions],
        "events": [codec.event_to_json(e, seq, encoded[seq] if seq < len(encoded) else None) for seq, e in enumerate(record.events)],
        "game_result": {"ranks": list(record.game_result.ranks), "scores": list(record.game_result.scores)},
        "final_state": game.full_state(),
    }


def write_replay(record: MatchRecord, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(replay_dict(record), separators=(",", ":")))  # compact: indenting took 6x as long


def load_replay(path: Path) -> dict[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"{path}: {exc}") from None
    return parse_replay(raw, str(path))


def parse_replay(raw: bytes, origin: str) -> dict[str, Any]:
    """A replay's JSON checked for its format and version; ``origin`` names it in errors (ReplayError)."""
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReplayError(f"{origin}: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{origin}: not an arena replay")
    if data.get("version") != VERSION:
        raise ReplayError(f"{origin}: replay version {data.get('version')} is not {VERSION}")
    return data


def replay_game(data: dict[str, Any]) -> tuple[Game[Any], list[dict[str, Any]]]:
    """Re-play the recorded actions from the seed; returns the game and the events it produced.

    Raises ReplayError if an action is refused or the events differ from the recorded ones.
    """
    cls = game_class(data["game"])
    game = cls(data["num_players"], data["seed"], data["options"])
    codec = GameCodec(cls)
    events = list(game.opening_events())
    for i, step in enumerate(data["actions"]):
        action = codec.action_from_json(step["action"])
        try:
            events += game.apply(step["seat"], action)
        except ValueError as exc:
            raise ReplayError(f"action {i} of seat {step['seat']} is refused: {exc}") from None
    produced = [codec.event_to_json(e, seq) for seq, e in enumerate(events)]
    if produced != data["events"]:
        first = next((i for i, (a, b) in enumerate(zip(produced, data["events"])) if a != b), min(len(produced), len(data["events"])))
        raise ReplayError(f"the replayed events differ from the recorded ones from event {first} on")
    result = game.result()
    if list(result.ranks) != data["game_result"]["ranks"]:
        raise ReplayError("the replayed result differs from the recorded one")
    return game, produced


def verdict_names(seat: pb.SeatResult) -> list[str]:
    return [pb.VerdictKind.Name(v.kind) for v in seat.verdicts]
