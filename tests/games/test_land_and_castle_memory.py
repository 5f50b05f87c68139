"""LC-25: the view remembers the face-down cards a seat can follow, as a player who tracked every event would."""

from __future__ import annotations

import random

from referee.core.memory import PileCard
from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle.types import (
    Action,
    Attacked,
    CardsDrawn,
    CardSwapped,
    CastlePlaced,
    Control,
    Defended,
    GeneralPlaced,
    KnownCards,
    LandControlled,
    LandDealt,
    SwapCard,
    View,
)
from tests.support import play_tracked
from tests.games.test_land_and_castle_rules import NO_GENERALS, PLAIN_LANDS, C, D, H, K, S, battle, c, plain, rigged


class Tracker:
    """One seat's memory built from the events it is told alone, by positions from the top of each pile."""

    def __init__(self, seat: int, pile_size: int) -> None:
        self.seat = seat
        self.sizes = [pile_size, pile_size]
        self.piles: list[list[tuple[int, int]]] = [[], []]  # (position, card) per seat
        self.hands: list[list[int]] = [[], []]

    def put(self, seat: int, card: int) -> None:
        self.piles[seat].append((self.sizes[seat], card))
        self.sizes[seat] += 1

    def draw(self, seat: int, count: int) -> None:
        for position, card in self.piles[seat]:
            if position < count and seat != self.seat:
                self.hands[seat].append(card)
        self.piles[seat] = [(p - count, card) for p, card in self.piles[seat] if p >= count]
        self.sizes[seat] -= count

    def told(self, event: object) -> None:
        if isinstance(event, LandDealt):
            self.draw(event.seat, 1)
        elif isinstance(event, CardsDrawn):
            self.draw(event.seat, event.count)
        elif isinstance(event, CardSwapped):
            if event.card is not None:
                self.put(event.seat, event.card)
            else:
                self.sizes[event.seat] += 1
                self.hands[event.seat] = []
        elif isinstance(event, (CastlePlaced, GeneralPlaced)):
            self.played(event.seat, event.card)
        elif isinstance(event, (Attacked, Defended)):
            self.played(event.seat, event.army)
        elif isinstance(event, LandControlled):
            for card in event.to_draw_pile:
                self.put(event.seat, card)

    def played(self, seat: int, card: int) -> None:
        if card in self.hands[seat]:
            self.hands[seat].remove(card)

    def known(self) -> tuple[KnownCards, ...]:
        return tuple(
            KnownCards(s, tuple(PileCard(p, card) for p, card in self.piles[s]), tuple(self.hands[s])) for s in (0, 1)
        )


def test_lc25_the_view_knows_what_a_seat_tracking_every_event_knows() -> None:
    """Random games (with swaps and controls), each seat's memory from its events against its view after every action."""

    def check(tracker: Tracker, view: View) -> int:
        assert [p.draw_pile_size for p in view.players] == tracker.sizes
        known = tuple(KnownCards(k.seat, k.draw_pile, tuple(sorted(k.hand))) for k in view.known)
        assert known == tuple(KnownCards(k.seat, k.draw_pile, tuple(sorted(k.hand))) for k in tracker.known())
        return sum(len(k.draw_pile) + len(k.hand) for k in known)

    remembered = 0
    for seed in range(40):
        game = LandAndCastle(2, seed)
        rng = random.Random(seed)

        def move(game: LandAndCastle = game, rng: random.Random = rng) -> tuple[int, Action]:
            seat = game.to_act()[0]
            actions = list(game.legal_actions(seat))
            swaps = [a for a in actions if isinstance(a, SwapCard)]
            controls = [a for a in actions if isinstance(a, Control)]
            return seat, rng.choice(swaps if swaps and rng.random() < 0.5 else controls or actions)

        remembered += play_tracked(game, [Tracker(s, 26) for s in (0, 1)], move, check)
    assert remembered > 1000, "the games put few known cards under a pile: the check checked little"


def test_lc25_controlled_armies_are_known_to_both_where_they_lie_until_played() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], piles=[[c(5, H), c(10, H)], [c(7, H)]])
    battle(game, c(10, C), 0, c(2, D))
    game.apply(0, Control(0))
    # Seat 0 drew its top card (5h); the armies lie under 10h, the attacker's first.
    for seat in (0, 1):
        assert game.view(seat).known[0].draw_pile == (PileCard(1, c(10, C)), PileCard(2, c(2, D)))
        assert game.view(seat).known[1].draw_pile == ()
    battle(game, c(3, D), 0, c(2, C))
    game.apply(1, Control(0))
    # Seat 0 drew 10h: 10c is now the next card of its pile, for both seats; seat 1 drew back 3d before seat 0's eyes.
    assert game.view(1).known[0].draw_pile == (PileCard(0, c(10, C)), PileCard(1, c(2, D)))
    assert game.view(0).known[1].hand == (c(3, D),) and game.view(1).known[1].hand == ()
    battle(game, c(5, H), 0, c(3, D))
    assert game.view(0).known[1].hand == ()  # played face up: on the table now
    game.apply(game.claimant, Control(0))
    # Seat 0 drew 10c: seat 1 knows it is in seat 0's hand, until seat 0 plays it face up.
    assert c(10, C) in game.hands[0] and game.view(1).known[0].hand == (c(10, C),)
    assert game.view(0).known[0].hand == ()


def test_lc25_a_swapped_card_is_known_to_its_owner_alone_and_hides_the_swappers_hand() -> None:
    game = rigged(
        list(PLAIN_LANDS),
        [[c(5, S), c(2, C)], [c(7, S), c(3, C)]],
        [c(4, D), c(K, H)],
        list(NO_GENERALS),
        piles=[[c(10, C), c(10, H)], [c(5, H)]],
    )
    game.memory.hands[0].known[c(5, S)] = 0b10  # as if seat 1 had seen 5s drawn from a place it knew
    game.apply(0, SwapCard(c(2, C)))
    assert game.view(0).known[0].draw_pile == (PileCard(1, c(2, C)),)
    assert game.view(1).known[0] == KnownCards(0, (), ())
