"""The third audit of the Assassination Game: rule sentences the engine kept but no test pinned.

Each test is named after the ruling it pins (docs/games/assassination.md); a throwaway mutation of the engine line it
names survived every other rules test.
"""

from __future__ import annotations

from referee.games.assassination import Assassination, deck
from referee.games.assassination.types import (
    ActionKind,
    ActionOption,
    ActionTaken,
    ChooseAllegiance,
    DiceRolled,
    IncidentOccurred,
    Phase,
    PieceDetained,
    PieceInjured,
    PieceKilled,
    PieceSent,
    PlayMovement,
    PresidentHit,
    PresidentMoveChoice,
    PresidentMoved,
    PresidentStatus,
    Room,
    RoundEnded,
    RoundOutcome,
    ScoreChange,
    ScoreReason,
    TakeAction,
)
from tests.games import test_assassination_support as t
from tests.games.test_assassination_support import PURE_RULES_ONLY, Loaded, of, opts

R = Room

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


def bad_cop_and_known_agent() -> Assassination:
    """The event stage of a game whose police officer is the bad cop and whose agent revealed himself earlier."""
    g = t.make()
    g.secret.bad_cop = True
    g.revealed_seats[0] = None
    t.to_event_stage(g)
    return g


def test_as13_an_agent_in_the_holding_cell_no_longer_moves_the_president() -> None:
    # rules.py ss_moves_president: "piece.room != Room.HOLDING_CELL".
    g = t.make(start=R.HELIPAD, route_die=3)  # his own way: hall, courtyard, podium
    t.turn(g, acting=[0])  # the agent reveals himself; the president walks to the hall
    t.place(g, 0, R.HOLDING_CELL)
    assert not g.view(1).president.secret_service_moves
    events = t.move(g)
    assert g.phase == Phase.EVENT, "nobody is asked to move him"
    assert of(events, PresidentMoved) == [PresidentMoved(R.HALL, R.COURTYARD, False)]


def test_as47_the_default_movement_card_stands_still_even_when_the_lowest_card_moves() -> None:
    # rules.py default_action: "min(stays or d.playable)".
    g = t.make()
    hand = g.movement_hands[0]
    moving = min(c for c in hand if deck.direction_of(c) != t.STAY)
    still = max(c for c in hand if deck.direction_of(c) == t.STAY)
    assert moving < still
    hand[:] = [moving, still]
    assert g.default_action(0) == PlayMovement(still)


def test_as26_the_security_office_is_never_blown_up_even_once_visited() -> None:
    # actions.py options: "room != Room.SECURITY_OFFICE".
    g = t.make()
    t.to_event_stage(g)
    for room in (R.SECURITY_OFFICE, R.HALL, R.COURTYARD):
        t.place(g, 3, room)  # visited: courtyard, security office, hall; he stands in the courtyard
    t.play_events(g, [3])
    targets = {o.target_room for o in opts(g, 3) if o.kind == ActionKind.DETONATE}
    assert targets == {R.HALL}


def test_as31_only_a_police_officer_the_agent_detained_may_walk_out_of_the_cell() -> None:
    # actions.py options: "if piece.detained_by_secret_service". The bad cop the reporter saw shoot the agent is held
    # by nobody's hand (AS-35): he stays in the cell, his action card offers nothing.
    g = bad_cop_and_known_agent()
    for c in (0, 1, 4):
        t.place(g, c, R.HALL)
    t.act(g, [1], {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
    assert g.pieces[1].room == R.HOLDING_CELL and g.phase == Phase.MOVEMENT
    t.move(g)
    t.play_events(g, [1])
    assert opts(g, 1) == (ActionOption(ActionKind.NOTHING),)


def test_as20_the_bad_cops_shot_at_the_agent_resolves_after_the_snipers_shot() -> None:
    # actions.py Resolution.run: the bad cop's shots come after the sniper's (rank 3, shoot-first only after an incident).
    g = bad_cop_and_known_agent()
    for c in (0, 1, 2):
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    events = t.act(g, [1, 2], {1: TakeAction(ActionKind.SHOOT_PLAYER, 0), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert [t.seat for t in of(events, ActionTaken)] == [2, 1]
    assert of(events, PieceKilled) == [PieceKilled(0, 2)], "the agent took the sniper's bullet; the bad cop shot at a dead man"
    assert not of(events, PieceInjured) and g.president.status == PresidentStatus.UNHARMED


def test_as20_shoot_first_precedes_the_sniper_whatever_the_seats() -> None:
    # actions.py Resolution.run: rank 1 for shoot-first, before the sniper's rank 2, not seat order.
    g = t.make(identities=(t.SS, t.SN, t.PO, t.BO))
    g.incident = True
    t.to_event_stage(g)
    for c in (0, 1, 2):
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    events = t.act(g, [1, 2], {1: TakeAction(ActionKind.SHOOT_PRESIDENT), 2: TakeAction(ActionKind.SHOOT_PLAYER, 1)})
    assert [t.seat for t in of(events, ActionTaken)] == [2], "the sniper (seat 1) was shot down before his turn"
    assert g.pieces[1].killed and not g.pieces[0].killed and g.president.status == PresidentStatus.UNHARMED


def test_as21_a_snipe_at_a_president_the_blast_has_killed_rolls_nothing() -> None:
    # actions.py snipe: "if not (g.president.alive and g.president.room == Room.PODIUM): return".
    g = t.make()
    g.rng = Loaded([6])  # the blast's die only
    t.to_event_stage(g)
    t.put_president(g, R.PODIUM)
    t.place(g, 3, R.PODIUM)
    t.place(g, 3, R.COURTYARD)  # the bomber has been on the podium and stands next to it
    t.place(g, 2, R.TOWER)
    t.play_events(g, [2, 3])
    assert ActionOption(ActionKind.SNIPE) in opts(g, 2)
    events = t.take(g, {2: TakeAction(ActionKind.SNIPE), 3: TakeAction(ActionKind.DETONATE, None, R.PODIUM)})
    assert [d.value for d in of(events, DiceRolled)] == [6]
    assert of(events, PresidentHit) == [PresidentHit(3, PresidentStatus.KILLED)]


def test_as22_with_the_reporter_there_the_police_officer_detains_the_bomber_too() -> None:
    # actions.py pistol_at_president: "for c in [colour] + bad_guys: self.detain(c, a.seat_of(t.PO))".
    g = t.make()
    t.to_event_stage(g)
    for c in (1, 2, 3, 4):
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    events = t.act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert of(events, PieceDetained) == [PieceDetained(2, 1), PieceDetained(3, 1)]
    assert g.pieces[2].room == g.pieces[3].room == R.HOLDING_CELL


def test_as32_trying_to_detain_an_agent_already_shot_dead_this_stage_does_nothing() -> None:
    # actions.py detain_action: "if not self.same_room(seat, target): return", before the agent's special case.
    g = t.make()
    t.to_event_stage(g)
    for c in (0, 1, 2):
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    events = t.act(g, [1, 2], {1: TakeAction(ActionKind.DETAIN, 0), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.pieces[0].killed
    assert g.ledger.tried_secret_service == [] and PieceSent(1, R.SECURITY_OFFICE) not in of(events, PieceSent)
    t.react(g, [1])  # the good police officer detains the sniper
    assert g.pieces[1].room == R.HALL and g.pieces[2].room == R.HOLDING_CELL


def test_as17_a_seat_sees_its_own_face_down_card_and_nobody_elses() -> None:
    # rules.py view: "played_card=self.pending.get(seat)".
    g = t.make()
    mine = t.card(g, 0, t.STAY)
    g.apply(0, PlayMovement(mine))
    assert g.view(0).played_card == mine and all(g.view(s).played_card is None for s in (1, 2, 3))
    assert mine in g.hidden_cards(1)
    t.move(g, order=[1, 2, 3])
    assert g.view(0).played_card is None
    assert all(not set(g.last_movement) & g.hidden_cards(s) for s in range(4)), "a card turned over is hidden from nobody"


def test_as49_a_new_deal_forgets_the_reveals_the_incident_and_the_spent_bomb() -> None:
    # rules.py _start_round resets revealed_seats, reporter_revealed, incident and bomb_used.
    g = t.make()
    g.rng = Loaded([1, 2, 3])  # the blast, then the next deal's start and route dice
    t.to_event_stage(g)
    t.place(g, 4, R.HALL)
    t.place(g, 3, R.HALL)
    t.place(g, 3, R.COURTYARD)
    t.act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    v = g.view(0)
    assert v.incident and v.bomb_used and v.reporter_colour == 4 and v.revealed
    t.finish_round(g, [0, 0, 0, 0])
    v = g.view(0)
    assert not v.incident and not v.bomb_used and v.reporter_colour is None and v.revealed == ()
    assert g.phase == Phase.MOVEMENT


def test_as47_a_police_officer_holding_the_bad_cop_token_stays_good_by_default() -> None:
    # rules.py default_action: "ChooseAllegiance(False)", also for the one seat that may answer true.
    g = Assassination(4, 1)
    t.finish_round(g, [5, 3, 3, 0])
    assert g.phase == Phase.ALLEGIANCE and g.to_act() == (3,)
    ids = g.secret.identities
    po = ids.index(t.PO)
    ids[3], ids[po] = ids[po], ids[3]
    assert list(g.legal_actions(3)) == [ChooseAllegiance(False), ChooseAllegiance(True)]
    assert g.default_action(3) == ChooseAllegiance(False)


def test_as42_the_police_officer_who_detains_the_reporter_loses_four() -> None:
    # scoring.py: "-4 to arrester" is whoever detained him, the police officer as much as the agent.
    g = t.make()
    t.to_event_stage(g)
    t.place(g, 1, R.HALL)
    t.place(g, 4, R.HALL)
    t.act(g, [1], {1: TakeAction(ActionKind.DETAIN, 4)})
    ended = [e.payload for e in g._end_round(RoundOutcome.TIME_UP) if isinstance(e.payload, RoundEnded)][0]
    assert ScoreChange(1, -4, ScoreReason.DETAINED_REPORTER) in ended.changes


def test_as48_the_dealer_of_round_r_is_seat_r_minus_1() -> None:
    # rules.py to_act: "(self.round - 1) % self.num_players".
    g = t.make()
    t.finish_round(g, [0, 0, 0, 0])
    g._end_round(RoundOutcome.TIME_UP)
    assert g.round == 2 and g.phase == Phase.ROUND_OVER and g.to_act() == (1,)


def test_as25_an_incident_is_announced_once_however_many_shots() -> None:
    # actions.py Resolution.incident: "if not self.g.incident".
    g = t.make(identities=(t.SS, t.SN, t.PO, t.BO))
    t.to_event_stage(g)
    for c in (0, 1, 2, 4):
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    g.revealed_seats[1] = None  # the sniper revealed himself earlier: he may shoot anyone in his room
    g.secret.bad_cop = True
    events = t.act(g, [1, 2], {1: TakeAction(ActionKind.SHOOT_PLAYER, 4), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert len(of(events, IncidentOccurred)) == 1


def test_as13_as14_the_agent_is_told_the_president_is_escaping() -> None:
    # rules.py decision: PresidentMoveChoice(..., self.incident).
    g = t.make(start=R.HELIPAD, route_die=3)
    t.turn(g, acting=[0])
    g.incident = True
    t.move(g)
    d = g.decision(0)
    assert isinstance(d, PresidentMoveChoice) and d.escaping


def test_as21_a_miss_is_announced_and_as7_the_dead_are_off_the_board() -> None:
    # actions.py president_missed announces the shot that spared him; kill takes the piece off the board (room None).
    g = t.make()
    g.rng = Loaded([1])
    t.to_event_stage(g)
    t.put_president(g, R.PODIUM)
    t.place(g, 2, R.TOWER)
    events = t.act(g, [2], {2: TakeAction(ActionKind.SNIPE)})
    assert of(events, PresidentHit) == [PresidentHit(2, PresidentStatus.UNHARMED)]
    h = t.make()
    t.sniper_shoots(h, 4)
    assert h.view(0).pieces[4].killed and h.view(0).pieces[4].room is None


def test_as59_a_president_left_on_his_route_walks_on_along_it() -> None:
    """The agent, revealed, led the president to the public exit, a room of his route, and was then detained: the
    route card says the podium comes next, as a table reads it; the engine walked him back towards the hall."""
    g = t.make(start=R.HELIPAD, route_die=1)
    assert g.president.route == (R.HALL, R.PUBLIC_EXIT, R.PODIUM)
    for room, next_room in ((R.HELIPAD, R.HALL), (R.HALL, R.PUBLIC_EXIT), (R.PUBLIC_EXIT, R.PODIUM), (R.HEALTH_SERVICES, R.HALL), (R.COURTYARD, R.PODIUM)):
        t.put_president(g, room)  # on his route, on along it; off it, the shortest way to the podium
        assert g._auto_president_room() == next_room, room
    t.put_president(g, R.PUBLIC_EXIT)
    t.turn(g)  # nobody moves him: he walks by himself
    assert g.president.room == R.PODIUM


def test_as61_walking_by_himself_the_president_never_enters_the_helipad_or_the_bunker() -> None:
    """He started on the helipad; the agent led him into the bunker, then could lead him no more. Off his route, he
    walks to the podium through the public exit, as every route from the bunker does; the engine went back through
    the helipad, one of the two equally short ways, by the grid's order."""
    g = t.make(start=R.HELIPAD, route_die=3)
    assert g.president.route == (R.HALL, R.COURTYARD, R.PODIUM)
    t.put_president(g, R.BUNKER)
    walked = []
    while g.president.room != R.PODIUM:
        walked += [(e.from_room, e.to_room, e.by_secret_service) for e in of(t.turn(g), PresidentMoved)]
    assert walked == [
        (R.BUNKER, R.PUBLIC_EXIT, False),
        (R.PUBLIC_EXIT, R.HALL, False),
        (R.HALL, R.COURTYARD, False),  # back on his route
        (R.COURTYARD, R.PODIUM, False),
    ]
    for room, next_room in ((R.HELIPAD, R.HALL), (R.BUNKER, R.PUBLIC_EXIT), (R.HEALTH_SERVICES, R.HALL)):
        t.put_president(g, room, speech_given=True)  # after the speech, the shortest way to the exit (AS-12)
        assert g._auto_president_room() == next_room, room
