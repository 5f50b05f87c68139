"""Generals & Assassins, scripted mutation audit: cases a changed engine passed every other test of the game with
(rulings GA-3, GA-6 to GA-9, GA-12, GA-17, GA-19, GA-20, GA-24)."""

from __future__ import annotations

from typing import Any, cast

from referee.compiled import in_use as compiled_rules
from referee.games.generals_and_assassins.types import (
    Action,
    Assassinate,
    AssassinationDeclared,
    AssassinDeclined,
    AssassinPlayed,
    Assist,
    AssistChoice,
    AssistDeclined,
    Attack,
    AttackResolved,
    Decline,
    DefenceChoice,
    Defend,
    Discard,
    KingDefeated,
    LandsOffered,
    LastCardDrawn,
    Offer,
    OfferLands,
    Phase,
    PlayAssassin,
    RoundEnded,
    Side,
)
from tests.games.test_generals_and_assassins_rules import act, c, cs, first_assassin_blocked, hand, hands, lands, new, payloads, turn


def test_ga3_only_generals_and_soldiers_defend_or_assist() -> None:
    """GA-3, GA-7, GA-9: land, money, hearts and jokers in hand are no fighters: a defender or helper cannot play them."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 2: "9c 5s 5d 5h X0", 1: "8c 7s 7d 7h X1"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.decision(2) == AssistChoice((c("9c", 2),), 0, 1)
    for name in "5s 5d 5h X0".split():
        assert g.check(2, Assist(Side.DEFENDER, c(name, 2))) is not None, name
    act(g, 2, Assist(Side.DEFENDER, c("9c", 2)))
    assert g.decision(1) == DefenceChoice((c("8c", 1),), 12, 9)
    for name in "7s 7d 7h X1".split():
        assert g.check(1, Defend((c(name, 1),))) is not None, name
    assert {a for a in g.legal_actions(1)} == {Defend(()), Defend((c("8c", 1),))}


def test_ga7_a_helper_may_assist_either_side_with_each_of_his_fighters() -> None:
    """GA-7: every general or soldier in the helper's hand may go to the attacker or to the defender."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 2: "9c Qh 2d 3d 4d"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    fighters = (c("9c", 2), c("Qh", 2))
    listed = set(g.legal_actions(2))
    assert {Assist(side, card) for side in (Side.ATTACKER, Side.DEFENDER) for card in fighters} <= listed


def test_ga6_an_offer_naming_no_land_is_refused() -> None:
    """GA-6: an offer names one or more lands; one naming none, or something that is not an offer, is refused."""
    g = new(3)
    hand(g, 0, "Kc 2d 3d 4d 5d")
    lands(g, 0, "5s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert g.check(0, OfferLands((Offer(2, ()),))) is not None
    if not compiled_rules():  # compiled, the typed rules refuse the mistyped object with a TypeError before any check
        assert g.check(0, OfferLands(cast(Any, ((2, tuple(cs("5s", 0))),)))) is not None
    assert g.check(0, OfferLands((Offer(2, tuple(cs("5s", 0))),))) is None


def test_ga19_a_king_left_with_one_hp_plays_on() -> None:
    """GA-19: only 0 HP ends the round; a defender left with 1 HP keeps his round and the turn passes on."""
    g = new(2)
    hands(g, {0: "Kc 2d 3d 4d 5d", 1: "2d 3d 4d 5d 6d"})
    g.hp[1] = 13
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    events = act(g, 1, Defend(()))
    assert payloads(events, AttackResolved)[0].hp == 1 and g.hp[1] == 1
    assert not payloads(events, KingDefeated) and not payloads(events, RoundEnded)
    assert g.phase == Phase.TURN and g.to_act() == (1,) and g.round == 1


def test_ga12_assassin_events_say_which_joker_blocks() -> None:
    """GA-12, GA-24: each joker played or withheld is told to everyone as the defender's block or the attacker's try."""
    g = new(3)
    hands(g, {0: "X0 X1 2d 3d 4d", 1: "X0 X1 2d 3d 4d"})
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    assert payloads(act(g, 1, PlayAssassin(c("X0", 1))), AssassinPlayed) == [AssassinPlayed(1, c("X0", 1), True)]
    assert payloads(act(g, 0, PlayAssassin(c("X1", 0))), AssassinPlayed) == [AssassinPlayed(0, c("X1", 0), False)]
    assert payloads(act(g, 1, Decline()), AssassinDeclined) == [AssassinDeclined(1, True)]
    assert g.hp[1] == 25

    g = first_assassin_blocked("X0 2d 3d 4d 5d", "X0 2d 3d 4d 5d")
    assert payloads(act(g, 0, Decline()), AssassinDeclined) == [AssassinDeclined(0, False)]
    assert g.hp[1] == 50


def test_ga24_the_battle_under_way_shows_offers_assists_declines_and_the_block() -> None:
    """GA-24: while a battle is under way every seat's view shows the offers made, the assists and declines given so far,
    and, in an assassination, the defender's blocking joker."""
    g = new(4)
    hands(g, {0: "Kc 2d 3d 4d 5d", 2: "9c 2d 3d 4d 5d", 3: "8c 2d 3d 4d 5d"})
    offered = lands(g, 0, "5s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 0, OfferLands((Offer(3, tuple(offered)),)))
    act(g, 2, Decline())
    for seat in range(4):
        battle = g.view(seat).battle
        assert battle is not None
        assert [(o.from_seat, o.to_seat, o.lands) for o in battle.offers] == [(0, 3, tuple(offered))]
        assert battle.declined == (2,) and battle.assists == ()
    act(g, 3, Assist(Side.ATTACKER, c("8c", 3)))
    battle = g.view(1).battle
    assert battle is not None and [(a.seat, a.side, a.card) for a in battle.assists] == [(3, Side.ATTACKER, c("8c", 3))]

    g = first_assassin_blocked("X0 X1 2d 3d 4d", "X0 2d 3d 4d 5d")
    for seat in range(2):
        battle = g.view(seat).battle
        assert battle is not None and battle.defender_cards == (c("X0", 1),) and battle.attacker_cards == (c("X0", 0),)



def test_ga8_received_land_joins_the_helpers_own() -> None:
    """GA-8, GA-20: land received for an assist is added to the lands the helper already had, which he keeps."""
    g = new(3)
    hands(g, {0: "Kc 2d 3d 4d 5d", 2: "9c 2h 3h 4h 5h"})
    offered = lands(g, 0, "5s")
    own = lands(g, 2, "8s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    act(g, 0, OfferLands((Offer(2, tuple(offered)),)))
    act(g, 2, Assist(Side.ATTACKER, c("9c", 2)))
    assert g.lands[2] == own + offered and g.lands[0] == []
    assert g.view(1).players[2].land_value == 8 + 5


def test_ga12_ga24_assassination_declared_names_attacker_and_target_and_views_name_the_game_length() -> None:
    """GA-12, GA-24: the declaration tells who assassinates whom; a view tells the rounds in the game, the first player,
    whoever's turn it is, and the seat now acting (the target)."""
    g = new(3, rounds=5)
    hand(g, 2, "X1 2d 3d 4d 5d")
    g.first_player = 1
    turn(g, 2)
    events = act(g, 2, Assassinate(0, c("X1", 2)))
    assert payloads(events, AssassinationDeclared) == [AssassinationDeclared(2, 0, c("X1", 2))]
    view = g.view(0)
    assert (view.round, view.rounds, view.first_player, view.turn_player, view.acting) == (1, 5, 1, 2, 0)


def test_every_decision_refuses_an_action_of_another_kind() -> None:
    """An answer of the wrong kind is refused, whatever is asked: a turn, an offer, an assist, a defence, an assassin."""
    g = new(3)
    hands(g, {0: "Kc X0 2d 3d 4d", 1: "8c X1 2d 3d 4d", 2: "9c 2d 3d 4d 5d"})
    lands(g, 0, "5s")
    turn(g, 0)
    wrong: list[Action] = [Decline(), Defend(()), OfferLands(()), Assist(Side.ATTACKER, c("9c", 2)), PlayAssassin(c("X0", 0))]
    assert all(g.check(0, a) is not None for a in wrong)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert all(g.check(0, a) is not None for a in wrong if not isinstance(a, OfferLands))
    act(g, 0, OfferLands(()))
    assert all(g.check(2, a) is not None for a in wrong if not isinstance(a, (Decline, Assist)))
    act(g, 2, Decline())
    assert all(g.check(1, a) is not None for a in wrong if not isinstance(a, Defend))
    act(g, 1, Defend(()))
    turn(g, 0)
    act(g, 0, Assassinate(1, c("X0", 0)))
    assert g.check(1, Defend(())) is not None and g.check(1, OfferLands(())) is not None
    assert g.check(1, Assist(Side.ATTACKER, c("8c", 1))) is not None


def test_ga24_offer_and_decline_events_name_their_player() -> None:
    """GA-24: each offer event names the side that made it, each decline the helper who declined."""
    g = new(4)
    hands(g, {0: "Kc 2d 3d 4d 5d", 1: "2d 3d 4d 5d 6d"})
    mine, theirs = lands(g, 0, "5s"), lands(g, 1, "6s")
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    assert [o.seat for o in payloads(act(g, 0, OfferLands((Offer(2, tuple(mine)),))), LandsOffered)] == [0]
    assert [o.seat for o in payloads(act(g, 1, OfferLands((Offer(3, tuple(theirs)),))), LandsOffered)] == [1]
    assert [o.seat for o in payloads(act(g, 2, Decline()), AssistDeclined)] == [2]
    assert [o.seat for o in payloads(act(g, 3, Decline()), AssistDeclined)] == [3]


def test_ga17_the_last_card_event_names_the_drawer_not_the_turn_player() -> None:
    """GA-17: a deck may run out in another player's turn; the event names whose deck it was."""
    g = new(3)
    hand(g, 2, "2d 3d 4d 5d")
    g.decks[2] = g.decks[2][-1:]
    turn(g, 0)
    events = act(g, 0, Discard((g.hands[0][0],)))
    assert payloads(events, LastCardDrawn) == [LastCardDrawn(2, 3)] and g.decks[2] == []


def test_ga20_the_recorded_round_gives_the_fallen_kings_land_to_his_killer() -> None:
    """GA-20: the round's record in the full state says what each player was awarded, as the RoundEnded event does."""
    g = new(2)
    hands(g, {0: "Kc 2d 3d 4d 5d", 1: "2d 3d 4d 5d 6d"})
    lands(g, 0, "3s")
    lands(g, 1, "4s")
    g.hp[1] = 5
    turn(g, 0)
    act(g, 0, Attack(1, (c("Kc", 0),)))
    ended = payloads(act(g, 1, Defend(())), RoundEnded)[0]
    assert ended.awarded == (3 + 4, 0)
    record = g.full_state()["rounds_played"][-1]
    assert (record["land_values"], record["awarded"], record["reason"]) == ([3, 4], [7, 0], "KING_DEFEATED")
