"""Glory's rules G-20 to G-35 (docs/games/glory.md): assassination, healing, draw-back, rounds and scoring; and the engine contract the referee and the SDK rely on."""

from __future__ import annotations

import dataclasses
import itertools
import random
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from referee.core.game import IllegalAction, OptionError
from referee.games.glory import Glory, choices
from referee.games.glory.types import (
    Assassinate,
    Assist,
    AttackKing,
    BattleResolved,
    CardsDrawn,
    ConquerLand,
    DeclineAssist,
    Defend,
    Discard,
    Discarded,
    GameEnded,
    GloryAwarded,
    GloryReason,
    Heal,
    MakeOffers,
    MoreAssassins,
    MoreAssassinsChoice,
    Offer,
    OfferChoice,
    PassTurn,
    Phase,
    RoundEnded,
    RoundEndReason,
    RoundStarted,
    StartRound,
    StartRoundChoice,
    Thwart,
    ThwartChoice,
    TurnChoice,
)
from referee.protocol.messages import GameCodec
from tests.games.glory_table import (
    awards,
    c,
    cs,
    finish_round,
    payloads,
    play,
    table,
)
from tests.support import card_ids_in

# --- G-20 .. G-23: Assassination, Heal, Discard -------------------------------------------------


def test_g20_assassination_mini_rounds() -> None:
    g = table(3, ["X X@1 X2@1 2h", "5c Kc", "X@2 X2@2 X2 2c"])
    assert g.check(0, Assassinate(2, (c("X"), c("2h")))) is not None  # assassins only
    g.apply(0, Assassinate(2, (c("X"),)))
    assert g.to_act() == (2,)
    assert g.decision(2) == ThwartChoice(0, tuple(cs("X@2 X2@2 X2")), 1)  # who sent them, his assassins, how many to match
    assert g.check(2, Thwart(tuple(cs("X@2 X2@2")))) is not None  # exactly as many
    g.apply(2, Thwart((c("X@2"),)))
    dm = g.decision(0)
    assert isinstance(dm, MoreAssassinsChoice) and dm.mini_round == 2
    g.apply(0, MoreAssassins(tuple(cs("X@1 X2@1"))))
    d2 = g.decision(2)
    assert isinstance(d2, ThwartChoice) and d2.required == 2
    assert g.check(2, Thwart((c("X2@2"),))) is not None  # one assassin does not match two
    assert list(g.legal_actions(2)) == [Thwart(()), Thwart(tuple(sorted(cs("X2@2 X2"))))]
    g.apply(2, Thwart(tuple(cs("X2@2 X2"))))
    assert g.decision(0) == MoreAssassinsChoice(2, (), 3)
    events = g.apply(0, MoreAssassins(()))  # no assassins left: he must stop; the attempt failed
    assert awards(events) == [(2, 2, GloryReason.ASSASSINATION_THWARTED)]
    assert g.t.hp[2] == 50 and g.t.waiting[0]
    # The defender may let it through although he could thwart.
    g = table(2, ["X 2h", "X@1 2c"])
    g.apply(0, Assassinate(1, (c("X"),)))
    events = g.apply(1, Thwart(()))
    assert g.t.hp[1] == 25 and awards(events) == [(0, 2, GloryReason.ASSASSINATION)]


def test_g20_further_assassins_come_from_the_attackers_hand_and_nothing_joins_them() -> None:
    g = table(2, ["X X@1 Kc 5c 2h", "X2 2c"])
    assert g.check(0, Assassinate(1, tuple(cs("X Kc")))) is not None  # nor combined with Generals...
    assert g.check(0, Assassinate(1, tuple(cs("X 5c")))) is not None  # ...or Soldiers
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))))
    assert g.check(0, MoreAssassins((c("Kc"),))) is not None  # only assassins
    assert g.check(0, MoreAssassins(tuple(cs("X@1 5c")))) is not None
    assert g.check(0, MoreAssassins((c("X"),))) is not None  # already played
    assert g.check(0, MoreAssassins((c("X@1"),))) is None


def test_g21_assassination_damage_glory_and_discards() -> None:
    g = table(2, ["X X@1 2h", "2c"])
    g.t.hp[1] = 25
    events = play(g, (0, Assassinate(1, tuple(cs("X X@1")))), (1, Thwart(())))
    assert g.t.hp[1] == 0
    assert awards(events)[:2] == [(0, 2, GloryReason.ASSASSINATION), (0, 2, GloryReason.ASSASSINATION_KILL)]
    assert payloads(events, BattleResolved)[0].result.damage == 25
    assert g.t.phase == Phase.ROUND_OVER
    assert set(cs("X X@1")) <= set(g.t.discard)
    assert not payloads(events, CardsDrawn), "an assassinated king ends the round at once: nobody draws back (G-26)"
    g = table(2, ["X 2h", "2c"])
    g.t.hp[1] = 10
    assert payloads(play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart(()))), BattleResolved)[0].result.damage == 10, "the HP he lost, not 25"
    # The defender's thwarting assassins go to the discard pile too, after the attacker's.
    g = table(2, ["X X@1 2h", "X2 2c"])
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins((c("X@1"),))), (1, Thwart(())))
    assert g.t.hp[1] == 25 and g.t.discard == cs("X X@1 X2")


def test_g21_an_assassination_deals_25_whatever_the_number_of_assassins() -> None:
    g = table(2, ["X X@1 X2@1 2h", "X2 2c"])
    events = play(g, (0, Assassinate(1, tuple(cs("X X@1 X2@1")))), (1, Thwart(())))  # three at once, unmatched
    assert g.t.hp[1] == 25 and payloads(events, BattleResolved)[0].result.damage == 25
    g = table(2, ["X X@1 X2@1 2h", "X2 2c"])
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins(tuple(cs("X@1 X2@1")))), (1, Thwart(())))
    assert g.t.hp[1] == 25, "four assassins over two mini-rounds: still 25"


def test_g22_heal_half_rounded_up_and_capped_at_fifty() -> None:
    g = table(2, ["7h 9h", "2h@1"], turn=0)
    g.t.hp = [40, 48]
    assert g.check(0, Heal(c("7s"))) is not None
    g.t.hands[0] += cs("4s 6c")
    g.forget()
    assert g.check(0, Heal(c("4s"))) is not None and g.check(0, Heal(c("6c"))) is not None  # in hand, not Health
    g.t.hands[0] = cs("7h 9h")
    g.forget()
    g.apply(0, Heal(c("7h")))
    assert g.t.hp[0] == 44 and len(g.t.hands[0]) == 7
    g.t.hands[1] = [c("9h@1")]
    g.apply(1, Heal(c("9h@1")))
    assert g.t.hp[1] == 50
    g.t.hp[0] = 50
    assert g.check(0, Heal(c("9h"))) is None  # allowed at full HP; the excess is lost


def test_g23_discard_one_card_or_many_with_an_ace() -> None:
    g = table(2, ["2h 3c Kd As 5h", "2c"])
    assert g.check(0, Discard(tuple(cs("2h 3c")))) is not None
    assert g.check(0, Discard(())) is not None
    assert g.check(0, Discard((c("Kd"),))) is None
    events = g.apply(0, Discard(tuple(cs("As 2h 3c Kd"))))
    assert g.t.discard == cs("As 2h 3c Kd")
    seen = [e for e in events if isinstance(e.payload, Discarded)]
    assert seen[0].visible_to is None  # face up for everyone
    assert g.view(1).discard == tuple(cs("As 2h 3c Kd"))


def test_g23_every_ace_in_hand_lets_several_cards_go_and_the_listing_offers_them_all() -> None:
    hand = "Ac As Ah Ac@1 As@1 Ah@1 5c"
    g = table(2, [hand, "2c"])
    listed = [tuple(sorted(a.card_ids)) for a in g.legal_actions(0) if isinstance(a, Discard)]
    every = {tuple(sorted(x)) for k in range(1, 8) for x in itertools.combinations(cs(hand), k)}
    assert len(every) == 127 and set(listed) == every  # with any Ace (A♣, A♠ or A♥), any cards
    assert len(listed) == len(every), "each set listed once, whichever of its Aces lets it go"
    assert all(g.check(0, Discard(ids)) is None for ids in every)
    g = table(2, ["Ac 5c 6c", "2c"])
    assert g.check(0, Discard(tuple(cs("Ac 6c")))) is None and g.check(0, Discard(tuple(cs("5c 6c")))) is not None


# --- G-24 .. G-28: draw-back, waiting, elimination, scoring, rounds ------------------------------


def test_g24_draw_back_order_after_an_attack_on_a_king() -> None:
    hands = [
        "Kc Qc 2h 3h 4h 5h 6h",
        "Jc 2h@1 3h@1 4h@1 5h@1 6h@1 7h@1",
        "6c 2h@2 3h@2 4h@2 5h@2 6h@2 7h@2",
        "7c 2h@3 3h@3 4h@3 5h@3 6h@3 7h@3",
    ]
    g = table(4, hands, turn=1, deck="8s 9s Ts 7s 6s")
    play(
        g,
        (1, AttackKing(3, (c("Jc"),))),
        (1, MakeOffers(())),
        (3, MakeOffers(())),
        (2, Assist(1, (c("6c"),))),
        (0, Assist(3, tuple(cs("Kc Qc")))),
        (3, Defend(())),
    )
    # Failed (16 vs 23): seats 2, 3 and 0 draw back in that order; the attacker waits.
    assert g.t.hands[2][-1] == c("8s") and g.t.hands[0][-2:] == cs("9s Ts")
    assert g.t.hands[3] == cs(hands[3])
    assert g.t.waiting[1] and len(g.t.hands[1]) == 6 and g.t.deck == cs("6s 7s")
    g = table(2, ["Kc 2h 3h 4h 5h 6h 7h", "5c 2h@1 3h@1 4h@1 5h@1 6h@1 7h@1"], domains=["", "2s"], deck="8s 9s")
    play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend((c("5c"),))))
    assert g.t.hands[1][-1] == c("8s") and g.t.hands[0][-1] == c("9s")  # the defender first, then the winner


def test_g24_after_an_assassination_the_defender_then_the_successful_assassin_draw_back() -> None:
    g = table(2, ["X X@1 3h 4h 5h 6h 7h", "X2 2c 3c 4c 5c 6c 7c"], deck="8s 9s Ts Js")
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins((c("X@1"),))))
    events = g.apply(1, Thwart(()))  # he has no assassin left: the second mini-round succeeds
    assert g.t.hp[1] == 25
    assert g.t.hands[1][-1] == c("8s") and g.t.hands[0][-2:] == cs("9s Ts")  # the defender first, then the attacker
    assert [len(h) for h in g.t.hands] == [7, 7] and not g.t.waiting[0]
    assert [e.payload.seat for e in events if isinstance(e.payload, CardsDrawn) and e.visible_to == frozenset({e.payload.seat})] == [1, 0]
    # A failed assassination: the defender who thwarted draws back, the attacker waits.
    g = table(2, ["X 3h 4h 5h 6h 7h 8h", "X2 2c 3c 4c 5c 6c 7c"], deck="8s 9s Ts")
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins(())))
    assert g.t.hands[1][-1] == c("8s") and len(g.t.hands[1]) == 7
    assert len(g.t.hands[0]) == 6 and g.t.waiting[0] and g.t.deck == cs("Ts 9s")


def test_g25_a_failed_attacker_waits_for_his_turn_unless_attacked() -> None:
    g = table(3, ["Jc 3c 3h 4h 5h 6h 7h", "Kc Qc 2h@1", "Tc Kc@2 2h@2 3h@2 4h@2 5h@2 6h@2"], domains=["", "", "2s"])
    play(g, (0, ConquerLand(2, (c("Jc"),))), (2, Defend((c("Tc"),))))  # 10 vs 12: fails
    assert g.t.waiting[0] and len(g.t.hands[0]) == 6 and g.view(2).players[0].waiting
    # Assisting in another attack does not end the wait.
    play(g, (1, AttackKing(2, (c("Kc"),))), (1, MakeOffers(())), (2, MakeOffers(())), (0, Assist(1, (c("3c"),))))
    g.apply(2, Defend((c("Kc@2"),)))  # 15 vs 14: the attack succeeds
    assert g.t.waiting[0] and g.t.hands[0] == cs("3h 4h 5h 6h 7h")
    assert len(g.t.hands[2]) == 7 and len(g.t.hands[1]) == 7
    # His own turn comes: he draws back before choosing.
    events = g.apply(2, Discard((c("2h@2"),)))
    assert g.to_act() == (0,) and len(g.t.hands[0]) == 7 and not g.t.waiting[0]
    assert [e.payload.count for e in events if isinstance(e.payload, CardsDrawn) and e.payload.seat == 0] == [2, 2]
    # Being attacked ends the wait right after the attack.
    g = table(2, ["Jc 2h 3h 4h 5h 6h 7h", "Kc Qc 3c"], domains=["", "2s"])
    play(g, (0, ConquerLand(1, (c("Jc"),))), (1, Defend((c("Qc"),))))
    assert g.t.waiting[0]
    g.t.domains[0] = [c("3s")]
    play(g, (1, ConquerLand(0, (c("Kc"),))), (0, Defend(())))
    assert not g.t.waiting[0] and len(g.t.hands[0]) == 7


def test_g25_a_failed_attacker_who_is_assassinated_or_attacked_as_a_king_draws_back_after_it() -> None:
    # A failed assassin waits; being the target of an assassination ends his wait (the defender draws back).
    g = table(2, ["X 2h 3h 4h 5h 6h 7h", "X@1 Kc 3c"])
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X@1"),))), (0, MoreAssassins(())))
    assert g.t.waiting[0] and len(g.t.hands[0]) == 6
    play(g, (1, AttackKing(0, (c("Kc"),))), (0, Defend(())))  # 12 vs 0: he loses 12 HP, then draws back
    assert g.t.hp[0] == 38 and not g.t.waiting[0] and len(g.t.hands[0]) == 7
    # A waiting bystander who declines to assist in another's Attack a King keeps waiting.
    g = table(3, ["Jc 2h 3h 4h 5h 6h 7h", "Kc 4c", "Tc Qc 2h@2"], domains=["", "", "2s"])
    play(g, (0, ConquerLand(2, (c("Jc"),))), (2, Defend((c("Tc"),))))  # 10 vs 12: fails
    play(g, (1, AttackKing(2, (c("Kc"),))), (1, MakeOffers(())), (2, MakeOffers(())), (0, DeclineAssist()), (2, Defend(())))
    assert g.t.waiting[0] and len(g.t.hands[0]) == 6


def test_g25_a_waiting_king_attacked_draws_back_right_after_the_attack_not_at_his_turn() -> None:
    g = table(3, ["Jc 2h 3h 4h 5h 6h 7h", "Kc 4c", "Tc 2c"], domains=["", "", "2s"])
    play(g, (0, ConquerLand(2, (c("Jc"),))), (2, Defend((c("Tc"),))))  # 10 vs 12: fails
    assert g.t.waiting[0] and len(g.t.hands[0]) == 6
    # Seat 1 attacks him as a king; seat 2 (who plays next) stays out. He draws back after the attack.
    play(g, (1, AttackKing(0, (c("Kc"),))), (1, MakeOffers(())), (0, MakeOffers(())), (2, DeclineAssist()), (0, Defend(())))
    assert g.to_act() == (2,) and g.t.hp[0] == 38
    assert not g.t.waiting[0] and len(g.t.hands[0]) == 7


def test_g26_an_eliminated_king_ends_the_round_at_once() -> None:
    g = table(3, ["Kc Qc", "5c", "6c"], treasuries=["", "", "3d"], domains=["4s", "", "9s"])
    g.t.hp[2] = 10
    events = play(
        g,
        (0, AttackKing(2, tuple(cs("Kc Qc")))),
        (0, MakeOffers(())),
        (2, MakeOffers((Offer(1, (c("3d"),)),))),
        (1, Assist(2, (c("5c"),))),
        (2, Defend((c("6c"),))),
    )
    assert g.t.hp[2] == 0 and g.t.phase == Phase.ROUND_OVER
    assert g.t.treasuries[1] == [c("3d")]  # offers are still paid
    assert not payloads(events, CardsDrawn)  # nobody draws back
    ended = payloads(events, RoundEnded)[0]
    assert ended.reason == RoundEndReason.KING_ELIMINATED and ended.eliminated == 2
    assert ended.land_points == (4, 0, 0)


def test_g27_land_scores_at_the_end_of_the_round() -> None:
    g = table(3, ["2h", "3h", "4h"], domains=["4s 9s", "As", ""])
    g.t.glory = [1, 2, 3]
    events = finish_round(g, 0)
    assert awards(events) == [(0, 13, GloryReason.LAND), (1, 1, GloryReason.LAND)]
    assert g.t.glory == [14, 3, 3]
    ended = payloads(events, RoundEnded)[0]
    assert (ended.land_points, ended.glory) == ((13, 1, 0), (14, 3, 3))  # the totals after the Land is scored


def test_g28_extra_rounds_break_a_tied_lead_up_to_a_cap() -> None:
    g = table(2, ["2h", "3h"], options={"rounds": 1})
    g.round = 1
    g.t.glory = [5, 5]
    finish_round(g, 0)
    assert g.t.phase == Phase.ROUND_OVER  # tied after the last round: an extra round
    events = g.apply(g.to_act()[0], StartRound())
    assert g.round == 2 and g.view(0).extra_round
    assert payloads(events, RoundStarted)[0].extra_round  # told to every seat
    g = table(2, ["2h", "3h"], options={"rounds": 2})
    g.round = 1
    finish_round(g, 0)
    events = g.apply(g.to_act()[0], StartRound())
    assert g.round == 2 and not g.view(1).extra_round, "the last regular round is not an extra one"
    assert not payloads(events, RoundStarted)[0].extra_round
    g = table(2, ["2h", "3h"], domains=["2s"], options={"rounds": 1})
    g.round = 1
    g.t.glory = [5, 5]
    events = finish_round(g, 0)
    assert g.is_over() and payloads(events, GameEnded) == [GameEnded((7, 5), (0,), False)]
    g = table(2, ["2h", "3h"], options={"rounds": 1, "max_extra_rounds": 0})
    g.round = 1
    events = finish_round(g, 0)
    assert g.is_over() and payloads(events, GameEnded) == [GameEnded((0, 0), (0, 1), True)]
    assert g.full_state()["winners"] == [0, 1]  # the tied players share first place


def test_g29_result_ranks_by_glory_with_ties() -> None:
    g = table(4, ["2h", "3h", "4h", "5h"], options={"rounds": 1})
    g.round = 1
    g.t.glory = [7, 12, 7, 3]
    finish_round(g, 0)
    assert g.is_over()
    assert g.result().ranks == (2, 1, 2, 4) and g.result().scores == (7.0, 12.0, 7.0, 3.0)


def test_g30_views_show_only_what_a_seat_may_know() -> None:
    g = Glory(4, 3)
    codec = GameCodec(Glory)
    rng = random.Random(3)
    for _ in range(300):
        if g.is_over():
            break
        for seat in range(4):
            hidden = g.hidden_cards(seat)
            assert hidden == set(g.t.deck) | {x for s in range(4) if s != seat for x in g.t.hands[s]}
            msg = codec.view(g.view(seat))
            assert not set(card_ids_in(msg)) & hidden
            assert g.view(seat).hand == tuple(g.t.hands[seat])
        seat = g.to_act()[0]
        for e in g.apply(seat, g.random_action(seat, rng)):
            if isinstance(e.payload, CardsDrawn) and e.visible_to is not None and e.payload.cards:
                assert e.visible_to == frozenset({e.payload.seat})


def test_g31_default_actions_are_passive_and_legal() -> None:
    g = table(3, ["7h 2c Ks", "5c", "6c X"], treasuries=["4d"], domains=["", "", "3s"])
    assert g.default_action(0) == Discard((c("2c"),))
    g.apply(0, AttackKing(2, (c("Ks"),)))
    assert g.default_action(0) == MakeOffers(())
    g.apply(0, MakeOffers(()))
    g.apply(2, g.default_action(2))
    assert g.default_action(1) == DeclineAssist()
    g.apply(1, DeclineAssist())
    assert g.default_action(2) == Defend(())
    g.apply(2, Defend(()))
    g = table(2, ["X", "X@1"])
    g.apply(0, Assassinate(1, (c("X"),)))
    assert g.default_action(1) == Thwart(())
    g.apply(1, Thwart((c("X@1"),)))
    assert isinstance(g.decision(0), MoreAssassinsChoice) and g.default_action(0) == MoreAssassins(())
    g = table(2, ["2h@1 9c 2h Kc", "2c"])
    assert g.default_action(0) == Discard((c("2h"),))  # two cards worth 2: the lower id
    g = table(2, ["", "2c"])
    assert g.default_action(0) == PassTurn()
    g = table(2, ["2h", "3h"])
    finish_round(g, 0)
    first = g.to_act()[0]
    assert isinstance(g.decision(first), StartRoundChoice) and g.default_action(first) == StartRound()
    rng = random.Random(5)
    for seed in range(6):
        g = Glory(2 + seed % 5, seed)
        while not g.is_over():
            seat = g.to_act()[0]
            action = g.default_action(seat) if rng.random() < 0.5 else g.random_action(seat, rng)
            assert g.check(seat, action) is None
            g.apply(seat, action)


def test_g32_hp_resets_each_round_and_glory_is_kept() -> None:
    g = table(2, ["2h", "3h"], domains=["5s"])
    g.t.hp = [12, 30]
    g.t.glory = [4, 1]
    finish_round(g, 0)
    g.apply(g.to_act()[0], StartRound())
    assert g.t.hp == [50, 50] and g.t.glory == [9, 1]
    assert all(not d for d in g.t.domains)


def test_g33_kings_of_every_other_player_may_be_targeted() -> None:
    g = table(4, ["Kc X", "2c", "3c", "4c"], turn=0)
    d = g.decision(0)
    assert isinstance(d, TurnChoice) and d.king_targets == (1, 2, 3) and d.conquer_targets == ()
    assert g.check(0, AttackKing(0, (c("Kc"),))) is not None
    assert g.check(0, Assassinate(0, (c("X"),))) is not None
    assert g.check(0, Assassinate(3, (c("X"),))) is None


def test_g34_battle_cards_go_to_the_discard_pile_in_order() -> None:
    g = table(3, ["Kc 2h", "5c", "6c"], treasuries=["7d"])
    play(g, (0, AttackKing(2, (c("Kc"),), (c("7d"),))), (0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(0, (c("5c"),))), (2, Defend((c("6c"),))))
    assert g.t.discard == cs("Kc 7d 5c 6c")
    g.apply(1, g.default_action(1))
    # Assistants' cards in the order they were given; Health used to heal goes there as well.
    g = table(4, ["Kc 2h", "5c", "6c", "7c 8h"])
    play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(0, (c("5c"),))))
    play(g, (3, Assist(2, (c("7c"),))), (2, Defend((c("6c"),))))
    assert g.t.discard == cs("Kc 5c 7c 6c")
    g.t.hands[1] = cs("9h")
    g.forget()
    g.apply(1, Heal(c("9h")))
    assert g.t.discard[-1] == c("9h")


def test_g35_two_to_six_players() -> None:
    assert Glory.spec.player_counts == (2, 3, 4, 5, 6)
    for n in (1, 7):
        with pytest.raises(OptionError):
            Glory(n, 0)

# --- the engine contract, as used by the SDK -------------------------------------------------


def normal(action: Any) -> Any:
    """The action with its card lists sorted (the order of cards in a list does not matter)."""
    sorted_lists = {f.name: tuple(sorted(v)) for f in dataclasses.fields(action) if isinstance(v := getattr(action, f.name), tuple)}
    return dataclasses.replace(action, **sorted_lists)


def test_random_actions_are_legal_and_match_the_listing() -> None:
    for seed in range(4):
        g = Glory(3 + seed % 3, seed)
        rng = random.Random(seed)
        while not g.is_over():
            seat = g.to_act()[0]
            d = g.decision(seat)
            a = g.random_action(seat, rng)
            assert choices.check(d, a) is None
            if not isinstance(d, TurnChoice) and not isinstance(d, OfferChoice):
                assert normal(a) in {normal(x) for x in choices.legal_actions(d)}
            g.apply(seat, a)


def test_sdk_sample_is_legal_from_the_protobuf_decision_alone() -> None:
    from arena_sdk.bot import Request
    from arena_sdk.games import glory as sdk

    codec = GameCodec(Glory)
    for seed in range(6):
        n = 2 + seed % 5
        g = Glory(n, seed)
        rng = random.Random(seed)
        while not g.is_over():
            seat = g.to_act()[0]
            raw = pb.DecisionRequest(view=codec.view(g.view(seat)), decision=codec.decision(g.decision(seat)))
            start = pb.GameStart(game="glory", seat=seat, num_seats=n)
            msg = sdk.sample(Request(raw, start), rng)
            envelope = pb.Action()
            envelope.glory.CopyFrom(msg)
            action = codec.decode_action(envelope)
            assert g.check(seat, action) is None, action
            g.apply(seat, action)


def test_illegal_actions_raise_and_change_nothing() -> None:
    g = table(2, ["2h 3h", "2c"])
    before = g.full_state()
    with pytest.raises(IllegalAction):
        g.apply(1, Discard((c("2c"),)))
    with pytest.raises(IllegalAction):
        g.apply(0, Discard(tuple(cs("2h 3h"))))
    assert g.full_state() == before


def test_the_count_of_legal_actions_is_exact() -> None:
    """The referee decides whether to list a decision's actions from this count, so it must not be off."""
    checked = 0
    for seed in range(4):
        for n in (2, 4, 6):
            g = Glory(n, seed)
            rng = random.Random(seed)
            while g.to_act():
                seat = rng.choice(g.to_act())
                actions = list(itertools.islice(g.legal_actions(seat), 5001))
                d = g.decision(seat)
                counted = not isinstance(d, TurnChoice) or len(d.treasury) <= 10  # more Money: purchases uncounted
                if len(actions) <= 5000 and counted:
                    assert g.least_count(seat) == len(actions), d
                    checked += 1
                g.apply(seat, g.random_action(seat, rng))
    assert checked > 1000


@pytest.mark.parametrize("players", [2, 3, 6])
def test_g27_to_g29_every_round_and_the_game_end_in_events_told_to_all_as_the_result_says(players: int) -> None:
    """Random games, whichever way each round ends (deck empty or a king at 0 HP): one RoundEnded per round begun,
    told to every seat with the Glory Points the awards so far add up to, and one GameEnded, last, whose winners
    and points are the result's (the same check as General's War's GW-21)."""
    reasons = set()
    for seed in range(4):
        g = Glory(players, seed)
        rng = random.Random(seed)
        events = list(g.opening_events())
        while not g.is_over():
            seat = rng.choice(g.to_act())
            events += g.apply(seat, g.random_action(seat, rng))
        ended = [e for e in events if isinstance(e.payload, (RoundEnded, GameEnded))]
        assert all(e.visible_to is None for e in ended)
        glory = [0] * players
        for payload in (e.payload for e in events):
            if isinstance(payload, GloryAwarded):
                glory[payload.seat] += payload.points
            elif isinstance(payload, RoundEnded):
                assert payload.glory == tuple(glory)
                reasons.add(payload.reason)
        payloads = [e.payload for e in events]
        started = [p.round for p in payloads if isinstance(p, RoundStarted)]
        assert [p.round for p in payloads if isinstance(p, RoundEnded)] == started
        over = payloads[-1]
        assert isinstance(over, GameEnded) and sum(isinstance(p, GameEnded) for p in payloads) == 1
        result = g.result()
        assert over.glory == tuple(glory) == tuple(int(x) for x in result.scores)
        assert over.winners == tuple(s for s in range(players) if result.ranks[s] == 1)
    assert RoundEndReason.KING_ELIMINATED in reasons
