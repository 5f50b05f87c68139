"""What the game helpers share: card ranks and suits, card ids from cards or ids, and subsets.

Mirrors the TypeScript SDK's ``games/common.ts``: every action builder takes
cards (``arena.v1.Card`` messages) or their ids, in both SDKs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
import operator
from itertools import combinations
from typing import Any, TypeVar

T = TypeVar("T")

CLUBS, DIAMONDS, HEARTS, SPADES = 1, 2, 3, 4
ACE, JACK, QUEEN, KING, JOKER = 1, 11, 12, 13, 14


def card_id(card: Any) -> int:
    """The id of a card, or the id itself (an int); anything else is refused (a str "has no attribute 'id'" said no more)."""
    if isinstance(card, int):
        return card
    if hasattr(card, "id"):
        return int(card.id)
    if hasattr(card, "__index__"):  # an integer of another kind (numpy's)
        return operator.index(card)
    raise TypeError(f"a card or a card id (an int) expected, got the {type(card).__name__} {card!r}")


def whole(value: Any, field: str, what: str) -> int:
    """``value`` for the int ``field`` of an action (``what`` it holds), refused by the field's name when it is no
    integer: protobuf refuses a str too, but as "'str' object cannot be interpreted as an integer", naming no field."""
    if isinstance(value, int) or hasattr(value, "__index__"):  # a bool too: protobuf refuses it, naming the field
        return value  # type: ignore[no-any-return]
    raise TypeError(f"{field}: an int expected ({what}), got the {type(value).__name__} {value!r}")


def flag(value: Any, field: str) -> bool:
    """``value`` for the bool ``field`` of an action, refused by the field's name when it is text, a float or None:
    protobuf's own refusal of "false" names no field (it takes 0 and 1, and numpy's bools, as they are)."""
    if value is None or isinstance(value, str | bytes | float):
        raise TypeError(f"{field}: a bool expected, got the {type(value).__name__} {value!r}")
    return value  # type: ignore[no-any-return]


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
