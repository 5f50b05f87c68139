"""General's War: who may be targeted, who is told of a draw, that nothing sent names a hidden card, what the public count of generals and each seat's own view hold, why a player is out (rules only the golden playthroughs, or nothing, caught breaking)."""

from __future__ import annotations

import random
from collections import deque

import pytest

from referee.core.game import Event, IllegalAction
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import (
    CardsDrawn,
    ChooseTarget,
    EliminationReason,
    Phase,
    PlayerEliminated,
    PlaySquad,
    RevealGenerals,
    RoundStarted,
    TargetChoice,
)
from referee.protocol.messages import GameCodec
from tests.games.test_generals_war_rules import C, D, H, c, four_player_duel
from tests.support import card_ids_in


def duel_with(hands: list[list[int]], dead: list[list[int]]) -> GeneralsWar:
    """A two-player game at its first attack with these hands and dead piles; every other card of a seat is in its deck."""
    game = GeneralsWar(2, 0)
    while game.phase == Phase.REVEAL:
        for seat in game.to_act():
            game.apply(seat, RevealGenerals(()))
    for seat in range(2):
        every = game.hands[seat] + list(game.decks[seat])
        game.hands[seat] = list(hands[seat])
        game.dead[seat] = list(dead[seat])
        game.decks[seat] = deque(x for x in every if x not in hands[seat] and x not in dead[seat])
    return game


def test_gw9_the_attacker_may_target_neither_himself_nor_an_eliminated_player() -> None:
    game = GeneralsWar(4, 3)
    game.eliminated[2] = True
    game._start_round()
    assert game.decision(0) == TargetChoice((1, 3))
    assert game.check(0, ChooseTarget(0)) is not None
    assert game.check(0, ChooseTarget(2)) is not None
    try:
        game.apply(0, ChooseTarget(2))
    except IllegalAction:
        pass
    else:
        raise AssertionError("an eliminated seat was attacked")
    assert game.check(0, ChooseTarget(3)) is None


def test_a_draw_names_its_cards_to_the_drawer_alone_and_its_count_to_all() -> None:
    """Dealt cards are hidden from everyone but their owner, fighters and bystanders alike (GW's deal step)."""
    game = GeneralsWar(4, 5)
    events = game.apply(0, ChooseTarget(2))
    draws = [e for e in events if isinstance(e.payload, CardsDrawn)]
    assert {e.payload.seat for e in draws} == {0, 2}
    for seat in range(4):
        told = [e.payload for e in draws if e.visible(seat)]
        assert sorted(p.seat for p in told) == [0, 2], "every seat hears of both draws, once each"
        for p in told:
            assert p.count == 5
            assert p.cards == (tuple(game.hands[seat][:5]) if p.seat == seat else ())


def test_gw16_a_general_placed_face_down_still_counts_among_the_generals_alive() -> None:
    """The public count of living generals must not drop while an ace lies in a face-down squad: that would point it out."""
    game = duel_with([[c(1, C), c(5, C), c(6, C)], [c(7, D), c(8, D)]], [[], []])
    before = game.view(1).players[0].generals_alive
    assert before == 2
    game.apply(0, PlaySquad((c(1, C),)))
    assert game.view(1).players[0].generals_alive == before
    assert game.view(0).players[0].generals_alive == before


def test_gw4_a_general_in_the_conquest_pile_is_alive() -> None:
    """Seat 1's last general wins its battle: in the conquest pile it lives, so the game goes on."""
    game = duel_with([[c(2, C), c(3, C)], [c(1, H), c(13, D), c(4, D)]], [[], [c(1, D)]])
    game.apply(0, PlaySquad((c(2, C),)))
    game.apply(1, PlaySquad((c(1, H), c(13, D))))
    assert c(1, H) in game.conquest[1]
    assert not game.is_over() and game.phase == Phase.ATTACK
    assert game.view(0).players[1].generals_alive == 1


def test_gw6_an_elimination_for_a_lost_last_general_says_so() -> None:
    game = four_player_duel()
    everything = [set(game.hands[s]) | set(game.decks[s]) for s in (0, 1)]
    game.hands[0], game.hands[1] = [c(13, C), c(12, C)], [c(1, D), c(5, D)]
    for seat in (0, 1):
        game.decks[seat] = deque(x for x in game.decks[seat] if x not in game.hands[seat])
        assert set(game.hands[seat]) <= everything[seat]
    game.apply(0, PlaySquad((c(13, C),)))
    payloads = [e.payload for e in game.apply(1, PlaySquad((c(1, D),)))]
    out = next(p for p in payloads if isinstance(p, PlayerEliminated))
    assert (out.seat, out.by, out.reason) == (1, 0, EliminationReason.NO_GENERAL)


def test_a_view_holds_the_viewing_seats_own_hand_and_squad() -> None:
    game = duel_with([[c(2, C), c(3, C)], [c(4, D), c(5, D)]], [[], []])
    assert game.view(0).hand == (c(2, C), c(3, C)) and game.view(1).hand == (c(4, D), c(5, D))
    game.apply(0, PlaySquad((c(3, C),)))
    assert game.view(0).squad == (c(3, C),) and game.view(1).squad == ()
    assert game.view(0).hand == (c(2, C),) and game.view(1).hand == (c(4, D), c(5, D))


def test_gw1_each_round_is_announced_to_all_with_its_attacker() -> None:
    """Round 1 names the dealer, seat 0; after an empty hand ends it, round 2 names seat 1 (two players alternate)."""
    game = duel_with([[c(10, C)], [c(2, D), c(3, D)]], [[], []])
    started = [e for e in game.opening_events() if isinstance(e.payload, RoundStarted)]
    assert [(e.payload.round, e.payload.attacker) for e in started] == [(1, 0)]
    game.apply(0, PlaySquad((c(10, C),)))
    events = game.apply(1, PlaySquad((c(2, D),)))
    started = [e for e in events if isinstance(e.payload, RoundStarted)]
    assert [(e.payload.round, e.payload.attacker) for e in started] == [(2, 1)]
    assert all(e.visible(seat) for e in started for seat in range(2))


@pytest.mark.parametrize("n", [2, 4])
def test_what_each_seat_is_sent_names_no_card_hidden_from_it(n: int) -> None:
    """Views, decisions and the events a seat is told, as sent, name no card of a deck or of another seat's hand or
    squad that the seat never saw (its own hand and squad, and the cards turned face up, it may know)."""
    codec = GameCodec(GeneralsWar)
    for seed in range(3):
        game = GeneralsWar(n, seed)
        rng = random.Random(seed)
        pending: list[Event] = game.opening_events()
        while not game.is_over():
            for seat in range(n):
                hidden = game.hidden_cards(seat)
                assert not set(card_ids_in(codec.view(game.view(seat)))) & hidden, (seed, seat)
                for e in pending:
                    if e.visible(seat):
                        assert not set(card_ids_in(codec.event(e.payload, 0))) & hidden, (seed, seat, e)
            for seat in game.to_act():
                assert not set(card_ids_in(codec.decision(game.decision(seat)))) & game.hidden_cards(seat)
            seat = game.to_act()[0]
            pending = game.apply(seat, game.random_action(seat, rng))
