"""Replay files: the seed, every action, every event with its visibility, the result and the final state.

(seed, actions) is enough to replay a match exactly; ``replay_game`` does it and
checks that the events come out the same. A compact replay (``compact=True``, what the
ladder keeps for every match) leaves the events and the final state out: reading it
(``parse_replay``) re-plays the actions to put them back, so every reader sees the same
full replay. Writing the events took most of a replay's cost, paid for every match of the
ladder although few replays are ever opened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from arena.v1 import referee_pb2 as pb
from referee.core.game import Game
from referee.games.registry import game_class
from referee.protocol.messages import GameCodec
from referee.server.session import LoggedAction, MatchRecord

FORMAT = "arena-replay"
VERSION = 2  # 2: "events" and "final_state" may be left out (compact); 1: always there
READABLE = (1, 2)
COMPACT = "compact"  # the key a compact replay carries (true), removed when it is read


class ReplayError(ValueError):
    """A replay file that cannot be read, or whose actions do not reproduce its events."""


class OtherRules(ReplayError):
    """A replay of an older version of its game's rules that this referee cannot re-play: not a damaged file."""


def not_replayed(data: dict[str, Any], message: str) -> ReplayError:
    """The error for a replay whose actions do not re-play it; it says so when the replay is of other rules.

    A replay without ``rules_version`` was recorded before replays carried it: version 1 of every game.
    """
    try:
        current = game_class(data["game"]).spec.rules_version
    except (KeyError, TypeError, ValueError):
        return ReplayError(message)
    recorded = data.get("rules_version", 1)
    if recorded == current:
        return ReplayError(message)
    return OtherRules(
        f"{message} (it was recorded under version {recorded} of the rules of {data['game']}, and this referee plays version"
        f" {current}: the rules have changed since, so its actions no longer re-play it)"
    )


@dataclass(frozen=True)
class ReplayHead:
    """What a compact replay holds, without the game's state: picklable, for a recorder in another process."""

    match_id: str
    game: str
    num_players: int
    seed: int
    options: dict[str, Any]
    started_at: float
    finished_at: float
    names: list[str]
    result: pb.MatchResult
    actions: list[LoggedAction]
    ranks: list[int]
    scores: list[float]

    @classmethod
    def of(cls, record: MatchRecord) -> ReplayHead:
        game = record.game
        return cls(
            record.match_id, game.spec.id, game.num_players, game.seed, dict(game.options), record.started_at, record.finished_at,
            [s.name for s in record.seats], record.result, list(record.actions), list(record.game_result.ranks), list(record.game_result.scores),
        )

    def to_dict(self, codec: GameCodec | None = None, compact: bool = False) -> dict[str, Any]:
        """The replay's JSON without events and final state (``codec``: the game's, made here if not given).

        ``compact`` marks it as a compact replay: whole as it is, its readers re-play it for the rest.
        """
        codec = codec or GameCodec(game_class(self.game))
        data = {
            "format": FORMAT,
            "version": VERSION,
            "match_id": self.match_id,
            "game": self.game,
            "rules_version": game_class(self.game).spec.rules_version,
            "num_players": self.num_players,
            "seed": self.seed,
            "options": self.options,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "seats": [
                {
                    "seat": seat,
                    "name": name,
                    **{
                        k: v
                        for k, v in json_format.MessageToDict(
                            self.result.seats[seat], preserving_proto_field_name=True, always_print_fields_with_no_presence=True
                        ).items()
                        if k != "seat"
                    },
                }
                for seat, name in enumerate(self.names)
            ],
            "actions": [action_json(codec, a) for a in self.actions],
            "game_result": {"ranks": self.ranks, "scores": self.scores},
        }
        if compact:
            data[COMPACT] = True
        return data


def action_json(codec: GameCodec, logged: LoggedAction) -> dict[str, Any]:
    """One step of a replay: the seat, whether the referee played it, the action, and the bot's note if it wrote one."""
    step = {"seat": logged.seat, "auto": logged.auto, "action": codec.action_to_json(logged.action)}
    if logged.note:
        step["note"] = logged.note
    return step


def replay_dict(record: MatchRecord, compact: bool = False) -> dict[str, Any]:
    """The replay of a finished match; ``compact`` leaves out what re-playing the actions gives back."""
    codec = record.codec
    data = ReplayHead.of(record).to_dict(codec, compact)
    if not compact:
        encoded = record.encoded_events
        data["events"] = [codec.event_to_json(e, seq, encoded[seq] if seq < len(encoded) else None) for seq, e in enumerate(record.events)]
        data["final_state"] = record.game.full_state()
    return data


def compact_replay_json(head: ReplayHead) -> str:
    return json.dumps(head.to_dict(compact=True), separators=(",", ":"))


def write_replay(record: MatchRecord, path: Path, compact: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # no indenting: it took 6x as long
    path.write_text(json.dumps(replay_dict(record, compact), separators=(",", ":")))


def load_replay(path: Path, complete: bool = True) -> dict[str, Any]:
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayError(f"{path}: {exc}") from None
    return parse_replay(raw, str(path), complete)


def tournament_file(raw: bytes, origin: str) -> str | None:
    """What to say of a tournament's ``--save`` file given as a replay (its first line names its format), else None."""
    from referee.tournament.saved import FORMAT as SAVED

    try:
        head = json.loads(raw.split(b"\n", 1)[0])
    except (ValueError, RecursionError):
        return None
    if not isinstance(head, dict) or head.get("format") != SAVED:
        return None
    return f"{origin}: a tournament's --save file (its games' results), not a replay: `arena tournament --replay-dir DIR` keeps every match's replay"


def parse_replay(raw: bytes, origin: str, complete: bool = True) -> dict[str, Any]:
    """A replay's JSON checked for its format and version; ``origin`` names it in errors (ReplayError).

    A compact replay gets its events and final state back by re-playing it, unless ``complete`` is false
    (for a reader that re-plays it anyway, such as the viewer's frames: it then has no events to check).
    """
    try:
        data = json.loads(raw)
    except ValueError as exc:  # not JSON, not UTF-8, or a number of more digits than Python converts
        raise ReplayError(tournament_file(raw, origin) or f"{origin}: not a JSON replay ({exc})") from None
    except RecursionError:
        raise ReplayError(f"{origin}: not a replay: its JSON nests too deep") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(tournament_file(raw, origin) or f"{origin}: not an arena replay")
    if data.get("version") not in READABLE:
        raise ReplayError(f"{origin}: replay version {data.get('version')} is not one of {', '.join(map(str, READABLE))}")
    missing = [key for key in ("game", "num_players", "seed", "options", "actions") if key not in data]
    if missing:
        raise ReplayError(f"{origin}: not a whole arena replay: no {', '.join(missing)}")
    if not isinstance(data["game"], str):
        raise ReplayError(f"{origin}: its game is not a name")
    if type(data["num_players"]) is not int:  # a bool is an int to Python, and a count of seats to no one
        raise ReplayError(f"{origin}: its num_players is not a whole number")
    if type(data["seed"]) is not int:  # a text seed would seed the rules' generator all the same, and deal another match
        raise ReplayError(f"{origin}: its seed is not a whole number")
    if not isinstance(data["actions"], list):
        raise ReplayError(f"{origin}: its actions are not a list")
    if not isinstance(data["options"], dict):
        raise ReplayError(f"{origin}: its options are not an object")
    if not _seats_are_well_formed(data.get("seats", [])):
        raise ReplayError(f"{origin}: its seats are not a list of objects, each with a list of verdicts")
    compact = data.pop(COMPACT, False) is True
    if compact and complete:
        game, produced = _replayed(data, origin)
        data["events"] = produced
        data["final_state"] = game.full_state()
        check_result(game, data, origin)
    elif not compact and "events" not in data:
        raise ReplayError(f"{origin}: the replay has no events and is not compact")
    return data


def _seats_are_well_formed(seats: Any) -> bool:
    """Whether ``seats`` has the shape the viewer reads its names and verdicts from."""
    if not isinstance(seats, list):
        return False
    for seat in seats:
        if not isinstance(seat, dict) or not isinstance(verdicts := seat.get("verdicts", []), list):
            return False
        if not all(isinstance(v, dict) for v in verdicts):
            return False
    return True


def one_line(exc: BaseException) -> str:
    """An exception's message on one line: protobuf's ParseError lists the message's fields on a line of their own."""
    return " ".join(line.strip() for line in str(exc).splitlines())


def recorded_seat(step: Any) -> int:
    """The seat of a recorded step (TypeError unless a whole number: JSON's true is no seat 1, though Python takes it for one)."""
    seat = step["seat"]
    if type(seat) is not int:
        raise TypeError(f"its seat {seat!r} is not a whole number")
    return seat


def _replayed(data: dict[str, Any], origin: str = "the replay") -> tuple[Game[Any], list[dict[str, Any]]]:
    """The game after the recorded actions, re-played from the seed, and the events it produced as JSON."""
    try:
        cls = game_class(data["game"])
        game = cls(data["num_players"], data["seed"], data["options"])
        steps = list(data["actions"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"{origin}: cannot set the game up: {one_line(exc)}") from None
    codec = GameCodec(cls)
    events = list(game.opening_events())
    for i, step in enumerate(steps):
        try:
            events += game.apply(recorded_seat(step), codec.action_from_json(step["action"]))
        except (KeyError, TypeError, ValueError, json_format.ParseError) as exc:
            seat = step.get("seat") if isinstance(step, dict) else None
            raise not_replayed(data, f"{origin}: action {i} of seat {seat} is refused: {one_line(exc)}") from None
    return game, [codec.event_to_json(e, seq) for seq, e in enumerate(events)]


def check_result(game: Game[Any], data: dict[str, Any], origin: str) -> None:
    """The re-played game must be over, with the recorded ranks, and the scores too where recorded (every replay Arena
    wrote has them): a compact replay has no events to compare, and an edited seed whose deal ends in the same ranks
    rarely ends in the same scores as well."""
    recorded = data.get("game_result")
    if not game.is_over() or not isinstance(recorded, dict) or list(game.result().ranks) != recorded.get("ranks"):
        raise not_replayed(data, f"{origin}: the replayed result differs from the recorded one")
    result = game.result()
    if "scores" in recorded and list(result.scores) != recorded["scores"]:
        raise not_replayed(data, f"{origin}: the replayed scores differ from the recorded ones")


def replay_game(data: dict[str, Any]) -> tuple[Game[Any], list[dict[str, Any]]]:
    """Re-play the recorded actions from the seed; returns the game and the events it produced.

    Raises ReplayError if an action is refused or the events differ from the recorded ones.
    """
    game, produced = _replayed(data)
    if produced != data["events"]:
        first = next((i for i, (a, b) in enumerate(zip(produced, data["events"])) if a != b), min(len(produced), len(data["events"])))
        raise not_replayed(data, f"the replayed events differ from the recorded ones from event {first} on")
    check_result(game, data, "the replay")
    return game, produced


def verdict_names(seat: pb.SeatResult) -> list[str]:
    return [pb.VerdictKind.Name(v.kind) for v in seat.verdicts]
