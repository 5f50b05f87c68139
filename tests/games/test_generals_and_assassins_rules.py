"""Generals & Assassins: one test (at least) per numbered ruling of docs/games/generals-and-assassins.md (more battle cases in test_generals_and_assassins_battles.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.v1 import cards_pb2
from referee.core.cards import full_deck
from referee.core.game import Event
from referee.games.generals_and_assassins import GeneralsAndAssassins
from referee.games.generals_and_assassins.roles import value
from referee.games.generals_and_assassins.types import (
    Assassinate,
    AssassinationResolved,
    AssassinChoice,
    Assist,
    AssistChoice,
    Attack,
    AttackDeclared,
    AttackResolved,
    BuyLand,
    CardsDrawn,
    Decline,
    DefenceChoice,
    Defend,
    Discard,
    Heal,
    KingDefeated,
    LandsOffered,
    LandTransferred,
    NextRoundChoice,
    Offer,
    OfferChoice,
    OfferLands,
    Phase,
    PlayAssassin,
    RoundEnded,
    RoundEndReason,
    RoundStarted,
    Side,
    StartRound,
    TurnChoice,
    TurnSkipped,
    TurnStarted,
)
from referee.protocol.messages import GameCodec
from tests.support import named_card

CODEC = GameCodec(GeneralsAndAssassins)


def c(name: str, deck: int) -> int:
    """A card of ``deck`` by name: ``Kh``, ``Tc``, ``5s``; ``X0``/``X1`` are the jokers."""
    return named_card(name, deck)


def cs(names: str, deck: int) -> list[int]:
    return [c(n, deck) for n in names.split()]


def new(n: int = 2, seed: int = 1, **options: Any) -> GeneralsAndAssassins:
    return GeneralsAndAssassins(n, seed, options or None)


def _zones(g: GeneralsAndAssassins) -> list[list[int]]:
    return [*g.decks, *g.hands, *g.lands, *g.discards]


def place(g: GeneralsAndAssassins, card: int, zone: list[int]) -> None:
    for z in _zones(g):
        if card in z:
            z.remove(card)
    zone.append(card)


def hand(g: GeneralsAndAssassins, seat: int, names: str) -> list[int]:
    """Make these cards of the seat's own deck its hand; the old hand goes under its deck."""
    cards = cs(names, seat) if names else []
    old = [x for x in g.hands[seat] if x not in cards]
    g.hands[seat] = []
    g.decks[seat][:0] = old
    for x in cards:
        place(g, x, g.hands[seat])
    g.forget()
    return cards


def hands(g: GeneralsAndAssassins, deals: dict[int, str]) -> None:
    """``hand`` for several seats: {seat: names}."""
    for seat, names in deals.items():
        hand(g, seat, names)


def lands(g: GeneralsAndAssassins, seat: int, names: str, owner: int | None = None) -> list[int]:
    cards = cs(names, seat if owner is None else owner)
    for x in cards:
        place(g, x, g.lands[seat])
    return cards


def turn(g: GeneralsAndAssassins, seat: int) -> None:
    g.turn_player = seat
    g.phase = Phase.TURN
    g.acting = seat
    g.forget()


def act(g: GeneralsAndAssassins, seat: int, action: Any) -> list[Event]:
    assert g.to_act() == (seat,), f"expected seat {seat} to act, not {g.to_act()}"
    return g.apply(seat, action)


def end_round(g: GeneralsAndAssassins) -> list[Event]:
    """Score the round as if its last turn just ended, then start the next one unless the game is over."""
    events = g._end_round(RoundEndReason.LAST_CARD, None)
    if g.phase == Phase.ROUND_OVER:
        events += act(g, g.to_act()[0], StartRound())
    return events


def payloads(events: list[Event], kind: type) -> list[Any]:
    return [e.payload for e in events if isinstance(e.payload, kind)]


def first_assassin_blocked(attacker: str, defender: str) -> GeneralsAndAssassins:
    """Two players: seat 0, holding ``attacker`` (X0 among it), assassinates seat 1, holding ``defender``, who blocks with his X0."""
    g = new(2)
    hand(g, 0, attacker)
    hand(g, 1, defender)
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    act(g, 1, PlayAssassin(c("X0", 1)))
    return g


def test_ga1_own_shuffled_deck_five_card_hands_and_clockwise_order() -> None:
    """GA-1: a 54-card deck per player, shuffled from the seed, five cards dealt; play passes to seat + 1."""
    g = new(3, seed=7)
    for s in range(3):
        assert len(g.hands[s]) == 5 and len(g.decks[s]) == 49
        assert sorted(g.decks[s] + g.hands[s]) == sorted(full_deck(s, jokers=True))
    assert g.decks[0] != sorted(g.decks[0])
    same = new(3, seed=7)
    assert same.decks == g.decks and same.hands == g.hands and same.first_player == g.first_player
    assert new(3, seed=8).decks != g.decks
    turn(g, 2)
    act(g, 2, Discard((g.hands[2][0],)))
    assert g.to_act() == (0,)  # after the last seat comes seat 0


# --- GA-2, GA-3 -----------------------------------------------------------------------------


def test_ga2_card_values_count_in_battle() -> None:
    """GA-2: ace 1, face values, jack 10, queen 11, king 12 (joker 25)."""
    assert [value(c(n, 0)) for n in "Ac 2c 9c Tc Jc Qc Kc X0".split()] == [1, 2, 9, 10, 10, 11, 12, 25]
    g = new(2)
    hand(g, 0, "Kh Qd Js Ac 2h")
    hand(g, 1, "2s 3s 4d 5d 6h")
    turn(g, 0)
    act(g, 0, Attack(1, tuple(cs("Kh Qd Js Ac", 0))))
    events = act(g, 1, Defend(()))
    assert payloads(events, AttackResolved)[0].attack_points == 12 + 11 + 10 + 1
    assert g.hp[1] == 50 - 34


def test_ga3_roles_by_suit_and_court() -> None:
    """GA-3: court cards of any suit are generals only; clubs soldiers, spades land, diamonds money, hearts health."""
    g = new(2)
    hand(g, 0, "Kh 5c 7s Ad X0")
    turn(g, 0)
    d = g.decision(0)
    assert isinstance(d, TurnChoice)
    assert d.generals == (c("Kh", 0),) and d.soldiers == (c("5c", 0),) and d.land == (c("7s", 0),)
    assert d.money == (c("Ad", 0),) and d.health == () and d.assassins == (c("X0", 0),) and d.aces == (c("Ad", 0),)
    assert g.check(0, Heal(c("Kh", 0))) is not None  # a king of hearts is not health
    assert g.check(0, Attack(1, (c("5c", 0),))) is not None  # soldiers alone cannot attack
    assert g.check(0, Attack(1, (c("Kh", 0), c("5c", 0)))) is None
    assert g.check(0, Attack(1, (c("7s", 0), c("Kh", 0)))) is not None  # land does not fight


def test_ga4_first_player_random_then_lowest_vp_with_clockwise_tie_break() -> None:
    """GA-4: round 1 random; then lowest total VP; ties go to the first tied seat clockwise after the last first player."""
    firsts = {new(4, seed=s).first_player for s in range(30)}
    assert firsts == {0, 1, 2, 3}
    g = new(4, seed=3)
    g.first_player = 2
    g.vp = [5, 3, 3, 7]
    end_round(g)  # no land in play: nobody scores
    assert g.round == 2 and g.first_player == 1 and g.to_act() == (1,)
    g.vp = [4, 4, 4, 4]
    end_round(g)
    assert g.first_player == 2  # a full tie passes the lead to the left


def test_ga5_attack_needs_a_general_and_shows_its_cards() -> None:
    """GA-5: any other target, at least one general, cards shown at the declaration."""
    g = new(3)
    hand(g, 0, "Kc 9c 4d 5h 6s")
    turn(g, 0)
    assert g.check(0, Attack(0, (c("Kc", 0),))) is not None  # not oneself
    assert g.check(0, Attack(1, (c("9c", 0),))) is not None
    assert g.check(0, Attack(2, (c("Kc", 0), c("Qc", 0)))) is not None  # not in hand
    events = act(g, 0, Attack(2, (c("Kc", 0), c("9c", 0))))
    declared = payloads(events, AttackDeclared)[0]
    assert declared == AttackDeclared(0, 2, (c("Kc", 0), c("9c", 0)), 21)
    assert all(e.visible_to is None for e in events if isinstance(e.payload, AttackDeclared))
    assert sorted(g.hands[0]) == sorted(cs("4d 5h 6s", 0))
    battle = g.view(1).battle
    assert battle is not None and battle.attacker_cards == (c("Kc", 0), c("9c", 0))


def test_ga6_offers_attacker_then_defender_once_to_bystanders() -> None:
    """GA-6: attacker offers first, then the defender; recipients are bystanders; each land at most once."""
    g = new(4)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    a_lands = lands(g, 0, "9s 8s")
    received = lands(g, 0, "5s", owner=2)  # a land seat 2 gave seat 0 earlier
    d_lands = lands(g, 1, "7s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.phase == Phase.OFFER and g.to_act() == (0,)
    d = g.decision(0)
    assert isinstance(d, OfferChoice) and d.side == Side.ATTACKER and d.recipients == (2, 3)
    assert set(d.lands) == set(a_lands + received)
    assert g.check(0, OfferLands((Offer(3, (received[0],)),))) is None, "a land received from others may be offered on"
    assert g.check(0, OfferLands((Offer(1, (a_lands[0],)),))) is not None  # not to the defender
    assert g.check(0, OfferLands((Offer(2, (a_lands[0],)), Offer(3, (a_lands[0],))))) is not None  # twice
    assert g.check(0, OfferLands((Offer(2, (a_lands[0],)), Offer(2, (a_lands[1],))))) is not None  # two offers to seat 2
    assert g.check(0, OfferLands((Offer(2, (c("6s", 0),)),))) is not None  # not in play
    events = act(g, 0, OfferLands((Offer(2, (a_lands[0],)),)))
    assert payloads(events, LandsOffered)[0].offers[0].lands == (a_lands[0],)
    assert g.to_act() == (1,) and g.decision(1) == OfferChoice(Side.DEFENDER, tuple(d_lands), (2, 3))
    act(g, 1, OfferLands(()))
    assert g.phase == Phase.ASSIST  # no second round of offers


def test_ga6_side_without_land_is_not_asked_to_offer() -> None:
    """GA-6: a side with no land in play makes no offer (everyone can see it has none)."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    lands(g, 1, "7s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.phase == Phase.OFFER and g.to_act() == (1,)
    act(g, 1, OfferLands(()))
    assert g.phase == Phase.ASSIST and g.to_act() == (2,)


def test_ga7_assists_clockwise_from_attacker_one_card_or_decline() -> None:
    """GA-7: bystanders answer in clockwise order from the attacker, one general or soldier, seeing earlier answers."""
    g = new(4)
    hands(g, {2: "Qc 2d 3d 4d 5d", 0: "8c 2h 3h 4h 5h", 1: "2d 3d 4d 5d 6d"})
    turn(g, 2)
    act(g, 2, Attack(3, (c("Qc", 2),)))
    assert g.phase == Phase.ASSIST and g.to_act() == (0,)
    assert g.decision(0) == AssistChoice((c("8c", 0),), 2, 3)
    assert g.check(0, Assist(Side.ATTACKER, c("2h", 0))) is not None  # hearts do not fight
    act(g, 0, Assist(Side.ATTACKER, c("8c", 0)))
    assert g.to_act() == (1,)
    battle = g.view(1).battle
    assert battle is not None and battle.assists[0].card == c("8c", 0) and battle.attack_points == 11 + 8
    assert list(g.legal_actions(1)) == [Decline()]  # no fighter: only declining, but still asked
    act(g, 1, Decline())
    assert g.phase == Phase.DEFEND and g.to_act() == (3,)


def test_ga8_land_moves_when_the_offering_side_is_assisted_and_defender_loses_its_dp() -> None:
    """GA-8: the offer is taken by assisting that side; the land moves before the defence; the other offer lapses."""
    g = new(3)
    hand(g, 0, "Kc Qc 2d 3d 4d")
    hand(g, 2, "9c 2h 3h 4h 5h")
    a_land = lands(g, 0, "5s")
    d_lands = lands(g, 1, "3s 4s")
    turn(g, 0)
    act(g, 0, Attack(1, tuple(cs("Kc Qc", 0))))
    act(g, 0, OfferLands((Offer(2, tuple(a_land)),)))
    act(g, 1, OfferLands((Offer(2, (d_lands[0],)),)))
    events = act(g, 2, Assist(Side.DEFENDER, c("9c", 2)))
    assert payloads(events, LandTransferred) == [LandTransferred(1, 2, (d_lands[0],))]
    assert g.lands[2] == [d_lands[0]] and g.lands[1] == [d_lands[1]] and g.lands[0] == a_land
    d = g.decision(1)
    assert isinstance(d, DefenceChoice) and d.attack_points == 23 and d.defence_points == 9 + 2
    hand(g, 1, "2d 3d 4d 5d 6d")
    g.forget()
    events = act(g, 1, Defend(()))
    assert payloads(events, AttackResolved)[0].damage == 23 - 11
    assert g.view(0).players[2].land_value == 3  # the received land counts for its new holder


def test_ga9_defender_commits_last_with_any_fighters_or_none() -> None:
    """GA-9: the defender answers after all assists; no general is needed; an empty defence is legal."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 1, "9c 8c 2h 3h 4h")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.phase == Phase.ASSIST and g.to_act() == (2,)
    act(g, 2, Decline())
    assert g.phase == Phase.DEFEND and g.to_act() == (1,)
    assert g.check(1, Defend(())) is None
    assert g.check(1, Defend((c("2h", 1),))) is not None
    act(g, 1, Defend(tuple(cs("9c 8c", 1))))
    assert g.hp[1] == 50 and g.phase == Phase.TURN


def test_ga10_ap_against_dp_with_assists_and_two_per_land() -> None:
    """GA-10: AP = attacker + his assists; DP = defender + his assists + 2 per land; only AP > DP hurts."""
    g = new(4)
    hand(g, 0, "Kc Qc Jc 2d 3d")
    hand(g, 2, "5c 2d 3d 4d 5d")
    hand(g, 3, "3c 2d 3d 4d 5d")
    hand(g, 1, "Tc 2d 3d 4d 5d")
    lands(g, 1, "As 2s")
    turn(g, 0)
    act(g, 0, Attack(1, tuple(cs("Kc Qc Jc", 0))))
    act(g, 1, OfferLands(()))
    act(g, 2, Assist(Side.ATTACKER, c("5c", 2)))
    act(g, 3, Assist(Side.DEFENDER, c("3c", 3)))
    events = act(g, 1, Defend((c("Tc", 1),)))
    resolved = payloads(events, AttackResolved)[0]
    assert (resolved.attack_points, resolved.defence_points) == (33 + 5, 10 + 3 + 4)
    assert resolved.damage == 21 and g.hp[1] == 29

    g = new(2)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 1, "Tc 2c 3d 4d 5d")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    events = act(g, 1, Defend(tuple(cs("Tc 2c", 1))))  # 12 against 12: the attack fails
    assert payloads(events, AttackResolved)[0].damage == 0 and g.hp[1] == 50


def test_ga11_cards_go_face_up_to_their_owners_discard_piles() -> None:
    """GA-11: attack, assist and defence cards land on the discard pile of the deck they came from."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 2, "7c 2h 3h 4h 5h")
    hand(g, 1, "Qs 2d 3d 4d 5d")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 2, Assist(Side.ATTACKER, c("7c", 2)))
    act(g, 1, Defend((c("Qs", 1),)))
    assert g.discards[0] == [c("Kc", 0)] and g.discards[1] == [c("Qs", 1)] and g.discards[2] == [c("7c", 2)]
    assert g.view(1).players[2].discard == (c("7c", 2),)
    turn(g, 1)
    hand(g, 1, "5d 4s 2h 3h 4h")
    act(g, 1, BuyLand((c("5d", 1),), (c("4s", 1),)))
    assert g.discards[1][-1] == c("5d", 1)


def test_ga12_assassination_block_second_try_and_second_block() -> None:
    """GA-12: no assists; block with a joker; the attacker may try once more; a second block stops it."""
    g = new(3)
    hand(g, 0, "X0 X1 2d 3d 4d")
    hand(g, 1, "X0 X1 2d 3d 4d")
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    assert g.phase == Phase.ASSASSIN and g.to_act() == (1,)  # straight to the defender: nobody assists
    assert g.decision(1) == AssassinChoice((c("X0", 1), c("X1", 1)), True)
    act(g, 1, PlayAssassin(c("X0", 1)))
    assert g.decision(0) == AssassinChoice((c("X1", 0),), False)
    act(g, 0, PlayAssassin(c("X1", 0)))
    events = act(g, 1, PlayAssassin(c("X1", 1)))
    assert payloads(events, AssassinationResolved)[0].success is False and g.hp[1] == 50
    assert sorted(g.discards[0]) == cs("X0 X1", 0) and sorted(g.discards[1]) == cs("X0 X1", 1)
    assert g.phase == Phase.TURN and g.to_act() == (1,)  # no third assassin


def test_ga12_unblocked_assassin_costs_25_hp() -> None:
    """GA-12: an unblocked assassin takes 25 HP; a defender without a joker is still asked."""
    g = new(2)
    hand(g, 0, "X0 2d 3d 4d 5d")
    hand(g, 1, "2d 3d 4d 5d 6d")
    turn(g, 0)
    assert g.check(0, Attack(1, (c("X0", 0),))) is not None  # assassins never join attacks
    act(g, 0, Assassinate(1, c("X0", 0)))
    assert list(g.legal_actions(1)) == [Decline()]
    events = act(g, 1, Decline())
    assert payloads(events, AssassinationResolved)[0] == AssassinationResolved(0, 1, True, 25, 25)


def test_ga12_attacker_may_decline_the_second_try() -> None:
    """GA-12: after a block the attacker decides; declining ends the assassination without damage."""
    g = first_assassin_blocked("X0 X1 2d 3d 4d", "X0 2d 3d 4d 5d")
    events = act(g, 0, Decline())
    assert payloads(events, AssassinationResolved)[0].success is False
    assert c("X1", 0) in g.hands[0]


def test_ga13_buy_land_with_enough_money_and_no_change() -> None:
    """GA-13: money total at least land total; several lands at once; overpaying gives no change."""
    g = new(2)
    hand(g, 0, "9d 2d 5s 4s 8s")
    turn(g, 0)
    assert g.check(0, BuyLand((c("2d", 0),), (c("5s", 0),))) is not None
    assert g.check(0, BuyLand((), (c("5s", 0),))) is not None
    assert g.check(0, BuyLand((c("9d", 0),), ())) is not None
    assert g.check(0, BuyLand(tuple(cs("9d 2d", 0)), tuple(cs("5s 4s 8s", 0)))) is not None  # 11 < 17
    act(g, 0, BuyLand((c("9d", 0),), tuple(cs("5s 4s", 0))))
    assert g.lands[0] == cs("5s 4s", 0) and g.discards[0] == [c("9d", 0)]
    assert g.view(1).players[0].land_value == 9


def test_ga14_heal_one_heart_capped_at_50_at_any_hp() -> None:
    """GA-14: one heart regains its value; the excess over 50 is lost; allowed at full HP."""
    g = new(2)
    hand(g, 0, "9h 7h 2d 3d 4d")
    g.hp[0] = 40
    turn(g, 0)
    act(g, 0, Heal(c("9h", 0)))
    assert g.hp[0] == 49 and g.discards[0] == [c("9h", 0)]  # the heart used goes face up to the pile (GA-11)
    hand(g, 0, "7h 2d 3d 4d 5d")
    turn(g, 0)
    act(g, 0, Heal(c("7h", 0)))
    assert g.hp[0] == 50
    hand(g, 0, "Ah 2d 3d 4d 5d")
    turn(g, 0)
    assert g.check(0, Heal(c("Ah", 0))) is None  # at full HP; an ace of hearts is health worth 1 (GA-3)
    g.hp[0] = 30
    act(g, 0, Heal(c("Ah", 0)))
    assert g.hp[0] == 31


def test_ga15_discard_one_card_or_many_with_an_ace() -> None:
    """GA-15: one card, or any number with an ace among them."""
    g = new(2)
    hand(g, 0, "Ah 2d 3d 4d 5d")
    turn(g, 0)
    assert g.check(0, Discard(tuple(cs("2d 3d", 0)))) is not None
    assert g.check(0, Discard((c("3d", 0),))) is None
    assert g.check(0, Discard(())) is not None
    act(g, 0, Discard(tuple(cs("Ah 2d 3d 4d 5d", 0))))
    assert sorted(g.discards[0]) == sorted(cs("Ah 2d 3d 4d 5d", 0)) and len(g.hands[0]) == 5
    hand(g, 0, "Ah Ad 2d 3d 4d")
    turn(g, 0)
    assert g.check(0, Discard(tuple(cs("Ah Ad", 0)))) is None  # several aces, nothing else


def test_ga16_everyone_draws_back_to_five_turn_player_first_then_clockwise() -> None:
    """GA-16: after the battle the turn player draws first, then clockwise; an empty deck gives what it has."""
    g = new(3)
    hand(g, 1, "Kc 2d 3d 4d 5d")
    hand(g, 2, "9c 2h 3h 4h 5h")
    hand(g, 0, "8c 7c 2d 3d 4d")
    g.decks[0] = g.decks[0][-1:]  # one card left
    turn(g, 1)
    act(g, 1, Attack(0, (c("Kc", 1),)))
    act(g, 2, Assist(Side.DEFENDER, c("9c", 2)))
    events = act(g, 0, Defend(tuple(cs("8c 7c", 0))))
    drawn = [(e.seat, e.count) for e in payloads(events, CardsDrawn) if e.cards]
    assert drawn == [(1, 1), (2, 1), (0, 1)]
    assert len(g.hands[0]) == 4 and g.decks[0] == []


def test_ga17_last_card_gives_every_player_one_more_turn() -> None:
    """GA-17: after the turn in which a deck runs out, each player (the drawer included) has one more turn."""
    g = new(3, seed=4)
    start_round = g.round
    g.decks[1] = g.decks[1][-2:]
    turn(g, 0)
    act(g, 0, Discard((g.hands[0][0],)))
    turn(g, 1)
    act(g, 1, Discard((g.hands[1][0],)))  # draws one of two cards: not the last
    assert g.final_turns is None
    turn(g, 1)
    hand_card = min(g.hands[1])
    act(g, 1, Discard((hand_card,)))  # the last card: trigger
    assert g.final_turns == 3 and g.to_act() == (2,)
    g.decks[2] = g.decks[2][-1:]  # another deck running out changes nothing
    for seat in (2, 0, 1):
        assert g.round == start_round and g.to_act() == (seat,)
        act(g, seat, Discard((g.hands[seat][0],)))
    assert g.phase == Phase.ROUND_OVER
    act(g, g.to_act()[0], StartRound())
    assert g.round == start_round + 1


def test_ga17_trigger_in_another_players_turn() -> None:
    """GA-17: a defender drawing his last card after an attack triggers the end too; the attacker's turn is the trigger."""
    g = new(2)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 1, "9c 2h 3h 4h 5h")
    g.decks[1] = g.decks[1][-1:]
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 1, Defend((c("9c", 1),)))
    assert g.final_turns == 2 and g.to_act() == (1,)
    act(g, 1, Discard((g.hands[1][0],)))
    events = act(g, 0, Discard((g.hands[0][0],)))
    assert payloads(events, RoundEnded)[0].reason == RoundEndReason.LAST_CARD


def test_ga18_player_without_cards_is_skipped() -> None:
    """GA-18: with no card in hand at the start of his turn the player is skipped; that counts as his turn."""
    g = new(3)
    hand(g, 1, "")
    g.decks[1] = []
    g.final_turns = 3
    turn(g, 0)
    events = act(g, 0, Discard((g.hands[0][0],)))
    assert payloads(events, TurnSkipped) == [TurnSkipped(1)]
    told = [e.payload for e in events if isinstance(e.payload, (TurnStarted, TurnSkipped))]
    assert [(type(p), p.seat) for p in told] == [(TurnStarted, 1), (TurnSkipped, 1), (TurnStarted, 2)], "started, then skipped"
    assert all(e.visible_to is None for e in events if isinstance(e.payload, TurnSkipped))  # announced to all (GA-24)
    assert g.to_act() == (2,) and g.final_turns == 1


def test_ga19_zero_hp_ends_the_round_at_once_defeated_by_the_attacker() -> None:
    """GA-19: a king at 0 HP ends the round before any draw; the attacker, not his helper, defeated him."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 2, "Qc 2h 3h 4h 5h")
    g.hp[1] = 20
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 2, Assist(Side.ATTACKER, c("Qc", 2)))
    events = act(g, 1, Defend(()))
    kinds = [type(e.payload).__name__ for e in events]
    assert kinds[:4] == ["DefenceCommitted", "AttackResolved", "KingDefeated", "RoundEnded"]
    assert payloads(events, KingDefeated) == [KingDefeated(1, 0)]
    assert payloads(events, RoundEnded)[0].reason == RoundEndReason.KING_DEFEATED
    assert payloads(events, AttackResolved)[0].hp == 0


def test_ga19_assassin_defeats_too() -> None:
    """GA-19: an assassination that brings a king to 0 ends the round; the assassin's master defeated him."""
    g = new(2)
    hand(g, 0, "X0 2d 3d 4d 5d")
    hand(g, 1, "2d 3d 4d 5d 6d")
    g.hp[1] = 10
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    events = act(g, 1, Decline())
    assert payloads(events, KingDefeated) == [KingDefeated(1, 0)]


def test_ga20_round_vp_from_land_and_defeated_kings_land_to_the_victor() -> None:
    """GA-20: land values become VP; the fallen king scores 0 and his land sum goes to his defeater."""
    g = new(3)
    lands(g, 0, "2s 3s")
    lands(g, 1, "9s 8s")
    lands(g, 2, "Ts")
    lands(g, 2, "As", owner=1)  # received through an offer
    hand(g, 0, "Kc 2d 3d 4d 5d")
    g.hp[1] = 5
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 0, OfferLands(()))
    act(g, 1, OfferLands(()))
    act(g, 2, Decline())
    events = act(g, 1, Defend(()))
    ended = payloads(events, RoundEnded)[0]
    assert ended.land_values == (5, 17, 11) and ended.awarded == (22, 0, 11) and g.vp == [22, 0, 11]


def test_ga21_cards_return_to_their_owners_decks_between_rounds() -> None:
    """GA-21: a land in another player's area returns to its owner's deck; decks reshuffled; HP back to 50."""
    g = new(3)
    borrowed = lands(g, 2, "7s", owner=0)
    g.hp = [10, 20, 30]
    end_round(g)
    assert g.vp[2] == 7 and g.round == 2 and g.hp == [50, 50, 50]
    assert borrowed[0] in g.decks[0] + g.hands[0]
    for s in range(3):
        assert sorted(g.decks[s] + g.hands[s]) == sorted(full_deck(s, jokers=True))
        assert g.lands[s] == [] and g.discards[s] == []


# --- GA-22, GA-23 ----------------------------------------------------------------------------


def test_ga22_extra_rounds_until_a_single_leader() -> None:
    """GA-22: a tie for the lead after the last round brings extra rounds for everyone."""
    g = new(3, rounds=1)
    lands(g, 0, "5s")
    lands(g, 1, "5s")
    end_round(g)
    assert g.round == 2 and g.phase == Phase.TURN and g.to_act()
    lands(g, 1, "As")
    events = end_round(g)
    assert g.is_over() and payloads(events, RoundEnded)[0].game_over and g.vp == [5, 6, 0]


def test_ga22_safety_cap_on_extra_rounds_shares_first_place() -> None:
    """GA-22: after max_extra_rounds the game ends and the tied leaders share rank 1."""
    g = new(2, rounds=1, max_extra_rounds=1)
    for _ in range(2):
        lands(g, 0, "4s")
        lands(g, 1, "4s")
        end_round(g)
    assert g.is_over() and g.round == 2 and g.result().ranks == (1, 1)


def test_ga22_default_game_has_eight_rounds() -> None:
    """GA-22: a full random game lasts at least the eight default rounds."""
    g = new(4, seed=11)
    rng = random.Random(0)
    while not g.is_over():
        seat = g.to_act()[0]
        g.apply(seat, g.random_action(seat, rng))
    assert g.round >= 8
    top = max(g.vp)
    assert g.vp.count(top) == 1 or g.round == 8 + 8


def test_ga23_competition_ranks_and_vp_scores() -> None:
    """GA-23: ranks by total VP with ties sharing a rank; score is the VP."""
    g = new(4)
    g.vp = [10, 5, 5, 0]
    assert g.result().ranks == (1, 2, 2, 4) and g.result().scores == (10.0, 5.0, 5.0, 0.0)


def _card_ids(msg: Any) -> set[int]:
    """Every Card id and card_id(s) value inside a protobuf message."""
    found: set[int] = set()
    if isinstance(msg, cards_pb2.Card):
        return {msg.id}
    for fd, val in msg.ListFields():
        items = val if fd.is_repeated else [val]
        for item in items:
            if fd.type == fd.TYPE_MESSAGE:
                found |= _card_ids(item)
            elif fd.name in ("card_id", "card_ids"):
                found.add(int(item))
    return found


@pytest.mark.parametrize("n", [2, 3, 4])
def test_ga24_views_decisions_and_events_hold_no_hidden_card(n: int) -> None:
    """GA-24: what each seat is sent names no card of a deck or of another player's hand."""
    for seed in range(4):
        g = new(n, seed=seed)
        rng = random.Random(seed)
        pending: list[Event] = g.opening_events()
        while not g.is_over():
            for seat in range(n):
                hidden = g.hidden_cards(seat)
                assert not _card_ids(CODEC.view(g.view(seat))) & hidden
                for e in pending:
                    if e.visible(seat):
                        assert not _card_ids(CODEC.event(e.payload, 0)) & hidden, e
            seat = g.to_act()[0]
            assert not _card_ids(CODEC.decision(g.decision(seat))) & g.hidden_cards(seat)
            pending = g.apply(seat, g.random_action(seat, rng))


def test_ga24_draws_split_full_for_drawer_count_for_others() -> None:
    """GA-24: a draw is told in full to the drawer and as a count to others; hidden_cards covers decks and other hands."""
    g = new(3)
    draws = [e for e in g.opening_events() if isinstance(e.payload, CardsDrawn)]
    mine = [e for e in draws if e.visible_to == frozenset({0})]
    theirs = [e for e in draws if e.payload.seat == 0 and e.visible_to == frozenset({1, 2})]
    assert sorted(mine[0].payload.cards) == sorted(g.hands[0])
    assert theirs[0].payload.cards == () and theirs[0].payload.count == 5
    hidden = g.hidden_cards(0)
    assert set(g.hands[1]) <= hidden and set(g.decks[0]) <= hidden and not set(g.hands[0]) & hidden


def test_ga25_default_actions_are_passive_and_legal() -> None:
    """GA-25: discard the lowest card; no offer; decline; empty defence; no assassin."""
    g = new(3)
    hand(g, 0, "Kc 3d Ah 9s X0")
    lands(g, 0, "5s")
    turn(g, 0)
    assert g.default_action(0) == Discard((c("Ah", 0),))
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.default_action(0) == OfferLands(())
    act(g, 0, g.default_action(0))
    assert g.default_action(2) == Decline()
    act(g, 2, g.default_action(2))
    assert g.default_action(1) == Defend(())
    act(g, 1, g.default_action(1))
    turn(g, 0)
    hand(g, 0, "X0 2d 3d 4d 5d")
    act(g, 0, Assassinate(1, c("X0", 0)))
    assert g.default_action(1) == Decline() and g.check(1, Decline()) is None


def test_ga25_default_actions_always_finish_a_game() -> None:
    """GA-25: a game played only with default actions ends."""
    g = new(4, seed=5)
    steps = 0
    while not g.is_over():
        seat = g.to_act()[0]
        g.apply(seat, g.default_action(seat))
        steps += 1
    assert g.round >= 8 and steps > 100


def test_ga26_two_players_no_offers_or_assists() -> None:
    """GA-26: with two players the defender answers at once, even when both have land."""
    g = new(2)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    lands(g, 0, "5s")
    lands(g, 1, "6s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.phase == Phase.DEFEND and g.to_act() == (1,)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_legal_actions_pass_check_and_random_actions_are_listed(n: int) -> None:
    """Enumeration and validation come from the same decision; random and default actions are legal."""
    for seed in range(3):
        g = new(n, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            seat = g.to_act()[0]
            listed = []
            for i, a in enumerate(g.legal_actions(seat)):
                assert g.check(seat, a) is None, a
                listed.append(a)
                if i > 2000:
                    break
            action = g.random_action(seat, rng)
            assert g.check(seat, action) is None
            assert g.check(seat, g.default_action(seat)) is None
            if len(listed) <= 2000:
                assert action in listed
            assert CODEC.decode_action(CODEC.action(action)) == action
            g.apply(seat, action)


def test_offer_actions_are_compact_and_sampled_without_enumeration() -> None:
    """Offers explode (3^lands); the decision stays small and random_action samples one directly."""
    g = new(4)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    lands(g, 0, "As 2s 3s 4s 5s 6s 7s 8s 9s Ts")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    d = g.decision(0)
    assert isinstance(d, OfferChoice) and len(d.lands) == 10
    action = g.random_action(0, random.Random(3))
    assert g.check(0, action) is None


def test_replay_from_seed_and_actions() -> None:
    """(seed, actions) replays exactly."""
    g = new(4, seed=21)
    rng = random.Random(5)
    actions = []
    while not g.is_over():
        seat = g.to_act()[0]
        a = g.random_action(seat, rng)
        actions.append((seat, a))
        g.apply(seat, a)
    again = new(4, seed=21)
    for seat, a in actions:
        again.apply(seat, a)
    assert again.is_over() and again.vp == g.vp and again.full_state() == g.full_state()


def test_ga27_round_pauses_with_its_cards_face_up_until_the_next_first_player_starts() -> None:
    """GA-27: after scoring, the round's cards stay visible; the next first player's StartRound reshuffles and deals."""
    g = new(3)
    hand(g, 0, "Ah 2d 3d 4d 5d")
    g.decks[0] = g.decks[0][-1:]
    g.final_turns = 1
    g.vp = [9, 0, 4]
    turn(g, 0)
    events = act(g, 0, Discard(tuple(cs("Ah 2d 3d", 0))))
    assert payloads(events, RoundEnded)[0].round == 1 and not payloads(events, RoundStarted)
    assert g.phase == Phase.ROUND_OVER and g.to_act() == (1,)
    assert g.decision(1) == NextRoundChoice(2, 1) and list(g.legal_actions(1)) == [StartRound()]
    assert set(cs("Ah 2d 3d", 0)) <= set(g.discards[0]) and not set(cs("Ah 2d 3d", 0)) & g.hidden_cards(1)
    assert g.check(1, Decline()) is not None and g.default_action(1) == StartRound()
    events = act(g, 1, StartRound())
    assert payloads(events, RoundStarted) == [RoundStarted(2, 1)]
    assert g.round == 2 and g.phase == Phase.TURN and g.to_act() == (1,) and g.discards[0] == []


def test_a_players_public_record_follows_every_change_even_of_equal_size() -> None:
    game = GeneralsAndAssassins(3, 5)
    before = game.view(1).players[0]
    assert game.view(1).players[0] is before, "nothing changed: the same record"
    game.discards[0].append(game.decks[0][0])
    game.lands[0].append(game.decks[0][1])
    after = game.view(1).players[0]
    assert after.discard == (*before.discard, game.decks[0][0]) and after.lands == (*before.lands, game.decks[0][1])
    assert after.land_value == before.land_value + value(game.decks[0][1])
