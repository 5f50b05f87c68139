"""Land & Castle's actions, decisions, views and events (mirrored by proto/arena/v1/land_and_castle.proto)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.memory import PileCard
from referee.core.records import quicken_module
from referee.games.land_and_castle.enums import (  # re-exported: the rules and the codec import them from here
    Phase as Phase,
    WinReason as WinReason,
)


# Actions


@dataclass(frozen=True)
class PlaceCastle:
    card_id: int


@dataclass(frozen=True)
class PlaceGeneral:
    card_id: int


@dataclass(frozen=True)
class SwapCard:
    card_id: int


@dataclass(frozen=True)
class Attack:
    card_id: int
    land: int


@dataclass(frozen=True)
class Defend:
    card_id: int


@dataclass(frozen=True)
class Control:
    land: int


@dataclass(frozen=True)
class Capture:
    land: int
    card_id: int


Action = PlaceCastle | PlaceGeneral | SwapCard | Attack | Defend | Control | Capture
ACTION_TYPES: tuple[type, ...] = (PlaceCastle, PlaceGeneral, SwapCard, Attack, Defend, Control, Capture)


# Decisions


@dataclass(frozen=True)
class CastleChoice:
    playable: tuple[int, ...]


@dataclass(frozen=True)
class GeneralChoice:
    playable: tuple[int, ...]


@dataclass(frozen=True)
class AttackChoice:
    playable: tuple[int, ...]
    lands: tuple[int, ...]
    swappable: tuple[int, ...]


@dataclass(frozen=True)
class DefendChoice:
    playable: tuple[int, ...]
    swappable: tuple[int, ...]
    land: int
    attacking_army: int
    attacker_total: int


@dataclass(frozen=True)
class ClaimChoice:
    lands: tuple[int, ...]
    exchangeable: tuple[int, ...]
    battle_land: int


Decision = CastleChoice | GeneralChoice | AttackChoice | DefendChoice | ClaimChoice


# Views


@dataclass(frozen=True)
class Land:
    position: int
    card: int | None
    face_up: bool
    owner: int | None
    dealt_by: int


@dataclass(frozen=True)
class Player:
    seat: int
    draw_pile_size: int
    hand_size: int
    castle: int | None
    general: int | None
    discard: tuple[int, ...]
    lands_owned: int
    swap_used: bool


@dataclass(frozen=True)
class BattleSide:
    seat: int
    army: int
    army_value: int
    land_bonus: int
    general_bonus: int
    castle_bonus: int
    total: int


@dataclass(frozen=True)
class Battle:
    land: int
    land_card: int
    attacker: BattleSide
    defender: BattleSide | None
    undercut: bool
    winner: int | None


@dataclass(frozen=True)
class KnownCards:
    """What the viewing seat knows of one seat's face-down cards (LC-25)."""

    seat: int
    draw_pile: tuple[PileCard, ...]
    hand: tuple[int, ...]


@dataclass(frozen=True)
class View:
    seat: int
    turn: int
    phase: Phase
    attacker: int
    defender: int
    hand: tuple[int, ...]
    lands: tuple[Land, ...]
    players: tuple[Player, ...]
    battle: Battle | None
    last_battle: Battle | None
    hand_limit: int
    max_turns: int
    winner: int | None
    win_reason: WinReason | None
    known: tuple[KnownCards, ...]


# Events


@dataclass(frozen=True)
class LandDealt:
    seat: int
    position: int


@dataclass(frozen=True)
class CardsDrawn:
    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class CastlePlaced:
    seat: int
    card: int


@dataclass(frozen=True)
class GeneralPlaced:
    seat: int
    card: int


@dataclass(frozen=True)
class TurnStarted:
    turn: int
    attacker: int


@dataclass(frozen=True)
class CardSwapped:
    seat: int
    card: int | None


@dataclass(frozen=True)
class Attacked:
    seat: int
    land: int
    army: int


@dataclass(frozen=True)
class LandRevealed:
    position: int
    card: int


@dataclass(frozen=True)
class Defended:
    seat: int
    army: int


@dataclass(frozen=True)
class BattleResolved:
    battle: Battle


@dataclass(frozen=True)
class LandControlled:
    seat: int
    land: int
    to_draw_pile: tuple[int, ...]


@dataclass(frozen=True)
class LandCaptured:
    seat: int
    land: int
    exchanged: int
    new_general: int | None
    discarded: tuple[int, ...]


@dataclass(frozen=True)
class GameOver:
    winner: int | None
    reason: WinReason
    lands_owned: tuple[int, ...]


quicken_module(__name__)  # built by the thousand per match: see referee/core/records.py
