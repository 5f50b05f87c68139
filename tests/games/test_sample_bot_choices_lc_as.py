"""The Land & Castle and Assassination Game sample bots make the choices their docstrings describe.

Land & Castle: asked at real decisions from seeded random games, and at a few set up by hand, its attacks judged
by a win count made here from the referee's battle rules. Assassination: a few decisions from real games,
and views built by hand for the identity rules, as the sniper's test in test_assassination_bot.py does.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Sequence
from typing import Any

from arena.v1 import assassination_pb2 as asn
from arena.v1 import cards_pb2
from arena_sdk.bot import Request
from arena_sdk.games import assassination as ag
from arena_sdk.games import land_and_castle as lc
from referee.games.assassination import Assassination
from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle import types as lct
from referee.games.land_and_castle.enums import Phase
from referee.games.land_and_castle.rules import battle_side, battle_winner, converted
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
            row = list(game.lands)
            row[action.land] = action.card_id
            assert converted(row, game.face_up), action  # the bot captures only to win at once (LC-17)
    assert controls and captures


def cid(name: str) -> int:
    """A card id from its name: "Tc" is the ten of clubs, "Kh" the king of hearts."""
    return "cdhs".index(name[1]) * 13 + "A23456789TJQK".index(name[0])


def optional_id(holder: Any, field: str) -> int | None:
    return int(getattr(holder, field).id) if holder.HasField(field) else None


def unseen(view: Any) -> list[int]:
    """The cards that may be the opponent's army: not in the seat's hand, on a face-up land, a castle, a general, a
    discard pile or the battle, nor known to lie in a draw pile (``view.known``, LC-25)."""
    seen = {c.id for c in view.hand} | {land.card.id for land in view.lands if land.HasField("card")}
    seen |= {pile_card.card.id for known in view.known for pile_card in known.draw_pile}
    for p in view.players:
        seen |= {c.id for c in p.discard} | {c for c in (optional_id(p, "castle"), optional_id(p, "general")) if c is not None}
    if view.HasField("battle"):
        seen |= {view.battle.attacker.army.id} | ({view.battle.defender.army.id} if view.battle.HasField("defender") else set())
    return [c for c in range(52) if c not in seen]


def win_chance(view: Any, army: int, position: int) -> float:
    """The share of the unseen cards that lose as the defender's army to ``army`` on face-up land ``position``.

    Counted here from the referee's battle rules (LC-6, LC-9), not by the bot's own count.
    """
    me, foe = view.seat, 1 - view.seat
    land = int(view.lands[position].card.id)
    mine = battle_side(me, army, land, optional_id(view.players[me], "general"), optional_id(view.players[me], "castle"), True)
    general, castle = optional_id(view.players[foe], "general"), optional_id(view.players[foe], "castle")
    pool = unseen(view)
    return sum(battle_winner(mine, battle_side(foe, d, land, general, castle, False))[0] == me for d in pool) / max(1, len(pool))  # none left: 0, as the bot counts it


def owner_of(view: Any, position: int) -> int | None:
    land = view.lands[position]
    return int(land.owner) if land.HasField("owner") else None


#: How much chance the bot gives up for a cheaper army: 0.01 per army point against twice the chance, 11 points at most.
CLOSE = 0.06


def test_lc_attacks_where_its_chance_over_the_unseen_cards_is_best() -> None:
    """Among the face-up lands of the owner it chose, no army and land has a clearly better count than its pick."""
    checked = 0
    for game, seat, request in decisions(LandAndCastle, 2, range(3), "attack_choice"):
        view, choice = request.view, request.choice
        action = answer(LCBot(), game, seat, request)
        if isinstance(action, lct.SwapCard) or not view.lands[action.land].HasField("card"):
            continue
        same = [p for p in choice.lands if view.lands[p].HasField("card") and owner_of(view, p) == owner_of(view, action.land)]
        best = max(win_chance(view, c.id, p) for c in choice.playable for p in same)
        assert win_chance(view, action.card_id, action.land) >= best - CLOSE, (action, best)
        checked += 1
    assert checked >= 20


def lc_attack(hand: list[str], lands: list[tuple[str, int | None]], discards: Sequence[str] = ()) -> tuple[LandAndCastle, Request]:
    """Seat 0 to attack with ``hand`` over face-up (card, owner) ``lands``, without castles or generals.

    ``discards`` lie in seat 1's discard pile; every other card is in seat 1's hand or a pile, unseen.
    """
    game = LandAndCastle(2, 0)
    used = {cid(c) for c in hand} | {cid(c) for c, _ in lands} | {cid(c) for c in discards}
    rest = [c for c in range(52) if c not in used]
    game.hands = [[cid(c) for c in hand], rest[:4]]
    game.piles = [deque(rest[4::2]), deque(rest[5::2])]
    game.lands = [cid(c) for c, _ in lands]
    game.face_up = [True] * len(lands)
    game.owner = [owner for _, owner in lands]
    game.dealt_by = [p % 2 for p in range(len(lands))]
    game.discards = [[], [cid(c) for c in discards]]
    game.castles, game.generals = [None, None], [None, None]
    game.phase, game.attacker, game.turn = Phase.PHASE_ATTACK, 0, 1
    return game, request_for(game, 0)


def test_lc_attacks_the_opponents_land_first_then_an_unclaimed_one_with_the_cheaper_army_on_a_tie() -> None:
    # Face cards stack with no army, so each army has the same chance on every land; the only unseen cards are
    # the two and three of clubs, which both diamonds beat: every choice wins for sure.
    rows = ([("Jh", 0), ("Qd", None), ("Kc", 1)], [("Jh", 0), ("Qd", None)])
    for lands, wanted in zip(rows, (2, 1)):
        placed = {"Td", "9d", "2c", "3c"} | {c for c, _ in lands}
        game, request = lc_attack(["Td", "9d"], lands, [f"{r}{s}" for s in "cdhs" for r in "A23456789TJQK" if f"{r}{s}" not in placed])
        assert {win_chance(request.view, c, p) for c in (cid("Td"), cid("9d")) for p in range(len(lands))} == {1.0}
        action = answer(LCBot(), game, 0, request)
        assert (action.land, action.card_id) == (wanted, cid("9d"))


def test_lc_with_every_open_land_its_own_takes_control_of_the_battle_land() -> None:
    # A spades castle may claim any face-up land (LC-12); all three are its own already and none would complete the
    # row, so only the battled one (not the first) is worth taking: the bot's docstring says it keeps its cards.
    game, _ = lc_attack(["Ts", "4h"], [("Jh", 0), ("2c", 0), ("6d", 0)])
    game.castles, game.generals = [cid("5s"), cid("4c")], [cid("5d"), cid("3h")]
    game.hands[1] = [cid("2d"), *game.hands[1][1:]]
    game.apply(0, lct.Attack(cid("Ts"), 2))
    game.apply(1, lct.Defend(cid("2d")))
    assert game.to_act() == (0,)
    request = request_for(game, 0)
    assert request.kind == "claim_choice" and list(request.choice.lands) == [0, 1, 2] and request.choice.battle_land == 2
    action = answer(LCBot(), game, 0, request)
    assert action == lct.Control(2)


def test_lc_counts_the_discarded_cards_as_seen() -> None:
    # The opponent threw away his hearts from the four up, the very cards the three of hearts beats (a defender of
    # the same suit wins only by being lower): over the cards really unseen the ace of clubs does better.
    game, request = lc_attack(["Ac", "3h"], [("Kc", 1)], [f"{r}h" for r in "456789TJQK"])
    view = request.view
    chance = {c: win_chance(view, cid(c), 0) for c in ("Ac", "3h")}
    assert chance["Ac"] > chance["3h"] + CLOSE
    blind = copy.deepcopy(view)
    del blind.players[1].discard[:]
    assert win_chance(blind, cid("3h"), 0) > win_chance(blind, cid("Ac"), 0) + CLOSE  # counting the discards decides it
    assert answer(LCBot(), game, 0, request).card_id == cid("Ac")


def test_lc_castle_is_a_suit_that_helps_every_battle_before_diamonds() -> None:
    for hand, wanted in ((["5d", "5c", "Ks", "Qh"], "5c"), (["2d", "3c", "Ks", "Qh"], "3c"), (["6d", "5s", "Kc", "Jh"], "5s")):
        game = LandAndCastle(2, 0)
        game.hands[0] = [cid(c) for c in hand]
        assert answer(LCBot(), game, 0, request_for(game, 0)).card_id == cid(wanted), hand


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


def test_as_stands_still_rather_than_step_away_when_no_card_leads_to_its_goal() -> None:
    view = view_of(asn.POLICE_OFFICER, asn.HALL)  # before the speech the police officer makes for the tower
    assert ASBot().target_room(view) == asn.TOWER and ag.first_step(asn.HALL, asn.TOWER) == ag.UP
    away = cards_pb2.Card(id=cid("2c"), rank=cards_pb2.TWO, suit=cards_pb2.CLUBS)  # right, to the helipad: further from the tower
    still = cards_pb2.Card(id=cid("As"), rank=cards_pb2.ACE, suit=cards_pb2.SPADES)  # an ace goes nowhere
    assert ag.distance(ag.step(asn.HALL, ag.direction_of(away)), asn.TOWER) > ag.distance(asn.HALL, asn.TOWER)
    assert ASBot().movement_card(view, [away, still]) == still.id


def test_as_with_no_card_for_its_first_step_takes_another_as_short_before_standing_still() -> None:
    view = view_of(asn.POLICE_OFFICER, asn.HALL)  # bound for the tower: up first, but left is as short
    left = cards_pb2.Card(id=cid("2d"), rank=cards_pb2.TWO, suit=cards_pb2.DIAMONDS)
    still = cards_pb2.Card(id=cid("As"), rank=cards_pb2.ACE, suit=cards_pb2.SPADES)
    assert ag.card_for([left, still], ag.first_step(asn.HALL, asn.TOWER)) is None
    assert ag.distance(ag.step(asn.HALL, ag.direction_of(left)), asn.TOWER) == ag.distance(asn.HALL, asn.TOWER) - 1
    assert ASBot().movement_card(view, [still, left]) == left.id


def test_as_police_officer_offered_the_bad_cops_side_stays_good() -> None:
    for game, seat, request in decisions(Assassination, 4, range(10), "allegiance_choice"):
        if request.choice.police_officer:
            assert answer(ASBot(), game, seat, request).bad_cop is False
            return
    raise AssertionError("no seeded game offered the police officer the bad cop's side")
