"""What the game helpers share: card ranks and suits, card ids from cards or ids, and subsets.

Mirrors the TypeScript SDK's ``games/common.ts``: every action builder takes
cards (``arena.v1.Card`` messages) or their ids, in both SDKs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from typing import Any, TypeVar

T = TypeVar("T")

CLUBS, DIAMONDS, HEARTS, SPADES = 1, 2, 3, 4
ACE, JACK, QUEEN, KING, JOKER = 1, 11, 12, 13, 14


def card_id(card: Any) -> int:
    """The id of a card, or the id itself (an int)."""
    return card if isinstance(card, int) else int(card.id)


def ids(cards: Iterable[Any]) -> list[int]:
    """Card ids from cards or ids."""
    return [card_id(c) for c in cards]


def subsets(items: Sequence[T]) -> Iterator[list[T]]:
    """Every non-empty subset of ``items``: by size, smallest first, each size in the order of ``items``.

    Exponential: for hands of a dozen cards or fewer.
    """
    for n in range(1, len(items) + 1):
        for combo in combinations(items, n):
            yield list(combo)
