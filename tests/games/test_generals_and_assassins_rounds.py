"""Generals & Assassins: turn actions, what everyone is told, and rounds (rulings GA-1, GA-4, GA-13, GA-17, GA-21,
GA-22, GA-24, GA-25); the other cases are in test_generals_and_assassins_rules.py and test_generals_and_assassins_battles.py."""

from __future__ import annotations

import random
from itertools import combinations

from referee.core.cards import full_deck
from referee.games.generals_and_assassins.types import (
    Action,
    Assassinate,
    Assist,
    AssistGiven,
    Attack,
    BuyLand,
    CardsDrawn,
    DefenceCommitted,
    Defend,
    Discard,
    Discarded,
    Heal,
    Healed,
    LandBought,
    Phase,
    RoundEnded,
    RoundEndReason,
    Side,
    StartRound,
    TurnChoice,
    TurnStarted,
)
from tests.games.test_generals_and_assassins_rules import act, c, cs, end_round, hand, hands, lands, new, payloads, turn


def test_ga13_overpaying_is_allowed_and_gives_no_change() -> None:
    """GA-13: money worth more than the land still buys it; every money card named is spent, none comes back."""
    g = new(2)
    hand(g, 0, "9d 3d 5s 2h 4h")
    turn(g, 0)
    assert g.check(0, BuyLand((c("9d", 0),), (c("5s", 0),))) is None
    events = act(g, 0, BuyLand(tuple(cs("9d 3d", 0)), (c("5s", 0),)))  # 12 for 5
    assert payloads(events, LandBought) == [LandBought(0, tuple(cs("9d 3d", 0)), (c("5s", 0),))]
    assert g.lands[0] == [c("5s", 0)] and sorted(g.discards[0]) == sorted(cs("9d 3d", 0))
    assert not {c("9d", 0), c("3d", 0)} & set(g.hands[0])


def test_ga25_default_discard_breaks_a_tie_in_value_by_the_lowest_id() -> None:
    """GA-25: the lowest value, then the lowest id: of a two of clubs and a two of spades, the club (lower id) goes."""
    g = new(2)
    hand(g, 0, "2s 9d 2c Kh X0")
    turn(g, 0)
    assert c("2c", 0) < c("2s", 0)
    assert g.default_action(0) == Discard((c("2c", 0),))


def test_ga24_every_event_but_a_draw_is_told_to_every_seat() -> None:
    """GA-24: offers, assists, transfers, defences, assassins, purchases, discards and scores are public; only a draw's
    cards are told to the drawer alone (the others get its count)."""
    kinds: set[str] = set()
    for n, seed in ((3, 0), (3, 1), (4, 0), (4, 1)):
        g = new(n, seed=seed, rounds=2)
        rng = random.Random(seed)
        while not g.is_over():
            seat = g.to_act()[0]
            for e in g.apply(seat, g.random_action(seat, rng)):
                kinds.add(type(e.payload).__name__)
                if isinstance(e.payload, CardsDrawn):
                    mine = e.visible_to == frozenset({e.payload.seat})
                    assert mine or (not e.payload.cards and e.payload.seat not in (e.visible_to or ()))
                else:
                    assert e.visible_to is None, e
    assert {"LandsOffered", "AssistGiven", "LandTransferred", "DefenceCommitted", "AssassinPlayed", "Healed"} <= kinds


def test_ga1_ga21_every_round_deals_from_decks_shuffled_anew() -> None:
    """GA-1, GA-21: the decks are shuffled at the start of every round, not only the first: each round's order is new."""
    g = new(3, seed=2)
    orders = [[g.decks[s] + g.hands[s] for s in range(3)]]
    for _ in range(2):
        end_round(g)
        orders.append([g.decks[s] + g.hands[s] for s in range(3)])
    for s in range(3):
        rounds = [tuple(order[s]) for order in orders]
        assert len(set(rounds)) == 3, f"deck {s} dealt in the same order twice"
        assert all(sorted(r) == sorted(full_deck(s, jokers=True)) and list(r) != sorted(r) for r in rounds)


def test_ga4_next_first_player_counts_the_round_just_scored() -> None:
    """GA-4: the lowest total VP is taken after the round's VP are added: the player who was last but scored most leads no more."""
    g = new(3)
    g.vp = [0, 3, 5]
    lands(g, 0, "9s")
    g.first_player = 2
    g._end_round(RoundEndReason.LAST_CARD, None)
    assert g.vp == [9, 3, 5] and g.phase == Phase.ROUND_OVER and g.to_act() == (1,)
    act(g, 1, StartRound())
    assert g.first_player == 1 and g.to_act() == (1,)


def test_ga22_a_tie_below_the_lead_ends_the_game() -> None:
    """GA-22: only a tie for the most VP brings extra rounds; players tied behind a single leader do not."""
    g = new(3, rounds=1)
    lands(g, 0, "6s")
    lands(g, 1, "5s")
    lands(g, 2, "5s")
    events = end_round(g)
    assert g.is_over() and payloads(events, RoundEnded)[0].game_over and g.result().ranks == (1, 2, 2)


def test_ga24_every_seat_sees_each_players_hp_vp_hand_and_deck_sizes() -> None:
    """GA-24: HP, VP, hand and deck sizes are public: every seat's view tells them as they are, at every step of a game."""
    g = new(3, seed=6, rounds=2)
    rng = random.Random(6)
    while not g.is_over():
        for seat in range(3):
            told = [(p.hp, p.vp, p.hand_size, p.deck_size) for p in g.view(seat).players]
            assert told == [(g.hp[s], g.vp[s], len(g.hands[s]), len(g.decks[s])) for s in range(3)]
        seat = g.to_act()[0]
        g.apply(seat, g.random_action(seat, rng))
    assert g.round == 2 and min(g.hp) < 50, "the game went through changes of HP"


def test_ga17_every_seat_is_told_the_turns_left_once_a_deck_ran_out() -> None:
    """GA-17: once a deck ran out, each turn's start and every view tell the turns left in the round, this one included."""
    g = new(3)
    g.decks[1] = g.decks[1][-1:]
    turn(g, 1)
    assert g.view(0).final_turns_left is None
    events = act(g, 1, Discard((g.hands[1][0],)))  # draws the last card of his deck
    told: list[int | None] = []
    for seat in (2, 0, 1):
        assert [e.payload.final_turns_left for e in events if isinstance(e.payload, TurnStarted)] == [3 - len(told)]
        told.append(g.view((seat + 1) % 3).final_turns_left)
        events = act(g, seat, Discard((g.hands[seat][0],)))
    assert told == [3, 2, 1] and payloads(events, RoundEnded)


def test_ga24_events_and_the_turn_choice_tell_exactly_what_was_played() -> None:
    """GA-24: the public events name the very cards and sides played and the HP actually gained; the turn player's decision
    tells his own HP; the round's end tells each total."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 2: "9c 2h 3h 4h 5h", 1: "8c 7c 2d 3d 4d"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert payloads(act(g, 2, Assist(Side.DEFENDER, c("9c", 2))), AssistGiven) == [AssistGiven(2, Side.DEFENDER, c("9c", 2))]
    events = act(g, 1, Defend(tuple(cs("8c 7c", 1))))
    assert payloads(events, DefenceCommitted) == [DefenceCommitted(1, tuple(cs("8c 7c", 1)))]
    hand(g, 1, "9h Ac 2c 3s 4s")
    g.hp[1] = 45
    turn(g, 1)
    decision = g.decision(1)
    assert isinstance(decision, TurnChoice) and decision.hp == 45
    assert payloads(act(g, 1, Heal(c("9h", 1))), Healed) == [Healed(1, c("9h", 1), 5, 50)]
    hand(g, 1, "Ac 2c 3s 4s 5s")
    turn(g, 1)
    assert payloads(act(g, 1, Discard(tuple(cs("Ac 2c 3s", 1)))), Discarded) == [Discarded(1, tuple(cs("Ac 2c 3s", 1)))]
    g.vp = [4, 0, 1]
    lands(g, 2, "6s")
    ended = payloads(end_round(g), RoundEnded)[0]
    assert (ended.awarded, ended.totals) == ((0, 0, 6), (4, 0, 7))


def test_a_turns_listing_is_every_action_the_check_accepts() -> None:
    """The listing leaves out no legal turn action (multi-card discards with an ace, purchases of several lands, large
    attacks) and holds nothing the check refuses: compared with every action built from the hand's subsets."""
    g = new(3)
    for names in ("Ah Kc 5d 3s 4s", "Ac Ad Qh 9c X0", "Kc Qd 9d As 2s"):
        hand(g, 0, names)
        turn(g, 0)
        subsets = [tuple(sorted(ids)) for k in range(6) for ids in combinations(g.hands[0], k)]
        universe: list[Action] = [Discard(ids) for ids in subsets]
        universe += [BuyLand(m, ln) for m in subsets for ln in subsets]
        for target in range(3):
            universe += [Attack(target, ids) for ids in subsets]
            universe += [Assassinate(target, x) for x in g.hands[0]]
        universe += [Heal(x) for x in g.hands[0]]
        listed = list(g.legal_actions(0))
        assert len(listed) == len(set(listed)) and set(listed) == {a for a in universe if g.check(0, a) is None}, names
    assert Discard(tuple(sorted(cs("Kc Qd 9d As 2s", 0)))) in listed and BuyLand(tuple(cs("9d", 0)), tuple(cs("As 2s", 0))) in listed
