"""Edges of the Assassination Game that a scripted mutation pass found unpinned.

Each test is named after the ruling it pins (docs/games/assassination.md); a mutant of the engine line it names
survived every other rules test of the game (some only the golden playthroughs' diff caught).
"""

from __future__ import annotations

import pytest

from referee.core.game import Event, IllegalAction
from referee.games.assassination import Assassination
from referee.games.assassination.types import (
    ActionKind,
    IncidentOccurred,
    Phase,
    PlayEvent,
    PlayerRevealed,
    PlayMovement,
    PresidentMoved,
    PresidentSafe,
    PresidentStatus,
    Room,
    RoundEnded,
    RoundOutcome,
    ScoreReason,
    SniperDetentionChoice,
    TakeAction,
)
from tests.games import test_assassination_support as t
from tests.games.test_assassination_support import PURE_RULES_ONLY, Loaded, every_seat_sees, of, opts

R = Room

pytestmark = PURE_RULES_ONLY  # the helpers patch a method of the rules (see test_assassination_support)


def play_out_round(g: Assassination) -> list[Event]:
    """Every seat plays the referee's default action until the round ends."""
    events: list[Event] = []
    while g.phase not in (Phase.ROUND_OVER, Phase.OVER):
        seat = g.to_act()[0]
        events += g.apply(seat, g.default_action(seat))
    return events


def test_as41_as49_a_round_scores_only_its_own_kills_and_a_penalty_lowers_the_total() -> None:
    # rules.py _start_round "self.ledger = Ledger()" and _end_round "self.scores[...] += change.points": a kill of
    # round 1 must not score again in round 2, and the sniper's -1 for killing the bomber takes a point off his total.
    g = t.make()
    t.sniper_shoots(g, 3, R.HALL)  # not in the public exit, where he would escape (+2)
    assert g.pieces[3].killed
    ended = of(play_out_round(g), RoundEnded)[0]
    assert (2, -1, ScoreReason.KILLED_OWN_SIDE) in [(c.seat, c.points, c.reason) for c in ended.changes]
    assert ended.scores[2] == g.scores[2] == -1
    g.apply(g.to_act()[0], g.default_action(g.to_act()[0]))  # the dealer deals round 2
    assert g.round == 2
    second = of(play_out_round(g), RoundEnded)[0]
    assert {c.reason for c in second.changes} == {ScoreReason.PRESIDENT_UNHARMED}, second.changes


def test_as7_a_card_not_in_hand_is_refused() -> None:
    # rules.py check: "None if action.card_id in d.playable else ...". Without it the referee would crash on the
    # hand's remove instead of telling the bot its card is not in its hand.
    g = t.make()
    other = t.card(g, 1, t.STAY)
    with pytest.raises(IllegalAction, match="not a movement card in your hand"):
        g.apply(0, PlayMovement(other))
    t.move(g)
    t.lead_president(g, g.president.room)
    assert g.phase == Phase.EVENT
    with pytest.raises(IllegalAction, match="not an event card in your hand"):
        g.apply(0, PlayEvent(min(g.event_hands[1])))
    assert len(g.event_hands[0]) == 16 and len(g.event_hands[1]) == 16


def test_as56_cards_turned_over_are_no_longer_hidden() -> None:
    # rules.py _turn_over: "seen.update(pile)". Every seat saw the pile turned over; what hides cards from a seat's
    # page (hidden_cards) must not hide them, while a card played face down stays hidden from the others.
    g = t.make()
    g.apply(0, PlayMovement(t.card(g, 0, t.STAY)))
    played = g.pending[0]
    assert played in g.hidden_cards(1) and played not in g.hidden_cards(0)
    t.move(g)
    assert played in g.last_movement
    for seat in range(4):
        assert not set(g.last_movement) & g.hidden_cards(seat), seat


def test_as26_a_room_the_bomber_walked_into_may_be_blown_up() -> None:
    # rules.py _resolve_movement "piece.enter(board.step(...))": a room the bomber's movement card took him into
    # counts as planted (AS-26), so once back in the courtyard he may blow up the hall he walked through.
    g = t.make()
    t.move(g, {3: t.RIGHT})
    assert g.pieces[3].room == R.HALL
    t.lead_president(g, g.president.room)
    t.play_events(g)
    t.move(g, {3: t.LEFT})
    assert g.pieces[3].room == R.COURTYARD
    assert R.HALL in g.view(3).pieces[3].visited
    t.lead_president(g, g.president.room)
    t.play_events(g, [3])
    blasts = {o.target_room for o in opts(g, 3) if o.kind == ActionKind.DETONATE}
    assert blasts == {R.HALL}  # the podium and the security office are next to him too: never entered / never


def test_as14_a_president_wounded_on_the_helipad_without_an_agent_stays_there_until_safe() -> None:
    # rules.py _auto_president_room "board.toward(room, board.REFUGES)": on the helipad he is at a refuge already;
    # wounded there, he does not walk on to the bunker (which would end the round at once) but waits on the
    # helipad, safe at the end of the next action stage that does not wound him.
    g = t.make(start=R.BUNKER)
    g.incident = True
    g.pieces[0].killed, g.pieces[0].room = True, None  # no agent to move him
    g.revealed_seats[0] = None
    t.put_president(g, R.HALL)
    g.rng = Loaded([4])  # the blast in the open air wounds him
    t.move(g)
    assert g.president.room == R.HELIPAD and g.phase == Phase.EVENT
    t.place(g, 3, R.HALL)
    g.pieces[3].visited.append(R.HELIPAD)
    events = t.act(g, [3], {3: TakeAction(ActionKind.DETONATE, None, R.HELIPAD)})
    assert g.president.status == PresidentStatus.INJURED and not of(events, PresidentSafe)
    events = t.move(g)
    assert g.president.room == R.HELIPAD and not of(events, PresidentMoved) and not of(events, RoundEnded)
    events = t.play_events(g)
    assert of(events, PresidentSafe) == [PresidentSafe(R.HELIPAD)]
    assert of(events, RoundEnded)[0].outcome == RoundOutcome.REACHED_SAFETY


def test_as13_the_president_kept_in_place_is_not_said_to_move_and_his_moves_are_public() -> None:
    # rules.py _move_president: "if to == before: return []" and "broadcast(PresidentMoved ...)"; also the broadcast
    # of PresidentSafe and of IncidentOccurred (AS-14, AS-25): everything about the president is seen at the table.
    g = t.make(start=R.HELIPAD, route_die=3)
    events = t.move(g)
    assert of(events, PresidentMoved) == [PresidentMoved(R.HELIPAD, R.HALL, False)]
    every_seat_sees(events, PresidentMoved)
    t.act(g, [0])  # the agent reveals himself; from now on he moves the president
    t.move(g)
    assert g.phase == Phase.PRESIDENT
    events = t.lead_president(g, R.HALL)  # he keeps him in the hall
    assert g.president.room == R.HALL and not of(events, PresidentMoved)
    t.act(g, [2])
    g.incident = True
    t.move(g)
    events = t.lead_president(g, R.HELIPAD)
    every_seat_sees(events, PresidentMoved)
    events = t.play_events(g)
    every_seat_sees(events, PresidentSafe)
    h = t.make()
    every_seat_sees(t.sniper_shoots(h, 3), IncidentOccurred)


def test_as21_the_sniper_snipes_only_from_the_tower() -> None:
    # actions.py options: "piece.room == Room.TOWER and not here ...". Alone elsewhere with the president on the
    # podium, the sniper has no long shot (resolving one would still make an incident).
    for room, offered in ((R.SECURITY_OFFICE, False), (R.HEALTH_SERVICES, False), (R.TOWER, True)):
        g = t.make()
        t.to_event_stage(g)
        t.put_president(g, R.PODIUM)
        t.place(g, 2, room)
        t.play_events(g, [2])
        assert (ActionKind.SNIPE in {o.kind for o in opts(g, 2)}) == offered, room


def test_as18_a_second_action_card_does_not_reveal_the_player_again() -> None:
    # actions.py reveal_seat: "if seat in g.revealed_seats: return []". A revealed player who acts again is told
    # to nobody a second time.
    g = t.make()
    events = t.turn(g, acting=[2])
    assert [e.seat for e in of(events, PlayerRevealed)] == [2]
    events = t.turn(g, acting=[2])
    assert of(events, PlayerRevealed) == []
    assert list(g.revealed_seats) == [2]


def test_as22_as53_the_sniper_question_names_only_the_pieces_a_yes_would_still_send_to_the_cell() -> None:
    # rules.py _next_question: "tuple(c for c in q.colours if self.pieces[c].on_board)". The police officer detained
    # the bomber in the stage the sniper shot the president before him: asked about the sniper, he is told a yes
    # sends the sniper to the cell, not the bomber already there.
    g = t.make()
    t.to_event_stage(g)
    for c in (1, 2, 3):
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    t.act(g, [1, 2], {1: TakeAction(ActionKind.DETAIN, 3), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.phase == Phase.REACTION and g.pieces[3].room == R.HOLDING_CELL
    d = g.decision(1)
    assert isinstance(d, SniperDetentionChoice)
    assert d.sniper_colour == 2 and d.colours == (2,)
