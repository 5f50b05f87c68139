"""Glory's rulings at their edges: cases the other Glory tests left open and a mutant of the engine slipped through."""

from __future__ import annotations

from typing import Any

import pytest

from referee.core.game import IllegalAction
from referee.games.glory import Glory, choices
from referee.games.glory.types import Assassinate, Assist, AttackKing, ConquerLand, DeclineAssist, Defend, Discard
from referee.games.glory.types import MakeOffers, MoreAssassins, Offer, StartRound, Thwart, ThwartChoice  # then what is told
from referee.games.glory.types import BattleResolved, CardsDrawn, CardTurnedOver, Discarded, GameEnded, GloryAwarded, GloryReason
from referee.games.glory.types import OfferPaid, OffersMade, Phase, RoundEnded, RoundEndReason, RoundStarted, TurnStarted
from tests.games.glory_table import awards, c, cs, finish_round, payloads, play, table


def test_g14_the_lowest_land_is_lowest_by_value_whatever_deck_it_comes_from() -> None:
    # 9s of the first deck has a lower card id than 3s of the second: the value decides, not the id.
    g = table(2, ["Kc 2h", "2c"], domains=["", "9s 3s@1"])
    events = play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend(())))  # 12 vs 4
    assert payloads(events, BattleResolved)[0].result.land_taken == c("3s@1")
    assert g.t.domains == [[c("3s@1")], [c("9s")]]


def test_g17_offers_are_paid_after_the_glory_is_awarded() -> None:
    g = table(3, ["Kc", "5c", "6c"], treasuries=["4d"])
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers((Offer(1, (c("4d"),)),))),
        (2, MakeOffers(())),
        (1, Assist(0, (c("5c"),))),
        (2, Defend(())),
    )
    order = [type(e.payload) for e in events if isinstance(e.payload, (BattleResolved, GloryAwarded, OfferPaid))]
    assert order == [BattleResolved, GloryAwarded, GloryAwarded, OfferPaid]


def test_g17_g19_a_player_who_declines_to_assist_gets_neither_glory_nor_the_offer_made_to_him() -> None:
    g = table(4, ["Kc", "5c", "6c", "7c"], treasuries=["4d 3d"])
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers((Offer(1, (c("4d"),)), Offer(3, (c("3d"),))))),
        (2, MakeOffers(())),
        (1, Assist(0, (c("5c"),))),
        (3, DeclineAssist()),
        (2, Defend(())),  # 17 vs 0: the attack succeeds
    )
    assert awards(events) == [(0, 5, GloryReason.KING_ATTACK), (1, 2, GloryReason.KING_ATTACK_ASSIST)]
    assert payloads(events, OfferPaid) == [OfferPaid(0, 1, (c("4d"),))]
    assert g.t.treasuries[3] == [] and g.t.treasuries[0] == [c("3d")]
    assert payloads(events, BattleResolved)[0].result.attacker_assistants == (1,)


def test_g25_a_waiting_king_whose_land_is_conquered_draws_back_right_after_the_attack() -> None:
    # Three players, so that his draw-back cannot wait for his own turn, which is not next.
    g = table(3, ["Jc 2h 3h 4h 5h 6h 7h", "Kc 4c", "Tc 2c"], domains=["3s", "", "2s"])
    play(g, (0, ConquerLand(2, (c("Jc"),))), (2, Defend((c("Tc"),))))  # 10 vs 12: fails
    assert g.t.waiting[0] and len(g.t.hands[0]) == 6
    play(g, (1, ConquerLand(0, (c("Kc"),))), (0, Defend(())))  # 12 vs 2: his Land goes
    assert g.to_act() == (2,)
    assert not g.t.waiting[0] and len(g.t.hands[0]) == 7


def test_g25_any_seat_that_failed_an_attack_draws_back_at_the_start_of_its_turn() -> None:
    g = table(2, ["Kc 2h 3h", "Jc 4h 5h 6h 7h 8h 9h"], domains=["2s"], turn=1)
    play(g, (1, ConquerLand(0, (c("Jc"),))), (0, Defend((c("Kc"),))))  # 10 vs 14: fails
    assert g.t.waiting[1] and len(g.t.hands[1]) == 6
    events = g.apply(0, Discard((c("2h"),)))
    assert g.to_act() == (1,) and not g.t.waiting[1] and len(g.t.hands[1]) == 7
    told = [(type(e.payload), e.payload.seat) for e in events if isinstance(e.payload, (TurnStarted, CardsDrawn))]
    assert told[-3:] == [(TurnStarted, 1), (CardsDrawn, 1), (CardsDrawn, 1)]  # his turn begins, then he draws back


def test_g20_an_assassination_needs_at_least_one_assassin() -> None:
    g = table(2, ["X 2h", "2c"])
    assert choices.check(g.decision(0), Assassinate(1, ())) is not None
    with pytest.raises(IllegalAction):
        g.apply(0, Assassinate(1, ()))
    assert g.t.hp[1] == 50


@pytest.mark.parametrize(
    "steps, wrong",
    [
        ([(0, Assassinate(1, (c("X"),)))], Defend(())),  # a thwart is awaited
        ([(0, Assassinate(1, (c("X"),))), (1, Thwart((c("X@1"),)))], Thwart(())),  # more assassins are awaited
        ([(0, ConquerLand(1, (c("Kc"),)))], Thwart(())),  # a defence is awaited
        ([], MoreAssassins(())),  # a turn's action is awaited
        ([(0, AttackKing(2, (c("Kc"),)))], Defend(())),  # the attacker's offers are awaited
        ([(0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers(()))], Defend((c("2c"),))),  # an assist
        ("round over", Discard((c("2h"),))),  # the next round's start is awaited
    ],
)
def test_an_action_of_another_decision_is_refused(steps: Any, wrong: Any) -> None:
    g = table(3, ["X Kc 2h", "X@1 2c", "3c"], domains=["", "3s"])
    if steps == "round over":
        finish_round(g, 0)
        assert g.t.phase == Phase.ROUND_OVER
        g.forget()
    else:
        play(g, *steps)
    seat = g.to_act()[0]
    assert choices.check(g.decision(seat), wrong) is not None
    with pytest.raises(IllegalAction):
        g.apply(seat, wrong)


def test_g27_an_eliminated_first_seat_scores_no_land_either() -> None:
    g = table(2, ["2h", "Kc Qc"], domains=["9s", "4s"], turn=1)
    g.t.hp[0] = 20
    events = play(g, (1, AttackKing(0, tuple(cs("Kc Qc")))), (0, Defend(())))  # 23 vs 2: 21 ≥ 20 HP
    ended = payloads(events, RoundEnded)[0]
    assert ended.eliminated == 0 and ended.land_points == (0, 4)
    assert (0, 9, GloryReason.LAND) not in awards(events)


def test_g28_max_extra_rounds_is_the_number_of_extra_rounds_played() -> None:
    g = table(2, ["2h", "3h"], options={"rounds": 1, "max_extra_rounds": 1})
    g.round = 1
    finish_round(g, 0)
    assert g.t.phase == Phase.ROUND_OVER, "tied after the last round: one extra round may be played"
    g.apply(g.to_act()[0], StartRound())
    assert g.round == 2
    g.t.glory = [3, 3]
    g.t.domains = [[], []]
    events = finish_round(g, g.to_act()[0])
    assert g.is_over() and payloads(events, GameEnded) == [GameEnded((3, 3), (0, 1), True)]


def test_g24_a_seat_with_seven_cards_draws_nothing_and_no_draw_is_told() -> None:
    g = table(2, ["Kc 2h", "2c 3c 4c 5c 6c 7c 8c"])
    events = play(g, (0, AttackKing(1, (c("Kc"),))), (1, Defend(())))  # he keeps his seven cards
    assert {d.seat for d in payloads(events, CardsDrawn)} == {0}  # only the successful attacker draws back


def test_g20_an_assassination_hires_no_mercenaries_even_with_money_in_the_treasury() -> None:
    g = table(2, ["X 2h", "2c"], treasuries=["9d"])
    g.apply(0, Assassinate(1, (c("X"),)))
    battle = g.view(1).battle
    assert battle is not None and battle.mercenaries == () and battle.attack_points == 1
    assert g.t.treasuries[0] == [c("9d")]


@pytest.mark.parametrize(
    "decision",
    [
        ThwartChoice(0, tuple(cs("X X@1 X2@1")), 2),  # three ways to match two assassins, or none
        ThwartChoice(0, (c("X"),), 2),  # too few to match: only letting it through
        ThwartChoice(0, (), 1),
    ],
)
def test_the_count_of_thwarts_is_exact(decision: ThwartChoice) -> None:
    assert choices.least_count(decision) == len(list(choices.legal_actions(decision)))


def test_g10_an_empty_hand_counts_its_pass() -> None:
    g = table(2, ["", "2c"])
    assert choices.least_count(g.decision(0)) == len(list(g.legal_actions(0))) == 1


def test_g4_a_deck_holding_just_enough_cards_gives_the_tied_seats_their_redraw() -> None:
    g = Glory(2, 0)
    g.t = type(g.t)(2)
    g.round = 0
    g.setup_first_round(list(reversed(cs("Kh Ks Jh Qh"))))  # kings tie; two cards left for the two of them
    assert g.first_player == 1  # his queen beats the jack


def test_g6_the_round_and_its_turned_over_card_are_told_as_the_first_players() -> None:
    g = table(3, ["2h", "3h", "4h"], turn=0)
    g.t.glory = [4, 0, 9]
    finish_round(g, 0)
    assert g.to_act() == (1,)
    events = g.apply(1, StartRound())
    assert [(r.round, r.first_player) for r in payloads(events, RoundStarted)] == [(2, 1)]
    assert [t.seat for t in payloads(events, CardTurnedOver)] == [1]


def test_g23_g30_every_card_of_a_discard_with_an_ace_is_told() -> None:
    g = table(2, ["Ac 5h 9h", "2c"])
    events = g.apply(0, Discard(tuple(cs("Ac 5h 9h"))))
    assert payloads(events, Discarded) == [Discarded(0, tuple(cs("Ac 5h 9h")))]


def test_g16_g30_each_sides_offers_are_told_as_its_own() -> None:
    g = table(3, ["Kc", "5c", "6c"], treasuries=["", "", "4d"])
    events = play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers((Offer(1, (c("4d"),)),))))
    assert payloads(events, OffersMade) == [OffersMade(0, ()), OffersMade(2, (Offer(1, (c("4d"),)),))]


def test_g20_an_assassinations_points_count_assassins_and_no_land() -> None:
    g = table(2, ["X X@1 2h", "X2 2c"], domains=["", "9s 3s"])
    events = play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins(())))
    result = payloads(events, BattleResolved)[0].result
    assert (result.attack_points, result.defence_points, result.success) == (1, 1, False)


def test_g28_a_finished_game_names_no_next_first_player() -> None:
    g = table(2, ["2h", "3h"], domains=["2s"], options={"rounds": 1})
    g.round = 1
    finish_round(g, 0)
    assert g.is_over() and g.view(0).next_first_player is None


def test_g24_the_defender_of_a_failed_conquest_draws_back_too() -> None:
    g = table(3, ["Jc 2h", "3h", "Kc Tc 2c 3c 4c 5c 6c"], domains=["", "", "2s"])
    events = play(g, (0, ConquerLand(2, (c("Jc"),))), (2, Defend((c("Kc"),))))  # 10 vs 14: fails
    assert not payloads(events, BattleResolved)[0].result.success
    assert len(g.t.hands[2]) == 7 and {d.seat for d in payloads(events, CardsDrawn)} == {2}


def test_g14_a_conquest_takes_land_and_no_hit_points() -> None:
    g = table(2, ["Kc 2h", "2c"], domains=["", "9s"])
    events = play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend(())))  # 12 vs 2
    assert payloads(events, BattleResolved)[0].result.damage == 0 and g.t.hp == [50, 50]


def test_g26_g27_an_elimination_as_the_deck_runs_out_still_costs_the_kings_land() -> None:
    g = table(2, ["Kc Qc", "2h"], domains=["", "9s"], deck="")
    g.t.hp[1] = 20
    events = play(g, (0, AttackKing(1, tuple(cs("Kc Qc")))), (1, Defend(())))  # 23 vs 2: 21 ≥ 20 HP
    ended = payloads(events, RoundEnded)[0]
    assert (ended.reason, ended.eliminated, ended.land_points) == (RoundEndReason.KING_ELIMINATED, 1, (0, 0))


def test_g4_an_ace_is_the_lowest_card_of_the_first_player_draw() -> None:
    # The Ace ranks lowest, below a two as below a court card: a mutant ranking the Ace high (with the King) passed
    # the other G-4 tests, which pit the Ace against a Joker only.
    for low, high in (("Ah", "2c"), ("As@1", "Kh"), ("Ac", "Qs@1")):
        g = Glory(2, 0)
        g.t = type(g.t)(2)
        g.round = 0
        g.setup_first_round(list(reversed(cs(f"{low} {high} 3h 4h"))))
        assert g.first_player == 1, (low, high)
        g = Glory(2, 0)
        g.t = type(g.t)(2)
        g.round = 0
        g.setup_first_round(list(reversed(cs(f"{high} {low} 3h 4h"))))
        assert g.first_player == 0, (high, low)
