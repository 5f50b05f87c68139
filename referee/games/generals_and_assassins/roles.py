"""What a card is worth and which role it may play (GA-2, GA-3)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from referee.core.cards import CARDS_PER_DECK, summed

# Per card index within a deck (0..53): value and role.
GENERAL, SOLDIER, LAND, MONEY, HEALTH, ASSASSIN = range(6)
_SUIT_ROLE: Final = (SOLDIER, MONEY, HEALTH, LAND)  # clubs, diamonds, hearts, spades


def _value(k: int) -> int:
    if k >= 52:
        return 25
    rank = k % 13 + 1
    return 10 if rank == 11 else 11 if rank == 12 else 12 if rank == 13 else rank


def _role(k: int) -> int:
    if k >= 52:
        return ASSASSIN
    if k % 13 + 1 >= 11:
        return GENERAL
    return _SUIT_ROLE[k // 13]


_VALUES: Final = tuple(_value(k) for k in range(CARDS_PER_DECK))
_ROLES: Final = tuple(_role(k) for k in range(CARDS_PER_DECK))
# The same for every card id of up to eight decks, looked up without a modulo (ids beyond fall back to it).
_VALUES_BY_ID: Final = _VALUES * 8
_ROLES_BY_ID: Final = _ROLES * 8


def value(card: int) -> int:
    """Ace 1, two to ten face value, jack 10, queen 11, king 12, joker 25."""
    return _VALUES[card % CARDS_PER_DECK]


def is_ace(card: int) -> bool:
    k = card % CARDS_PER_DECK
    return k < 52 and k % 13 == 0


def is_general(card: int) -> bool:
    return _ROLES[card % CARDS_PER_DECK] == GENERAL


def is_fighter(card: int) -> bool:
    """A general or a soldier: a card that may attack, defend or assist."""
    return _ROLES[card % CARDS_PER_DECK] <= SOLDIER


def of_role(cards: Iterable[int], wanted: int) -> tuple[int, ...]:
    return tuple(c for c in cards if _ROLES[c % CARDS_PER_DECK] == wanted)


def by_role(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The cards of each role (indexed by GENERAL .. ASSASSIN), in the order given; one pass, for a turn's decision."""
    groups: list[list[int]] = [[], [], [], [], [], []]
    try:
        for card in cards:
            groups[_ROLES_BY_ID[card]].append(card)
    except IndexError:  # an id beyond eight decks
        return [of_role(cards, r) for r in range(len(groups))]
    return [tuple(g) for g in groups]


def total(cards: tuple[int, ...] | list[int]) -> int:
    return summed(_VALUES_BY_ID, cards)
