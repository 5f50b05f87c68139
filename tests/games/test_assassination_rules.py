"""The Assassination Game rulings (docs/games/assassination.md), one test or more each, named by number.

Unless a test says otherwise the seats are: 0 the agent (colour 0), 1 the
police officer (colour 1), 2 the sniper (colour 2), 3 the bomber (colour 3);
the reporter is colour 4 and stands still.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from referee.compiled import in_use
from referee.core.cards import Rank, deck_of, rank_of
from referee.core.game import Event
from referee.games.assassination import Assassination, board, deck
from referee.games.assassination.actions import others_in_room
from referee.games.assassination.rules import TURN_LIMIT
from referee.games.assassination.types import (
    ActionChoice,
    ActionKind,
    ActionOption,
    ActionTaken,
    AllegianceChoice,
    ChooseAllegiance,
    DiceRolled,
    Identity,
    EventsRevealed,
    IncidentOccurred,
    MovementChoice,
    MovementRevealed,
    MovePresident,
    NextRoundChoice,
    Phase,
    PieceDetained,
    PieceInjured,
    PieceKilled,
    PiecesMoved,
    PieceSent,
    PlayEvent,
    PlayerRevealed,
    PlayMovement,
    PresidentHit,
    PresidentMoveChoice,
    PresidentMoved,
    PresidentSafe,
    PresidentStatus,
    React,
    ReactionChoice,
    ReporterRevealed,
    RevealReason,
    Room,
    RoundEnded,
    RoundOutcome,
    RoundStarted,
    ScoreReason,
    SpeechGiven,
    StartRound,
    TakeAction,
)
from tests.games.test_assassination_support import (
    BO,
    DOWN,
    LEFT,
    PO,
    REP,
    RIGHT,
    SN,
    SS,
    STAY,
    UP,
    Loaded,
    act,
    card,
    make,
    move,
    of,
    place,
    play_events,
    put_president,
    react,
    take,
    to_event_stage,
    turn,
)

R = Room

# The helpers hold the president still by patching a method of the game (freeze), which compiled rules call
# directly; under a compiled build (ARENA_COMPILED=1) the conformance suite covers this game instead.
pytestmark = pytest.mark.skipif(in_use(), reason="patches a method of the rules, which compiled code calls directly")


def opts(g: Assassination, seat: int) -> tuple[ActionOption, ...]:
    d = g.decision(seat)
    assert isinstance(d, ActionChoice)
    return d.options

# --- the board -----------------------------------------------------------------------------


def test_as1_the_board_and_the_holding_cell() -> None:
    assert board.GRID == (
        (R.TOWER, R.SECURITY_OFFICE, R.HEALTH_SERVICES, None),
        (R.PODIUM, R.COURTYARD, R.HALL, R.HELIPAD),
        (None, None, R.PUBLIC_EXIT, R.BUNKER),
    )
    neighbours = {room: set(board.adjacent(room)) for room in board.POSITION}
    assert neighbours[R.TOWER] == {R.PODIUM, R.SECURITY_OFFICE}
    assert neighbours[R.HALL] == {R.COURTYARD, R.HEALTH_SERVICES, R.HELIPAD, R.PUBLIC_EXIT}
    assert neighbours[R.BUNKER] == {R.HELIPAD, R.PUBLIC_EXIT}
    assert neighbours[R.HOLDING_CELL] == neighbours[R.SECURITY_OFFICE]
    assert R.HOLDING_CELL not in {n for ns in neighbours.values() for n in ns}, "nobody walks into the cell"
    g = make()
    place(g, 0, R.SECURITY_OFFICE)
    place(g, 2, R.HOLDING_CELL)
    assert others_in_room(g, 0) == [] and others_in_room(g, 2) == []


def test_as1_the_drawing_in_the_docs_matches_the_data() -> None:
    text = board.drawing()
    assert text.splitlines()[0].split("|")[0].strip() == "Tower"
    assert "Public Exit" in text.splitlines()[2]


# --- setup ---------------------------------------------------------------------------------


def finish_round(g: Assassination, scores: list[int]) -> None:
    """Pretend the round ended with these scores, then deal the next one."""
    g.scores = list(scores)
    g._start_round()


def test_as2_tokens_go_to_the_single_leader_and_the_single_last() -> None:
    g = Assassination(4, 3)
    assert g.ss_token is None and g.bad_cop_token is None and g.phase == Phase.MOVEMENT
    finish_round(g, [9, 4, 4, 1])
    assert g.ss_token == 0 and g.bad_cop_token == 3 and g.phase == Phase.ALLEGIANCE
    assert g.secret.identities[0] == SS
    finish_round(g, [9, 9, 4, 4])
    assert g.ss_token is None and g.bad_cop_token is None and g.phase == Phase.MOVEMENT
    off = Assassination(4, 3, {"bad_cop": False})
    finish_round(off, [9, 4, 4, 1])
    assert off.ss_token == 0 and off.bad_cop_token is None and off.phase == Phase.MOVEMENT


def test_as3_a_marked_deck_has_54_movement_and_16_event_cards() -> None:
    for colour in range(deck.COLOURS):
        moves = deck.movement_deck(colour)
        assert len(moves) == 54 and {deck_of(c) for c in moves} == {2 * colour}
        counts = Counter(deck.direction_of(c) for c in moves)
        assert counts == {UP: 12, DOWN: 12, LEFT: 12, RIGHT: 12, STAY: 6}
        events = deck.event_deck(colour)
        assert len(events) == 16 and {deck_of(c) for c in events} == {2 * colour + 1}
        assert sum(deck.is_action(c) for c in events) == 4
        assert {rank_of(c) for c in events} == {Rank.ACE, Rank.JACK, Rank.QUEEN, Rank.KING}
        assert all(deck.colour_of(c) == colour for c in moves + events)
    assert len(deck.all_cards()) == 5 * 70


def test_as4_hands_are_whole_decks_and_the_reporter_draws_from_the_top() -> None:
    g = Assassination(4, 8)
    a = g.secret
    for seat in range(4):
        assert sorted(g.movement_hands[seat]) == deck.movement_deck(a.colours[seat])
        assert sorted(g.event_hands[seat]) == deck.event_deck(a.colours[seat])
    assert len(g.reporter_movement) == 54 and len(g.reporter_events) == 12
    assert sorted(g.discarded) == [c for c in deck.event_deck(a.reporter_colour) if deck.is_action(c)]
    top = g.reporter_movement[0]
    pile = of(move(g), MovementRevealed)[0].cards
    assert top in pile and g.reporter_movement[0] != top


def test_as5_colours_are_dealt_at_random_and_only_ones_own_is_shown() -> None:
    seen: list[set[int]] = [set() for _ in range(4)]
    for seed in range(60):
        g = Assassination(4, seed)
        for seat in range(4):
            seen[seat].add(g.secret.colours[seat])
            view = g.view(seat)
            assert view.colour == g.secret.colours[seat]
            assert view.reporter_colour is None and view.revealed == ()
            assert {deck.colour_of(c) for c in view.movement_hand + view.event_hand} == {view.colour}
    assert all(s == set(range(5)) for s in seen), "every seat draws every colour: a card's mark never names its seat"


def test_as6_identities_are_random_except_the_agent_for_the_leader() -> None:
    counts: list[Counter[Identity]] = [Counter() for _ in range(4)]
    for seed in range(80):
        g = Assassination(4, seed)
        assert sorted(g.secret.identities) == [SS, PO, SN, BO]
        for seat in range(4):
            counts[seat][g.secret.identities[seat]] += 1
            assert g.view(seat).identity == g.secret.identities[seat]
        finish_round(g, [1, 5, 2, 0])
        assert g.secret.identities[1] == SS
    assert all(set(c) == {SS, PO, SN, BO} for c in counts)


# --- movement ------------------------------------------------------------------------------


def test_as7_blocked_pieces_bounce_back_and_the_cell_holds() -> None:
    assert board.step(R.COURTYARD, UP) == R.SECURITY_OFFICE
    assert board.step(R.TOWER, UP) == R.PODIUM  # edge above: the opposite way
    assert board.step(R.TOWER, LEFT) == R.SECURITY_OFFICE
    assert board.step(R.PUBLIC_EXIT, LEFT) == R.BUNKER  # a wall
    assert board.step(R.PODIUM, DOWN) == R.TOWER
    assert board.step(R.HELIPAD, UP) == R.BUNKER
    assert board.step(R.HALL, STAY) == R.HALL
    assert board.step(R.HOLDING_CELL, LEFT) == R.HOLDING_CELL
    g = make()
    place(g, 2, R.HOLDING_CELL)
    g.pieces[2].detained = True
    moved = of(move(g, {2: LEFT, 1: UP}), PiecesMoved)[0].moves
    by_colour = {m.colour: m for m in moved}
    assert by_colour[2].to_room == R.HOLDING_CELL and by_colour[2].direction == LEFT
    assert by_colour[1].to_room == R.SECURITY_OFFICE


def test_as8_pieces_move_at_once_and_share_rooms() -> None:
    g = make()
    events = move(g, {0: LEFT, 1: LEFT, 2: LEFT, 3: RIGHT})
    moved = of(events, PiecesMoved)[0].moves
    assert [m.colour for m in moved] == [0, 1, 2, 3, 4]
    assert [g.pieces[c].room for c in range(5)] == [R.PODIUM, R.PODIUM, R.PODIUM, R.HALL, R.COURTYARD]


def test_as9_everyone_starts_in_the_courtyard_and_the_dice_place_the_president() -> None:
    for seed in range(20):
        g = Assassination(4, seed)
        started = of(g.opening_events(), RoundStarted)[0]
        assert all(p.room == R.COURTYARD for p in g.pieces)
        assert started.president_room == (R.HELIPAD if started.start_die % 2 == 0 else R.BUNKER)
        assert started.route == board.route(started.president_room, started.route_die)
        assert g.president.room == started.president_room


# --- the president -------------------------------------------------------------------------

ROUTES = [
    (R.HELIPAD, 1, (R.HALL, R.PUBLIC_EXIT, R.PODIUM)),
    (R.HELIPAD, 2, (R.HALL, R.PUBLIC_EXIT, R.PODIUM)),
    (R.HELIPAD, 3, (R.HALL, R.COURTYARD, R.PODIUM)),
    (R.HELIPAD, 4, (R.HALL, R.COURTYARD, R.PODIUM)),
    (R.HELIPAD, 5, (R.HALL, R.HEALTH_SERVICES, R.PODIUM)),
    (R.HELIPAD, 6, (R.HALL, R.HEALTH_SERVICES, R.PODIUM)),
    (R.BUNKER, 1, (R.PUBLIC_EXIT, R.PODIUM)),
    (R.BUNKER, 2, (R.PUBLIC_EXIT, R.PODIUM)),
    (R.BUNKER, 3, (R.PUBLIC_EXIT, R.PODIUM)),
    (R.BUNKER, 4, (R.PUBLIC_EXIT, R.PODIUM)),
    (R.BUNKER, 5, (R.PUBLIC_EXIT, R.HALL, R.HEALTH_SERVICES, R.PODIUM)),
    (R.BUNKER, 6, (R.PUBLIC_EXIT, R.HALL, R.HEALTH_SERVICES, R.PODIUM)),
]


@pytest.mark.parametrize("start,die,expected", ROUTES)
def test_as10_as11_each_route_is_walked_one_room_a_turn(start: Room, die: int, expected: tuple[Room, ...]) -> None:
    assert board.route(start, die) == expected
    g = make(start=start, route_die=die)
    walked = []
    for _ in expected:
        events = turn(g)
        walked.append(g.president.room)
        assert len(of(events, PresidentMoved)) == 1
    assert tuple(walked) == expected
    assert all(room in board.WALK for room in expected)


def test_as10_the_walk_never_enters_the_tower_the_office_or_a_refuge() -> None:
    for start in board.REFUGES:
        for die in range(1, 7):
            assert not set(board.route(start, die)) & {R.TOWER, R.SECURITY_OFFICE, R.HELIPAD, R.BUNKER}


def test_as12_the_speech_then_the_photo_op_walk() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    rooms = []
    speech_turn = None
    while g.phase != Phase.OVER and g.phase != Phase.ROUND_OVER:
        events = turn(g)
        rooms.append(g.president.room)
        if of(events, SpeechGiven):
            speech_turn = len(rooms)
    assert speech_turn == 3
    assert rooms == [R.HALL, R.COURTYARD, R.PODIUM, R.COURTYARD, R.HALL, R.PUBLIC_EXIT]
    # From off the walk (moved by the agent earlier), he takes the shortest way to the exit.
    h = make(start=R.BUNKER)
    put_president(h, R.HEALTH_SERVICES, speech_given=True)
    assert h._auto_president_room() == R.HALL


def test_as13_the_revealed_agent_moves_the_president() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    turn(g, acting=[0])  # the agent reveals himself, doing nothing
    assert g.view(1).president.secret_service_moves
    move(g)
    assert g.phase == Phase.PRESIDENT and g.to_act() == (0,)
    d = g.decision(0)
    assert d == PresidentMoveChoice(R.HALL, (R.HALL, R.HEALTH_SERVICES, R.PUBLIC_EXIT, R.COURTYARD, R.HELIPAD), False)
    assert g.check(0, MovePresident(R.TOWER)) is not None
    events = g.apply(0, MovePresident(R.HEALTH_SERVICES))
    assert of(events, PresidentMoved)[0].by_secret_service and g.president.room == R.HEALTH_SERVICES
    assert set(board.escort_moves(R.PODIUM)) == {R.PODIUM, R.COURTYARD}  # never the tower


def incident_with_dead_agent(g: Assassination) -> None:
    g.incident = True
    g.pieces[0].killed = True
    g.pieces[0].room = None
    g.revealed_seats[0] = None


def test_as14_without_an_agent_he_flees_to_the_nearest_refuge() -> None:
    g = make(start=R.BUNKER)
    incident_with_dead_agent(g)
    put_president(g, R.PODIUM)
    path = []
    while g.phase not in (Phase.ROUND_OVER, Phase.OVER):
        turn(g)
        path.append(g.president.room)
    assert path == [R.COURTYARD, R.HALL, R.HELIPAD]
    assert g.president.safe
    assert board.toward(R.HALL, board.REFUGES) == R.PUBLIC_EXIT or board.toward(R.HALL, board.REFUGES) == R.HELIPAD
    assert board.toward(R.PUBLIC_EXIT, board.REFUGES) == R.BUNKER


def test_as14_the_bunker_is_safe_at_once() -> None:
    g = make(start=R.HELIPAD)
    incident_with_dead_agent(g)
    put_president(g, R.PUBLIC_EXIT)
    events = move(g)
    assert of(events, PresidentSafe) == [PresidentSafe(R.BUNKER)]
    assert of(events, RoundEnded)[0].outcome == RoundOutcome.REACHED_SAFETY
    assert not of(events, EventsRevealed), "no event stage in the bunker"


def test_as14_a_president_wounded_on_the_helipad_is_not_yet_safe() -> None:
    g = make()
    g.rng = Loaded([4])
    g.incident = True
    g.revealed_seats[0] = None
    put_president(g, R.HALL)
    move(g)
    g.apply(0, MovePresident(R.HELIPAD))
    place(g, 3, R.HALL)
    g.pieces[3].visited.append(R.HELIPAD)
    events = act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HELIPAD)})
    assert g.president.status == PresidentStatus.INJURED and not of(events, PresidentSafe)
    assert g.phase == Phase.MOVEMENT
    move(g)
    g.apply(0, MovePresident(R.HELIPAD))
    events = play_events(g)
    assert of(events, PresidentSafe) == [PresidentSafe(R.HELIPAD)]


def test_as15_the_photo_op_fails_if_an_incident_happens_at_the_exit() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    for _ in range(5):
        turn(g)
    assert g.president.room == R.HALL and g.president.speech_given
    move(g)
    assert g.president.room == R.PUBLIC_EXIT
    place(g, 2, R.PUBLIC_EXIT)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.president.status == PresidentStatus.KILLED
    assert of(events, RoundEnded)[0].outcome == RoundOutcome.ASSASSINATED


# --- cards and reveals ---------------------------------------------------------------------


def test_as16_the_dead_play_no_cards_the_detained_do() -> None:
    g = make()
    g.pieces[1].killed = True
    g.pieces[1].room = None
    place(g, 3, R.HOLDING_CELL)
    assert g.to_act() == (0, 2, 3)
    move(g, {3: UP})
    assert g.pieces[3].room == R.HOLDING_CELL
    assert g.to_act() == (0, 2, 3)


def test_as17_nothing_is_told_until_all_have_played_and_the_order_of_play_does_not_show() -> None:
    outputs = []
    for order in ([0, 1, 2, 3], [3, 1, 0, 2], [2, 3, 1, 0]):
        g = make(seed=5)
        events = []
        for i, seat in enumerate(order):
            got = g.apply(seat, PlayMovement(card(g, seat, [UP, LEFT, RIGHT, STAY][seat])))
            if i < 3:
                assert got == []
                assert g.view(order[-1]).played_card is None
            events += got
        outputs.append(events)
    assert outputs[0] == outputs[1] == outputs[2]
    pile = of(outputs[0], MovementRevealed)[0].cards
    assert len(pile) == 5 and sorted(deck.colour_of(c) for c in pile) == [0, 1, 2, 3, 4]


def test_as17_the_pile_is_shuffled() -> None:
    orders = set()
    for seed in range(30):
        g = make(seed=seed)
        pile = of(move(g), MovementRevealed)[0].cards
        orders.add(tuple(deck.colour_of(c) for c in pile))
    assert len(orders) > 10


def test_as18_an_action_card_reveals_its_owner_and_the_reporter_adds_a_blank() -> None:
    g = make()
    move(g)
    events = play_events(g, [2])
    pile = of(events, EventsRevealed)[0]
    assert len(pile.cards) == 5 and pile.action_colours == (2,)
    assert of(events, PlayerRevealed) == [PlayerRevealed(2, SN, 2, RevealReason.ACTION_CARD)]
    assert g.view(0).revealed[0].seat == 2
    take(g)
    # A revealed player may act again.
    move(g)
    play_events(g, [2])
    assert g.to_act() == (2,)
    take(g)
    # The reporter's twelve blanks run out.
    g.reporter_events = []
    move(g)
    assert len(of(play_events(g), EventsRevealed)[0].cards) == 4


def test_as19_actions_are_chosen_after_the_reveal_at_once() -> None:
    g = make()
    to_event_stage(g)
    play_events(g, [0, 2])
    assert g.phase == Phase.ACTION and g.to_act() == (0, 2)
    d = g.decision(2)
    assert isinstance(d, ActionChoice) and d.options[0] == ActionOption(ActionKind.NOTHING)
    assert g.check(2, TakeAction(ActionKind.SNIPE)) is not None
    assert g.apply(0, TakeAction(ActionKind.DETAIN, 1)) == [], "held until every revealed player has chosen"
    events = g.apply(2, TakeAction(ActionKind.NOTHING))
    assert of(events, ActionTaken)[0] == ActionTaken(0, ActionKind.DETAIN, 1, None)


# --- the action stage ------------------------------------------------------------------------


def test_as20_detonation_first_then_shoot_first_then_the_sniper() -> None:
    g = make()
    g.rng = Loaded([6])
    g.incident = True
    to_event_stage(g)
    put_president(g, R.HALL)
    for c in (1, 2):
        place(g, c, R.HALL)
    place(g, 0, R.PODIUM)
    place(g, 3, R.COURTYARD)
    g.pieces[3].visited.append(R.HALL)
    events = act(
        g,
        [1, 2, 3],
        {
            1: TakeAction(ActionKind.SHOOT_PLAYER, 2),
            2: TakeAction(ActionKind.SHOOT_PRESIDENT),
            3: TakeAction(ActionKind.DETONATE, None, R.HALL),
        },
    )
    taken = of(events, ActionTaken)
    assert [t.seat for t in taken] == [3], "the blast killed the police officer and the sniper before they acted"
    assert g.pieces[1].killed and g.pieces[2].killed and g.president.status == PresidentStatus.KILLED


def test_as20_shoot_first_precedes_the_sniper_and_moves_come_last() -> None:
    g = make()
    g.incident = True
    to_event_stage(g)
    put_president(g, R.HALL)
    for c in (0, 1, 2):
        place(g, c, R.HALL)
    events = act(g, [0, 1, 2], {1: TakeAction(ActionKind.SHOOT_PLAYER, 2), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert [t.seat for t in of(events, ActionTaken)] == [1, 0]
    assert g.president.status == PresidentStatus.UNHARMED and g.pieces[2].killed


def test_as20_wounded_to_health_services_detained_to_the_cell() -> None:
    g = make()
    to_event_stage(g)
    place(g, 2, R.HALL)
    place(g, 1, R.HALL)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, 1)})
    assert of(events, PieceSent) == [PieceSent(1, R.HEALTH_SERVICES)]
    assert g.pieces[1].room == R.HEALTH_SERVICES and g.pieces[1].injured
    move(g)
    place(g, 0, R.HALL)
    events = act(g, [0], {0: TakeAction(ActionKind.DETAIN, 2)})
    assert of(events, PieceSent) == [PieceSent(2, R.HOLDING_CELL)] and g.pieces[2].detained


def test_as21_sniping_needs_the_tower_alone_and_the_president_on_the_podium() -> None:
    for die, status in ((3, PresidentStatus.KILLED), (6, PresidentStatus.KILLED), (2, PresidentStatus.INJURED), (1, PresidentStatus.UNHARMED)):
        g = make()
        g.rng = Loaded([die])
        to_event_stage(g)
        put_president(g, R.PODIUM)
        place(g, 2, R.TOWER)
        play_events(g, [2])
        assert ActionOption(ActionKind.SNIPE) in opts(g, 2)
        events = take(g, {2: TakeAction(ActionKind.SNIPE)})
        assert of(events, DiceRolled)[0].value == die
        assert g.president.status == status and g.incident
    g = make()
    to_event_stage(g)
    put_president(g, R.PODIUM)
    place(g, 2, R.TOWER)
    place(g, 4, R.TOWER)  # the reporter spoils it
    play_events(g, [2])
    assert ActionOption(ActionKind.SNIPE) not in opts(g, 2)


def test_as22_the_pistol_at_the_president() -> None:
    # Alone with him: he dies, and the sniper is revealed.
    g = make()
    to_event_stage(g)
    place(g, 2, R.HALL)
    put_president(g, R.HALL)
    act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.president.status == PresidentStatus.KILLED
    # With the agent: the agent dies, everyone in the room is revealed, nobody is detained.
    g = make()
    to_event_stage(g)
    for c in (0, 2, 4):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.president.status == PresidentStatus.UNHARMED and g.pieces[0].killed
    assert {p.seat for p in of(events, PlayerRevealed)} == {0, 2} and of(events, ReporterRevealed)
    assert not of(events, PieceDetained)
    # With the agent and a good police officer: the sniper and a bomber there are detained.
    g = make()
    to_event_stage(g)
    for c in (0, 1, 2, 3):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.pieces[0].killed and g.pieces[2].detained and g.pieces[3].detained
    assert of(events, PieceDetained) == [PieceDetained(2, 1), PieceDetained(3, 1)]
    # The police officer without the agent: the president dies, the sniper is detained.
    g = make()
    to_event_stage(g)
    for c in (1, 2):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.president.status == PresidentStatus.KILLED and g.pieces[2].detained


def test_as22_a_bad_cop_lets_the_sniper_go_unless_the_reporter_sees() -> None:
    for reporter_there in (False, True):
        g = make()
        g.secret.bad_cop = True
        to_event_stage(g)
        for c in (0, 1, 2) + ((4,) if reporter_there else ()):
            place(g, c, R.HALL)
        put_president(g, R.HALL)
        act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
        assert g.pieces[0].killed
        assert g.pieces[2].detained == reporter_there


def test_as23_when_the_sniper_may_use_his_pistol() -> None:
    g = make()
    to_event_stage(g)
    place(g, 2, R.HALL)
    place(g, 1, R.HALL)
    put_president(g, R.HALL)
    play_events(g, [2])
    kinds = {o.kind for o in opts(g, 2)}
    assert kinds == {ActionKind.NOTHING, ActionKind.SHOOT_PRESIDENT}, "with the president there he must shoot him"
    take(g)
    # Revealed already: he may shoot anyone in his room.
    move(g)
    play_events(g, [2])
    assert ActionOption(ActionKind.SHOOT_PLAYER, 1) in opts(g, 2)
    # Not revealed, no president: only with exactly one other piece.
    for company, expected in (((1,), True), ((1, 4), False)):
        h = make()
        to_event_stage(h)
        for c in (2,) + company:
            place(h, c, R.PUBLIC_EXIT)
        play_events(h, [2])
        assert (ActionOption(ActionKind.SHOOT_PLAYER, 1) in opts(h, 2)) == expected


@pytest.mark.parametrize("target,wounded", [(0, True), (1, True), (3, False), (4, False)])
def test_as23_shot_players_the_law_is_wounded_the_rest_killed(target: int, wounded: bool) -> None:
    g = make()
    to_event_stage(g)
    place(g, 2, R.PUBLIC_EXIT)
    place(g, target, R.PUBLIC_EXIT)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, target)})
    assert g.pieces[target].injured == wounded and g.pieces[target].killed == (not wounded)
    revealed = of(events, PlayerRevealed) + of(events, ReporterRevealed)
    assert any(getattr(r, "colour", None) == target and r.reason == RevealReason.SHOT for r in revealed)


def test_as24_a_second_wound_kills() -> None:
    g = make()
    g.rng = Loaded([2, 2])
    for _ in range(2):
        to_event_stage(g)
        put_president(g, R.PODIUM)
        place(g, 2, R.TOWER)
        act(g, [2], {2: TakeAction(ActionKind.SNIPE)})
    assert g.president.status == PresidentStatus.KILLED
    h = make()
    for _ in range(2):
        to_event_stage(h)
        place(h, 2, R.PUBLIC_EXIT)
        place(h, 1, R.PUBLIC_EXIT)
        act(h, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, 1)})
    assert h.pieces[1].killed


def test_as25_an_incident_is_told_once_and_lasts() -> None:
    g = make()
    to_event_stage(g)
    place(g, 2, R.PUBLIC_EXIT)
    place(g, 4, R.PUBLIC_EXIT)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, 4)})
    assert len(of(events, IncidentOccurred)) == 1 and g.view(1).incident
    move(g)
    events = act(g, [2])
    assert not of(events, IncidentOccurred) and g.incident


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


def test_as28_no_reaction_when_the_bomber_is_alone() -> None:
    g = make()
    g.rng = Loaded([1])
    to_event_stage(g)
    place(g, 3, R.HALL)
    place(g, 3, R.HEALTH_SERVICES)
    put_president(g, R.HALL)
    act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.phase == Phase.MOVEMENT


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


def test_as31_a_police_officer_detained_by_the_agent_may_walk_out() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1):
        place(g, c, R.HALL)
    act(g, [0], {0: TakeAction(ActionKind.DETAIN, 1)})
    assert g.pieces[1].room == R.HOLDING_CELL and g.pieces[1].detained_by_secret_service
    to_event_stage(g)
    play_events(g, [1])
    assert ActionOption(ActionKind.LEAVE_CELL) in opts(g, 1)
    events = take(g, {1: TakeAction(ActionKind.LEAVE_CELL)})
    assert of(events, PieceSent) == [PieceSent(1, R.SECURITY_OFFICE)] and not g.pieces[1].detained
    move(g, {1: DOWN})
    assert g.pieces[1].room == R.COURTYARD


def test_as32_the_police_officer_who_tries_to_detain_the_agent_is_put_in_the_office() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1):
        place(g, c, R.HALL)
    events = act(g, [1], {1: TakeAction(ActionKind.DETAIN, 0)})
    assert PlayerRevealed(0, SS, 0, RevealReason.DETAIN_ATTEMPT) in of(events, PlayerRevealed)
    assert g.pieces[0].room == R.HALL and g.pieces[1].room == R.SECURITY_OFFICE and not g.pieces[1].detained
    assert g.ledger.tried_secret_service == [1]


def test_as33_shoot_first_only_after_an_incident() -> None:
    g = make()
    to_event_stage(g)
    for c in (1, 2, 0):
        place(g, c, R.HALL)
    play_events(g, [1])
    assert not [o for o in opts(g, 1) if o.kind == ActionKind.SHOOT_PLAYER]
    take(g)
    g.incident = True
    move(g)
    play_events(g, [1])
    assert {o.target_colour for o in opts(g, 1) if o.kind == ActionKind.SHOOT_PLAYER} == {0, 2}
    events = take(g, {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
    assert g.pieces[0].injured and not g.pieces[0].killed
    assert PlayerRevealed(0, SS, 0, RevealReason.SHOT) in of(events, PlayerRevealed)
    move(g)
    place(g, 2, R.HEALTH_SERVICES)
    place(g, 1, R.HEALTH_SERVICES)
    act(g, [1], {1: TakeAction(ActionKind.SHOOT_PLAYER, 2)})
    assert g.pieces[2].killed


def test_as34_the_bad_cop_shoots_the_president() -> None:
    for reporter_there in (False, True):
        g = make()
        g.secret.bad_cop = True
        to_event_stage(g)
        for c in (1, 3) + ((4,) if reporter_there else ()):
            place(g, c, R.HALL)
        put_president(g, R.HALL)
        play_events(g, [1])
        assert ActionOption(ActionKind.SHOOT_PRESIDENT) in opts(g, 1)
        events = take(g, {1: TakeAction(ActionKind.SHOOT_PRESIDENT)})
        assert g.president.status == PresidentStatus.KILLED
        assert g.pieces[1].detained == reporter_there and g.pieces[3].detained == reporter_there
        if reporter_there:
            assert PieceDetained(1, None) in of(events, PieceDetained)
    good = make()
    to_event_stage(good)
    place(good, 1, R.HALL)
    put_president(good, R.HALL)
    play_events(good, [1])
    assert ActionOption(ActionKind.SHOOT_PRESIDENT) not in opts(good, 1)


def test_as35_the_bad_cop_shoots_the_revealed_agent() -> None:
    g = make()
    g.secret.bad_cop = True
    to_event_stage(g)
    for c in (0, 1, 4):
        place(g, c, R.HALL)
    play_events(g, [1])
    assert not [o for o in opts(g, 1) if o.kind == ActionKind.SHOOT_PLAYER], "the agent is not known yet"
    take(g)
    g.revealed_seats[0] = None
    move(g)
    g.apply(0, MovePresident(g.president.room))
    play_events(g, [1])
    assert [o.target_colour for o in opts(g, 1) if o.kind == ActionKind.SHOOT_PLAYER] == [0]
    events = take(g, {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
    assert g.pieces[0].injured and g.incident
    assert g.pieces[1].detained, "the reporter saw it"
    assert of(events, ReporterRevealed)


def test_as36_the_token_holder_chooses_his_side_whatever_he_is() -> None:
    for seed in range(12):
        g = Assassination(4, seed)
        finish_round(g, [5, 3, 3, 0])
        assert g.to_act() == (3,)
        is_po = g.secret.identities[3] == PO
        assert g.decision(3) == AllegianceChoice(is_po)
        assert (g.check(3, ChooseAllegiance(True)) is None) == is_po
        g.apply(3, ChooseAllegiance(is_po))
        assert g.secret.bad_cop == is_po
        assert g.view(3).bad_cop == is_po and not any(g.view(s).bad_cop for s in range(3))
        assert g.secret.is_good(3) == (g.secret.identities[3] == SS)


def test_as37_the_agent_reveals_himself_after_an_incident() -> None:
    g = make()
    to_event_stage(g)
    place(g, 2, R.PUBLIC_EXIT)
    place(g, 4, R.PUBLIC_EXIT)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, 4)})
    assert PlayerRevealed(0, SS, 0, RevealReason.INCIDENT) in of(events, PlayerRevealed)
    assert of(events, PlayerRevealed)[-1].seat == 0


def test_as38_a_detention_reveals_nothing_about_the_detained() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 3):
        place(g, c, R.HALL)
    events = act(g, [0], {0: TakeAction(ActionKind.DETAIN, 3)})
    assert [p.seat for p in of(events, PlayerRevealed)] == [0]
    assert 3 not in g.revealed_seats


# --- scoring ---------------------------------------------------------------------------------


def end_round(g: Assassination) -> RoundEnded:
    """Play on, standing still and doing nothing, until the round ends."""
    while True:
        for e in turn(g):
            if isinstance(e.payload, RoundEnded):
                return e.payload


def changes(ended: RoundEnded) -> list[tuple[int, int, ScoreReason]]:
    return [(c.seat, c.points, c.reason) for c in ended.changes]


def test_as39_dead_team_mates_still_score() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    g.pieces[0].killed = True
    g.pieces[0].room = None
    ended = end_round(g)
    assert ended.outcome == RoundOutcome.PHOTO_OP_TAKEN
    assert (0, 7, ScoreReason.PHOTO_OP) in changes(ended)


def test_as40_the_photo_op() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    ended = end_round(g)
    assert changes(ended) == [(0, 7, ScoreReason.PHOTO_OP), (1, 7, ScoreReason.PHOTO_OP)]
    assert ended.scores == (7, 7, 0, 0) and ended.identities == (SS, PO, SN, BO) and ended.reporter_colour == 4


def test_as40_no_photo_op_points_with_the_reporter_detained() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    to_event_stage(g)
    for c in (0, 4):
        place(g, c, R.TOWER)
    act(g, [0], {0: TakeAction(ActionKind.DETAIN, 4)})
    put_president(g, R.PODIUM)
    g.president.speech_given = True
    g.revealed_seats.pop(0)  # let him walk by himself
    ended = end_round(g)
    assert ended.outcome == RoundOutcome.PHOTO_OP_TAKEN
    assert changes(ended) == [(0, -4, ScoreReason.DETAINED_REPORTER)]


@pytest.mark.parametrize(
    "status,expected",
    [
        (PresidentStatus.UNHARMED, [(0, 5, ScoreReason.PRESIDENT_UNHARMED), (1, 5, ScoreReason.PRESIDENT_UNHARMED)]),
        (PresidentStatus.INJURED, [(2, 1, ScoreReason.PRESIDENT_WOUNDED), (3, 1, ScoreReason.PRESIDENT_WOUNDED)]),
        (PresidentStatus.KILLED, [(2, 3, ScoreReason.PRESIDENT_KILLED), (3, 3, ScoreReason.PRESIDENT_KILLED)]),
    ],
)
def test_as40_the_presidents_fate_scores_one_line(status: PresidentStatus, expected: list[tuple[int, int, ScoreReason]]) -> None:
    g = make()
    g.president.status = status
    g.turn = TURN_LIMIT
    ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
    assert changes(ended) == expected


def test_as40_the_bad_cop_scores_with_the_assassins() -> None:
    g = make()
    g.secret.bad_cop = True
    g.president.status = PresidentStatus.KILLED
    ended = of(g._end_round(RoundOutcome.ASSASSINATED), RoundEnded)[0]
    assert {c.seat for c in ended.changes} == {1, 2, 3} and ended.bad_cop


def test_as41_kills() -> None:
    g = make()
    g.ledger.kills = [(2, 0), (1, 2), (3, 2), (1, 4), (2, 4), (1, 0)]
    ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
    kills = [c for c in changes(ended) if c[2] not in (ScoreReason.PRESIDENT_UNHARMED,)]
    assert kills == [
        (2, 1, ScoreReason.KILLED_GOOD_GUY),
        (1, 1, ScoreReason.KILLED_BAD_GUY),
        (3, -1, ScoreReason.KILLED_OWN_SIDE),
        (1, -4, ScoreReason.KILLED_REPORTER),
    ]


def test_as42_detentions() -> None:
    g = make()
    g.ledger.detentions = [(0, 2), (1, 2), (0, 3), (0, 4), (0, 1)]
    g.ledger.tried_secret_service = [1]
    ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
    rest = [c for c in changes(ended) if c[2] != ScoreReason.PRESIDENT_UNHARMED]
    assert rest == [
        (0, 1, ScoreReason.BAD_GUY_DETAINED),
        (1, 1, ScoreReason.BAD_GUY_DETAINED),
        (0, 1, ScoreReason.BAD_GUY_DETAINED),
        (1, 1, ScoreReason.BAD_GUY_DETAINED),
        (0, -4, ScoreReason.DETAINED_REPORTER),
        (0, -2, ScoreReason.DETAINED_POLICE_OFFICER),
        (1, -2, ScoreReason.TRIED_TO_DETAIN_SECRET_SERVICE),
    ]


def test_as43_assassins_escape_by_the_public_exit_after_an_incident() -> None:
    for incident in (False, True):
        g = make()
        g.incident = incident
        place(g, 2, R.PUBLIC_EXIT)
        place(g, 3, R.PUBLIC_EXIT)
        g.pieces[3].detained = True
        g.pieces[3].room = R.HOLDING_CELL
        ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
        escaped = [c for c in changes(ended) if c[2] == ScoreReason.ESCAPED]
        assert escaped == ([(2, 2, ScoreReason.ESCAPED)] if incident else [])


def test_as44_scores_change_only_when_the_round_ends() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    to_event_stage(g)
    for c in (0, 4):
        place(g, c, R.HALL)
    act(g, [0], {0: TakeAction(ActionKind.DETAIN, 4)})
    assert g.scores == [0, 0, 0, 0] and all(g.view(s).scores == (0, 0, 0, 0) for s in range(4))
    ended = end_round(g)
    assert ended.scores == tuple(g.scores) and g.scores != [0, 0, 0, 0]


# --- the end ---------------------------------------------------------------------------------


def test_as45_a_round_lasts_at_most_sixteen_turns() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    g.revealed_seats[0] = None  # the agent keeps the president at the helipad
    for _ in range(TURN_LIMIT - 1):
        turn(g, president_to=R.HELIPAD)
        assert g.phase == Phase.MOVEMENT
    events = turn(g, president_to=R.HELIPAD)
    ended = of(events, RoundEnded)[0]
    assert ended.outcome == RoundOutcome.TIME_UP and g.turn == TURN_LIMIT
    assert all(len(h) == 0 for h in g.event_hands)


def test_as45_the_round_ends_when_nobody_is_left() -> None:
    g = make()
    for c in range(4):
        g.pieces[c].killed = True
        g.pieces[c].room = None
    assert g.living() == []
    assert of(g._end_action_stage(), RoundEnded)[0].outcome == RoundOutcome.TIME_UP
    assert g.phase == Phase.ROUND_OVER


def test_as46_the_game_ends_at_the_target_score_or_the_round_limit() -> None:
    g = make(start=R.HELIPAD, route_die=3, target_score=7)
    end_round(g)
    assert g.phase == Phase.OVER and g.is_over()
    assert g.result().ranks == (1, 1, 3, 3) and g.result().scores == (7.0, 7.0, 0.0, 0.0)
    h = make(start=R.HELIPAD, route_die=3, max_rounds=1)
    end_round(h)
    assert h.is_over()
    k = make(start=R.HELIPAD, route_die=3)
    assert not of([], RoundEnded)
    ended = end_round(k)
    assert not ended.game_over and k.phase == Phase.ROUND_OVER


def test_as46_random_games_always_end() -> None:
    for seed in range(40):
        g = Assassination(4, seed)
        rng = random.Random(seed)
        steps = 0
        while not g.is_over():
            seat = rng.choice(g.to_act())
            g.apply(seat, g.random_action(seat, rng))
            steps += 1
        assert steps < 20 * TURN_LIMIT * 20
        assert max(g.scores) >= 15 or g.round == 20


def test_as47_default_actions() -> None:
    g = make()
    assert deck.direction_of(g.default_action(0).card_id) == STAY  # type: ignore[union-attr]
    move(g)
    assert not deck.is_action(g.default_action(0).card_id)  # type: ignore[union-attr]
    play_events(g, [2])
    assert g.default_action(2) == TakeAction(ActionKind.NOTHING)
    h = make(start=R.HELIPAD, route_die=3)
    h.revealed_seats[0] = None
    move(h)
    assert h.default_action(0) == MovePresident(R.HALL)
    k = Assassination(4, 1)
    finish_round(k, [5, 3, 3, 0])
    assert k.default_action(3) == ChooseAllegiance(False)
    # An agent who times out on the public exit takes the president towards the podium, one room.
    m = make(start=R.BUNKER, route_die=1)
    m.revealed_seats[0] = None
    move(m)
    put_president(m, R.PUBLIC_EXIT)
    assert m.default_action(0) == MovePresident(R.HALL)


def test_as47_the_default_action_is_always_legal() -> None:
    for seed in range(30):
        g = Assassination(4, seed)
        rng = random.Random(seed)
        while not g.is_over():
            for seat in g.to_act():
                assert g.check(seat, g.default_action(seat)) is None
            seat = rng.choice(g.to_act())
            g.apply(seat, g.default_action(seat) if rng.random() < 0.3 else g.random_action(seat, rng))


def test_as48_the_dealer_starts_the_next_round() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    end_round(g)
    assert g.phase == Phase.ROUND_OVER and g.to_act() == (0,)
    assert g.decision(0) == NextRoundChoice(2)
    assert g.check(0, StartRound()) is None
    events = g.apply(0, StartRound())
    assert of(events, RoundStarted)[0].round == 2 and g.round == 2
    assert of(events, RoundStarted)[0].secret_service_token is None  # 7, 7, 0, 0: no single leader


def test_as49_a_new_deal_hides_the_cards_again() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    end_round(g)
    before = g.hidden_cards(0)
    assert g.view(0).last_movement
    g.apply(0, StartRound())
    view = g.view(0)
    assert view.last_movement == () and view.last_events == ()
    assert len(g.hidden_cards(0)) > len(before)
    others = {c for s in range(1, 4) for c in g.movement_hands[s]}
    assert others <= g.hidden_cards(0)


def test_decisions_and_visibility_the_phases_in_order() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    assert isinstance(g.decision(0), MovementChoice)
    move(g)
    assert g.phase == Phase.EVENT
    events = g.apply(0, PlayEvent(min(c for c in g.event_hands[0] if deck.is_action(c))))
    assert events == []
    rest = play_events(g)
    assert of(rest, EventsRevealed) and g.phase == Phase.ACTION and g.to_act() == (0,)
    take(g)
    assert g.phase == Phase.MOVEMENT and g.turn == 2
    assert not of(rest, PieceInjured) and not of(rest, PieceKilled) and not of(rest, PresidentHit)
