"""What each card is worth and what it is for in Glory (G-1)."""

from __future__ import annotations

from typing import Final

from referee.core.cards import CARDS_PER_DECK, Rank, Suit, rank_of, suit_of, summed

_VALUE: Final = {Rank.JACK: 10, Rank.QUEEN: 11, Rank.KING: 12, Rank.JOKER: 25}


class Kind:
    """The role of a card, from its rank and suit (Final: constants of the class, as mypyc requires to compile it)."""

    GENERAL: Final = "general"
    SOLDIER: Final = "soldier"
    LAND: Final = "land"
    MONEY: Final = "money"
    HEALTH: Final = "health"
    ASSASSIN: Final = "assassin"


def _kind(k: int) -> str:
    rank, suit = rank_of(k), suit_of(k)
    if rank == Rank.JOKER:
        return Kind.ASSASSIN
    if rank in (Rank.JACK, Rank.QUEEN, Rank.KING):
        return Kind.GENERAL
    return {Suit.CLUBS: Kind.SOLDIER, Suit.SPADES: Kind.LAND, Suit.DIAMONDS: Kind.MONEY, Suit.HEARTS: Kind.HEALTH}[suit]


_KINDS: Final = tuple(_kind(k) for k in range(CARDS_PER_DECK))
_KIND_NAMES: Final = (Kind.GENERAL, Kind.SOLDIER, Kind.LAND, Kind.MONEY, Kind.HEALTH, Kind.ASSASSIN)
_VALUES: Final = tuple(_VALUE.get(rank_of(k), int(rank_of(k))) for k in range(CARDS_PER_DECK))
_RANKS: Final = tuple(int(rank_of(k)) for k in range(CARDS_PER_DECK))


def value(card: int) -> int:
    """Ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25."""
    return _VALUES[card % CARDS_PER_DECK]


def kind(card: int) -> str:
    return _KINDS[card % CARDS_PER_DECK]


def is_general(card: int) -> bool:
    return _KINDS[card % CARDS_PER_DECK] == Kind.GENERAL


def is_soldier(card: int) -> bool:
    return _KINDS[card % CARDS_PER_DECK] == Kind.SOLDIER


def is_fighter(card: int) -> bool:
    """A General or a Soldier: the cards that attack, defend and assist."""
    return _KINDS[card % CARDS_PER_DECK] in (Kind.GENERAL, Kind.SOLDIER)


def is_land(card: int) -> bool:
    return _KINDS[card % CARDS_PER_DECK] == Kind.LAND


def is_money(card: int) -> bool:
    return _KINDS[card % CARDS_PER_DECK] == Kind.MONEY


def is_assassin(card: int) -> bool:
    return _KINDS[card % CARDS_PER_DECK] == Kind.ASSASSIN


_KINDS_BY_ID: Final = _KINDS * 8  # as _VALUES_BY_ID below
_ACES_BY_ID: Final = tuple(r == Rank.ACE for r in _RANKS) * 8


def by_kind(cards: list[int] | tuple[int, ...]) -> tuple[dict[str, list[int]], list[int]]:
    """The cards of each kind, and the Aces among them, in the order given; one pass, for a turn's decision."""
    groups: dict[str, list[int]] = {k: [] for k in _KIND_NAMES}
    aces: list[int] = []
    try:
        for card in cards:
            groups[_KINDS_BY_ID[card]].append(card)
            if _ACES_BY_ID[card]:
                aces.append(card)
    except IndexError:  # an id beyond eight decks
        groups = {k: [c for c in cards if kind(c) == k] for k in _KIND_NAMES}
        aces = [c for c in cards if is_ace(c)]
    return groups, aces


def is_ace(card: int) -> bool:
    return _RANKS[card % CARDS_PER_DECK] == 1  # Rank.ACE, compared as the int it is


def high_card_rank(card: int) -> int:
    """Order of the first-player draw: ace lowest, then 2..10, jack, queen, king, joker highest (G-4)."""
    return _RANKS[card % CARDS_PER_DECK]


def half_up(v: int) -> int:
    """Half a value, rounded up: mercenaries and healing."""
    return (v + 1) // 2


def mercenary_points(card: int) -> int:
    return half_up(value(card))


_VALUES_BY_ID: Final = _VALUES * 8  # the value of every card id of up to eight decks, looked up without a modulo


def total(cards: tuple[int, ...] | list[int]) -> int:
    return summed(_VALUES_BY_ID, cards)
