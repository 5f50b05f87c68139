"""Generals & Assassins: actions, decisions, views and events.

Mirrored field by field by proto/arena/v1/generals_and_assassins.proto. In
actions, cards are plain ids (``*_id``/``*_ids``); in decisions, views and
events they are ``arena.v1.Card`` messages on the wire and ids here.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.records import quicken_module
from referee.games.generals_and_assassins.enums import (  # re-exported: the rules and the codec import them from here
    Phase as Phase,
    Side as Side,
    BattleKind as BattleKind,
    RoundEndReason as RoundEndReason,
)


# --- Actions ------------------------------------------------------------------------


@dataclass(frozen=True)
class Attack:
    """Attack ``target`` with these generals and soldiers (at least one general)."""

    target: int
    card_ids: tuple[int, ...]


@dataclass(frozen=True)
class Assassinate:
    """Play one assassin (joker) against ``target``."""

    target: int
    card_id: int


@dataclass(frozen=True)
class BuyLand:
    """Discard these money cards to play these land cards (money total >= land total)."""

    money_ids: tuple[int, ...]
    land_ids: tuple[int, ...]


@dataclass(frozen=True)
class Heal:
    """Discard one health card to regain its value in HP (capped at 50)."""

    card_id: int


@dataclass(frozen=True)
class Discard:
    """Discard one card, or several when at least one of them is an ace."""

    card_ids: tuple[int, ...]


@dataclass(frozen=True)
class Offer:
    """Lands promised to ``seat`` if it assists the offering side."""

    seat: int
    land_ids: tuple[int, ...]


@dataclass(frozen=True)
class OfferLands:
    """The attacker's or defender's offers (may be empty: no offer)."""

    offers: tuple[Offer, ...] = ()


@dataclass(frozen=True)
class Assist:
    """Help ``side`` with one general or soldier from the hand."""

    side: Side
    card_id: int


@dataclass(frozen=True)
class Decline:
    """Do nothing in an optional step: do not assist, or do not play an assassin."""


@dataclass(frozen=True)
class Defend:
    """Defend with these generals and soldiers (may be empty)."""

    card_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class PlayAssassin:
    """Block an assassination with a joker, or (attacker) try again with a second joker."""

    card_id: int


@dataclass(frozen=True)
class StartRound:
    """Begin the next round: every card back to its deck, decks shuffled, hands dealt."""


Action = Attack | Assassinate | BuyLand | Heal | Discard | OfferLands | Assist | Decline | Defend | PlayAssassin | StartRound
ACTION_TYPES: tuple[type, ...] = (
    Attack,
    Assassinate,
    BuyLand,
    Heal,
    Discard,
    OfferLands,
    Assist,
    Decline,
    Defend,
    PlayAssassin,
    StartRound,
)


# --- Decisions ----------------------------------------------------------------------


@dataclass(frozen=True)
class TurnChoice:
    """The turn player's action; the hand is split by the roles its cards may play."""

    hand: tuple[int, ...]
    targets: tuple[int, ...]
    generals: tuple[int, ...]
    soldiers: tuple[int, ...]
    assassins: tuple[int, ...]
    money: tuple[int, ...]
    land: tuple[int, ...]
    health: tuple[int, ...]
    aces: tuple[int, ...]
    hp: int


@dataclass(frozen=True)
class OfferChoice:
    """Offer lands in play to players for their help (each land to at most one player)."""

    side: Side
    lands: tuple[int, ...]
    recipients: tuple[int, ...]


@dataclass(frozen=True)
class AssistChoice:
    """Assist the attacker or the defender with one of ``cards``, or decline."""

    cards: tuple[int, ...]
    attacker: int
    defender: int


@dataclass(frozen=True)
class DefenceChoice:
    """Defend with any of ``cards`` (generals and soldiers in hand), possibly none."""

    cards: tuple[int, ...]
    attack_points: int
    defence_points: int


@dataclass(frozen=True)
class AssassinChoice:
    """Play one of ``assassins`` or decline; ``blocking`` tells the defender's block from the attacker's retry."""

    assassins: tuple[int, ...]
    blocking: bool


@dataclass(frozen=True)
class NextRoundChoice:
    """The round is scored; start round ``round`` (the only answer is StartRound)."""

    round: int
    first_player: int


Decision = TurnChoice | OfferChoice | AssistChoice | DefenceChoice | AssassinChoice | NextRoundChoice


# --- Views --------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    seat: int
    hp: int
    vp: int
    land_value: int
    hand_size: int
    deck_size: int
    lands: tuple[int, ...]
    discard: tuple[int, ...]


@dataclass(frozen=True)
class LandOffer:
    from_seat: int
    to_seat: int
    lands: tuple[int, ...]


@dataclass(frozen=True)
class AssistPlay:
    seat: int
    side: Side
    card: int


@dataclass(frozen=True)
class Battle:
    kind: BattleKind
    attacker: int
    defender: int
    attacker_cards: tuple[int, ...]
    defender_cards: tuple[int, ...]
    offers: tuple[LandOffer, ...]
    assists: tuple[AssistPlay, ...]
    declined: tuple[int, ...]
    attack_points: int
    defence_points: int
    resolved: bool
    damage: int


@dataclass(frozen=True)
class View:
    seat: int
    num_players: int
    round: int
    rounds: int
    phase: Phase
    turn_player: int
    first_player: int
    acting: int | None
    final_turns_left: int | None
    hand: tuple[int, ...]
    players: tuple[Player, ...]
    battle: Battle | None
    last_battle: Battle | None


# --- Events -------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundStarted:
    round: int
    first_player: int


@dataclass(frozen=True)
class CardsDrawn:
    seat: int
    count: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class TurnStarted:
    seat: int
    final_turns_left: int | None


@dataclass(frozen=True)
class TurnSkipped:
    seat: int


@dataclass(frozen=True)
class AttackDeclared:
    attacker: int
    defender: int
    cards: tuple[int, ...]
    attack_points: int


@dataclass(frozen=True)
class LandsOffered:
    seat: int
    offers: tuple[LandOffer, ...]


@dataclass(frozen=True)
class AssistGiven:
    seat: int
    side: Side
    card: int


@dataclass(frozen=True)
class AssistDeclined:
    seat: int


@dataclass(frozen=True)
class LandTransferred:
    from_seat: int
    to_seat: int
    lands: tuple[int, ...]


@dataclass(frozen=True)
class DefenceCommitted:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class AttackResolved:
    attacker: int
    defender: int
    attack_points: int
    defence_points: int
    damage: int
    hp: int


@dataclass(frozen=True)
class AssassinationDeclared:
    attacker: int
    defender: int
    card: int


@dataclass(frozen=True)
class AssassinPlayed:
    seat: int
    card: int
    blocking: bool


@dataclass(frozen=True)
class AssassinDeclined:
    seat: int
    blocking: bool


@dataclass(frozen=True)
class AssassinationResolved:
    attacker: int
    defender: int
    success: bool
    damage: int
    hp: int


@dataclass(frozen=True)
class LandBought:
    seat: int
    money: tuple[int, ...]
    lands: tuple[int, ...]


@dataclass(frozen=True)
class Healed:
    seat: int
    card: int
    gained: int
    hp: int


@dataclass(frozen=True)
class Discarded:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class LastCardDrawn:
    seat: int
    final_turns: int


@dataclass(frozen=True)
class KingDefeated:
    seat: int
    by: int


@dataclass(frozen=True)
class RoundEnded:
    round: int
    reason: RoundEndReason
    land_values: tuple[int, ...]
    awarded: tuple[int, ...]
    totals: tuple[int, ...]
    game_over: bool


quicken_module(__name__)  # built by the thousand per match: see referee/core/records.py
