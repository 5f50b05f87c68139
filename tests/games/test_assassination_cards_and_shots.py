"""The Assassination Game rulings on cards and reveals (AS-16 to AS-19, AS-36 to AS-38, AS-51, AS-54), the order of the action stage and its shots (AS-20 to AS-25, AS-33 to AS-35): docs/games/assassination.md."""

from __future__ import annotations

import pytest

from referee.games.assassination import Assassination, deck
from referee.games.assassination.types import (
    ActionChoice,
    ActionKind,
    ActionOption,
    ActionTaken,
    AllegianceChoice,
    ChooseAllegiance,
    DetainSniper,
    DiceRolled,
    EventsRevealed,
    IncidentOccurred,
    MovementRevealed,
    MovePresident,
    Phase,
    PieceDetained,
    PieceKilled,
    PieceSent,
    PlayerRevealed,
    PlayMovement,
    PresidentStatus,
    React,
    ReporterRevealed,
    RevealReason,
    Room,
    SniperDetentionChoice,
    TakeAction,
)
from tests.games.test_assassination_support import (
    PURE_RULES_ONLY,
    LEFT,
    PO,
    RIGHT,
    SN,
    SS,
    STAY,
    UP,
    Loaded,
    act,
    agent_detains,
    card,
    finish_round,
    lead_president,
    make,
    move,
    of,
    opts,
    place,
    play_events,
    put_president,
    react,
    sniper_shoots,
    take,
    to_event_stage,
)

R = Room

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


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


def test_as54_a_killed_reporter_adds_no_more_cards_to_the_piles() -> None:
    g = make()
    events = sniper_shoots(g, 4)
    assert 4 in {deck.colour_of(c) for c in of(events, EventsRevealed)[0].cards}, "alive, he still added his card"
    assert g.pieces[4].killed
    left = (len(g.reporter_movement), len(g.reporter_events))
    events = move(g)
    assert [deck.colour_of(c) for c in sorted(of(events, MovementRevealed)[0].cards)] == [0, 1, 2, 3]
    events = lead_president(g) + play_events(g)
    assert sorted(deck.colour_of(c) for c in of(events, EventsRevealed)[0].cards) == [0, 1, 2, 3]
    assert (len(g.reporter_movement), len(g.reporter_events)) == left


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
    events = sniper_shoots(g, 4)
    assert PlayerRevealed(0, SS, 0, RevealReason.INCIDENT) in of(events, PlayerRevealed)
    assert of(events, PlayerRevealed)[-1].seat == 0


def test_as38_a_detention_reveals_nothing_about_the_detained() -> None:
    g = make()
    events = agent_detains(g, 3)
    assert [p.seat for p in of(events, PlayerRevealed)] == [0]
    assert 3 not in g.revealed_seats


def test_as38_a_detained_reporter_still_adds_his_cards_so_the_piles_do_not_name_him() -> None:
    g = make()
    agent_detains(g, 4)
    react(g)
    assert g.pieces[4].room == R.HOLDING_CELL and not g.reporter_revealed
    events = move(g) + lead_president(g) + play_events(g)
    for pile in (of(events, MovementRevealed)[0].cards, of(events, EventsRevealed)[0].cards):
        assert sorted(deck.colour_of(c) for c in pile) == [0, 1, 2, 3, 4]


def test_as51_the_reporters_blanks_are_reshuffled_so_his_colour_never_goes_missing() -> None:
    g = make()
    idle = {c for c in deck.event_deck(4) if not deck.is_action(c)}
    for _ in range(12):
        move(g)
        play_events(g)
    assert g.turn == 13 and not g.reporter_events
    # Turns 13 to 16: a pile of four colours would name the reporter by the colour it lacks.
    for _ in range(4):
        move(g)
        pile = of(play_events(g), EventsRevealed)[0].cards
        assert sorted(deck.colour_of(c) for c in pile) == [0, 1, 2, 3, 4]
        assert {c for c in pile if deck.colour_of(c) == 4} <= idle
        if g.phase == Phase.ACTION:  # the players' own blanks are spent too: they turn over aces and do nothing
            take(g)


# --- the action stage: its order and the shots ---------------------------------------------

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
    events = sniper_shoots(g, 1, R.HALL)
    assert of(events, PieceSent) == [PieceSent(1, R.HEALTH_SERVICES)]
    assert g.pieces[1].room == R.HEALTH_SERVICES and g.pieces[1].injured
    move(g)
    place(g, 0, R.HALL)
    events = act(g, [0], {0: TakeAction(ActionKind.DETAIN, 2)})
    assert of(events, PieceSent) == [PieceSent(2, R.HOLDING_CELL)] and g.pieces[2].detained


def test_as20_a_wounded_piece_also_detained_goes_to_the_cell() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1, 2):
        place(g, c, R.HALL)
    act(g, [2])  # the sniper reveals himself
    move(g)
    events = act(g, [0, 2], {0: TakeAction(ActionKind.DETAIN, 1), 2: TakeAction(ActionKind.SHOOT_PLAYER, 1)})
    assert g.pieces[1].injured and g.pieces[1].detained and g.pieces[1].room == R.HOLDING_CELL
    assert of(events, PieceSent) == [PieceSent(1, R.HOLDING_CELL)]


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
    assert not of(events, PieceDetained) and g.phase == Phase.MOVEMENT
    # With the agent and a good police officer: he is asked, can only say yes, and the sniper and a bomber there go.
    g = make()
    to_event_stage(g)
    for c in (0, 1, 2, 3):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    events = act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.pieces[0].killed and not of(events, PieceDetained)
    assert g.phase == Phase.REACTION and g.to_act() == (1,)
    assert g.decision(1) == SniperDetentionChoice(2, (2, 3), False)
    assert list(g.legal_actions(1)) == [DetainSniper(True)] and g.default_action(1) == DetainSniper(True)
    assert g.check(1, DetainSniper(False)) == "only the bad cop may let the sniper go"
    assert g.check(1, React(True)) is not None
    events = g.apply(1, DetainSniper(True))
    assert g.pieces[2].detained and g.pieces[3].detained and g.pieces[2].room == R.HOLDING_CELL
    assert of(events, PieceDetained) == [PieceDetained(2, 1), PieceDetained(3, 1)]
    assert (1, 2) in g.ledger.detentions and (1, 3) in g.ledger.detentions
    # The police officer without the agent: the president dies, the sniper is detained.
    g = make()
    to_event_stage(g)
    for c in (1, 2):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    react(g, [1])
    assert g.president.status == PresidentStatus.KILLED and g.pieces[2].detained


def test_as22_the_bad_cop_may_let_the_sniper_go_unless_the_reporter_sees() -> None:
    for reporter_there in (False, True):
        for lets_go in (False, True):
            g = make()
            g.secret.bad_cop = True
            to_event_stage(g)
            for c in (0, 1, 2) + ((4,) if reporter_there else ()):
                place(g, c, R.HALL)
            put_president(g, R.HALL)
            act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
            assert g.pieces[0].killed
            if reporter_there:  # the reporter sees: no question, the sniper is detained
                assert g.phase == Phase.MOVEMENT and g.pieces[2].detained
                continue
            assert g.decision(1) == SniperDetentionChoice(2, (2,), True)
            assert set(g.legal_actions(1)) == {DetainSniper(True), DetainSniper(False)}
            assert g.default_action(1) == DetainSniper(True), "a bad cop who times out stays in character"
            g.apply(1, DetainSniper(not lets_go))
            assert g.pieces[2].detained == (not lets_go) and g.phase == Phase.MOVEMENT


def test_as22_the_sniper_question_is_moot_once_he_is_detained() -> None:
    # The police officer detained the sniper with his own action card in the same stage: nothing to ask.
    g = make()
    to_event_stage(g)
    for c in (1, 2):
        place(g, c, R.HALL)
    put_president(g, R.HALL)
    act(g, [1, 2], {1: TakeAction(ActionKind.DETAIN, 2), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.pieces[2].detained and g.phase == Phase.ROUND_OVER, "the president is dead: no question, the round ends"


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
    events = sniper_shoots(g, target)
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
    events = sniper_shoots(g, 4)
    assert len(of(events, IncidentOccurred)) == 1 and g.view(1).incident
    move(g)
    events = act(g, [2])
    assert not of(events, IncidentOccurred) and g.incident


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


def test_as35_after_an_incident_the_bad_cops_shot_at_the_agent_is_shoot_first_and_tells_nothing() -> None:
    """Shoot-first is open to any police officer after an incident (AS-33): the reporter does not arrest him for it."""
    seen = []
    for bad in (False, True):
        g = make()
        g.secret.bad_cop = bad
        to_event_stage(g)
        for c in (0, 1, 4):
            place(g, c, R.HALL)
        g.incident = True
        g.revealed_seats[0] = None
        play_events(g, [1])
        events = take(g, {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
        assert g.pieces[0].injured and not g.pieces[1].detained and not g.reporter_revealed
        seen.append([e.payload for e in events])
    assert seen[0] == seen[1], "the same shot looks the same whatever the police officer's side"


@pytest.mark.parametrize("incident", [True, False])
def test_as33_as35_the_police_officers_shot_kills_an_agent_already_wounded(incident: bool) -> None:
    """Shoot-first (after an incident) and the bad cop's shot (before): "if secret service is injured: secret service is killed"."""
    g = make()
    g.secret.bad_cop = not incident
    g.incident = incident
    g.pieces[0].injured = True
    g.revealed_seats[0] = None
    to_event_stage(g)  # the agent, revealed, keeps the president where he is
    for c in (0, 1):
        place(g, c, R.HALL)
    events = act(g, [1], {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
    assert g.pieces[0].killed and of(events, PieceKilled) == [PieceKilled(0, 1)] and g.incident
