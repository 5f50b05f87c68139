"""What the seats remember of face-down cards whose places they can follow.

A pile that is drawn from the top, added to at the bottom and never shuffled
keeps a card seen face up findable: everyone who saw it go under the pile knows
where it lies, and who draws it from there holds a card they know. Games keep a
``PileMemory`` beside each such pile and a ``HandMemory`` beside each hand, and
update them where cards move, so building a view costs only the known cards.

Seats that know a card are a bit mask: bit ``s`` set means seat ``s`` knows it.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.core.records import quicken_module


def everyone(num_players: int) -> int:
    """The mask of every seat."""
    return (1 << num_players) - 1


@dataclass(frozen=True)
class PileCard:
    """A card of a face-down pile that a seat knows, and where it lies: ``position`` 0 is the next card drawn."""

    position: int
    card: int


class PileMemory:
    """Who knows which cards of one face-down pile, and where.

    Each card is kept by its place counted from the first card the pile ever
    held, so a draw only moves ``top`` and every position shown (place minus
    ``top``) follows. The pile itself stays where the game keeps it: callers
    pass its size when they put cards under it.
    """

    __slots__ = ("top", "known")

    def __init__(self) -> None:
        self.top = 0
        self.known: dict[int, tuple[int, int]] = {}  # place -> (card, mask of the seats that know it)

    def draw(self, count: int) -> list[int]:
        """The top ``count`` cards leave the pile: the mask of each (0 when nobody knew it), in the order drawn."""
        masks = [self.known.pop(place, (0, 0))[1] for place in range(self.top, self.top + count)] if self.known else [0] * count
        self.top += count
        return masks

    def put(self, size: int, card: int, mask: int) -> None:
        """``card`` goes under a pile of ``size`` cards, known to the seats of ``mask``."""
        if mask:
            self.known[self.top + size] = (card, mask)

    def known_to(self, seat: int) -> tuple[PileCard, ...]:
        """The cards ``seat`` knows, top first (cards are only put at the bottom, so places come in order)."""
        if not self.known:
            return ()
        bit = 1 << seat
        top = self.top
        return tuple(PileCard(place - top, card) for place, (card, mask) in self.known.items() if mask & bit)


class HandMemory:
    """Cards of one seat's hand that other seats know (drawn from a place they knew), with who knows each."""

    __slots__ = ("known",)

    def __init__(self) -> None:
        self.known: dict[int, int] = {}  # card -> mask of the other seats that know it

    def drawn(self, seat: int, cards: list[int], masks: list[int]) -> None:
        """``seat`` drew ``cards`` from places known to ``masks`` (from ``PileMemory.draw``): the others who knew keep knowing."""
        others = ~(1 << seat)
        for card, mask in zip(cards, masks):
            if mask & others:
                self.known[card] = mask & others

    def discard(self, card: int) -> None:
        """The card left the hand where all could see (or the seats lost track of it)."""
        self.known.pop(card, None)

    def clear(self) -> None:
        self.known.clear()

    def known_to(self, seat: int) -> tuple[int, ...]:
        if not self.known:
            return ()
        bit = 1 << seat
        return tuple(card for card, mask in self.known.items() if mask & bit)


quicken_module(__name__)
