"""Glory's rules G-1 to G-19 (docs/games/glory.md): cards, the deal, turns, attacks and offers; G-20 on in test_glory_rounds.py."""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

import pytest

from referee.core.cards import CARDS_PER_DECK
from referee.games.glory import Glory, choices
from referee.games.glory.types import (
    Assist,
    AssistChoice,
    AttackDeclared,
    AttackKind,
    AttackKing,
    BattleResolved,
    BuyLand,
    CardsDrawn,
    CardTurnedOver,
    ConquerLand,
    DeclineAssist,
    Defend,
    DefendChoice,
    Discard,
    FirstPlayerDraw,
    GloryReason,
    MakeOffers,
    Offer,
    OfferChoice,
    OfferPaid,
    OffersMade,
    PassTurn,
    Phase,
    RoundEnded,
    RoundEndReason,
    StartRound,
    StartRoundChoice,
    TurnChoice,
)
from referee.games.glory.values import value
from tests.games.glory_table import (
    awards,
    c,
    cs,
    filler,
    finish_round,
    payloads,
    play,
    table,
)


def test_a_hand_edited_by_hand_shows_in_the_decision_once_forgotten() -> None:
    g = table(2, ["Kh 5c", "2h"])
    assert g.decision(0).hand == tuple(cs("Kh 5c"))
    g.t.hands[0] = cs("Qs")
    assert g.decision(0).hand == tuple(cs("Kh 5c")), "kept until the state moves on"
    g.forget()
    assert g.decision(0).hand == tuple(cs("Qs"))


def test_a_players_public_record_follows_every_change_even_of_equal_size() -> None:
    g = table(2, ["Kh 5c", "2h"], treasuries=["3d"])
    before = g.view(1).players[0]
    assert g.view(1).players[0] is before, "nothing changed: the same record"
    g.t.treasuries[0][0] = c("9d")  # as after paying with one Money card and drawing another
    after = g.view(1).players[0]
    assert after.treasury == (c("9d"),) and after.treasury_value == 9
    g.t.hp[0] -= 5
    assert g.view(0).players[0].hp == after.hp - 5


# --- G-1 .. G-3: cards, seats, deck --------------------------------------------------------


def test_g1_card_roles_and_values() -> None:
    assert [value(c(x)) for x in ("Ah", "7s", "Tc", "Jd", "Qh", "Ks", "X")] == [1, 7, 10, 10, 11, 12, 25]
    g = table(2, ["Jd Qs Ac 5c As Ah X"], treasuries=["Ad"])
    d = g.decision(0)
    assert isinstance(d, TurnChoice)
    assert set(d.generals) == set(cs("Jd Qs"))  # court cards of any suit are Generals
    assert set(d.soldiers) == set(cs("Ac 5c"))
    assert d.lands == (c("As"),) and d.health == (c("Ah"),) and d.assassins == (c("X"),)
    assert set(d.aces) == set(cs("Ac As Ah"))
    assert g.check(0, BuyLand((c("As"),), (c("Ad"),))) is None  # an Ace of diamonds is Money worth 1


def test_g2_play_passes_clockwise() -> None:
    g = table(3, ["2h", "3h", "4h"], turn=2)
    g.apply(2, Discard((c("4h"),)))
    assert g.to_act() == (0,)
    assert (g.view(1).turn, g.view(1).first_player) == (0, 2)  # the round's first player, not the player on turn
    g.apply(0, Discard((c("2h"),)))
    assert g.to_act() == (1,)
    assert g.t.others(1) == [2, 0]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_g3_one_deck_with_jokers_per_player(n: int) -> None:
    g = Glory(n, 7)
    t = g.t
    cards = t.deck + t.discard + [x for s in range(n) for x in t.hands[s] + t.treasuries[s] + t.domains[s]]
    assert sorted(cards) == list(range(CARDS_PER_DECK * n))
    assert Glory(n, 7).full_state() == g.full_state()
    assert Glory(n, 8).full_state() != g.full_state()


# --- G-4 .. G-7: who goes first, the deal -----------------------------------------------------


def first_round(n: int, top: list[int]) -> tuple[Glory, list[Any]]:
    g = Glory(n, 0)
    g.t = type(g.t)(n)
    g.round = 0
    used = set(top)
    rest = filler(used, 60, n)
    return g, g.setup_first_round(list(reversed(top + rest)))


def test_g4_high_card_goes_first_with_redraws_among_the_tied() -> None:
    # Seats 0 and 1 tie with kings, seat 2 is out; the redraw: a jack beats a ten.
    g, events = first_round(3, cs("Kh Ks@1 5d Tc Jd"))
    draws = payloads(events, FirstPlayerDraw)
    assert [(d.seats, d.cards) for d in draws] == [((0, 1, 2), tuple(cs("Kh Ks@1 5d"))), ((0, 1), tuple(cs("Tc Jd")))]
    assert g.first_player == 1 and g.to_act() == (1,)
    assert g.t.discard == cs("Kh Ks@1 5d Tc Jd")  # face up on the discard pile, Money included
    assert c("5d") not in [x for t in g.t.treasuries for x in t]
    g, _ = first_round(2, [c("Ah"), c("X")])
    assert g.first_player == 1  # the joker is the highest card, the ace the lowest


def test_g4_the_lowest_tied_seat_goes_first_if_the_deck_runs_out() -> None:
    g = Glory(2, 0)
    g.t = type(g.t)(2)
    g.round = 0
    g.setup_first_round(list(reversed(cs("Kh Ks Qh"))))
    assert g.first_player == 0


def test_g5_lowest_glory_goes_first_ties_to_the_right() -> None:
    g = table(4, ["2h", "3h", "4h", "5h"], turn=1)
    g.first_player = 1
    g.t.glory = [3, 9, 7, 3]
    finish_round(g, 1)
    assert g.t.phase == Phase.ROUND_OVER
    # Seats 0 and 3 tie; going right from seat 1 (the round's first player) meets seat 0 first.
    assert g.next_first == 0 and g.to_act() == (0,)
    g = table(4, ["2h", "3h", "4h", "5h"], turn=0)
    g.first_player = 0
    g.t.glory = [3, 3, 7, 3]
    finish_round(g, 0)
    assert g.next_first == 3  # right of seat 0 is seat 3
    assert g.next_first_player() == 3
    g.first_player = 3
    g.t.glory = [5, 5, 5, 5]
    assert g.next_first_player() == 2


def test_g6_later_rounds_start_with_a_decision_and_a_turned_over_card() -> None:
    g = table(3, ["2h", "3h", "4h"], treasuries=["", "9d@2"], domains=["5s"], turn=0)
    g.t.glory = [0, 9, 9]
    finish_round(g, 0)
    assert g.t.phase == Phase.ROUND_OVER and g.to_act() == (0,)
    assert g.decision(0) == StartRoundChoice(2)  # the round it starts
    assert list(choices.legal_actions(g.decision(0))) == [StartRound()]
    assert g.view(1).players[0].domain == (c("5s"),)  # the finished round is still on the table
    money = c("9d@2")

    def shuffle(cards: MutableSequence[Any]) -> None:
        cards.remove(money)
        cards.append(money)  # the top card is a Money card

    g.rng.shuffle = shuffle  # type: ignore[method-assign,assignment]
    events = g.apply(0, StartRound())
    assert g.round == 2 and g.first_player == 0
    assert payloads(events, CardTurnedOver) == [CardTurnedOver(0, money)]
    assert g.t.discard == [money] and all(money not in t for t in g.t.treasuries)
    assert g.to_act() == (0,) and g.t.phase == Phase.TURN


def test_g6_every_card_is_gathered_for_the_new_round_and_no_wait_carries_over() -> None:
    g = table(3, ["Kc 2h", "3h", "4h"], treasuries=["5d", "", "9d"], domains=["5s", "7s"], turn=0)
    g.t.discard = cs("Ts Jh")
    g.t.waiting[1] = True  # a failed attacker still waiting when the round ends
    finish_round(g, 0)
    assert g.t.waiting[1] and g.t.discard[:2] == cs("Ts Jh")
    before = sorted(g.t.deck + g.t.discard + [x for s in range(3) for x in g.t.hands[s] + g.t.treasuries[s] + g.t.domains[s]])
    g.apply(g.to_act()[0], StartRound())
    t = g.t
    after = sorted(t.deck + t.discard + [x for s in range(3) for x in t.hands[s] + t.treasuries[s] + t.domains[s]])
    assert after == before, "the discard pile, hands, Domains and Treasuries all go back into the deck"
    assert t.waiting == [False, False, False] and not g.view(0).players[1].waiting


def test_g7_the_deal_passes_one_card_at_a_time_and_money_goes_to_the_treasury() -> None:
    top = cs("Kh 2h")  # seat 0 goes first
    deal = cs("3d 3h 4d 4h 5h 5c 6h 6c 7h 7c 8h 8c 9h 9c 2c Tc Ac As Ts 7s")
    g, events = first_round(2, top + deal)
    t = g.t
    assert t.treasuries == [cs("3d 4d"), []]
    assert t.hands[1] == cs("3h 4h 5c 6c 7c 8c 9c")  # the second card of each pass
    assert t.hands[0] == cs("5h 6h 7h 8h 9h 2c Tc")
    assert [len(h) for h in t.hands] == [7, 7]
    drawn = payloads(events, CardsDrawn)
    assert drawn[0].seat == 0 and drawn[0].money == tuple(cs("3d 4d"))


def test_g7_the_deal_starts_with_the_first_player_whatever_his_seat() -> None:
    top = cs("2h Kh Qh")  # seat 1 goes first: he draws the first card of the deal, seat 2 the second, seat 0 the third
    g, events = first_round(3, top + cs("3h 4h 5h 6c 7c 8c"))
    assert g.first_player == 1 and g.to_act() == (1,)
    assert [g.t.hands[s][:2] for s in (1, 2, 0)] == [cs("3h 6c"), cs("4h 7c"), cs("5h 8c")]
    assert [d.seat for d in payloads(events, CardsDrawn) if d.cards] == [1, 2, 0]


# --- G-8 .. G-11: drawing, the deck running out, turns, Buy Land ------------------------------


def test_g8_money_drawn_goes_to_the_treasury_and_is_replaced() -> None:
    g = table(2, ["2h 3h 4h 5h 6h 7h 8h", "2c"], deck="9d Td 2s 3s 4s")
    events = g.apply(0, Discard((c("2h"),)))
    assert g.t.treasuries[0] == cs("9d Td") and g.t.hands[0][-1] == c("2s")
    mine = [e for e in events if isinstance(e.payload, CardsDrawn) and e.visible(0)]
    theirs = [e for e in events if isinstance(e.payload, CardsDrawn) and e.visible(1)]
    assert mine[0].payload == CardsDrawn(0, 1, (c("2s"),), tuple(cs("9d Td")))
    assert theirs[0].payload == CardsDrawn(0, 1, (), tuple(cs("9d Td")))  # the count and the public Money


def test_g9_the_round_ends_after_the_turn_in_which_the_deck_ran_out() -> None:
    g = table(3, ["Ah 2h 3h 4h 5h 6h 7h", "2c", "3c"], deck="8h 9d")
    events = g.apply(0, Discard(tuple(cs("Ah 2h 3h"))))
    assert g.t.hands[0][-1] == c("8h") and g.t.treasuries[0] == [c("9d")] and not g.t.deck
    assert g.t.phase == Phase.ROUND_OVER
    assert payloads(events, RoundEnded)[0].reason == RoundEndReason.DECK_EMPTY
    # A defender who draws the last card ends the round at the end of the attacker's turn.
    g = table(2, ["Kc 2h", "5c 2h@1 3h 4h 5h 6h 7h"], domains=["", "2s"], deck="8h")
    play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend((c("5c"),))))
    assert g.t.hands[1][-1] == c("8h") and g.t.phase == Phase.ROUND_OVER


def test_g9_the_round_goes_on_while_the_deck_still_holds_a_card() -> None:
    g = table(2, ["Ah 2h 3h 4h 5h 6h 7h", "2c"], deck="8h 9h")
    events = g.apply(0, Discard((c("Ah"),)))
    assert g.t.deck == [c("9h")] and not payloads(events, RoundEnded)
    assert g.t.phase == Phase.TURN and g.to_act() == (1,)


def test_g9_an_assistant_who_draws_the_last_card_ends_the_round_after_the_attackers_turn() -> None:
    full = "2h@2 3h@2 4h@2 5h@2 6h@2 7h@2 8h@2"
    g = table(3, ["Kc 2h", "5c 2h@1 3h@1 4h@1 5h@1 6h@1 7h@1", full], deck="8h")
    play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(0, (c("5c"),))), (2, Defend(())))
    assert g.t.hands[1][-1] == c("8h") and not g.t.deck
    assert g.t.phase == Phase.ROUND_OVER


def test_g9_a_waiting_attacker_who_draws_the_last_card_as_his_turn_starts_plays_that_turn_and_it_is_the_last() -> None:
    g = table(2, ["Kc 2h 3h 4h 5h", "2c 3c 4c 5c 6c 7c 8c"], deck="8h 9h", turn=1)
    g.t.waiting[0] = True  # a failed attacker: he draws back as his next turn starts (G-25)
    events = g.apply(1, Discard((c("2c"),)))
    assert g.t.hands[1][-1] == c("8h") and not payloads(events, RoundEnded), "seat 1 left a card in the deck"
    assert g.t.hands[0] == cs("Kc 2h 3h 4h 5h 9h") and not g.t.deck, "the draw as his turn starts takes the last card"
    assert g.t.phase == Phase.TURN and g.to_act() == (0,), "the turn is his, and he plays it with six cards"
    events = g.apply(0, Discard((c("2h"),)))
    assert payloads(events, RoundEnded)[0].reason == RoundEndReason.DECK_EMPTY
    assert g.t.phase == Phase.ROUND_OVER, "the round ends after his turn: seat 1 does not play again"


def test_g9_a_deck_that_runs_out_in_the_deal_ends_the_round_after_the_first_turn() -> None:
    g = Glory(2, 0)
    g.t = type(g.t)(2)
    g.round = 0
    g.setup_first_round(list(reversed(cs("Kh 2h 3h 4h 5h"))))
    assert g.t.hands == [cs("3h 5h"), cs("4h")]
    g.apply(0, Discard((c("3h"),)))
    assert g.t.phase == Phase.ROUND_OVER


def test_g10_one_action_per_turn_and_pass_only_with_an_empty_hand() -> None:
    g = table(2, ["2h 3h", "2c"])
    assert g.check(0, PassTurn()) is not None
    assert g.check(0, MakeOffers(())) is not None
    g.apply(0, Discard((c("2h"),)))
    assert g.to_act() == (1,)  # one action and the turn is over
    g = table(2, ["", "2c"], deck="3h 4h")
    assert list(g.legal_actions(0)) == [PassTurn()]
    g.apply(0, PassTurn())
    assert g.to_act() == (1,)


def test_g11_buy_land_with_enough_money_and_no_change() -> None:
    g = table(2, ["7s 4s 2h", "2c"], treasuries=["5d 3d 9d"])
    assert g.check(0, BuyLand(tuple(cs("7s 4s")), tuple(cs("5d 3d")))) is not None  # 8 < 11
    assert g.check(0, BuyLand((), (c("9d"),))) is not None
    assert g.check(0, BuyLand((c("2h"),), (c("9d"),))) is not None
    assert g.check(0, BuyLand((c("7s"),), ())) is not None
    assert g.check(0, BuyLand((c("4s"),), (c("3d"),))) is not None  # one short: 3 < 4
    assert g.check(0, BuyLand(tuple(cs("7s 4s")), tuple(cs("5d 3d 9d")))) is None  # paying more than needed
    assert g.check(0, BuyLand((c("7s"),), tuple(cs("5d 3d")))) is None  # 8 for 7
    g2 = table(2, ["7s 4s 2h", "2c"], treasuries=["4d 3d"])
    g2.apply(0, BuyLand((c("7s"),), tuple(cs("4d 3d"))))  # exactly the value of the Land is enough
    assert g2.t.domains[0] == [c("7s")] and g2.t.treasuries[0] == []
    g.apply(0, BuyLand(tuple(cs("7s 4s")), tuple(cs("9d 3d"))))  # 12 for 11: no change
    assert g.t.domains[0] == cs("7s 4s") and g.t.treasuries[0] == [c("5d")]
    assert g.t.discard == cs("9d 3d") and len(g.t.hands[0]) == 7


# --- G-12 .. G-14: attacks and Conquer Land ----------------------------------------------------


def test_g12_attacks_need_a_general_and_mercenaries_are_worth_half_rounded_up() -> None:
    g = table(2, ["Kc 9c 5c", "2c"], treasuries=["9d 2d"])
    assert g.check(0, AttackKing(1, (c("9c"),))) is not None
    assert g.check(0, AttackKing(1, tuple(cs("Kc 9c")), (c("5d"),))) is not None
    assert g.check(0, AttackKing(1, (c("Kc"),), (c("9d"), c("9d")))) is not None
    events = g.apply(0, AttackKing(1, tuple(cs("Kc 9c")), tuple(cs("9d 2d"))))
    assert payloads(events, AttackDeclared)[0].attack_points == 12 + 9 + 5 + 1
    assert g.t.treasuries[0] == [] and g.t.hands[0] == [c("5c")]  # the whole force is on the table


def test_g12_a_conquest_needs_a_general_too() -> None:
    g = table(2, ["Tc 9c Qh", "2c"], treasuries=["9d"], domains=["", "2s"])
    assert g.check(0, ConquerLand(1, tuple(cs("Tc 9c")), (c("9d"),))) is not None  # 22 AP, but no General
    assert g.check(0, ConquerLand(1, (c("Qh"),))) is None  # a Queen of hearts is a General
    d = g.decision(0)
    assert isinstance(d, TurnChoice)
    assert all(c("Qh") in a.card_ids for a in g.legal_actions(0) if isinstance(a, ConquerLand))


def test_g12_mercenaries_join_a_conquest_too() -> None:
    g = table(2, ["Jc 2h", "2c"], treasuries=["9d"], domains=["", "5s 3s 9s"])
    events = play(g, (0, ConquerLand(1, (c("Jc"),), (c("9d"),))), (1, Defend(())))
    result = payloads(events, BattleResolved)[0].result
    assert (result.attack_points, result.defence_points, result.success) == (10 + 5, 6, True)
    assert g.t.discard == cs("Jc 9d") and g.t.domains[0] == [c("3s")]


def test_g13_conquer_land_targets_only_land_and_allows_no_assistance() -> None:
    g = table(3, ["Kc", "2c", "3c 8c"], domains=["", "", "2s 5s"])
    d = g.decision(0)
    assert isinstance(d, TurnChoice) and d.conquer_targets == (2,) and d.king_targets == (1, 2)
    assert g.check(0, ConquerLand(1, (c("Kc"),))) is not None
    g.apply(0, ConquerLand(2, (c("Kc"),)))
    assert g.to_act() == (2,)  # straight to the defender: no offers, no assistants
    assert g.decision(2) == DefendChoice(AttackKind.CONQUER_LAND, 0, tuple(cs("3c 8c")), 12, 4)  # the kind tells him what is at stake
    assert g.check(2, Defend(())) is None


def test_g14_conquest_takes_the_lowest_land_and_scores_two() -> None:
    g = table(2, ["Kc 2h", "3c"], domains=["", "5s 3s@1 3s 9s"])
    events = play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend((c("3c"),))))  # 12 > 3 + 8
    assert payloads(events, BattleResolved)[0].result.land_taken == c("3s")  # lowest value, then lowest id
    assert g.t.domains[0] == [c("3s")] and awards(events) == [(0, 2, GloryReason.CONQUEST)]
    g = table(2, ["Jc 2h", "2c"], domains=["", "5s 3s 9s"])
    events = play(g, (0, ConquerLand(1, (c("Jc"),))), (1, Defend(())))  # 10 vs 6: taken
    assert len(g.t.domains[1]) == 2
    g = table(2, ["Jc 2h", "2c"], domains=["", "8s"])
    play(g, (0, ConquerLand(1, (c("Jc"),))), (1, Defend(())))  # 10 vs 2: his only Land goes
    assert g.t.domains == [[c("8s")], []]
    g = table(2, ["Tc Jc", "4c"], domains=["", "5s 3s 9s"])
    events = play(g, (0, ConquerLand(1, (c("Jc"),))), (1, Defend((c("4c"),))))  # 10 vs 10: fails
    assert len(g.t.domains[1]) == 3 and awards(events) == [(1, 2, GloryReason.CONQUEST_REPELLED)]


# --- G-15 .. G-19: Attack a King ----------------------------------------------------------------


def test_g15_attack_a_king_decision_order() -> None:
    g = table(4, ["Kc", "5c", "6c", "7c"])
    g.apply(0, AttackKing(2, (c("Kc"),)))
    assert g.to_act() == (0,) and isinstance(g.decision(0), OfferChoice)
    g.apply(0, MakeOffers(()))
    assert g.to_act() == (2,) and isinstance(g.decision(2), OfferChoice)
    g.apply(2, MakeOffers(()))
    assert g.to_act() == (1,) and isinstance(g.decision(1), AssistChoice)
    g.apply(1, DeclineAssist())
    assert g.to_act() == (3,) and isinstance(g.decision(3), AssistChoice)
    g.apply(3, DeclineAssist())
    assert g.to_act() == (2,) and isinstance(g.decision(2), DefendChoice)
    g.apply(2, Defend(()))
    assert g.to_act() == (1,) and g.t.phase == Phase.TURN
    g = table(2, ["Kc", "5c"])
    g.apply(0, AttackKing(1, (c("Kc"),)))
    assert g.to_act() == (1,) and g.decision(1) == DefendChoice(AttackKind.ATTACK_KING, 0, (c("5c"),), 12, 0)


def test_g16_offers_name_public_cards_of_the_offerer_for_other_players() -> None:
    g = table(4, ["Kc", "5c", "6c", "7c"], treasuries=["4d 8d"], domains=["3s"])
    g.apply(0, AttackKing(2, (c("Kc"),)))
    d = g.decision(0)
    assert isinstance(d, OfferChoice) and set(d.offerable) == set(cs("3s 4d 8d")) and d.recipients == (1, 3)
    assert g.check(0, MakeOffers((Offer(2, (c("3s"),)),))) is not None  # not the defender
    assert g.check(0, MakeOffers((Offer(1, (c("3s"),)), Offer(1, (c("4d"),))))) is not None  # one per seat
    assert g.check(0, MakeOffers((Offer(1, (c("3s"),)), Offer(3, (c("3s"),))))) is not None  # a card once
    assert g.check(0, MakeOffers((Offer(1, (c("5c"),)),))) is not None  # not from the hand
    assert g.check(0, MakeOffers((Offer(1, ()), Offer(3, (c("8d"), c("3s")))))) is None  # an appeal and an offer
    g = table(3, ["Kc 4s", "5c", "6c"], domains=["3s"])
    g.apply(0, AttackKing(2, (c("Kc"),)))
    d = g.decision(0)
    assert isinstance(d, OfferChoice) and d.offerable == (c("3s"),)
    assert g.check(0, MakeOffers((Offer(1, (c("4s"),)),))) is not None  # Land still in the hand may not be offered


def test_g17_offers_are_paid_to_the_assistants_of_the_offering_side() -> None:
    g = table(4, ["Kc", "5c", "6c", "7c"], treasuries=["4d"], domains=["", "", "9s 2s"])
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers((Offer(3, (c("4d"),)),))),
        (2, MakeOffers((Offer(1, (c("9s"),)), Offer(3, (c("2s"),))))),
        (1, Assist(2, (c("5c"),))),
        (3, Assist(0, (c("7c"),))),
    )
    d = g.decision(2)
    assert isinstance(d, DefendChoice) and d.defence_points == 4 + 5 and d.attack_points == 19
    events = g.apply(2, Defend((c("6c"),)))  # 19 vs 15: the attack succeeds, yet offers are paid
    assert payloads(events, OfferPaid) == [OfferPaid(0, 3, (c("4d"),)), OfferPaid(2, 1, (c("9s"),))]
    assert g.t.domains[1] == [c("9s")] and g.t.domains[2] == [c("2s")]  # seat 3 helped the attacker: no 2s
    assert g.t.treasuries[3] == [c("4d")] and g.t.treasuries[0] == []


def test_g16_offers_are_public_and_each_side_offers_once() -> None:
    g = table(4, ["Kc", "5c", "6c", "7c"], treasuries=["4d"], domains=["", "", "3s"])
    events = play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers((Offer(3, (c("4d"),)),))))
    assert [e.visible_to for e in events if isinstance(e.payload, OffersMade)] == [None]
    events = g.apply(2, MakeOffers((Offer(1, (c("3s"),)),)))
    assert [e.visible_to for e in events if isinstance(e.payload, OffersMade)] == [None]
    battle = g.view(3).battle
    assert battle is not None
    assert battle.attacker_offers == (Offer(3, (c("4d"),)),) and battle.defender_offers == (Offer(1, (c("3s"),)),)
    assert isinstance(g.decision(1), AssistChoice)  # no counter-offers: the assistants choose next


def test_g17_offers_are_paid_even_when_the_attack_fails() -> None:
    g = table(3, ["Kc", "5c", "Kc@2 6c"], treasuries=["4d"])
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers((Offer(1, (c("4d"),)),))),
        (2, MakeOffers(())),
        (1, Assist(0, (c("5c"),))),
        (2, Defend(tuple(cs("Kc@2 6c")))),  # 17 vs 18: the attack fails
    )
    assert not payloads(events, BattleResolved)[0].result.success
    assert payloads(events, OfferPaid) == [OfferPaid(0, 1, (c("4d"),))] and g.t.treasuries[1] == [c("4d")]


def test_g18_assistance_with_generals_and_soldiers_for_one_side() -> None:
    g = table(3, ["Kc", "5c 4h Qd", "6c"])
    play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers(())))
    d = g.decision(1)
    assert isinstance(d, AssistChoice) and set(d.playable) == set(cs("5c Qd"))
    assert g.check(1, Assist(2, (c("4h"),))) is not None  # Health cannot assist
    assert g.check(1, Assist(2, ())) is not None  # no cards is declining
    assert g.check(1, Assist(1, (c("5c"),))) is not None  # a side is the attacker or the defender
    assert g.check(1, Assist(0, (c("5c"),))) is None  # no General needed
    assert g.check(1, DeclineAssist()) is None
    g.apply(1, Assist(0, tuple(cs("5c Qd"))))
    d2 = g.decision(2)
    assert isinstance(d2, DefendChoice) and d2.attack_points == 12 + 5 + 11


def test_g18_assassins_neither_assist_nor_defend_and_no_appeal_is_needed() -> None:
    g = table(3, ["Kc", "5c X", "6c X@2"], treasuries=["4d"])
    play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers((Offer(1, (c("4d"),)),))), (2, MakeOffers(())))
    d = g.decision(1)
    assert isinstance(d, AssistChoice) and d.playable == (c("5c"),)
    assert g.check(1, Assist(0, tuple(cs("5c X")))) is not None  # an Assassin is no Soldier
    assert not any(c("X") in getattr(a, "card_ids", ()) for a in g.legal_actions(1))
    # The defender neither appealed to seat 1 nor offered him anything: seat 1 may still assist him.
    assert g.check(1, Assist(2, (c("5c"),))) is None
    g.apply(1, Assist(2, (c("5c"),)))
    dd = g.decision(2)
    assert isinstance(dd, DefendChoice) and dd.playable == (c("6c"),) and dd.defence_points == 5
    assert g.check(2, Defend(tuple(cs("6c X@2")))) is not None  # nor does an Assassin defend
    events = g.apply(2, Defend((c("6c"),)))  # 12 vs 11: the attack succeeds
    assert not payloads(events, OfferPaid), "seat 1 assisted the defender: the attacker's offer is not paid"
    assert g.t.treasuries[0] == [c("4d")] and g.t.treasuries[1] == []


def test_g19_attack_a_king_damage_and_glory() -> None:
    g = table(3, ["Kc Qc", "5c", "6c"], domains=["", "", "2s"])
    events = play(
        g,
        (0, AttackKing(2, tuple(cs("Kc Qc")))),
        (0, MakeOffers(())),
        (2, MakeOffers(())),
        (1, Assist(0, (c("5c"),))),
        (2, Defend((c("6c"),))),
    )
    assert g.t.hp[2] == 50 - (28 - 8)
    assert awards(events) == [(0, 5, GloryReason.KING_ATTACK), (1, 2, GloryReason.KING_ATTACK_ASSIST)]
    # Reduced to 0 HP: everything is doubled.
    g = table(3, ["Kc Qc", "5c", "6c"])
    g.t.hp[2] = 20
    events = play(g, (0, AttackKing(2, tuple(cs("Kc Qc")))), (0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(0, (c("5c"),))), (2, Defend(())))
    assert g.t.hp[2] == 0
    assert awards(events)[:2] == [(0, 10, GloryReason.KING_ATTACK), (1, 4, GloryReason.KING_ATTACK_ASSIST)]
    assert payloads(events, BattleResolved)[0].result.damage == 20, "the HP he lost, not AP - DP (28)"
    # AP equal to DP fails: the defender +5, his assistants +2.
    g = table(3, ["Kc", "5c", "7c"])
    events = play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(2, (c("5c"),))), (2, Defend((c("7c"),))))
    assert g.t.hp[2] == 50
    assert awards(events) == [(2, 5, GloryReason.KING_DEFENCE), (1, 2, GloryReason.KING_DEFENCE_ASSIST)]


def test_g12_only_generals_and_soldiers_from_the_hand_join_an_attack() -> None:
    g = table(2, ["Kc 5c 9h 4s X", "2c"], treasuries=["6d"], domains=["3s", "2s"])
    for other in ("9h", "4s", "X"):  # Health, Land in hand, an Assassin ("Assassins cannot participate in regular attacks")
        assert g.check(0, AttackKing(1, tuple(cs(f"Kc {other}")))) is not None, other
        assert g.check(0, ConquerLand(1, tuple(cs(f"Kc {other}")))) is not None, other
    assert g.check(0, AttackKing(1, tuple(cs("Kc 3s")))) is not None  # Land of the Domain does not fight
    assert g.check(0, AttackKing(1, tuple(cs("Kc 6d")))) is not None  # Money joins only as Mercenaries...
    assert g.check(0, AttackKing(1, (c("Kc"),), (c("9h"),))) is not None  # ...and only Money from the Treasury
    assert g.check(0, AttackKing(1, tuple(cs("Kc 5c")), (c("6d"),))) is None


def test_g17_a_bare_appeal_pays_nothing() -> None:
    g = table(3, ["Kc", "5c", "6c"], treasuries=["4d"])
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers((Offer(1, ()),))),
        (2, MakeOffers(())),
        (1, Assist(0, (c("5c"),))),
        (2, Defend(())),
    )
    assert not payloads(events, OfferPaid), "an appeal with no cards is answered, but nothing is paid"
    assert g.t.treasuries == [[c("4d")], [], []]


def test_g19_only_the_assistants_of_the_winning_side_score() -> None:
    hands = ["Kc Qc", "5c 2c", "5c@2", "4c Qc@3"]
    # The attack succeeds (12 + 11 + 5 = 28 vs 4): the defender's assistant gets nothing.
    g = table(4, hands)
    steps = [(0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(0, (c("5c"),))), (3, Assist(2, (c("4c"),))), (2, Defend(()))]
    events = play(g, (0, AttackKing(2, tuple(cs("Kc Qc")))), *steps)
    assert g.t.hp[2] == 50 - 24
    assert awards(events) == [(0, 5, GloryReason.KING_ATTACK), (1, 2, GloryReason.KING_ATTACK_ASSIST)]
    # Doubled when the defender is reduced to 0 HP, still for the attacker's side alone.
    g = table(4, hands)
    g.t.hp[2] = 24
    events = play(g, (0, AttackKing(2, tuple(cs("Kc Qc")))), *steps)
    assert awards(events) == [(0, 10, GloryReason.KING_ATTACK), (1, 4, GloryReason.KING_ATTACK_ASSIST)]
    # The attack fails (12 + 2 = 14 vs 11 + 5 = 16): the attacker's assistant gets nothing.
    g = table(4, hands)
    events = play(
        g,
        (0, AttackKing(2, (c("Kc"),))),
        (0, MakeOffers(())),
        (2, MakeOffers(())),
        (1, Assist(0, (c("2c"),))),
        (3, Assist(2, (c("Qc@3"),))),
        (2, Defend((c("5c@2"),))),
    )
    assert g.t.hp[2] == 50
    assert awards(events) == [(2, 5, GloryReason.KING_DEFENCE), (3, 2, GloryReason.KING_DEFENCE_ASSIST)]
