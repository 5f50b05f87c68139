"""General's War's actions, decisions, views and events (mirrored by proto/arena/v1/generals_war.proto)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.memory import PileCard
from referee.core.records import quicken_module
from referee.games.generals_war.enums import (  # re-exported: the rules and the codec import them from here
    Phase as Phase,
    EliminationReason as EliminationReason,
    GameEndReason as GameEndReason,
)


# Actions


@dataclass(frozen=True)
class RevealGenerals:
    card_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class ChooseTarget:
    target: int


@dataclass(frozen=True)
class PlaySquad:
    card_ids: tuple[int, ...]


Action = RevealGenerals | ChooseTarget | PlaySquad
ACTION_TYPES: tuple[type, ...] = (RevealGenerals, ChooseTarget, PlaySquad)


# Decisions


@dataclass(frozen=True)
class RevealChoice:
    revealable: tuple[int, ...]


@dataclass(frozen=True)
class TargetChoice:
    targets: tuple[int, ...]


@dataclass(frozen=True)
class SquadChoice:
    playable: tuple[int, ...]
    min_cards: int
    max_cards: int
    attacking: bool
    opposing_squad_size: int


Decision = RevealChoice | TargetChoice | SquadChoice


# Views


@dataclass(frozen=True)
class Player:
    seat: int
    suits: tuple[int, ...]
    deck_size: int
    hand_size: int
    revealed_generals: tuple[int, ...]
    dead: tuple[int, ...]
    conquest: tuple[int, ...]
    squad_size: int
    conquest_points: int
    defeat_points: int
    eliminated: bool
    generals_alive: int


@dataclass(frozen=True)
class Battle:
    attacker: int
    defender: int
    attacker_squad: tuple[int, ...]
    defender_squad: tuple[int, ...]
    attacker_power: int
    defender_power: int
    winner: int | None


@dataclass(frozen=True)
class KnownCards:
    """What the viewing seat knows of one seat's face-down cards (GW-17)."""

    seat: int
    deck: tuple[PileCard, ...]
    hand: tuple[int, ...]


@dataclass(frozen=True)
class View:
    seat: int
    num_players: int
    round: int
    phase: Phase
    attacker: int
    defender: int | None
    hand: tuple[int, ...]
    squad: tuple[int, ...]
    players: tuple[Player, ...]
    conquest_target: int
    defeat_limit: int
    last_battle: Battle | None
    known: tuple[KnownCards, ...]


# Events


@dataclass(frozen=True)
class RoundStarted:
    round: int
    attacker: int


@dataclass(frozen=True)
class TargetChosen:
    attacker: int
    target: int


@dataclass(frozen=True)
class CardsDrawn:
    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class GeneralsRevealed:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class SquadPlaced:
    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class BattleResolved:
    battle: Battle


@dataclass(frozen=True)
class RoundEnded:
    round: int
    conquest_counts: tuple[int, ...]
    conquest_point_to: int | None
    defeat_point_to: int | None
    interrupted: bool


@dataclass(frozen=True)
class PlayerEliminated:
    seat: int
    by: int
    reason: EliminationReason
    cards_transferred: int


@dataclass(frozen=True)
class GameEnded:
    reason: GameEndReason
    winners: tuple[int, ...]
    scores: tuple[int, ...]


quicken_module(__name__)  # built by the thousand per match: see referee/core/records.py
