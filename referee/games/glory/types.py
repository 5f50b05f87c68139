"""Glory's actions, decisions, views and events (mirrored by proto/arena/v1/glory.proto).

Fields named ``cards`` (and the like) hold card ids that the protocol sends as
``arena.v1.Card`` messages; fields named ``card_ids`` are plain ids (actions).
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.records import quicken_module
from referee.games.glory.enums import (  # re-exported: the rules and the codec import them from here
    Phase as Phase,
    AttackKind as AttackKind,
    GloryReason as GloryReason,
    RoundEndReason as RoundEndReason,
)


# Actions


@dataclass(frozen=True)
class BuyLand:
    land_ids: tuple[int, ...]
    money_ids: tuple[int, ...]


@dataclass(frozen=True)
class ConquerLand:
    target: int
    card_ids: tuple[int, ...]
    money_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class AttackKing:
    target: int
    card_ids: tuple[int, ...]
    money_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Assassinate:
    target: int
    card_ids: tuple[int, ...]


@dataclass(frozen=True)
class Heal:
    card_id: int


@dataclass(frozen=True)
class Discard:
    card_ids: tuple[int, ...]


@dataclass(frozen=True)
class PassTurn:
    pass


@dataclass(frozen=True)
class Offer:
    seat: int
    card_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class MakeOffers:
    offers: tuple[Offer, ...] = ()


@dataclass(frozen=True)
class Assist:
    seat: int  # the side assisted: the attacker's or the defender's seat
    card_ids: tuple[int, ...]


@dataclass(frozen=True)
class DeclineAssist:
    pass


@dataclass(frozen=True)
class Defend:
    card_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Thwart:
    card_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class MoreAssassins:
    card_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class StartRound:
    pass


Action = (
    BuyLand
    | ConquerLand
    | AttackKing
    | Assassinate
    | Heal
    | Discard
    | PassTurn
    | MakeOffers
    | Assist
    | DeclineAssist
    | Defend
    | Thwart
    | MoreAssassins
    | StartRound
)
ACTION_TYPES: tuple[type, ...] = (
    BuyLand,
    ConquerLand,
    AttackKing,
    Assassinate,
    Heal,
    Discard,
    PassTurn,
    MakeOffers,
    Assist,
    DeclineAssist,
    Defend,
    Thwart,
    MoreAssassins,
    StartRound,
)


# Decisions


@dataclass(frozen=True)
class TurnChoice:
    hand: tuple[int, ...]
    lands: tuple[int, ...]
    treasury: tuple[int, ...]
    generals: tuple[int, ...]
    soldiers: tuple[int, ...]
    assassins: tuple[int, ...]
    health: tuple[int, ...]
    aces: tuple[int, ...]
    king_targets: tuple[int, ...]
    conquer_targets: tuple[int, ...]
    can_pass: bool


@dataclass(frozen=True)
class OfferChoice:
    attacker: int
    defender: int
    offerable: tuple[int, ...]
    recipients: tuple[int, ...]


@dataclass(frozen=True)
class AssistChoice:
    attacker: int
    defender: int
    playable: tuple[int, ...]
    attack_points: int
    defence_points: int


@dataclass(frozen=True)
class DefendChoice:
    kind: AttackKind
    attacker: int
    playable: tuple[int, ...]
    attack_points: int
    defence_points: int


@dataclass(frozen=True)
class ThwartChoice:
    attacker: int
    assassins: tuple[int, ...]
    required: int


@dataclass(frozen=True)
class MoreAssassinsChoice:
    defender: int
    assassins: tuple[int, ...]
    mini_round: int


@dataclass(frozen=True)
class StartRoundChoice:
    round: int


Decision = TurnChoice | OfferChoice | AssistChoice | DefendChoice | ThwartChoice | MoreAssassinsChoice | StartRoundChoice


# Views


@dataclass(frozen=True)
class Player:
    seat: int
    hp: int
    glory: int
    hand_size: int
    domain: tuple[int, ...]
    treasury: tuple[int, ...]
    land_value: int
    treasury_value: int
    waiting: bool


@dataclass(frozen=True)
class AssistRecord:
    seat: int
    assisted: int | None
    cards: tuple[int, ...]


@dataclass(frozen=True)
class BattleState:
    kind: AttackKind
    attacker: int
    defender: int
    attack_cards: tuple[int, ...]
    mercenaries: tuple[int, ...]
    attack_points: int
    defence_points: int
    attacker_offers: tuple[Offer, ...]
    defender_offers: tuple[Offer, ...]
    assists: tuple[AssistRecord, ...]
    defence_cards: tuple[int, ...]
    mini_round: int
    presented: tuple[int, ...]


@dataclass(frozen=True)
class BattleResult:
    kind: AttackKind
    attacker: int
    defender: int
    attack_points: int
    defence_points: int
    success: bool
    damage: int
    land_taken: int | None
    eliminated: bool
    attacker_assistants: tuple[int, ...]
    defender_assistants: tuple[int, ...]


@dataclass(frozen=True)
class View:
    seat: int
    num_players: int
    round: int
    rounds: int
    extra_round: bool
    phase: Phase
    turn: int
    first_player: int
    hand: tuple[int, ...]
    players: tuple[Player, ...]
    deck_size: int
    discard: tuple[int, ...]
    battle: BattleState | None
    last_battle: BattleResult | None
    next_first_player: int | None


# Events


@dataclass(frozen=True)
class FirstPlayerDraw:
    seats: tuple[int, ...]
    cards: tuple[int, ...]


@dataclass(frozen=True)
class RoundStarted:
    round: int
    first_player: int
    extra_round: bool


@dataclass(frozen=True)
class CardTurnedOver:
    seat: int
    card: int


@dataclass(frozen=True)
class TurnStarted:
    seat: int


@dataclass(frozen=True)
class CardsDrawn:
    seat: int
    count: int
    cards: tuple[int, ...]
    money: tuple[int, ...]


@dataclass(frozen=True)
class LandBought:
    seat: int
    lands: tuple[int, ...]
    money: tuple[int, ...]


@dataclass(frozen=True)
class AttackDeclared:
    kind: AttackKind
    attacker: int
    defender: int
    cards: tuple[int, ...]
    mercenaries: tuple[int, ...]
    attack_points: int


@dataclass(frozen=True)
class OffersMade:
    seat: int
    offers: tuple[Offer, ...]


@dataclass(frozen=True)
class AssistChosen:
    seat: int
    assisted: int | None
    cards: tuple[int, ...]


@dataclass(frozen=True)
class DefenceCommitted:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class AssassinsPresented:
    seat: int
    cards: tuple[int, ...]
    mini_round: int


@dataclass(frozen=True)
class ThwartChosen:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class BattleResolved:
    result: BattleResult


@dataclass(frozen=True)
class GloryAwarded:
    seat: int
    points: int
    reason: GloryReason


@dataclass(frozen=True)
class OfferPaid:
    offerer: int
    recipient: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class Healed:
    seat: int
    card: int
    hp: int


@dataclass(frozen=True)
class Discarded:
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True)
class TurnPassed:
    seat: int


@dataclass(frozen=True)
class RoundEnded:
    round: int
    reason: RoundEndReason
    eliminated: int | None
    land_points: tuple[int, ...]
    glory: tuple[int, ...]


@dataclass(frozen=True)
class GameEnded:
    glory: tuple[int, ...]
    winners: tuple[int, ...]
    tie_unbroken: bool


quicken_module(__name__)  # built by the thousand per match: see referee/core/records.py
