"""Glory's rules: one test (or more) per numbered ruling of docs/games/glory.md (G-n)."""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections.abc import MutableSequence, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from referee.core.cards import CARDS_PER_DECK, Suit, card_id, joker_id
from referee.core.game import IllegalAction, OptionError
from referee.games.glory import Glory
from referee.games.glory import choices
from referee.games.glory.types import (
    Assassinate,
    Assist,
    AssistChoice,
    AttackDeclared,
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
    Discarded,
    FirstPlayerDraw,
    GameEnded,
    GloryAwarded,
    GloryReason,
    Heal,
    MakeOffers,
    MoreAssassins,
    MoreAssassinsChoice,
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
    Thwart,
    ThwartChoice,
    TurnChoice,
)
from referee.games.glory.values import value
from referee.protocol.messages import GameCodec
from tests.support import card_ids_in

ROOT = Path(__file__).resolve().parents[2]
SUITS = {"c": Suit.CLUBS, "d": Suit.DIAMONDS, "h": Suit.HEARTS, "s": Suit.SPADES}
RANKS = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}


def c(name: str) -> int:
    """A card id from a short name: ``Kh``, ``Ts``, ``5c``, ``X`` (joker); ``@d`` picks the deck (``Kh@1``)."""
    text, _, deck = name.partition("@")
    d = int(deck) if deck else 0
    if text in ("X", "X2"):
        return joker_id(0 if text == "X" else 1, d)
    rank = RANKS.get(text[0]) or int(text[0])
    return card_id(rank, SUITS[text[1]], d)


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


def finish_round(g: Glory, seat: int) -> list[Any]:
    """Empty the deck but one card, then let ``seat`` discard: the round ends after his turn."""
    g.t.deck = g.t.deck[-1:]
    return g.apply(seat, Discard((g.t.hands[seat][0],)))


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
    assert isinstance(g.decision(0), StartRoundChoice)
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


def test_g9_an_assistant_who_draws_the_last_card_ends_the_round_after_the_attackers_turn() -> None:
    full = "2h@2 3h@2 4h@2 5h@2 6h@2 7h@2 8h@2"
    g = table(3, ["Kc 2h", "5c 2h@1 3h@1 4h@1 5h@1 6h@1 7h@1", full], deck="8h")
    play(g, (0, AttackKing(2, (c("Kc"),))), (0, MakeOffers(())), (2, MakeOffers(())), (1, Assist(0, (c("5c"),))), (2, Defend(())))
    assert g.t.hands[1][-1] == c("8h") and not g.t.deck
    assert g.t.phase == Phase.ROUND_OVER


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


def test_g13_conquer_land_targets_only_land_and_allows_no_assistance() -> None:
    g = table(3, ["Kc", "2c", "3c 8c"], domains=["", "", "2s 5s"])
    d = g.decision(0)
    assert isinstance(d, TurnChoice) and d.conquer_targets == (2,) and d.king_targets == (1, 2)
    assert g.check(0, ConquerLand(1, (c("Kc"),))) is not None
    g.apply(0, ConquerLand(2, (c("Kc"),)))
    assert g.to_act() == (2,)  # straight to the defender: no offers, no assistants
    dd = g.decision(2)
    assert isinstance(dd, DefendChoice) and dd.defence_points == 4 and dd.attack_points == 12
    assert g.check(2, Defend(())) is None


def test_g14_conquest_takes_the_lowest_land_and_scores_two() -> None:
    g = table(2, ["Kc 2h", "3c"], domains=["", "5s 3s@1 3s 9s"])
    events = play(g, (0, ConquerLand(1, (c("Kc"),))), (1, Defend((c("3c"),))))  # 12 > 3 + 8
    assert payloads(events, BattleResolved)[0].result.land_taken == c("3s")  # lowest value, then lowest id
    assert g.t.domains[0] == [c("3s")] and awards(events) == [(0, 2, GloryReason.CONQUEST)]
    g = table(2, ["Jc 2h", "2c"], domains=["", "5s 3s 9s"])
    events = play(g, (0, ConquerLand(1, (c("Jc"),))), (1, Defend(())))  # 10 vs 6: taken
    assert len(g.t.domains[1]) == 2
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
    assert g.to_act() == (1,) and isinstance(g.decision(1), DefendChoice)


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


# --- G-20 .. G-23: Assassination, Heal, Discard -------------------------------------------------


def test_g20_assassination_mini_rounds() -> None:
    g = table(3, ["X X@1 X2@1 2h", "5c Kc", "X@2 X2@2 X2 2c"])
    assert g.check(0, Assassinate(2, (c("X"), c("2h")))) is not None  # assassins only
    g.apply(0, Assassinate(2, (c("X"),)))
    assert g.to_act() == (2,)
    d = g.decision(2)
    assert isinstance(d, ThwartChoice) and d.required == 1
    assert g.check(2, Thwart(tuple(cs("X@2 X2@2")))) is not None  # exactly as many
    g.apply(2, Thwart((c("X@2"),)))
    dm = g.decision(0)
    assert isinstance(dm, MoreAssassinsChoice) and dm.mini_round == 2
    g.apply(0, MoreAssassins(tuple(cs("X@1 X2@1"))))
    d2 = g.decision(2)
    assert isinstance(d2, ThwartChoice) and d2.required == 2
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


def test_g21_assassination_damage_glory_and_discards() -> None:
    g = table(2, ["X X@1 2h", "2c"])
    g.t.hp[1] = 25
    events = play(g, (0, Assassinate(1, tuple(cs("X X@1")))), (1, Thwart(())))
    assert g.t.hp[1] == 0
    assert awards(events)[:2] == [(0, 2, GloryReason.ASSASSINATION), (0, 2, GloryReason.ASSASSINATION_KILL)]
    assert payloads(events, BattleResolved)[0].result.damage == 25
    assert g.t.phase == Phase.ROUND_OVER
    assert set(cs("X X@1")) <= set(g.t.discard)
    g = table(2, ["X 2h", "2c"])
    g.t.hp[1] = 10
    assert payloads(play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart(()))), BattleResolved)[0].result.damage == 10, "the HP he lost, not 25"
    # The defender's thwarting assassins go to the discard pile too, after the attacker's.
    g = table(2, ["X X@1 2h", "X2 2c"])
    play(g, (0, Assassinate(1, (c("X"),))), (1, Thwart((c("X2"),))), (0, MoreAssassins((c("X@1"),))), (1, Thwart(())))
    assert g.t.hp[1] == 25 and g.t.discard == cs("X X@1 X2")


def test_g22_heal_half_rounded_up_and_capped_at_fifty() -> None:
    g = table(2, ["7h 9h", "2h@1"], turn=0)
    g.t.hp = [40, 48]
    assert g.check(0, Heal(c("7s"))) is not None
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


def test_g28_extra_rounds_break_a_tied_lead_up_to_a_cap() -> None:
    g = table(2, ["2h", "3h"], options={"rounds": 1})
    g.round = 1
    g.t.glory = [5, 5]
    finish_round(g, 0)
    assert g.t.phase == Phase.ROUND_OVER  # tied after the last round: an extra round
    g.apply(g.to_act()[0], StartRound())
    assert g.round == 2 and g.view(0).extra_round
    g = table(2, ["2h", "3h"], domains=["2s"], options={"rounds": 1})
    g.round = 1
    g.t.glory = [5, 5]
    events = finish_round(g, 0)
    assert g.is_over() and payloads(events, GameEnded) == [GameEnded((7, 5), (0,), False)]
    g = table(2, ["2h", "3h"], options={"rounds": 1, "max_extra_rounds": 0})
    g.round = 1
    events = finish_round(g, 0)
    assert g.is_over() and payloads(events, GameEnded)[0].tie_unbroken


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


def test_every_ruling_has_a_test() -> None:
    doc = (ROOT / "docs" / "games" / "glory.md").read_text()
    rulings = {int(n) for n in re.findall(r"^G-(\d+)\.", doc, re.M)}
    tested = {int(n) for n in re.findall(r"def test_g(\d+)_", Path(__file__).read_text())}
    assert rulings == set(range(1, max(rulings) + 1))
    assert rulings <= tested


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
