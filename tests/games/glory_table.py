"""Glory tables set by hand for the rules tests: cards by short name, a round in progress, the events picked out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.core.cards import Suit, card_id
from referee.games.glory import Glory
from referee.games.glory.types import (
    Discard,
    GloryAwarded,
    GloryReason,
    Phase,
)
from tests.support import named_card


def c(name: str) -> int:
    """A card id from a short name: ``Kh``, ``Ts``, ``5c``, ``X`` and ``X2`` (the jokers); ``@d`` picks the deck (``Kh@1``)."""
    text, _, deck = name.partition("@")
    return named_card({"X": "X0", "X2": "X1"}.get(text, text), int(deck or 0))


def cs(names: str) -> list[int]:
    return [c(n) for n in names.split()]


def filler(used: set[int], count: int, n: int) -> list[int]:
    """Harmless cards for the deck (Health 2-9 and Soldiers 2-9) not used elsewhere."""
    out: list[int] = []
    for deck in reversed(range(max(n, 6))):
        for suit in (Suit.HEARTS, Suit.CLUBS):
            for rank in range(2, 10):
                card = card_id(rank, suit, deck)
                if card not in used and len(out) < count:
                    out.append(card)
    return out


def table(
    n: int,
    hands: Sequence[str],
    *,
    treasuries: Sequence[str] = (),
    domains: Sequence[str] = (),
    deck: str | None = None,
    turn: int = 0,
    options: dict[str, object] | None = None,
) -> Glory:
    """A game in the middle of a round, with the given cards (decks are given top first)."""
    g = Glory(n, 0, options)
    t = g.t
    t.hands = [cs(h) for h in hands]
    t.treasuries = [cs(x) for x in treasuries] + [[] for _ in range(n - len(treasuries))]
    t.domains = [cs(x) for x in domains] + [[] for _ in range(n - len(domains))]
    used = {x for zone in t.hands + t.treasuries + t.domains for x in zone}
    top = cs(deck) if deck is not None else filler(used, 40, n)
    t.deck = list(reversed(top))
    t.discard = []
    t.hp = [50] * n
    t.glory = [0] * n
    t.waiting = [False] * n
    t.fight = None
    t.last_battle = None
    t.turn = turn
    t.phase = Phase.TURN
    g.first_player = turn
    g.forget()
    return g


def awards(events: list[Any]) -> list[tuple[int, int, GloryReason]]:
    return [(e.payload.seat, e.payload.points, e.payload.reason) for e in events if isinstance(e.payload, GloryAwarded)]


def payloads(events: list[Any], kind: type) -> list[Any]:
    return [e.payload for e in events if isinstance(e.payload, kind)]


def play(g: Glory, *steps: tuple[int, Any]) -> list[Any]:
    events: list[Any] = []
    for seat, action in steps:
        assert g.to_act() == (seat,), f"expected seat {seat} to act, not {g.to_act()}"
        events += g.apply(seat, action)
    return events


def finish_round(g: Glory, seat: int) -> list[Any]:
    """Empty the deck but one card, then let ``seat`` discard: the round ends after his turn."""
    g.t.deck = g.t.deck[-1:]
    return g.apply(seat, Discard((g.t.hands[seat][0],)))
