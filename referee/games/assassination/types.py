"""The Assassination Game's actions, decisions, views and events (mirrored by proto/arena/v1/assassination.proto).

Pieces are named by their colour (0 to 4: the highlighter mark of their
deck); seats are named by number. Which colour and which identity belong to
which seat is secret until revealed.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from referee.core.records import quicken_module


class Phase(IntEnum):
    ALLEGIANCE = 1
    MOVEMENT = 2
    PRESIDENT = 3
    EVENT = 4
    ACTION = 5
    REACTION = 6
    ROUND_OVER = 7
    OVER = 8


class Room(IntEnum):
    COURTYARD = 1
    HALL = 2
    PODIUM = 3
    TOWER = 4
    HELIPAD = 5
    BUNKER = 6
    SECURITY_OFFICE = 7
    HOLDING_CELL = 8
    HEALTH_SERVICES = 9
    PUBLIC_EXIT = 10


class Identity(IntEnum):
    SECRET_SERVICE = 1
    POLICE_OFFICER = 2
    SNIPER = 3
    BOMBER = 4
    REPORTER = 5


class Direction(IntEnum):
    UP = 1
    DOWN = 2
    LEFT = 3
    RIGHT = 4
    STAY = 5


class ActionKind(IntEnum):
    NOTHING = 1
    SNIPE = 2
    SHOOT_PRESIDENT = 3
    SHOOT_PLAYER = 4
    DETONATE = 5
    DETAIN = 6
    LEAVE_CELL = 7


class PresidentStatus(IntEnum):
    UNHARMED = 1
    INJURED = 2
    KILLED = 3


class RevealReason(IntEnum):
    ACTION_CARD = 1
    INCIDENT = 2
    SHOT = 3
    WITNESS = 4
    BLAST = 5
    DETAIN_ATTEMPT = 6
    DETAINED_BOMBER = 7


class DiceReason(IntEnum):
    SNIPER_SHOT = 1
    BOMB_BLAST = 2


class RoundOutcome(IntEnum):
    PHOTO_OP_TAKEN = 1
    REACHED_SAFETY = 2
    ASSASSINATED = 3
    TIME_UP = 4


class ScoreReason(IntEnum):
    PHOTO_OP = 1
    PRESIDENT_UNHARMED = 2
    PRESIDENT_WOUNDED = 3
    PRESIDENT_KILLED = 4
    KILLED_GOOD_GUY = 5
    KILLED_BAD_GUY = 6
    KILLED_OWN_SIDE = 7
    KILLED_REPORTER = 8
    BAD_GUY_DETAINED = 9
    DETAINED_REPORTER = 10
    DETAINED_POLICE_OFFICER = 11
    TRIED_TO_DETAIN_SECRET_SERVICE = 12
    ESCAPED = 13


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


Action = ChooseAllegiance | PlayMovement | MovePresident | PlayEvent | TakeAction | React | StartRound
ACTION_TYPES: tuple[type, ...] = (ChooseAllegiance, PlayMovement, MovePresident, PlayEvent, TakeAction, React, StartRound)


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


Decision = AllegianceChoice | MovementChoice | PresidentMoveChoice | EventChoice | ActionChoice | ReactionChoice | NextRoundChoice


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
