"""Generals & Assassins battles: how offers lapse, who is asked, the damage reported, a defeat's VP and a double trigger (rulings GA-6 to GA-8, GA-10, GA-12, GA-17, GA-19, GA-20, GA-25)."""

from __future__ import annotations

from referee.games.generals_and_assassins.types import (
    AssassinationResolved,
    AssassinChoice,
    Assassinate,
    Assist,
    AssistChoice,
    AssistGiven,
    Attack,
    AttackResolved,
    Decline,
    Defend,
    Discard,
    KingDefeated,
    LandTransferred,
    LastCardDrawn,
    Offer,
    OfferChoice,
    OfferLands,
    PlayAssassin,
    RoundEnded,
    Side,
)
from tests.games.test_generals_and_assassins_rules import act, c, cs, first_assassin_blocked, hand, lands, new, payloads, turn


def test_ga8_offer_lapses_on_decline_and_received_land_defends_its_new_holder() -> None:
    """GA-8: a declined offer moves nothing (a recipient with no fighter is asked all the same and can only decline); a land
    received earlier adds 2 DP to its new holder's defence."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 2, "2h 3h 4h 5h 6h")
    offered = lands(g, 0, "5s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 0, OfferLands((Offer(2, tuple(offered)),)))
    assert g.decision(2) == AssistChoice((), 0, 1) and list(g.legal_actions(2)) == [Decline()]
    events = act(g, 2, Decline())
    assert not payloads(events, LandTransferred) and g.lands[0] == offered and g.lands[2] == []

    g = new(2)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 1, "2d 3d 4d 5d 6d")
    lands(g, 1, "7s", owner=0)  # seat 0's land, received by seat 1 in an earlier battle
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    events = act(g, 1, Defend(()))
    assert payloads(events, AttackResolved)[0].defence_points == 2 and g.hp[1] == 50 - 10


def test_ga12_attacker_without_a_second_assassin_is_still_asked_and_hp_stops_at_zero() -> None:
    """GA-12, GA-25: after a block the attacker is asked even with no joker left (default: decline); 25 HP never goes below 0."""
    g = first_assassin_blocked("X0 2d 3d 4d 5d", "X0 2d 3d 4d 5d")
    assert g.to_act() == (0,) and g.decision(0) == AssassinChoice((), False)
    assert list(g.legal_actions(0)) == [Decline()] and g.default_action(0) == Decline()
    act(g, 0, Decline())
    hand(g, 1, "X1 2d 3d 4d 5d")
    g.hp[0] = 10
    turn(g, 1)
    act(g, 1, Assassinate(0, c("X1", 1)))
    events = act(g, 0, Decline())
    resolved = payloads(events, AssassinationResolved)[0]
    assert resolved.success and resolved.hp == 0 and g.hp[0] == 0


def test_ga10_ga12_damage_reported_is_the_hp_actually_lost() -> None:
    """GA-10, GA-12: HP stops at 0, so an event's damage (HP the defender lost) is at most the HP he had."""
    g = new(2)
    hand(g, 0, "Kc Qc 2d 3d 4d")
    hand(g, 1, "2d 3d 4d 5d 6d")
    g.hp[1] = 20
    turn(g, 0)
    act(g, 0, Attack(1, tuple(cs("Kc Qc", 0))))
    events = act(g, 1, Defend(()))
    resolved = payloads(events, AttackResolved)[0]
    assert (resolved.attack_points, resolved.damage, resolved.hp) == (23, 20, 0)
    assert g.last_battle is not None and g.last_battle.damage == 20

    g = new(2)
    hand(g, 0, "X0 2d 3d 4d 5d")
    g.hp[1] = 10
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    events = act(g, 1, Decline())
    assert payloads(events, AssassinationResolved)[0] == AssassinationResolved(0, 1, True, 10, 0)


def test_ga6_ga8_received_land_may_be_offered_on_and_all_lands_given_away_leave_no_land_dp() -> None:
    """GA-6, GA-8: a defender may offer a land he received; giving every land away leaves him no 2 DP bonus."""
    g = new(3)
    hand(g, 0, "Kc Qc 2d 3d 4d")
    hand(g, 2, "9c 2h 3h 4h 5h")
    own = lands(g, 1, "9s")
    received = lands(g, 1, "8s", owner=0)
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0), c("Qc", 0))))
    assert g.decision(1) == OfferChoice(Side.DEFENDER, tuple(own + received), (2,))
    act(g, 1, OfferLands((Offer(2, tuple(sorted(own + received))),)))
    events = act(g, 2, Assist(Side.DEFENDER, c("9c", 2)))
    assert payloads(events, LandTransferred)[0].lands == tuple(sorted(own + received))
    assert g.lands[1] == [] and sorted(g.lands[2]) == sorted(own + received)
    events = act(g, 1, Defend(()))
    resolved = payloads(events, AttackResolved)[0]
    assert (resolved.attack_points, resolved.defence_points, resolved.damage) == (23, 9, 14)


def test_ga19_ga20_defeated_defenders_given_land_scores_for_its_new_holder_and_the_rest_for_the_victor() -> None:
    """GA-19, GA-20: a land the fallen king gave away in the fatal battle scores for its holder, the rest for the attacker."""
    g = new(3)
    hand(g, 0, "Kc Qc Jc 2d 3d")
    hand(g, 2, "2c 2h 3h 4h 5h")
    given = lands(g, 1, "9s")
    lands(g, 1, "3s")  # kept to the end: its 3 VP go to the victor
    g.hp[1] = 20
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0), c("Qc", 0), c("Jc", 0))))
    act(g, 1, OfferLands((Offer(2, tuple(given)),)))
    act(g, 2, Assist(Side.DEFENDER, c("2c", 2)))
    events = act(g, 1, Defend(()))
    assert payloads(events, KingDefeated)[0].by == 0
    ended = payloads(events, RoundEnded)[0]
    assert ended.land_values == (0, 3, 9) and ended.awarded == (3, 0, 9)


def test_ga17_two_decks_running_out_in_one_turn_trigger_the_end_once() -> None:
    """GA-17: two decks emptied by the draws of one turn give one trigger and one more turn for each player."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 1, "9c 2h 3h 4h 5h")
    g.decks[0] = g.decks[0][-1:]
    g.decks[1] = g.decks[1][-1:]
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 2, Decline())
    events = act(g, 1, Defend((c("9c", 1),)))
    assert len(payloads(events, LastCardDrawn)) == 1 and g.final_turns == 3 and g.to_act() == (1,)
    for seat in (1, 2, 0):
        events = act(g, seat, Discard((g.hands[seat][0],)))
    assert payloads(events, RoundEnded)


def test_ga12_an_unblocked_second_assassin_succeeds() -> None:
    """GA-12: after a block, the attacker's second assassin takes 25 HP when the defender has no joker left to stop it."""
    g = first_assassin_blocked("X0 X1 2d 3d 4d", "X0 2d 3d 4d 5d")
    act(g, 0, PlayAssassin(c("X1", 0)))
    assert g.decision(1) == AssassinChoice((), True)
    events = act(g, 1, Decline())
    assert payloads(events, AssassinationResolved) == [AssassinationResolved(0, 1, True, 25, 25)]
    assert g.hp[1] == 25 and sorted(g.discards[0]) == cs("X0 X1", 0) and g.discards[1] == [c("X0", 1)]


def test_ga12_assassination_asks_no_offer_and_no_assist_even_with_land_and_bystanders() -> None:
    """GA-12: with four players and land on both sides, an assassination goes straight to the defender and back."""
    g = new(4)
    hand(g, 0, "X0 2d 3d 4d 5d")
    hand(g, 1, "2d 3d 4d 5d 6d")
    for seat in (2, 3):
        hand(g, seat, "Kc Qc 2d 3d 4d")
    lands(g, 0, "9s")
    lands(g, 1, "8s")
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    assert g.to_act() == (1,) and g.decision(1) == AssassinChoice((), True)
    events = act(g, 1, Decline())
    assert payloads(events, AssassinationResolved)[0].success and g.to_act() == (1,)
    battle = g.last_battle
    assert battle is not None and battle.offers == () and battle.assists == () and battle.declined == ()


def test_ga6_ga8_attacker_offers_to_two_players_and_only_the_helpers_offer_is_paid() -> None:
    """GA-6, GA-8: one offer to each of two bystanders is legal; the one who assists the attacker receives his lands at once
    (they score for him), the one who declines receives nothing."""
    g = new(4)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 2, "9c 2h 3h 4h 5h")
    hand(g, 3, "8c 2h 3h 4h 5h")
    to_two, to_three = lands(g, 0, "6s"), lands(g, 0, "4s 3s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    events = act(g, 0, OfferLands((Offer(2, tuple(to_two)), Offer(3, tuple(sorted(to_three))))))
    assert g.to_act() == (2,), "the defender has no land: no offer of his"
    events = act(g, 2, Assist(Side.ATTACKER, c("9c", 2)))
    assert payloads(events, LandTransferred) == [LandTransferred(0, 2, tuple(to_two))]
    assert [type(e.payload) for e in events] == [AssistGiven, LandTransferred], "the assist accepts: told first"
    assert g.lands[2] == to_two and sorted(g.lands[0]) == sorted(to_three)
    events = act(g, 3, Decline())
    assert not payloads(events, LandTransferred) and g.lands[3] == []
    events = act(g, 1, Defend(()))
    assert payloads(events, AttackResolved)[0].attack_points == 12 + 9
    assert [p.land_value for p in g.view(1).players] == [7, 0, 6, 0]


def test_ga7_every_seat_sees_who_declined_to_assist() -> None:
    """GA-7: a bystander's refusal is shown at once, to the players asked after him and to the defender, and stays in the
    resolved battle."""
    g = new(4)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 2, "9c 2h 3h 4h 5h")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 2, Decline())
    for seat in range(4):
        battle = g.view(seat).battle
        assert battle is not None and battle.declined == (2,)
    act(g, 3, Decline())
    act(g, 1, Defend(()))
    assert g.last_battle is not None and g.view(3).last_battle == g.last_battle and g.last_battle.declined == (2, 3)
