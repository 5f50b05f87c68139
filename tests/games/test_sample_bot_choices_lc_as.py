"""The Land & Castle and Assassination Game sample bots make the choices their docstrings describe.

Land & Castle: asked at real decisions from seeded random games. Assassination: a few decisions from real games,
and views built by hand for the identity rules, as the sniper's test in test_assassination_bot.py does.
"""

from __future__ import annotations

import copy
from typing import Any

from arena.v1 import assassination_pb2 as asn
from arena_sdk.games import assassination as ag
from arena_sdk.games import land_and_castle as lc
from referee.games.assassination import Assassination
from referee.games.assassination import types as ast
from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle import types as lct
from tests.games.sample_bot_states import answer, decisions, request_for
from tests.games.test_assassination_support import PURE_RULES_ONLY, sniper_detention_question
from tests.support import load_bot_class

LCBot = load_bot_class("land_and_castle_heuristic", "HeuristicBot")
card = load_bot_class("land_and_castle_heuristic", "card")
ASBot = load_bot_class("assassination_heuristic", "HeuristicBot")
president_distance = load_bot_class("assassination_heuristic", "president_distance")


# --- Land & Castle --------------------------------------------------------------------------------


def test_lc_never_places_a_face_card_as_castle_or_general() -> None:
    for kind in ("castle_choice", "general_choice"):
        for game, seat, request in decisions(LandAndCastle, 2, range(20), kind):
            hand = [card(c) for c in request.choice.playable]
            placed = next(c for c in hand if c.id == answer(LCBot(), game, seat, request).card_id)
            if any(not lc.is_face(c) for c in hand):
                assert not lc.is_face(placed), (kind, hand, placed)


def test_lc_swaps_only_a_worthless_card() -> None:
    for kind in ("attack_choice", "defend_choice"):
        for game, seat, request in decisions(LandAndCastle, 2, range(4), kind):
            action = answer(LCBot(), game, seat, request)
            if isinstance(action, lct.SwapCard):
                assert lc.army_value(next(card(c) for c in request.choice.swappable if c.id == action.card_id)) <= 2


def test_lc_defends_with_the_cheapest_winning_army_or_throws_its_weakest() -> None:
    won = lost = 0
    for game, seat, request in decisions(LandAndCastle, 2, range(6), "defend_choice"):
        choice, view = request.choice, request.view
        action = answer(LCBot(), game, seat, request)
        if isinstance(action, lct.SwapCard):
            continue
        mine = view.players[seat]
        general, castle = lc.card_of(mine, "general"), lc.card_of(mine, "castle")
        ground, attacker = card(view.lands[choice.land].card), card(choice.attacking_army)
        hand = [card(c) for c in choice.playable]
        winning = [c for c in hand if lc.defender_wins(attacker, choice.attacker_total, c, lc.total(c, ground, general, castle, False))]
        played = next(c for c in hand if c.id == action.card_id)
        if winning:
            won += 1
            assert played in winning and lc.army_value(played) == min(lc.army_value(c) for c in winning)
        else:
            lost += 1
            assert lc.army_value(played) == min(lc.army_value(c) for c in hand)
    assert won and lost


def test_lc_claims_a_winning_capture_else_takes_control_of_the_opponents_land_first() -> None:
    controls = captures = 0
    for game, seat, request in decisions(LandAndCastle, 2, range(15), "claim_choice"):
        choice, view = request.choice, request.view
        owners = [land.owner if land.HasField("owner") else None for land in view.lands]
        action = answer(LCBot(), game, seat, request)
        after = copy.deepcopy(game)
        after.apply(seat, action)
        if isinstance(action, lct.Control):
            controls += 1
            open_lands = [owners[p] for p in choice.lands]
            if 1 - seat in open_lands:
                assert owners[action.land] == 1 - seat, (owners, action)
            elif None in open_lands:
                assert owners[action.land] is None, (owners, action)
            elif choice.battle_land in choice.lands:
                assert action.land == choice.battle_land
        else:
            captures += 1
            assert after.is_over(), action  # the bot captures only to win at once
    assert controls and captures


# --- Assassination --------------------------------------------------------------------------------


def test_as_detains_a_bomber_whenever_it_can() -> None:
    reactions = 0
    for game, seat, request in decisions(Assassination, 4, range(8), "reaction_choice"):
        reactions += 1
        assert answer(ASBot(), game, seat, request).detain == request.choice.can_detain
    assert reactions


@PURE_RULES_ONLY
def test_as_police_officer_lets_the_sniper_go_only_as_the_bad_cop() -> None:
    for bad_cop in (False, True):  # the bad cop may let the sniper go, and does
        game = sniper_detention_question(bad_cop)
        for seat in game.to_act():
            request = request_for(game, seat)
            assert request.kind == "sniper_detention_choice" and request.choice.can_ignore == bad_cop
            assert answer(ASBot(), game, seat, request).detain == (not bad_cop)


def test_as_plays_an_action_card_only_when_it_has_something_to_do() -> None:
    for game, seat, request in decisions(Assassination, 4, range(3), "event_choice"):
        cards = {c.id: c for c in request.choice.playable}
        played = cards[answer(ASBot(), game, seat, request).card_id]
        if any(not ag.is_action(c) for c in cards.values()) and not ASBot().wants_to_act(request.view):
            assert not ag.is_action(played)


def test_as_escaping_president_goes_to_the_nearest_refuge_the_bunker_on_a_tie() -> None:
    escapes = 0
    for game, seat, request in decisions(Assassination, 4, range(40), "president_move_choice"):
        choice = request.choice
        if not choice.escaping:
            continue
        escapes += 1
        room = answer(ASBot(), game, seat, request).room
        key = {int(r): (min(president_distance(r, asn.BUNKER), president_distance(r, asn.HELIPAD)), president_distance(r, asn.BUNKER) > president_distance(r, asn.HELIPAD)) for r in choice.rooms}
        assert key[int(room)] == min(key.values())
        if escapes >= 20:
            break
    assert escapes


def view_of(identity: Any, mine: Any, other: Any = None, president: Any = asn.HALL, **kw: Any) -> asn.View:
    """Colour 0 is this bot in room ``mine``; colour 1 stands in ``other`` (off the board when None)."""
    view = asn.View(identity=identity, colour=0, president=asn.President(room=president, status=kw.pop("status", asn.UNHARMED)), **kw)
    view.pieces.extend([asn.Piece(colour=0, room=mine), asn.Piece(colour=1) if other is None else asn.Piece(colour=1, room=other)])
    return view


def test_as_sniper_shoots_only_unseen() -> None:
    bot = ASBot()
    assert bot.best_kind(view_of(asn.SNIPER, asn.TOWER, None, asn.PODIUM)) == (asn.SNIPE, None, None)
    assert bot.best_kind(view_of(asn.SNIPER, asn.TOWER, asn.TOWER, asn.PODIUM)) is None  # not alone in the tower
    assert bot.best_kind(view_of(asn.SNIPER, asn.HALL, None, asn.HALL)) == (asn.SHOOT_PRESIDENT, None, None)
    assert bot.best_kind(view_of(asn.SNIPER, asn.HALL, asn.HALL, asn.HALL)) is None  # a witness in the room
    # After an incident the sniper heads for the public exit, not after the president.
    assert bot.target_room(view_of(asn.SNIPER, asn.HALL, None, asn.COURTYARD, incident=True)) == asn.PUBLIC_EXIT


def test_as_bomber_never_blows_up_the_security_office() -> None:
    bot = ASBot()
    for room in (asn.SECURITY_OFFICE, asn.HALL):
        view = view_of(asn.BOMBER, next(r for r in ag.adjacent(room)), None, room, status=asn.INJURED)
        view.pieces[0].visited.append(room)
        assert bot.best_kind(view) == (None if room == asn.SECURITY_OFFICE else (asn.DETONATE, None, room))


def test_as_police_officer_shoots_a_revealed_assassin_only_after_an_incident_and_detains_only_the_free() -> None:
    bot = ASBot()
    for incident, kind in ((False, asn.DETAIN), (True, asn.SHOOT_PLAYER)):
        view = view_of(asn.POLICE_OFFICER, asn.HALL, asn.HALL, incident=incident)
        view.revealed.append(asn.Revealed(colour=1, identity=asn.BOMBER))
        assert bot.best_kind(view) == (kind, 1, None)
    view = view_of(asn.SECRET_SERVICE, asn.HALL, asn.HALL)
    view.revealed.append(asn.Revealed(colour=1, identity=asn.SNIPER))
    assert bot.best_kind(view) == (asn.DETAIN, 1, None)
    view.pieces[1].detained = True
    assert bot.best_kind(view) is None


def test_as_bomber_plants_on_the_podium_then_waits_next_door() -> None:
    bot = ASBot()
    view = view_of(asn.BOMBER, asn.HALL, None, asn.HALL)
    assert bot.target_room(view) == asn.PODIUM
    view.pieces[0].visited.append(asn.PODIUM)
    assert bot.target_room(view) == asn.COURTYARD
