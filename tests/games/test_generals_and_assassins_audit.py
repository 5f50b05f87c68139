"""Generals & Assassins, third audit: cases found correct that a changed engine would still have passed every rules test with
(rulings GA-3, GA-5, GA-9, GA-13, GA-16, GA-17, GA-22, GA-24)."""

from __future__ import annotations

import pytest

from referee.games.generals_and_assassins.types import (
    Assassinate,
    Assist,
    Attack,
    BuyLand,
    CardsDrawn,
    Decline,
    Defend,
    Discard,
    Discarded,
    LastCardDrawn,
    Phase,
    PlayAssassin,
    RoundEnded,
    RoundEndReason,
    Side,
    StartRound,
)
from tests.games.test_generals_and_assassins_rules import act, c, cs, end_round, hand, hands, lands, new, payloads, turn


def test_ga17_a_round_ended_by_a_deck_running_out_leaves_the_next_round_its_full_length() -> None:
    """GA-17: the trigger belongs to its round; the next round, dealt from full decks, does not end after one turn and a lap
    (its first turn draws no deck's last card)."""
    g = new(3)
    g.decks[1] = g.decks[1][-1:]
    turn(g, 1)
    act(g, 1, Discard((g.hands[1][0],)))  # the last card of deck 1: every player has one more turn
    for seat in (2, 0, 1):
        events = act(g, seat, Discard((g.hands[seat][0],)))
    assert payloads(events, RoundEnded)[0].reason == RoundEndReason.LAST_CARD
    act(g, g.to_act()[0], StartRound())
    assert g.round == 2 and g.final_turns is None
    for _ in range(12):  # four laps of the table, far from any deck's end
        seat = g.to_act()[0]
        events = act(g, seat, Discard((g.hands[seat][0],)))
        assert not payloads(events, RoundEnded) and not payloads(events, LastCardDrawn)
        assert g.round == 2 and g.final_turns is None and g.phase == Phase.TURN


def test_ga17_a_second_deck_running_out_in_the_last_lap_is_not_announced_again() -> None:
    """GA-17: once the round's end is under way a deck running out changes nothing, and is not told as a new trigger."""
    g = new(3)
    g.decks[1] = g.decks[1][-1:]
    turn(g, 1)
    events = act(g, 1, Discard((g.hands[1][0],)))
    assert payloads(events, LastCardDrawn) == [LastCardDrawn(1, 3)]
    kinds = [type(e.payload) for e in events if e.visible(0)]
    assert kinds[:3] == [Discarded, CardsDrawn, LastCardDrawn], "told after the draw that took the last card, before others"
    g.decks[2] = g.decks[2][-1:]
    events = act(g, 2, Discard((g.hands[2][0],)))
    assert g.decks[2] == [] and not payloads(events, LastCardDrawn) and g.final_turns == 2


def test_ga22_a_default_game_has_eight_rounds_and_at_most_eight_extra() -> None:
    """GA-22: by default the game ends after round 8 with a single leader; a tie for the lead lasts at most 8 extra rounds."""
    g = new(2)
    assert (g.rounds, g.max_extra_rounds) == (8, 8)
    lands(g, 0, "As")
    for played in range(1, 8):
        end_round(g)
        assert not g.is_over() and g.round == played + 1
    end_round(g)
    assert g.is_over() and g.round == 8

    g = new(2)
    for _ in range(15):
        end_round(g)  # nobody scores: every round ends tied at 0
    assert not g.is_over() and g.round == 16
    end_round(g)
    assert g.is_over() and g.round == 16 and g.result().ranks == (1, 1)


def test_ga24_the_battle_under_way_is_unresolved_and_once_resolved_is_only_the_last_battle() -> None:
    """GA-24: while a battle is under way every view shows it unresolved with no damage; once resolved it is gone from
    ``battle`` and shown as ``last_battle``, resolved, with the HP lost."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 1: "2d 3d 4d 5d 6d", 2: "9c 2h 3h 4h 5h"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 2, Assist(Side.ATTACKER, c("9c", 2)))
    for seat in range(3):
        battle = g.view(seat).battle
        assert battle is not None and not battle.resolved and battle.damage == 0 and battle.attack_points == 21
    act(g, 1, Defend(()))
    for seat in range(3):
        view = g.view(seat)
        assert view.battle is None and view.last_battle is not None
        assert view.last_battle.resolved and view.last_battle.damage == 21 and view.last_battle.attack_points == 21


def test_ga12_ga24_an_assassination_is_shown_with_no_attack_or_defence_points() -> None:
    """GA-12, GA-24: an assassination is fought with jokers, not points: its battle shows 0 AP and 0 DP, under way and after."""
    g = new(2)
    hands(g, {0: "X0 X1 2d 3d 4d", 1: "X0 2d 3d 4d 5d"})
    lands(g, 1, "9s")  # land adds DP to a defence against an attack only
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    act(g, 1, PlayAssassin(c("X0", 1)))
    battle = g.view(1).battle
    assert battle is not None and (battle.attack_points, battle.defence_points) == (0, 0)
    act(g, 0, PlayAssassin(c("X1", 0)))
    act(g, 1, Decline())
    last = g.view(0).last_battle
    assert last is not None and (last.attack_points, last.defence_points, last.damage) == (0, 0, 25)


def test_ga16_only_players_short_of_five_draw_and_are_told_a_draw() -> None:
    """GA-16: after a turn only the players with fewer than five cards draw; a player with a full hand is told no draw."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 1: "9c 2h 3h 4h 5h", 2: "2c 3c 4c 5c 6c"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 2, Decline())
    events = act(g, 1, Defend(()))  # the defender plays nothing and keeps five cards; seat 2 kept his
    assert [(e.seat, e.count) for e in payloads(events, CardsDrawn)] == [(0, 1), (0, 1)]  # the drawer's and the others' copy


def test_ga13_an_exact_payment_is_listed_among_the_purchases() -> None:
    """GA-13: money worth exactly the land's value buys it: the check accepts it and the turn's listing holds it."""
    g = new(2)
    hand(g, 0, "7d 2d 5s 4s 2h")
    turn(g, 0)
    exact = BuyLand(tuple(sorted(cs("7d 2d", 0))), tuple(sorted(cs("5s 4s", 0))))
    assert g.check(0, exact) is None and exact in set(g.legal_actions(0))
    assert BuyLand((c("7d", 0),), (c("5s", 0),)) in set(g.legal_actions(0))


@pytest.mark.parametrize("role", ["defend", "assist"])
def test_ga3_ga9_a_joker_neither_defends_nor_assists_a_regular_attack(role: str) -> None:
    """GA-3, GA-9 (rule text: assassins "cannot participate in regular attacks"): a joker is offered to no defence or assist."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 1: "X0 2d 3d 4d 5d", 2: "X0 2h 3h 4h 5h"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    if role == "assist":
        assert list(g.legal_actions(2)) == [Decline()]
        assert g.check(2, Assist(Side.DEFENDER, c("X0", 2))) is not None
        return
    act(g, 2, Decline())
    assert list(g.legal_actions(1)) == [Defend(())]
    assert g.check(1, Defend((c("X0", 1),))) is not None


def test_ga5_only_the_acting_seat_has_a_decision_and_the_game_over_is_told() -> None:
    """GA-5: one seat acts at a time and only it is asked; once the game is over nobody acts and every view says so."""
    g = new(3, rounds=1)
    acting = g.to_act()[0]
    for seat in range(3):
        if seat != acting:
            with pytest.raises(ValueError):
                g.decision(seat)
    lands(g, 0, "5s")
    end_round(g)
    assert g.is_over() and g.to_act() == ()
    assert all(g.view(seat).phase == Phase.OVER and g.view(seat).acting is None for seat in range(3))


def test_ga5_ga9_ga13_ga15_a_card_named_twice_counts_once_and_is_refused() -> None:
    """GA-5, GA-9, GA-13, GA-15: an action names each card once: a nine of diamonds named twice does not pay 18, a king
    named twice does not attack for 24, a club named twice does not defend twice, an ace does not carry itself."""
    g = new(2)
    hands(g, {0: "9d Kc 9s 8s Ah", 1: "9c 2d 3d 4d 5d"})
    turn(g, 0)
    nine = c("9d", 0)
    assert g.check(0, BuyLand((nine, nine), tuple(cs("9s 8s", 0)))) is not None
    assert g.check(0, Attack(1, (c("Kc", 0), c("Kc", 0)))) is not None
    assert g.check(0, Discard((c("Ah", 0), c("Ah", 0)))) is not None
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.check(1, Defend((c("9c", 1), c("9c", 1)))) is not None
