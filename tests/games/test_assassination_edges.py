"""Edges of the Assassination Game that a scripted mutation pass found unpinned.

Each test is named after the ruling it pins (docs/games/assassination.md); a mutant of the engine line it names
survived every other rules test of the game (some only the golden playthroughs' diff caught).
"""

from __future__ import annotations

import pytest

from referee.core.game import Event, IllegalAction
from referee.games.assassination import Assassination, board
from referee.games.assassination.types import (
    ActionKind,
    ActionOption,
    ActionTaken,
    IncidentOccurred,
    Phase,
    PlayEvent,
    PlayerRevealed,
    PieceDetained,
    PieceKilled,
    PieceSent,
    PlayMovement,
    PresidentHit,
    PresidentMoved,
    PresidentSafe,
    PresidentStatus,
    ReactionChoice,
    ReporterRevealed,
    RevealReason,
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


def with_the_president_in_the_hall(colours: tuple[int, ...]) -> Assassination:
    """A first-round game at its event stage, with the president and the pieces of ``colours`` in the hall."""
    g = t.make()
    t.to_event_stage(g)
    for c in colours:
        t.place(g, c, R.HALL)
    t.put_president(g, R.HALL)
    return g


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


def test_as56_cards_turned_over_are_no_longer_hidden_and_the_reporters_are() -> None:
    # rules.py _turn_over: "seen.update(pile)", and hidden_cards: the reporter's cards stay hidden from everyone. Every seat saw the pile turned over; what hides cards from a seat's
    # page (hidden_cards) must not hide them, while a card played face down stays hidden from the others.
    g = t.make()
    g.apply(0, PlayMovement(t.card(g, 0, t.STAY)))
    played = g.pending[0]
    assert played in g.hidden_cards(1) and played not in g.hidden_cards(0)
    t.move(g)
    assert played in g.last_movement
    for seat in range(4):
        assert not set(g.last_movement) & g.hidden_cards(seat), seat
        assert set(g.reporter_movement) | set(g.reporter_events) <= g.hidden_cards(seat), seat


def test_as26_the_courtyard_and_a_room_the_bomber_walked_into_may_be_blown_up() -> None:
    # rules.py _resolve_movement "piece.enter(board.step(...))" and state.py "visited ... [Room.COURTYARD]": the
    # courtyard where he starts counts as planted, and so does a room his movement card took him into (AS-26).
    g = t.make()
    t.move(g, {3: t.RIGHT})
    assert g.pieces[3].room == R.HALL
    t.lead_president(g, g.president.room)
    t.play_events(g, [3])
    assert {o.target_room for o in opts(g, 3) if o.kind == ActionKind.DETONATE} == {R.COURTYARD}
    t.take(g)
    t.move(g, {3: t.LEFT})
    assert g.pieces[3].room == R.COURTYARD
    t.lead_president(g, g.president.room)
    t.play_events(g, [3])
    assert {o.target_room for o in opts(g, 3) if o.kind == ActionKind.DETONATE} == {R.HALL}  # the podium: never entered
    t.take(g)
    t.move(g, {3: t.RIGHT})
    assert g.view(0).pieces[3].visited == (R.COURTYARD, R.HALL)  # each room once, in the order entered


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


def test_as13_the_president_kept_in_place_is_not_said_to_move_and_what_happens_is_public() -> None:
    # rules.py _move_president: "if to == before: return []" and "broadcast(PresidentMoved ...)"; also the broadcast
    # of PresidentSafe, IncidentOccurred and ActionTaken (AS-14, AS-25): all of it happens in the open, at the table.
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
    shot = t.sniper_shoots(t.make(), 3)
    every_seat_sees(shot, IncidentOccurred)
    every_seat_sees(shot, ActionTaken)  # a revealed player acts in the open (AS-18)
    every_seat_sees(shot, PieceKilled)
    sniped = t.make()
    sniped.rng = Loaded([2])  # wounded
    t.to_event_stage(sniped)
    t.place(sniped, 2, R.TOWER)
    t.put_president(sniped, R.PODIUM)
    every_seat_sees(t.act(sniped, [2], {2: TakeAction(ActionKind.SNIPE)}), PresidentHit)


def test_as21_the_sniper_snipes_only_from_the_tower() -> None:
    # actions.py options: "piece.room == Room.TOWER and not here and ... pres.room == Room.PODIUM". Alone elsewhere with the president on the
    # podium, or alone in the tower with the president elsewhere, the sniper has no long shot (resolving one would
    # still make an incident).
    for room, president, offered in (
        (R.SECURITY_OFFICE, R.PODIUM, False),
        (R.HEALTH_SERVICES, R.PODIUM, False),
        (R.TOWER, R.COURTYARD, False),
        (R.TOWER, R.PODIUM, True),
    ):
        g = t.make()
        t.to_event_stage(g)
        t.put_president(g, president)
        t.place(g, 2, room)
        t.play_events(g, [2])
        assert (ActionKind.SNIPE in {o.kind for o in opts(g, 2)}) == offered, (room, president)


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
    g = with_the_president_in_the_hall((1, 2, 3))
    t.act(g, [1, 2], {1: TakeAction(ActionKind.DETAIN, 3), 2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.phase == Phase.REACTION and g.pieces[3].room == R.HOLDING_CELL
    d = g.decision(1)
    assert isinstance(d, SniperDetentionChoice)
    assert d.sniper_colour == 2 and d.colours == (2,)


def test_as35_the_reporter_who_sees_the_bad_cop_shoot_the_agent_arrests_the_assassins_with_him() -> None:
    # actions.py police_shoots: "witness_arrest(colour, [present[i] for i in (SNIPER, BOMBER) ...])". The reporter
    # arrests the bad cop for his shot at the agent "as in AS-34": the sniper and the bomber in the room go too.
    g = t.make()
    g.secret.bad_cop = True
    g.revealed_seats[0] = None
    t.to_event_stage(g)
    for c in (0, 1, 2, 3, 4):
        t.place(g, c, R.HALL)
    t.act(g, [1], {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
    assert g.pieces[0].injured
    assert [c for c in range(5) if g.pieces[c].room == R.HOLDING_CELL] == [1, 2, 3]
    assert all(g.pieces[c].detained for c in (1, 2, 3))


def test_as20_as32_a_police_officer_the_agent_detains_as_he_tries_to_detain_the_agent_ends_in_the_cell() -> None:
    # actions.py finish: "if p.killed or colour in self.to_cell: continue" for the office. Detentions resolve in seat
    # order (AS-20): the agent's takes the police officer into custody, whose try at the agent still sends him to the
    # office "not in the cell" only when he is free; custody comes first, as for the wounded (AS-50).
    g = t.make()
    t.to_event_stage(g)
    for c in (0, 1):
        t.place(g, c, R.HALL)
    events = t.play_events(g, [0, 1])
    events += t.take(g, {0: TakeAction(ActionKind.DETAIN, 1), 1: TakeAction(ActionKind.DETAIN, 0)})
    assert g.pieces[1].room == R.HOLDING_CELL and g.pieces[1].detained
    assert [s.room for s in of(events, PieceSent) if s.colour == 1] == [R.HOLDING_CELL]
    every_seat_sees(events, PieceSent)
    every_seat_sees(events, PieceDetained)


@pytest.mark.parametrize("by_question", [False, True])
def test_as31_only_the_agents_prisoner_may_leave_the_cell_even_after_leaving_it_once(by_question: bool) -> None:
    # actions.py finish and questions.py answer: "detained_by_secret_service = False" when he leaves for the office,
    # by an action card (LEAVE_CELL) or answering the cell question (AS-31). The bad cop who left
    # the agent's cell and is later arrested by the reporter (AS-35) was not detained by the agent this time: he may
    # not walk out of the cell.
    g = t.make()
    g.secret.bad_cop = True
    t.agent_detains(g, 1)
    t.react(g, [1] if by_question else [])
    if not by_question:
        t.move(g)
        t.lead_president(g, g.president.room)
        t.play_events(g, [1])
        assert ActionOption(ActionKind.LEAVE_CELL) in opts(g, 1)
        t.take(g, {1: TakeAction(ActionKind.LEAVE_CELL)})
    assert g.pieces[1].room == R.SECURITY_OFFICE
    t.move(g)
    t.lead_president(g, g.president.room)
    for c in (0, 1, 4):
        t.place(g, c, R.HALL)
    t.act(g, [1], {1: TakeAction(ActionKind.SHOOT_PLAYER, 0)})  # the reporter sees him shoot the agent (AS-35)
    assert g.pieces[1].room == R.HOLDING_CELL and g.pieces[0].injured
    t.move(g)
    t.lead_president(g, g.president.room)
    t.play_events(g, [1])
    assert opts(g, 1) == (ActionOption(ActionKind.NOTHING),)


def test_as28_a_police_officer_the_agent_locked_up_in_the_blasts_stage_may_not_detain_the_bomber() -> None:
    # questions.py seats_to_ask: "company = {c for c in q.colours if g.pieces[c].on_board}". He stood with the
    # bomber when it went off, but the agent put him in the holding cell in that stage: only the agent, still free,
    # may detain the bomber (AS-28: "still alive and out of the holding cell").
    g = t.make()
    t.to_event_stage(g)
    for c in (0, 1, 3):
        t.place(g, c, R.HALL)
    t.place(g, 3, R.COURTYARD)  # planted in the courtyard (where he starts), then back with the other two
    for c in (0, 1, 3):
        t.place(g, c, R.HEALTH_SERVICES)
    t.put_president(g, R.PODIUM)
    t.play_events(g, [0, 3])
    t.take(g, {0: TakeAction(ActionKind.DETAIN, 1), 3: TakeAction(ActionKind.DETONATE, None, R.HALL)})
    assert g.pieces[1].room == R.HOLDING_CELL and g.bomb_used
    t.react(g)  # the cell question: he stays
    assert g.phase == Phase.REACTION
    assert [g.decision(s) for s in (0, 1, 2)] == [ReactionChoice(3, True), ReactionChoice(3, False), ReactionChoice(3, False)]
    events = t.react(g, [0])
    assert of(events, PieceDetained) == [PieceDetained(3, 0)]
    every_seat_sees(events, PieceDetained)


def test_as50_a_wounded_piece_already_in_health_services_is_not_sent_there() -> None:
    # actions.py finish: "if p.room != Room.HEALTH_SERVICES". The agent shot in health services stays where he is,
    # with no PieceSent.
    h = t.make()
    t.to_event_stage(h)
    t.put_president(h, R.PODIUM)  # the helpers park him in health services
    for c in (0, 2):
        t.place(h, c, R.HEALTH_SERVICES)
    events = t.act(h, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, 0)})
    assert h.pieces[0].injured and h.pieces[0].room == R.HEALTH_SERVICES
    assert not of(events, PieceSent)
    events = t.sniper_shoots(t.make(), 0, R.HALL)  # shot elsewhere, he is sent there, in front of everyone
    assert of(events, PieceSent) == [PieceSent(0, R.HEALTH_SERVICES)]
    every_seat_sees(events, PieceSent)


def test_as57_at_the_rounds_end_the_view_lists_the_seats_revealed_first_then_the_others_in_seat_order() -> None:
    # rules.py view: "[*self.revealed_seats, *(s for s in range(...) if s not in self.revealed_seats)]".
    g = t.make()
    t.turn(g, acting=[3])
    t.turn(g, acting=[1])
    play_out_round(g)
    assert [r.seat for r in g.view(0).revealed] == [3, 1, 0, 2]


def test_as35_the_bad_cop_has_no_shot_at_an_agent_in_another_room() -> None:
    # actions.py options: "[ss_colour] if ss_colour in here else []". Offered anyway, the shot would miss and still
    # make an incident.
    g = t.make()
    g.secret.bad_cop = True
    g.revealed_seats[0] = None
    t.to_event_stage(g)
    t.place(g, 0, R.PODIUM)
    t.place(g, 1, R.HALL)
    t.play_events(g, [1])
    assert [o for o in opts(g, 1) if o.kind == ActionKind.SHOOT_PLAYER] == []


def test_as47_the_president_led_one_room_on_takes_the_first_room_in_grid_order_on_a_tie() -> None:
    # board.py toward: "key = (dist[nxt], rank, list(POSITION).index(nxt))". From the helipad the hall and the
    # bunker are both one room from the public exit: the referee, playing for a timed-out agent, takes the hall.
    assert board.toward(R.HELIPAD, (R.PUBLIC_EXIT,)) == R.HALL
    assert board.toward(R.HALL, (R.BUNKER,)) == R.HELIPAD


def test_as51_the_reporters_reshuffled_blanks_were_all_seen_so_none_is_hidden() -> None:
    # rules.py _turn_over "seen.update(pile)" and hidden_cards "hidden - self.seen[seat]": after the twelfth turn the
    # reporter's blanks, every one turned over in front of everyone, are gathered into a new face-down pile (AS-51):
    # the cards are known, only their order is not, so no page hides them; and the new pile is shuffled.
    g = t.make()
    for _ in range(12):
        t.turn(g)
    assert not g.reporter_events
    t.turn(g)
    assert len(g.reporter_events) == 11
    assert g.reporter_events != sorted(g.reporter_events), "gathered and shuffled, not laid out in order"
    for seat in range(4):
        assert not set(g.reporter_events) & g.hidden_cards(seat), seat


def test_as22_the_reporter_is_revealed_once() -> None:
    # actions.py reveal_colour: "if g.reporter_revealed: return []". Revealed as a witness of the sniper's first shot
    # (the agent took the bullet), he is not announced again when the sniper's second shot reveals his room again.
    g = with_the_president_in_the_hall((0, 2, 4))
    events = t.act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.pieces[0].killed and of(events, ReporterRevealed) == [ReporterRevealed(4, RevealReason.WITNESS)]
    t.move(g)
    events = t.act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    assert g.president.status == PresidentStatus.KILLED
    assert of(events, ReporterRevealed) == []
