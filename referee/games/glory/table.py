"""The cards on Glory's table and the bookkeeping shared by turns and battles.

The deck is a list whose end is its top. Comments cite the numbered rulings of
docs/games/glory.md as (G-n).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from referee.core.game import Event, broadcast, split
from referee.core.records import LastBuilt
from referee.games.glory.types import (
    AssistRecord,
    AttackKind,
    BattleResult,
    BattleState,
    CardsDrawn,
    GloryAwarded,
    GloryReason,
    Offer,
    Phase,
    Player,
)
from referee.games.glory.values import is_money, mercenary_points, total, value

HAND_SIZE: Final = 7
START_HP: Final = 50
LAND_DP: Final = 2

#: What a seat's public record is built from: HP, Glory Points, hand size, waiting, Domain, Treasury.
_PlayerKey = tuple[int, int, int, bool, tuple[int, ...], tuple[int, ...]]


@dataclass
class Fight:
    """An attack under way: what each side has put on the table so far."""

    kind: AttackKind
    attacker: int
    defender: int
    attack_cards: list[int]
    mercenaries: list[int] = field(default_factory=list)
    attacker_offers: list[Offer] = field(default_factory=list)
    defender_offers: list[Offer] = field(default_factory=list)
    offers_made: int = 0  # 0: the attacker offers next, 1: the defender, 2: done
    assistants: list[int] = field(default_factory=list)  # the seats asked to assist, in order (G-15)
    assists: list[AssistRecord] = field(default_factory=list)
    defence_cards: list[int] = field(default_factory=list)
    mini_round: int = 1
    presented: list[int] = field(default_factory=list)  # the attacker's assassins of the current mini-round

    def side_cards(self, side: int) -> list[int]:
        return [c for a in self.assists if a.assisted == side for c in a.cards]

    def helpers(self, side: int) -> tuple[int, ...]:
        return tuple(a.seat for a in self.assists if a.assisted == side)

    def table_cards(self) -> list[int]:
        """Every card the fight has put on the table, in the order they go to the discard pile."""
        assists = [c for a in self.assists for c in a.cards]
        return self.attack_cards + self.mercenaries + assists + self.defence_cards


class Table:
    """Everything on the table in one round, plus the Glory Points kept across rounds."""

    def __init__(self, num_players: int) -> None:
        n = num_players
        self.n = n
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.domains: list[list[int]] = [[] for _ in range(n)]
        self.treasuries: list[list[int]] = [[] for _ in range(n)]
        self.hp = [START_HP] * n
        self.glory = [0] * n
        self.waiting = [False] * n  # failed attackers who draw back later (G-25)
        self.phase = Phase.TURN
        self.turn = 0
        self.fight: Fight | None = None
        self.last_battle: BattleResult | None = None
        self._players: LastBuilt[_PlayerKey, Player] = LastBuilt(n)

    # --- seats ----------------------------------------------------------------------

    def clockwise(self, start: int) -> list[int]:
        """Every seat, starting with ``start`` and going clockwise (to the left: seat + 1) (G-2)."""
        return [(start + i) % self.n for i in range(self.n)]

    def others(self, seat: int) -> list[int]:
        return self.clockwise(seat)[1:]

    # --- drawing --------------------------------------------------------------------

    def draw_one(self, seat: int, hand: list[int], money: list[int]) -> bool:
        """Draw the top card for ``seat``: Money goes face up to the Treasury (G-8). False if the deck is empty."""
        if not self.deck:
            return False
        card = self.deck.pop()
        if is_money(card):
            self.treasuries[seat].append(card)
            money.append(card)
        else:
            self.hands[seat].append(card)
            hand.append(card)
        return True

    def drawn_events(self, seat: int, hand: list[int], money: list[int]) -> list[Event]:
        if not hand and not money:
            return []
        mine = CardsDrawn(seat, len(hand), tuple(hand), tuple(money))
        theirs = CardsDrawn(seat, len(hand), (), tuple(money))
        return split(seat, self.n, mine, theirs)

    def draw_to_seven(self, seat: int) -> list[Event]:
        """Draw until seven cards are in hand or the deck is empty (G-8, G-9); ends a wait (G-25)."""
        hand: list[int] = []
        money: list[int] = []
        while len(self.hands[seat]) < HAND_SIZE and self.draw_one(seat, hand, money):
            pass
        self.waiting[seat] = False
        return self.drawn_events(seat, hand, money)

    def deal(self, first: int) -> list[Event]:
        """One card per pass to each player short of seven, clockwise from ``first`` (G-7)."""
        order = self.clockwise(first)
        hands: dict[int, list[int]] = {s: [] for s in order}
        money: dict[int, list[int]] = {s: [] for s in order}
        while self.deck and any(len(self.hands[s]) < HAND_SIZE for s in order):
            for seat in order:
                if len(self.hands[seat]) < HAND_SIZE:
                    self.draw_one(seat, hands[seat], money[seat])
        events: list[Event] = []
        for seat in order:
            events += self.drawn_events(seat, hands[seat], money[seat])
        return events

    # --- points ---------------------------------------------------------------------

    def award(self, seat: int, points: int, reason: GloryReason) -> Event:
        self.glory[seat] += points
        return broadcast(GloryAwarded(seat, points, reason))

    def attack_points(self, fight: Fight) -> int:
        """AP; in an assassination, the number of assassins the attacker has played."""
        if fight.kind == AttackKind.ASSASSINATION:
            return len(fight.attack_cards)
        own = total(fight.attack_cards) + sum(mercenary_points(c) for c in fight.mercenaries)
        return own + total(fight.side_cards(fight.attacker))

    def defence_points(self, fight: Fight) -> int:
        """DP; in an assassination, the number of assassins the defender has played."""
        if fight.kind == AttackKind.ASSASSINATION:
            return len(fight.defence_cards)
        lands = LAND_DP * len(self.domains[fight.defender])
        return lands + total(fight.defence_cards) + total(fight.side_cards(fight.defender))

    def land_value(self, seat: int) -> int:
        return total(self.domains[seat])

    def lowest_land(self, seat: int) -> int:
        """The lowest-valued Land of a Domain; equal values: the lowest card id (G-14)."""
        return min(self.domains[seat], key=lambda c: (value(c), c))

    # --- what everyone sees ---------------------------------------------------------

    def player(self, seat: int) -> Player:
        """What everyone sees of ``seat``; the record is built again only when something in it changed."""
        key = (
            self.hp[seat], self.glory[seat], len(self.hands[seat]), self.waiting[seat],
            tuple(self.domains[seat]), tuple(self.treasuries[seat]),
        )
        return self._players.get(seat, key, _build_player)

    def battle_state(self) -> BattleState | None:
        f = self.fight
        if f is None:
            return None
        return BattleState(
            kind=f.kind,
            attacker=f.attacker,
            defender=f.defender,
            attack_cards=tuple(f.attack_cards),
            mercenaries=tuple(f.mercenaries),
            attack_points=self.attack_points(f),
            defence_points=self.defence_points(f),
            attacker_offers=tuple(f.attacker_offers),
            defender_offers=tuple(f.defender_offers),
            assists=tuple(f.assists),
            defence_cards=tuple(f.defence_cards),
            mini_round=f.mini_round,
            presented=tuple(f.presented),
        )


def _build_player(seat: int, key: _PlayerKey) -> Player:
    hp, glory, hand_size, waiting, domain, treasury = key
    return Player(
        seat=seat,
        hp=hp,
        glory=glory,
        hand_size=hand_size,
        domain=domain,
        treasury=treasury,
        land_value=total(domain),
        treasury_value=total(treasury),
        waiting=waiting,
    )
