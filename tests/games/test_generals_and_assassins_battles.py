"""Generals & Assassins battles: how offers lapse, who is asked, and the damage reported (rulings GA-8, GA-10, GA-12, GA-25)."""

from __future__ import annotations

from referee.games.generals_and_assassins.types import (
    AssassinationResolved,
    AssassinChoice,
    Assassinate,
    Attack,
    AttackResolved,
    Decline,
    Defend,
    LandTransferred,
    Offer,
    OfferLands,
    PlayAssassin,
)
from tests.games.test_generals_and_assassins_rules import act, c, cs, hand, lands, new, payloads, turn


def test_ga8_offer_lapses_on_decline_and_received_land_defends_its_new_holder() -> None:
    """GA-8: a declined offer moves nothing; a land received earlier adds 2 DP to its new holder's defence."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    hand(g, 2, "9c 2h 3h 4h 5h")
    offered = lands(g, 0, "5s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 0, OfferLands((Offer(2, tuple(offered)),)))
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
    g = new(2)
    hand(g, 0, "X0 2d 3d 4d 5d")
    hand(g, 1, "X0 2d 3d 4d 5d")
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    act(g, 1, PlayAssassin(c("X0", 1)))
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
