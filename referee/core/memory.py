"""What the seats remember of face-down cards whose places they can follow.

A pile that is drawn from the top, added to at the bottom and never shuffled
keeps a card seen face up findable: everyone who saw it go under the pile knows
where it lies, and who draws it from there holds a card they know. Games keep a
``PileMemory`` beside each such pile and a ``HandMemory`` beside each hand, and
update them where cards move, so building a view costs only the known cards.

Seats that know a card are a bit mask: bit ``s`` set means seat ``s`` knows it.
``TableMemory`` holds them all for a game and keeps each seat's last answer until
something it remembers changes, since a view is built at every decision.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Generic, TypeVar

from referee.core.records import quicken_module

R = TypeVar("R")


def everyone(num_players: int) -> int:
    """The mask of every seat."""
    return (1 << num_players) - 1


@dataclass(frozen=True)
class PileCard:
    """A card of a face-down pile that a seat knows, and where it lies: ``position`` 0 is the next card drawn."""

    position: int
    card: int


#: Positions move at every draw, so the same few (position, card) pairs come back view after view: each is made once.
_pile_card = cache(PileCard)


class PileMemory:
    """Who knows which cards of one face-down pile, and where.

    Each card is kept by its place counted from the first card the pile ever
    held, so a draw only moves ``top`` and every position shown (place minus
    ``top``) follows. The pile itself stays where the game keeps it: callers
    pass its size when they put cards under it. Each seat's answer is kept
    until the pile changes: a pile changes far less often than views are built.
    """

    __slots__ = ("top", "known", "_answers")

    def __init__(self) -> None:
        self.top = 0
        self.known: dict[int, tuple[int, int]] = {}  # place -> (card, mask of the seats that know it)
        self._answers: dict[int, tuple[PileCard, ...]] = {}

    def draw(self, count: int) -> list[int]:
        """The top ``count`` cards leave the pile: the mask of each (0 when nobody knew it), in the order drawn."""
        if not self.known:
            self.top += count
            return [0] * count
        masks = [self.known.pop(place, (0, 0))[1] for place in range(self.top, self.top + count)]
        self.top += count
        self._answers.clear()
        return masks

    def put(self, size: int, cards: list[int], mask: int) -> None:
        """``cards`` go under a pile of ``size`` cards, in order, known to the seats of ``mask``."""
        if mask and cards:
            place = self.top + size
            for card in cards:
                self.known[place] = (card, mask)
                place += 1
            self._answers.clear()

    def known_to(self, seat: int) -> tuple[PileCard, ...]:
        """The cards ``seat`` knows, top first (cards are only put at the bottom, so places come in order)."""
        if not self.known:
            return ()
        answer = self._answers.get(seat)
        if answer is None:
            bit = 1 << seat
            top = self.top
            answer = tuple([_pile_card(place - top, card) for place, (card, mask) in self.known.items() if mask & bit])
            self._answers[seat] = answer
        return answer


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
        return tuple([card for card, mask in self.known.items() if mask & bit])


class TableMemory(Generic[R]):
    """A pile and a hand memory per seat, and what each seat knows of them as records of the game's ``build(seat, pile, hand)``."""

    __slots__ = ("piles", "hands", "build", "version", "_answers", "_blank")

    def __init__(self, num_players: int, build: Callable[[int, tuple[PileCard, ...], tuple[int, ...]], R]) -> None:
        self.piles = [PileMemory() for _ in range(num_players)]
        self.hands = [HandMemory() for _ in range(num_players)]
        self.build = build
        self.version = 0  # moves on whenever a seat's answer may change
        self._answers: list[tuple[int, tuple[R, ...]] | None] = [None] * num_players
        self._blank = [build(seat, (), ()) for seat in range(num_players)]  # the record of a seat nothing is known of

    def draw(self, seat: int, cards: list[int]) -> None:
        """``seat`` drew ``cards`` from the top of its pile: who knew a place knows the card in its hand."""
        pile = self.piles[seat]
        if pile.known:
            self.hands[seat].drawn(seat, cards, pile.draw(len(cards)))
            self.version += 1
        else:
            pile.top += len(cards)

    def put(self, seat: int, size: int, cards: list[int], mask: int) -> None:
        """``cards`` go under ``seat``'s pile of ``size`` cards, in order, known to the seats of ``mask``."""
        if mask and cards:
            self.piles[seat].put(size, cards, mask)
            self.version += 1

    def played(self, seat: int, card: int) -> None:
        """``card`` left ``seat``'s hand face up: nobody has to remember it there."""
        if card in self.hands[seat].known:
            self.hands[seat].discard(card)
            self.version += 1

    def forget_hand(self, seat: int) -> None:
        """The others lost track of ``seat``'s hand (it went where they cannot follow)."""
        if self.hands[seat].known:
            self.hands[seat].clear()
            self.version += 1

    def hand_knowers(self, seat: int, card: int) -> int:
        """The other seats that know ``card`` is in ``seat``'s hand."""
        return self.hands[seat].known.get(card, 0)

    def move_pile(self, seat: int, size: int, to: int, to_size: int) -> None:
        """``seat``'s whole pile of ``size`` cards goes under ``to``'s pile of ``to_size``, in order: each place stays known."""
        pile = self.piles[seat]
        known = list(pile.known.items())
        top = pile.top
        pile.draw(size)
        for place, (card, mask) in known:
            self.put(to, to_size + place - top, [card], mask)

    def drop_pile(self, seat: int, size: int) -> None:
        """``seat``'s whole pile of ``size`` cards leaves play."""
        if self.piles[seat].known:
            self.version += 1
        self.piles[seat].draw(size)

    def known(self, viewer: int) -> tuple[R, ...]:
        """What ``viewer`` knows of every seat's pile and hand, in seat order (its own hand is not listed)."""
        answer = self._answers[viewer]
        if answer is not None and answer[0] == self.version:
            return answer[1]
        records = []
        for seat, pile in enumerate(self.piles):
            cards = pile.known_to(viewer)
            hand = () if seat == viewer else self.hands[seat].known_to(viewer)
            records.append(self.build(seat, cards, hand) if cards or hand else self._blank[seat])
        answer = (self.version, tuple(records))
        self._answers[viewer] = answer
        return answer[1]


quicken_module(__name__)
