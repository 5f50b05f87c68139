"""The Assassination Game rulings AS-39 to AS-49, AS-52, AS-55, AS-58 and AS-60 (docs/games/assassination.md): scoring, the end of a round and of the game."""

from __future__ import annotations

import random

import pytest

from referee.games.assassination import Assassination, deck
from referee.games.assassination.rules import TURN_LIMIT
from referee.games.assassination.types import (
    ActionKind,
    ChooseAllegiance,
    EventsRevealed,
    MovementChoice,
    MovePresident,
    NextRoundChoice,
    Phase,
    PieceDetained,
    PieceInjured,
    PieceKilled,
    PlayEvent,
    PresidentHit,
    PresidentStatus,
    React,
    ReactionChoice,
    Room,
    RoundEnded,
    RoundOutcome,
    RoundStarted,
    ScoreReason,
    StartRound,
    TakeAction,
)
from tests.games.test_assassination_support import (
    PURE_RULES_ONLY,
    Loaded,
    BO,
    PO,
    SN,
    SS,
    STAY,
    act,
    finish_round,
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

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


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
    react(g)  # asked whether they leave the cell: nobody may, it was the reporter (AS-31)
    put_president(g, R.PODIUM)
    g.president.speech_given = True
    g.revealed_seats.pop(0)  # let him walk by himself
    ended = end_round(g)
    assert ended.outcome == RoundOutcome.PHOTO_OP_TAKEN
    assert changes(ended) == [(0, -4, ScoreReason.DETAINED_REPORTER)]


def test_as58_a_piece_detained_twice_in_one_stage_is_detained_by_the_first_alone() -> None:
    g = make()
    to_event_stage(g)
    for c in (0, 1, 4):
        place(g, c, R.HALL)
    events = act(g, [0, 1], {0: TakeAction(ActionKind.DETAIN, 4), 1: TakeAction(ActionKind.DETAIN, 4)})
    assert [(e.by_seat, e.colour) for e in of(events, PieceDetained)] == [(0, 4)]
    react(g)
    assert g.pieces[4].room == R.HOLDING_CELL
    ended = end_round(g)
    assert [c for c in changes(ended) if c[2] == ScoreReason.DETAINED_REPORTER] == [(0, -4, ScoreReason.DETAINED_REPORTER)]


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


def test_as41_the_bad_cop_who_shoots_the_reporter_first_loses_points_too() -> None:
    """"Caution: If you shoot the reporter you will lose points" is written on the police officer's shoot-first, which the bad cop has too."""
    lost = []
    for bad_cop in (False, True):
        g = make()
        g.secret.bad_cop = bad_cop
        g.incident = True
        to_event_stage(g)
        for c in (1, 4):
            place(g, c, R.HALL)
        act(g, [1], {1: TakeAction(ActionKind.SHOOT_PLAYER, 4)})
        assert g.pieces[4].killed
        g.president.status = PresidentStatus.KILLED
        ended = of(g._end_round(RoundOutcome.ASSASSINATED), RoundEnded)[0]
        lost.append([c for c in changes(ended) if c[2] == ScoreReason.KILLED_REPORTER])
    assert lost == [[(1, -4, ScoreReason.KILLED_REPORTER)]] * 2


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
    for bad_cop in (False, True):  # the bad cop is a bad guy (AS-40): he escapes too; a good police officer does not
        g = make()
        g.incident = True
        g.secret.bad_cop = bad_cop
        place(g, 1, R.PUBLIC_EXIT)
        ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
        escaped = [c for c in changes(ended) if c[2] == ScoreReason.ESCAPED]
        assert escaped == ([(1, 2, ScoreReason.ESCAPED)] if bad_cop else [])


def test_as43_only_the_living_in_the_public_exit_escape() -> None:
    # scoring.py: "p.room == Room.PUBLIC_EXIT". The refuges the president flees to and the hall next to the exit are
    # no way out: a bad guy standing there when the round ends after an incident has not escaped.
    for room in (R.BUNKER, R.HELIPAD, R.HALL, R.PUBLIC_EXIT):
        g = make()
        g.incident = True
        for c in (2, 3):
            place(g, c, room)
        ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
        escaped = [c for c in changes(ended) if c[2] == ScoreReason.ESCAPED]
        assert escaped == ([(2, 2, ScoreReason.ESCAPED), (3, 2, ScoreReason.ESCAPED)] if room == R.PUBLIC_EXIT else []), room
    # "With him alive": a bad guy killed in the round escapes nowhere, wherever he fell.
    g = make()
    g.incident = True
    place(g, 3, R.PUBLIC_EXIT)
    g.pieces[2].killed = True
    g.pieces[2].room = None
    ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
    assert [c for c in changes(ended) if c[2] == ScoreReason.ESCAPED] == [(3, 2, ScoreReason.ESCAPED)]


def test_as44_scores_change_only_when_the_round_ends() -> None:
    g = make(start=R.HELIPAD, route_die=3)
    to_event_stage(g)
    for c in (0, 4):
        place(g, c, R.HALL)
    act(g, [0], {0: TakeAction(ActionKind.DETAIN, 4)})
    react(g)
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
    # After a blast the police officer next to the bomber may detain him; by default he does not.
    b = make()
    b.rng = Loaded([1])
    to_event_stage(b)
    place(b, 3, R.HALL)  # the bomber has been in the hall this round, so he may blow it up (AS-26)
    for colour in (1, 3):
        place(b, colour, R.COURTYARD)
    place(b, 0, R.TOWER)
    put_president(b, R.HALL)
    act(b, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert b.decision(1) == ReactionChoice(3, True) and b.default_action(1) == React(False)
    # And the dealer's default at the end of a round starts the next one.
    e = make(start=R.HELIPAD, route_die=3)
    end_round(e)
    assert isinstance(e.decision(0), NextRoundChoice) and e.default_action(0) == StartRound()


def test_as47_with_no_card_that_stays_left_the_default_movement_is_the_lowest() -> None:
    """AS-47: "a movement card that does not move (else the lowest)"."""
    g = make()
    hand = g.movement_hands[0]
    stays = [c for c in hand if deck.direction_of(c) == STAY]
    assert g.default_action(0).card_id in stays  # type: ignore[union-attr]
    for c in stays:
        hand.remove(c)
    g.forget()
    assert g.default_action(0).card_id == min(hand)  # type: ignore[union-attr]


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
    assert view.last_movement == () and view.last_events == () and view.movement_played == () and view.events_played == ()
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


def test_as52_a_bad_cop_who_tries_to_detain_the_agent_is_a_bad_guy_detained() -> None:
    for bad_cop in (False, True):
        g = make()
        g.secret.bad_cop = bad_cop
        to_event_stage(g)
        for c in (0, 1):
            place(g, c, R.HALL)
        act(g, [1], {1: TakeAction(ActionKind.DETAIN, 0)})
        assert g.pieces[1].room == R.SECURITY_OFFICE
        ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
        rest = [c for c in changes(ended) if c[2] != ScoreReason.PRESIDENT_UNHARMED]
        # "You will be detained": the -2 for trying, and for a bad cop the +1 to each good guy (the agent alone).
        expected = [(1, -2, ScoreReason.TRIED_TO_DETAIN_SECRET_SERVICE)]
        assert rest == ([(0, 1, ScoreReason.BAD_GUY_DETAINED)] + expected if bad_cop else expected)



@pytest.mark.parametrize("by,reason", [(0, ScoreReason.DETAINED_POLICE_OFFICER), (1, ScoreReason.TRIED_TO_DETAIN_SECRET_SERVICE)])
def test_as55_each_detention_of_the_police_officer_costs_again_each_bad_guy_detained_scores_once(by: int, reason: ScoreReason) -> None:
    # Twice in a round, the agent detains the bad cop (who leaves the cell at once), or the bad cop tries to detain the agent.
    g = make()
    g.secret.bad_cop = True
    for _ in range(2):
        to_event_stage(g)
        for c in (0, 1):
            place(g, c, R.HALL)
        act(g, [by], {by: TakeAction(ActionKind.DETAIN, 1 - by)})
        if g.phase == Phase.REACTION:
            react(g, [1])  # the bad cop walks out of the cell
        assert g.pieces[1].room == R.SECURITY_OFFICE
    ended = of(g._end_round(RoundOutcome.TIME_UP), RoundEnded)[0]
    rest = [c for c in changes(ended) if c[2] != ScoreReason.PRESIDENT_UNHARMED]
    assert rest.count((0, 1, ScoreReason.BAD_GUY_DETAINED)) == 1, "one bad guy, detained twice: +1 once"
    assert rest.count((by, -2, reason)) == 2, "each detention, each attempt costs 2"


def test_as60_a_killed_president_ends_the_round_after_the_stages_questions() -> None:
    """AS-60: the blast kills the president; the bomber's question comes first, then the round ends, with its detention and an escape."""
    g = make()
    g.rng = Loaded([3])  # an enclosed room, unhurt president: 3 kills him (AS-27)
    to_event_stage(g)
    place(g, 3, R.HALL)  # the bomber has been in the hall (AS-26)
    for c in (1, 3):
        place(g, c, R.COURTYARD)  # the police officer is with the bomber when it goes off
    place(g, 2, R.PUBLIC_EXIT)  # the sniper stands in the way out
    place(g, 0, R.TOWER)
    put_president(g, R.HALL)
    events = act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.president.status == PresidentStatus.KILLED
    assert of(events, RoundEnded) == [] and g.phase == Phase.REACTION  # the question first
    events = react(g, [1])
    assert of(events, PieceDetained) and g.pieces[3].room == R.HOLDING_CELL
    ended = of(events, RoundEnded)
    assert [e.outcome for e in ended] == [RoundOutcome.ASSASSINATED]
    assert g.phase == Phase.ROUND_OVER and g.turn == 1  # no further turn
    changes = {(c.seat, c.reason): c.points for c in ended[0].changes}
    assert changes[(2, ScoreReason.PRESIDENT_KILLED)] == 3 and changes[(3, ScoreReason.PRESIDENT_KILLED)] == 3
    assert changes[(0, ScoreReason.BAD_GUY_DETAINED)] == 1 and changes[(1, ScoreReason.BAD_GUY_DETAINED)] == 1
    assert changes[(2, ScoreReason.ESCAPED)] == 2 and (3, ScoreReason.ESCAPED) not in changes  # the bomber is in the cell
