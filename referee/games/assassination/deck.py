"""The five marked decks (AS-3, AS-4).

Marked deck ``colour`` (0 to 4) is made of two standard decks: the blue one,
standard deck number ``2 * colour``, gives the 54 movement cards, and the
red one, standard deck number ``2 * colour + 1``, gives the 16 event cards
(jacks, queens and kings do nothing, aces act). A card's id therefore tells
its mark, which everyone sees when the card is turned over, and nothing
about the seat that holds it: colours are dealt to seats at random each
round, in secret (AS-5).
"""

from __future__ import annotations

from functools import cache
from typing import Final

from referee.core.cards import Rank, Suit, deck_of, full_deck, rank_of, suit_of
from referee.games.assassination.types import Direction

COLOURS: Final = 5

_DIRECTION_OF_SUIT: Final = {
    Suit.SPADES: Direction.UP,  # points up
    Suit.CLUBS: Direction.RIGHT,  # held in the right hand
    Suit.HEARTS: Direction.DOWN,  # points down
    Suit.DIAMONDS: Direction.LEFT,  # the engagement ring
}


def movement_deck(colour: int) -> list[int]:
    """All 54 movement cards of a colour, in id order."""
    return list(_movement(colour))


def event_deck(colour: int) -> list[int]:
    """The 16 event cards of a colour, in id order: aces (action) and jacks to kings (do nothing)."""
    return list(_events(colour))


@cache
def _movement(colour: int) -> tuple[int, ...]:
    return tuple(full_deck(2 * colour, jokers=True))


@cache
def _events(colour: int) -> tuple[int, ...]:
    return tuple(c for c in full_deck(2 * colour + 1) if rank_of(c) in (Rank.ACE, Rank.JACK, Rank.QUEEN, Rank.KING))


def colour_of(card: int) -> int:
    """The mark on a card."""
    return deck_of(card) // 2


def is_movement(card: int) -> bool:
    return deck_of(card) % 2 == 0


def is_action(card: int) -> bool:
    """An event card that acts (an ace of a red deck)."""
    return not is_movement(card) and rank_of(card) == Rank.ACE


def direction_of(card: int) -> Direction:
    """Where a movement card sends its piece: aces and jokers do not move it."""
    rank = rank_of(card)
    if rank in (Rank.ACE, Rank.JOKER):
        return Direction.STAY
    return _DIRECTION_OF_SUIT[suit_of(card)]


def all_cards() -> set[int]:
    """Every card in play (the red twos to tens are left in the box)."""
    out: set[int] = set()
    for colour in range(COLOURS):
        out.update(movement_deck(colour))
        out.update(event_deck(colour))
    return out
