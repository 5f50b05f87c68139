"""The Assassination Game's actions, decisions, views and events (mirrored by proto/arena/v1/assassination.proto).

Pieces are named by their colour (0 to 4: the highlighter mark of their
deck); seats are named by number. Which colour and which identity belong to
which seat is secret until revealed.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.records import quicken_module
from referee.games.assassination.enums import (  # re-exported: the rules and the codec import them from here
    Phase as Phase,
    Room as Room,
    Identity as Identity,
    Direction as Direction,
    ActionKind as ActionKind,
    PresidentStatus as PresidentStatus,
    RevealReason as RevealReason,
    DiceReason as DiceReason,
    RoundOutcome as RoundOutcome,
    ScoreReason as ScoreReason,
)


# Actions


@dataclass(frozen=True)
class ChooseAllegiance:
    bad_cop: bool


@dataclass(frozen=True)
class PlayMovement:
    card_id: int


@dataclass(frozen=True)
class MovePresident:
    room: Room


@dataclass(frozen=True)
class PlayEvent:
    card_id: int


@dataclass(frozen=True)
class TakeAction:
    kind: ActionKind
    target_colour: int | None = None
    target_room: Room | None = None


@dataclass(frozen=True)
class React:
    detain: bool


@dataclass(frozen=True)
class StartRound:
    pass


@dataclass(frozen=True)
class DetainSniper:
    detain: bool


@dataclass(frozen=True)
class LeaveCell:
    leave: bool


Action = ChooseAllegiance | PlayMovement | MovePresident | PlayEvent | TakeAction | React | StartRound | DetainSniper | LeaveCell
ACTION_TYPES: tuple[type, ...] = (
    ChooseAllegiance,
    PlayMovement,
    MovePresident,
    PlayEvent,
    TakeAction,
    React,
    StartRound,
    DetainSniper,
    LeaveCell,
)


# Decisions


@dataclass(frozen=True)
class AllegianceChoice:
    police_officer: bool


@dataclass(frozen=True)
class MovementChoice:
    playable: tuple[int, ...]


@dataclass(frozen=True)
class PresidentMoveChoice:
    from_room: Room
    rooms: tuple[Room, ...]
    escaping: bool


@dataclass(frozen=True)
class EventChoice:
    playable: tuple[int, ...]


@dataclass(frozen=True)
class ActionOption:
    kind: ActionKind
    target_colour: int | None = None
    target_room: Room | None = None


@dataclass(frozen=True)
class ActionChoice:
    options: tuple[ActionOption, ...]


@dataclass(frozen=True)
class ReactionChoice:
    bomber_colour: int
    can_detain: bool


@dataclass(frozen=True)
class NextRoundChoice:
    round: int


@dataclass(frozen=True)
class SniperDetentionChoice:
    sniper_colour: int
    colours: tuple[int, ...]
    can_ignore: bool


@dataclass(frozen=True)
class CellChoice:
    colour: int
    can_leave: bool


Decision = (
    AllegianceChoice
    | MovementChoice
    | PresidentMoveChoice
    | EventChoice
    | ActionChoice
    | ReactionChoice
    | NextRoundChoice
    | SniperDetentionChoice
    | CellChoice
)


# Views


@dataclass(frozen=True)
class Piece:
    colour: int
    room: Room | None
    injured: bool
    detained: bool
    killed: bool
    visited: tuple[Room, ...]


@dataclass(frozen=True)
class President:
    room: Room
    status: PresidentStatus
    start: Room
    route_die: int
    route: tuple[Room, ...]
    speech_given: bool
    safe: bool
    secret_service_moves: bool


@dataclass(frozen=True)
class Revealed:
    seat: int
    identity: Identity
    colour: int
    bad_cop: bool | None = None  # the police officer's side, once public: at the round's end (AS-57)


@dataclass(frozen=True)
class View:
    seat: int
    num_players: int
    round: int
    turn: int
    turn_limit: int
    phase: Phase
    scores: tuple[int, ...]
    target_score: int
    identity: Identity
    colour: int
    bad_cop: bool
    movement_hand: tuple[int, ...]
    event_hand: tuple[int, ...]
    played_card: int | None
    pieces: tuple[Piece, ...]
    president: President
    incident: bool
    bomb_used: bool
    secret_service_token: int | None
    bad_cop_token: int | None
    revealed: tuple[Revealed, ...]
    reporter_colour: int | None
    last_movement: tuple[int, ...]
    last_events: tuple[int, ...]
    movement_played: tuple[int, ...]
    events_played: tuple[int, ...]


# Events


@dataclass(frozen=True)
class RoundStarted:
    round: int
    start_die: int
    president_room: Room
    route_die: int
    route: tuple[Room, ...]
    secret_service_token: int | None
    bad_cop_token: int | None


@dataclass(frozen=True)
class TurnStarted:
    turn: int


@dataclass(frozen=True)
class MovementRevealed:
    cards: tuple[int, ...]


@dataclass(frozen=True)
class PieceMove:
    colour: int
    direction: Direction
    from_room: Room
    to_room: Room


@dataclass(frozen=True)
class PiecesMoved:
    moves: tuple[PieceMove, ...]


@dataclass(frozen=True)
class PresidentMoved:
    from_room: Room
    to_room: Room
    by_secret_service: bool


@dataclass(frozen=True)
class SpeechGiven:
    pass


@dataclass(frozen=True)
class EventsRevealed:
    cards: tuple[int, ...]
    action_colours: tuple[int, ...]


@dataclass(frozen=True)
class PlayerRevealed:
    seat: int
    identity: Identity
    colour: int
    reason: RevealReason


@dataclass(frozen=True)
class ReporterRevealed:
    colour: int
    reason: RevealReason


@dataclass(frozen=True)
class ActionTaken:
    seat: int
    kind: ActionKind
    target_colour: int | None
    target_room: Room | None


@dataclass(frozen=True)
class DiceRolled:
    reason: DiceReason
    value: int


@dataclass(frozen=True)
class PresidentHit:
    by_seat: int
    status: PresidentStatus


@dataclass(frozen=True)
class PieceInjured:
    colour: int
    by_seat: int


@dataclass(frozen=True)
class PieceKilled:
    colour: int
    by_seat: int


@dataclass(frozen=True)
class PieceDetained:
    colour: int
    by_seat: int | None


@dataclass(frozen=True)
class PieceSent:
    colour: int
    room: Room


@dataclass(frozen=True)
class IncidentOccurred:
    pass


@dataclass(frozen=True)
class PresidentSafe:
    room: Room


@dataclass(frozen=True)
class ScoreChange:
    seat: int
    points: int
    reason: ScoreReason


@dataclass(frozen=True)
class RoundEnded:
    round: int
    outcome: RoundOutcome
    president_status: PresidentStatus
    identities: tuple[Identity, ...]
    colours: tuple[int, ...]
    reporter_colour: int
    bad_cop: bool
    changes: tuple[ScoreChange, ...]
    scores: tuple[int, ...]
    game_over: bool


quicken_module(__name__)  # built by the thousand per match: see referee/core/records.py
