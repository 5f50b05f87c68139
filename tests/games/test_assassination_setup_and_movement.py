"""The Assassination Game rulings AS-1 to AS-15 (docs/games/assassination.md): the board, the deal, movement and the president."""

from __future__ import annotations

from collections import Counter

import pytest

from referee.core.cards import Rank, Suit, card_id, deck_of, joker_id, rank_of
from referee.games.assassination import Assassination, board, deck
from referee.games.assassination.actions import others_in_room
from referee.games.assassination.types import (
    ActionKind,
    Identity,
    EventsRevealed,
    MovementRevealed,
    MovePresident,
    Phase,
    PiecesMoved,
    PresidentMoveChoice,
    PresidentMoved,
    PresidentSafe,
    PresidentStatus,
    Room,
    RoundEnded,
    RoundOutcome,
    RoundStarted,
    SpeechGiven,
    TakeAction,
)
from tests.games.test_assassination_support import (
    PURE_RULES_ONLY,
    BO,
    DOWN,
    LEFT,
    PO,
    RIGHT,
    SN,
    SS,
    STAY,
    UP,
    Loaded,
    act,
    finish_round,
    make,
    move,
    of,
    place,
    play_events,
    put_president,
    turn,
)

R = Room

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


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
    """Each row of the board drawn in docs/games/assassination.md names the rooms of board.GRID, walls hatched."""
    from tests.support import ROOT

    doc = (ROOT / "docs" / "games" / "assassination.md").read_text().splitlines()
    rows = [line for line in doc if line.lstrip().startswith("row ") and "|" in line]
    assert len(rows) == len(board.GRID)
    for line, grid_row in zip(rows, board.GRID):
        cells = [cell.strip() for cell in line.split("|")[1:-1]]
        expected = ["" if room is None else room.name.replace("_", " ").capitalize() for room in grid_row]
        assert [("" if set(cell) == {"#"} else cell) for cell in cells] == expected
    text = board.drawing()
    assert text.splitlines()[0].split("|")[0].strip() == "Tower" and "Public Exit" in text.splitlines()[2]


# --- setup ---------------------------------------------------------------------------------


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


def test_as3_the_suit_tells_the_way_aces_and_jokers_stay_and_red_aces_act() -> None:
    """Spades up (points up), clubs right (right hand), hearts down (points down), diamonds left (the ring); aces and jokers do not move."""
    ways = {Suit.SPADES: UP, Suit.CLUBS: RIGHT, Suit.HEARTS: DOWN, Suit.DIAMONDS: LEFT}
    for colour in range(deck.COLOURS):
        blue, red = 2 * colour, 2 * colour + 1
        for suit, way in ways.items():
            assert [deck.direction_of(card_id(r, suit, blue)) for r in range(2, 14)] == [way] * 12
            assert deck.direction_of(card_id(Rank.ACE, suit, blue)) == STAY
            assert deck.is_action(card_id(Rank.ACE, suit, red))
            assert not any(deck.is_action(card_id(r, suit, red)) for r in (Rank.JACK, Rank.QUEEN, Rank.KING))
            assert not deck.is_action(card_id(Rank.ACE, suit, blue)), "a movement ace moves nobody and acts for nobody"
        assert deck.direction_of(joker_id(0, blue)) == deck.direction_of(joker_id(1, blue)) == STAY


def test_as4_hands_are_whole_decks_and_the_reporter_draws_from_the_top() -> None:
    g = Assassination(4, 8)
    a = g.secret
    for seat in range(4):
        assert sorted(g.movement_hands[seat]) == deck.movement_deck(a.colours[seat])
        assert sorted(g.event_hands[seat]) == deck.event_deck(a.colours[seat])
    assert len(g.reporter_movement) == 54 and len(g.reporter_events) == 12
    assert sorted(g.discarded) == [c for c in deck.event_deck(a.reporter_colour) if deck.is_action(c)]
    top = g.reporter_movement[0]
    events = move(g)
    pile = of(events, MovementRevealed)[0].cards
    assert top in pile and g.reporter_movement[0] != top
    kinds = [type(e.payload) for e in events]
    assert kinds.index(MovementRevealed) + 1 == kinds.index(PiecesMoved), "the pile is turned over, then the pieces move"


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


def test_as12_an_incident_in_the_podium_turn_spoils_the_speech() -> None:
    for shot in (False, True):
        g = make()
        g.rng = Loaded([1])  # the sniper misses
        move(g)
        put_president(g, R.PODIUM)
        place(g, 2, R.TOWER)
        events = act(g, [2] if shot else [], {2: TakeAction(ActionKind.SNIPE)} if shot else {})
        assert g.president.status == PresidentStatus.UNHARMED and g.incident == shot
        assert bool(of(events, SpeechGiven)) == (not shot) and g.president.speech_given == (not shot)


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


def test_as13_the_speech_and_the_photo_op_count_when_the_agent_leads_him() -> None:
    g = make(start=R.HELIPAD, route_die=5)  # his own way would be hall, health services, podium
    turn(g, acting=[0])  # the agent reveals himself; the president has walked to the hall
    events = []
    for room in (R.COURTYARD, R.PODIUM, R.COURTYARD, R.HALL, R.PUBLIC_EXIT):
        events += turn(g, president_to=room)
    assert all(m.by_secret_service for m in of(events, PresidentMoved))
    assert len(of(events, SpeechGiven)) == 1
    assert [e.outcome for e in of(events, RoundEnded)] == [RoundOutcome.PHOTO_OP_TAKEN]


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
    assert board.toward(R.HALL, board.REFUGES) == R.HELIPAD  # one room away; the bunker is two
    assert board.toward(R.PUBLIC_EXIT, board.REFUGES) == R.BUNKER


def test_as14_no_room_the_president_may_be_in_is_as_far_from_the_bunker_as_from_the_helipad() -> None:
    """AS-14's "the bunker on a tie" never applies on this board (docs/games/assassination.md, the board): the two
    refuges are next to each other, so every room is one step nearer to one of them."""
    to_bunker, to_helipad = board.distances([R.BUNKER]), board.distances([R.HELIPAD])
    assert set(to_bunker) == set(to_helipad) == board.ESCORT
    assert all(abs(to_bunker[room] - to_helipad[room]) == 1 for room in board.ESCORT)


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


def test_as15_an_incident_that_spares_the_president_still_spoils_the_photo_op() -> None:
    """The agent takes the sniper's bullet at the exit: the president is unharmed, but there was an incident."""
    outcomes = []
    for shot in (False, True):
        g = make(start=R.HELIPAD, route_die=3)
        for _ in range(5):
            turn(g)
        move(g)
        assert g.president.room == R.PUBLIC_EXIT and g.president.speech_given
        place(g, 0, R.PUBLIC_EXIT)  # the agent
        place(g, 2, R.PUBLIC_EXIT)  # the sniper
        events = act(g, [2] if shot else [], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)} if shot else {})
        outcomes.append([e.outcome for e in of(events, RoundEnded)])
        if shot:
            assert g.incident and g.pieces[0].killed and g.president.status != PresidentStatus.KILLED
    assert outcomes == [[RoundOutcome.PHOTO_OP_TAKEN], []]


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
