"""The Assassination Game rulings on the bomb (AS-26 to AS-29), the questions it puts (AS-53), and detentions by the agent and the police (AS-30 to AS-32, AS-50): docs/games/assassination.md."""

from __future__ import annotations

import pytest

from referee.core.game import Event
from referee.games.assassination import Assassination, board
from referee.games.assassination.types import (
    ActionKind,
    ActionOption,
    CellChoice,
    DetainSniper,
    LeaveCell,
    Phase,
    PieceDetained,
    PieceSent,
    PlayerRevealed,
    PresidentStatus,
    React,
    ReactionChoice,
    RevealReason,
    Room,
    SniperDetentionChoice,
    TakeAction,
)
from tests.games.test_assassination_support import (
    PURE_RULES_ONLY,
    DOWN,
    PO,
    SS,
    Loaded,
    act,
    agent_detains,
    make,
    move,
    of,
    opts,
    place,
    play_events,
    put_president,
    react,
    take,
    to_event_stage,
)

R = Room

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


# --- the bomb and the questions it puts ----------------------------------------------------

def test_as26_what_the_bomber_may_blow_up() -> None:
    g = make()
    to_event_stage(g)
    place(g, 3, R.PODIUM)
    place(g, 3, R.COURTYARD)  # visited: courtyard, podium
    play_events(g, [3])
    targets = {o.target_room for o in opts(g, 3) if o.kind == ActionKind.DETONATE}
    assert targets == {R.PODIUM}, "the hall and the office are next door, but unvisited or forbidden"
    take(g, {3: TakeAction(ActionKind.DETONATE, None, R.PODIUM)})
    react(g)
    move(g)
    play_events(g, [3])
    assert opts(g, 3) == (ActionOption(ActionKind.NOTHING),), "once per round"
    # From the holding cell: the rooms next to the security office.
    h = make()
    to_event_stage(h)
    for room in (R.TOWER, R.HEALTH_SERVICES, R.HOLDING_CELL):
        place(h, 3, room)
    play_events(h, [3])
    targets = {o.target_room for o in opts(h, 3) if o.kind == ActionKind.DETONATE}
    assert targets == {R.TOWER, R.COURTYARD, R.HEALTH_SERVICES}


def blast(room: Room, rolls: list[int], status: PresidentStatus = PresidentStatus.UNHARMED) -> tuple[Assassination, list[Event]]:
    g = make()
    g.rng = Loaded(rolls)
    to_event_stage(g)
    put_president(g, room)
    g.president.status = status
    for c in (0, 1, 2, 4):
        place(g, c, room)
    neighbour = board.adjacent(room)[0]
    place(g, 3, room)
    place(g, 3, neighbour)
    events = act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, room)})
    return g, events


def test_as27_the_blast() -> None:
    g, events = blast(R.HALL, [3])
    assert g.president.status == PresidentStatus.KILLED
    assert g.pieces[0].injured and not g.pieces[0].killed
    assert all(g.pieces[c].killed for c in (1, 2, 4))
    assert {p.seat for p in of(events, PlayerRevealed)} >= {0, 1, 2, 3}
    g, _ = blast(R.HALL, [2])
    assert g.president.status == PresidentStatus.INJURED
    g, _ = blast(R.HALL, [], PresidentStatus.INJURED)
    assert g.president.status == PresidentStatus.KILLED


def test_as27_as29_open_air_is_gentler() -> None:
    assert board.OPEN_AIR == {R.COURTYARD, R.HELIPAD}
    g, _ = blast(R.COURTYARD, [3])
    assert g.president.status == PresidentStatus.INJURED
    g, _ = blast(R.HELIPAD, [2])
    assert g.president.status == PresidentStatus.UNHARMED
    g, _ = blast(R.COURTYARD, [], PresidentStatus.INJURED)
    assert g.president.status == PresidentStatus.KILLED


def test_as28_everyone_is_asked_and_only_the_law_next_to_the_bomber_may_detain() -> None:
    g = make()
    g.rng = Loaded([1])
    to_event_stage(g)
    place(g, 3, R.HALL)
    for c in (1, 2):
        place(g, c, R.COURTYARD)  # the police officer and the sniper share the bomber's room
    for c in (1, 2, 3):
        place(g, c, R.COURTYARD)
    place(g, 0, R.TOWER)
    put_president(g, R.HALL)
    act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.phase == Phase.REACTION and g.to_act() == (0, 1, 2)
    assert [g.decision(s) for s in (0, 1, 2)] == [ReactionChoice(3, False), ReactionChoice(3, True), ReactionChoice(3, False)]
    assert g.check(2, React(True)) is not None
    assert g.apply(0, React(False)) == []
    g.apply(2, React(False))
    events = g.apply(1, React(True))
    assert of(events, PlayerRevealed) == [PlayerRevealed(1, PO, 1, RevealReason.DETAINED_BOMBER)]
    assert g.pieces[3].room == R.HOLDING_CELL and g.pieces[3].detained


def test_as28_every_one_who_detains_the_bomber_is_revealed() -> None:
    """AS-28: "those who do are revealed and the bomber goes to the holding cell" -- the police officer too, not only the first."""
    g = make()
    g.rng = Loaded([1])
    to_event_stage(g)
    place(g, 3, R.HALL)
    for c in (0, 1, 3):
        place(g, c, R.COURTYARD)  # the agent and the police officer share the bomber's room
    place(g, 2, R.TOWER)
    put_president(g, R.HALL)
    act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert 0 in g.revealed_seats and 1 not in g.revealed_seats  # the incident revealed the agent (AS-37)
    assert g.decision(0) == ReactionChoice(3, True) and g.decision(1) == ReactionChoice(3, True)
    events = react(g, [0, 1])
    assert of(events, PlayerRevealed) == [PlayerRevealed(1, PO, 1, RevealReason.DETAINED_BOMBER)]
    assert 1 in g.revealed_seats
    assert of(events, PieceDetained) == [PieceDetained(3, 0)] and g.pieces[3].room == R.HOLDING_CELL


def test_as28_the_bad_cop_may_detain_the_bomber_too() -> None:
    g = make()
    g.secret.bad_cop = True
    g.rng = Loaded([1])
    to_event_stage(g)
    place(g, 3, R.HALL)
    place(g, 3, R.COURTYARD)  # the police officer is in the courtyard with him
    place(g, 0, R.TOWER)
    put_president(g, R.HALL)
    act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.decision(1) == ReactionChoice(3, True)
    events = react(g, [1])
    assert of(events, PieceDetained) == [PieceDetained(3, 1)] and g.pieces[3].room == R.HOLDING_CELL


def test_as28_no_reaction_when_the_bomber_is_alone() -> None:
    g = make()
    g.rng = Loaded([1])
    to_event_stage(g)
    place(g, 3, R.HALL)
    place(g, 3, R.HEALTH_SERVICES)
    put_president(g, R.HALL)
    act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.phase == Phase.MOVEMENT


def test_as28_who_may_detain_the_bomber_is_who_was_with_him_when_it_went_off() -> None:
    # Alone in health services, he blows up the hall: the agent, wounded there, is sent to him, too late to count.
    g = make()
    to_event_stage(g)
    place(g, 3, R.HALL)
    place(g, 3, R.HEALTH_SERVICES)
    place(g, 0, R.HALL)
    act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.pieces[0].room == R.HEALTH_SERVICES == g.pieces[3].room
    assert g.phase == Phase.MOVEMENT, "he was alone when it went off: nobody is asked"
    # The agent and the police officer stand with him; the police officer, trying to detain the agent,
    # is put in the security office: he was there when it went off, so he may still detain the bomber.
    h = make()
    to_event_stage(h)
    place(h, 3, R.HALL)
    for c in (0, 1, 3):
        place(h, c, R.COURTYARD)
    act(h, [1, 3], {1: TakeAction(ActionKind.DETAIN, 0), 3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert h.pieces[1].room == R.SECURITY_OFFICE
    assert [h.decision(s) for s in h.to_act()] == [ReactionChoice(3, True), ReactionChoice(3, True), ReactionChoice(3, False)]
    react(h, [1])
    assert h.pieces[3].room == R.HOLDING_CELL and (1, 3) in h.ledger.detentions


@pytest.mark.parametrize("bad_cop_lets_go", [False, True])
def test_as53_questions_come_one_at_a_time_and_a_moot_one_is_not_put(bad_cop_lets_go: bool) -> None:
    # The bomber blows up the courtyard, then the sniper shoots at the president in the hall, where the
    # agent, the police officer and the bomber stand: first the sniper's question, then the bomber's.
    g = make()
    g.secret.bad_cop = bad_cop_lets_go
    to_event_stage(g)
    for c in (0, 1, 2, 3):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    choices = {2: TakeAction(ActionKind.SHOOT_PRESIDENT), 3: TakeAction(ActionKind.DETONATE, None, R.COURTYARD)}
    act(g, [2, 3], choices)
    assert g.to_act() == (1,) and g.decision(1) == SniperDetentionChoice(2, (2, 3), bad_cop_lets_go)
    g.apply(1, DetainSniper(not bad_cop_lets_go))
    if not bad_cop_lets_go:  # the bomber went with the sniper: his question is moot
        assert g.pieces[3].room == R.HOLDING_CELL and g.phase == Phase.MOVEMENT
        return
    assert g.phase == Phase.REACTION and g.to_act() == (1, 2)  # the agent is dead; everyone else but the bomber
    assert g.decision(1) == ReactionChoice(3, True) and g.decision(2) == ReactionChoice(3, False)
    react(g, [1])
    assert g.pieces[3].room == R.HOLDING_CELL and g.pieces[2].room == R.HALL


# --- detentions ----------------------------------------------------------------------------

def test_as30_the_agent_may_detain_anyone_in_his_room() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1, 4):
        place(g, c, R.HALL)
    play_events(g, [0])
    targets = {o.target_colour for o in opts(g, 0) if o.kind == ActionKind.DETAIN}
    assert targets == {1, 4}
    take(g, {0: TakeAction(ActionKind.DETAIN, 4)})
    assert g.pieces[4].room == R.HOLDING_CELL


def test_as31_a_police_officer_detained_by_the_agent_may_walk_out_at_once() -> None:
    g = make()
    agent_detains(g, 1)
    assert g.pieces[1].room == R.HOLDING_CELL and g.pieces[1].detained_by_secret_service
    # Everyone but the agent is asked; only the police officer may leave.
    assert g.phase == Phase.REACTION and g.to_act() == (1, 2, 3)
    assert [g.decision(s) for s in (1, 2, 3)] == [CellChoice(1, True), CellChoice(1, False), CellChoice(1, False)]
    assert g.check(2, LeaveCell(True)) == "only the police officer the agent detained may leave the cell"
    assert g.default_action(1) == LeaveCell(False)
    g.apply(2, LeaveCell(False))
    g.apply(3, LeaveCell(False))
    events = g.apply(1, LeaveCell(True))
    assert of(events, PlayerRevealed) == [PlayerRevealed(1, PO, 1, RevealReason.LEFT_CELL)]
    assert of(events, PieceSent) == [PieceSent(1, R.SECURITY_OFFICE)]
    assert not g.pieces[1].detained and g.pieces[1].room == R.SECURITY_OFFICE and g.phase == Phase.MOVEMENT
    assert (0, 1) in g.ledger.detentions, "the agent still detained the police officer (AS-42)"
    move(g, {1: DOWN})
    assert g.pieces[1].room == R.COURTYARD


def test_as31_a_police_officer_who_stays_may_walk_out_later_with_an_action_card() -> None:
    g = make()
    agent_detains(g, 1)
    events = react(g)
    assert not of(events, PieceSent) and g.pieces[1].room == R.HOLDING_CELL and 1 not in g.revealed_seats
    to_event_stage(g)
    play_events(g, [1])
    assert ActionOption(ActionKind.LEAVE_CELL) in opts(g, 1)
    events = take(g, {1: TakeAction(ActionKind.LEAVE_CELL)})
    assert of(events, PieceSent) == [PieceSent(1, R.SECURITY_OFFICE)] and not g.pieces[1].detained
    move(g, {1: DOWN})
    assert g.pieces[1].room == R.COURTYARD


def test_as31_being_asked_to_leave_the_cell_tells_nothing() -> None:
    # Whoever the agent detains, the same seats are asked; only the answers open to the police officer differ.
    asked = {}
    for target in (1, 2, 4):
        g = make()
        agent_detains(g, target)
        asked[target] = g.to_act()
        assert all(isinstance(g.decision(s), CellChoice) for s in g.to_act())
        assert [s for s in g.to_act() if g.decision(s).can_leave] == ([1] if target == 1 else [])
        react(g)
        assert g.pieces[target].room == R.HOLDING_CELL
    assert asked[1] == asked[2] == asked[4] == (1, 2, 3)


def test_as32_the_police_officer_who_tries_to_detain_the_agent_is_put_in_the_office() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1):
        place(g, c, R.HALL)
    events = act(g, [1], {1: TakeAction(ActionKind.DETAIN, 0)})
    assert PlayerRevealed(0, SS, 0, RevealReason.DETAIN_ATTEMPT) in of(events, PlayerRevealed)
    assert g.pieces[0].room == R.HALL and g.pieces[1].room == R.SECURITY_OFFICE and not g.pieces[1].detained
    assert g.ledger.tried_secret_service == [1]


def test_as50_a_police_officer_wounded_while_trying_to_detain_the_agent_goes_to_the_office_once() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1, 2):
        place(g, c, R.HALL)
    act(g, [2])  # the sniper reveals himself: from now on he may shoot anyone in his room
    move(g)
    events = act(g, [1, 2], {1: TakeAction(ActionKind.DETAIN, 0), 2: TakeAction(ActionKind.SHOOT_PLAYER, 1)})
    assert g.pieces[1].injured and g.pieces[1].room == R.SECURITY_OFFICE
    assert of(events, PieceSent) == [PieceSent(1, R.SECURITY_OFFICE)], "moved once, never through health services"
    assert R.HEALTH_SERVICES not in g.pieces[1].visited
    # Already in the office, he is not "sent" there.
    h = make()
    to_event_stage(h)
    for c in (0, 1):
        place(h, c, R.SECURITY_OFFICE)
    events = act(h, [1], {1: TakeAction(ActionKind.DETAIN, 0)})
    assert h.pieces[1].room == R.SECURITY_OFFICE and not of(events, PieceSent)
