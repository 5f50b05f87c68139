"""GW-17: the view remembers the face-down cards a seat can follow, as a player who tracked every event would."""

from __future__ import annotations

import random

import pytest

from referee.core.memory import PileCard
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import (
    Action,
    BattleResolved,
    KnownCards,
    CardsDrawn,
    GeneralsRevealed,
    PlayerEliminated,
    PlaySquad,
    RevealGenerals,
    RoundEnded,
    RoundStarted,
    SquadPlaced,
    TargetChosen,
    View,
)
from tests.support import play_tracked
from tests.games.test_generals_war_rules import C, D, H, S, c, duel, rigged


class Tracker:
    """One seat's memory built from the events it is told alone, by positions from the top of each deck."""

    def __init__(self, seat: int, n: int) -> None:
        self.seat, self.n = seat, n
        self.sizes = [52 // n] * n
        self.decks: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (position, card) per seat
        self.known_hands: list[list[int]] = [[] for _ in range(n)]
        self.hand_counts = [0] * n
        self.own_hand: list[int] = []
        self.conquest: list[list[int]] = [[] for _ in range(n)]
        self.revealed: list[list[int]] = [[] for _ in range(n)]
        self.fighters: tuple[int, int] = (0, 1)

    def put(self, seat: int, card: int | None) -> None:
        if card is not None:
            self.decks[seat].append((self.sizes[seat], card))
        self.sizes[seat] += 1

    def told(self, event: object) -> None:
        if isinstance(event, RoundStarted):
            self.fighters = (event.attacker, 1 - event.attacker)
        elif isinstance(event, TargetChosen):
            self.fighters = (event.attacker, event.target)
        elif isinstance(event, CardsDrawn):
            s, count = event.seat, event.count
            for position, card in self.decks[s]:
                if position < count and s != self.seat:
                    self.known_hands[s].append(card)
            self.decks[s] = [(p - count, card) for p, card in self.decks[s] if p >= count]
            self.sizes[s] -= count
            self.hand_counts[s] += count
            if s == self.seat:
                self.own_hand += event.cards
        elif isinstance(event, GeneralsRevealed):
            self.revealed[event.seat] += event.cards
        elif isinstance(event, SquadPlaced):
            self.hand_counts[event.seat] -= event.count
            self.own_hand = [c for c in self.own_hand if c not in event.cards] if event.seat == self.seat else self.own_hand
        elif isinstance(event, BattleResolved):
            b = event.battle
            for s, squad in ((b.attacker, b.attacker_squad), (b.defender, b.defender_squad)):
                self.known_hands[s] = [c for c in self.known_hands[s] if c not in squad]
                self.revealed[s] = [c for c in self.revealed[s] if c not in squad]
                if s == b.winner:
                    self.conquest[s] += squad
        elif isinstance(event, RoundEnded):
            for s in self.fighters:
                self.round_cards_under_deck(s)
        elif isinstance(event, PlayerEliminated):
            if event.cards_transferred:
                self.decks[event.by] += [(p + self.sizes[event.by], card) for p, card in self.decks[event.seat]]
                self.sizes[event.by] += event.cards_transferred
            self.decks[event.seat], self.sizes[event.seat] = [], 0

    def round_cards_under_deck(self, s: int) -> None:
        for card in self.conquest[s]:
            self.put(s, card)
        if s == self.seat:
            for card in self.own_hand:
                self.put(s, card)
        elif self.hand_counts[s] == 1 and (self.revealed[s] or self.known_hands[s]):
            self.put(s, (self.revealed[s] or self.known_hands[s])[0])
        else:
            self.sizes[s] += self.hand_counts[s]
        self.conquest[s], self.known_hands[s], self.revealed[s], self.hand_counts[s] = [], [], [], 0
        if s == self.seat:
            self.own_hand = []


@pytest.mark.parametrize("n", [2, 4])
def test_gw17_the_view_knows_what_a_seat_tracking_every_event_knows(n: int) -> None:
    """Random games, each seat's memory from its events against its view before every decision."""

    def check(t: Tracker, view: View) -> int:
        assert [p.deck_size for p in view.players] == t.sizes
        for known in view.known:
            assert known.deck == tuple(PileCard(p, card) for p, card in t.decks[known.seat])
            assert sorted(known.hand) == sorted(t.known_hands[known.seat])
        return sum(len(known.deck) + len(known.hand) for known in view.known)

    remembered = 0
    for seed in range(40):
        game = GeneralsWar(n, seed)
        rng = random.Random(seed)

        def move(game: GeneralsWar = game, rng: random.Random = rng) -> tuple[int, Action]:
            seat = rng.choice(game.to_act())
            return seat, game.random_action(seat, rng)

        remembered += play_tracked(game, [Tracker(s, n) for s in range(n)], move, check)
    assert remembered > 1000, "the games put few known cards under a deck: the check checked little"


def test_gw17_squads_won_go_under_the_deck_known_to_all_the_hand_to_its_owner() -> None:
    game = duel([
        [c(1, C), c(9, C), c(2, C), c(3, C), c(4, C), c(1, S), c(5, C), c(6, C), c(7, C), c(8, C)],
        [c(5, H), c(6, H), c(7, H), c(8, H), c(1, H), c(1, D)],
    ])
    game.apply(0, PlaySquad((c(9, C),)))
    game.apply(1, PlaySquad((c(5, H), c(6, H), c(7, H))))  # 9 against 18: seat 1 wins
    game.apply(0, PlaySquad((c(2, C), c(3, C))))
    game.apply(1, PlaySquad((c(8, H), c(1, H))))  # 5 against 9: seat 1 wins again, and its hand is empty
    # Round 2 is dealt: seat 1's conquest pile (5h 6h 7h 8h Ah) went under Ad, and Ad to 8h were drawn before all eyes;
    # seat 0's hand (Ac 4c, in the order drawn) went under its deck face down, and As 5c 6c 7c 8c were drawn.
    assert game.round == 2
    view0, view1 = game.view(0), game.view(1)
    for view in (view0, view1):
        assert view.known[1].deck == (PileCard(0, c(1, H)),)
    assert sorted(view0.known[1].hand) == sorted([c(5, H), c(6, H), c(7, H), c(8, H)]) and view1.known[1].hand == ()
    assert view0.known[0].deck == (PileCard(0, c(1, C)), PileCard(1, c(4, C)))
    assert view1.known[0] == KnownCards(0, (), ())


def test_gw17_a_single_revealed_general_left_in_hand_is_known_to_all_under_the_deck() -> None:
    game = rigged(2, [
        [c(1, C), c(9, C), c(2, C), c(3, C), c(4, C), c(5, C), c(6, C), c(7, C), c(8, C), c(10, C), c(11, C), c(12, C)],
        [c(5, H), c(6, H), c(7, H), c(8, H), c(9, H), c(1, H), c(1, D)],
    ])
    game.apply(0, RevealGenerals((c(1, C),)))
    game.apply(1, RevealGenerals(()))
    game.apply(0, RevealGenerals(()))  # its second draw: 5c 6c 7c 8c 10c
    battles = [
        ((c(9, C), c(2, C), c(3, C)), (c(5, H), c(6, H))),  # 14 against 11: seat 0 wins
        ((c(4, C), c(5, C), c(6, C)), (c(7, H), c(8, H))),  # 15 against 15: both die
        ((c(7, C), c(8, C), c(10, C)), (c(9, H),)),  # seat 0 wins, and seat 1's hand is empty
    ]
    for attack, defence in battles:
        game.apply(0, PlaySquad(attack))
        game.apply(1, PlaySquad(defence))
    # Seat 0 was left with its revealed Ac alone: it went under the deck after the squads won, where all know it is.
    # Its deck was Jc Qc As; round 2 dealt it five cards, the first two squad cards won among them.
    assert game.round == 2
    won = [c(3, C), c(7, C), c(8, C), c(10, C), c(1, C)]
    for seat in (0, 1):
        assert game.view(seat).known[0].deck == tuple(PileCard(p, card) for p, card in enumerate(won))
    assert sorted(game.view(1).known[0].hand) == sorted([c(9, C), c(2, C)])
