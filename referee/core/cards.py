"""Standard playing cards as small integers.

A card is identified by an id that is stable within a match and tells nothing
beyond rank, suit and which physical deck it came from: ``deck * 54 + k``,
where ``k = suit_index * 13 + (rank - 1)`` for the 52 suited cards (suits in
the order clubs, diamonds, hearts, spades) and 52/53 for the two jokers.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

CARDS_PER_DECK: Final = 54


class Suit(IntEnum):
    """Suit numbers; they equal the protocol's ``arena.v1.Suit`` values."""

    NONE = 0
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    SPADES = 4


class Rank(IntEnum):
    """Rank numbers; they equal the protocol's ``arena.v1.Rank`` values."""

    NONE = 0
    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    JOKER = 14


SUIT_ORDER: Final = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_SYMBOL: Final = {Suit.CLUBS: "c", Suit.DIAMONDS: "d", Suit.HEARTS: "h", Suit.SPADES: "s"}
_RANK_SYMBOL: Final = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}


def card_id(rank: int, suit: Suit, deck: int = 0) -> int:
    """The id of a suited card."""
    if not 1 <= rank <= 13:
        raise ValueError(f"rank {rank} is not 1..13")
    return deck * CARDS_PER_DECK + SUIT_ORDER.index(suit) * 13 + rank - 1


def joker_id(which: int, deck: int = 0) -> int:
    """The id of joker ``which`` (0 or 1) of a deck."""
    return deck * CARDS_PER_DECK + 52 + which


_RANK_TABLE: Final = tuple(Rank(k % 13 + 1) for k in range(52)) + (Rank.JOKER, Rank.JOKER)
_SUIT_TABLE: Final = tuple(SUIT_ORDER[k // 13] for k in range(52)) + (Suit.NONE, Suit.NONE)


def rank_of(card: int) -> Rank:
    return _RANK_TABLE[card % CARDS_PER_DECK]


def suit_of(card: int) -> Suit:
    return _SUIT_TABLE[card % CARDS_PER_DECK]


def deck_of(card: int) -> int:
    return card // CARDS_PER_DECK


def is_joker(card: int) -> bool:
    return card % CARDS_PER_DECK >= 52


def suited_cards(suits: tuple[Suit, ...], deck: int = 0) -> list[int]:
    """All 13 cards of each given suit of one deck, in id order."""
    return [card_id(r, s, deck) for s in suits for r in range(1, 14)]


def full_deck(deck: int = 0, jokers: bool = False) -> list[int]:
    """One deck: 52 cards, plus two jokers when asked."""
    cards = suited_cards(SUIT_ORDER, deck)
    if jokers:
        cards += [joker_id(0, deck), joker_id(1, deck)]
    return cards


def summed(by_id: tuple[int, ...], cards: tuple[int, ...] | list[int]) -> int:
    """The sum of a per-card table (one entry per id of the first decks, repeating every deck) over ``cards``.

    A plain loop, which mypyc compiles to C (``sum(map(...))`` it calls generically); an id beyond the
    table is looked up by its place in its deck.
    """
    worth = 0
    try:
        for card in cards:
            worth += by_id[card]
    except IndexError:
        return sum(by_id[c % CARDS_PER_DECK] for c in cards)
    return worth


def card_str(card: int) -> str:
    """A short human name such as ``Qh``, ``Tc`` or ``Jk``."""
    if is_joker(card):
        return "Jk"
    rank = int(rank_of(card))
    return _RANK_SYMBOL.get(rank, str(rank)) + _SUIT_SYMBOL[suit_of(card)]
