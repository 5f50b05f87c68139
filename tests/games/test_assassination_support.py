"""Helpers for the Assassination Game tests: rigged deals, loaded dice, whole stages played at once.

This module holds no tests; the rules tests and the secrecy tests import it.

Unless a test says otherwise the seats are: 0 the agent (colour 0), 1 the
police officer (colour 1), 2 the sniper (colour 2), 3 the bomber (colour 3);
the reporter is colour 4 and stands still.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

import pytest

from referee.compiled import in_use
from referee.core.game import Event
from referee.games.assassination import Assassination, board, deck
from referee.games.assassination.state import Assignment, PresidentState
from referee.games.assassination.types import (
    Action,
    ActionChoice,
    ActionKind,
    ActionOption,
    CellChoice,
    DetainSniper,
    Direction,
    Identity,
    LeaveCell,
    MovePresident,
    Phase,
    PlayEvent,
    PlayMovement,
    React,
    Room,
    SniperDetentionChoice,
    TakeAction,
)

# The helpers hold the president still by patching a method of the game (freeze), which compiled rules call
# directly; under a compiled build (ARENA_COMPILED=1) the conformance suite covers this game instead.
PURE_RULES_ONLY = pytest.mark.skipif(in_use(), reason="patches a method of the rules, which compiled code calls directly")

SS, PO, SN, BO, REP = Identity.SECRET_SERVICE, Identity.POLICE_OFFICER, Identity.SNIPER, Identity.BOMBER, Identity.REPORTER
UP, DOWN, LEFT, RIGHT, STAY = Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT, Direction.STAY


class Loaded(random.Random):
    """A random generator whose die rolls are given in advance (shuffles stay random)."""

    def __init__(self, rolls: Iterable[int], seed: int = 0) -> None:
        super().__init__(seed)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        assert self.rolls, "the test did not load enough dice"
        return self.rolls.pop(0)


def cards_of(colour: int, directions: Iterable[Direction]) -> list[int]:
    """Movement cards of ``colour`` going these ways, in order (lowest ids first), then the rest, stays first."""
    pool = deck.movement_deck(colour)
    out: list[int] = []
    for d in directions:
        card = min(c for c in pool if deck.direction_of(c) == d and c not in out)
        out.append(card)
    rest = sorted((c for c in pool if c not in out), key=lambda c: (deck.direction_of(c) != STAY, c))
    return out + rest


def make(
    identities: tuple[Identity, ...] = (SS, PO, SN, BO),
    colours: tuple[int, ...] = (0, 1, 2, 3),
    reporter: int = 4,
    reporter_moves: Iterable[Direction] = (),
    seed: int = 0,
    start: Room | None = None,
    route_die: int = 3,
    **options: object,
) -> Assassination:
    """A first-round game with this secret assignment; the reporter stands still unless told otherwise."""
    g = Assassination(4, seed, options or None)
    assert g.phase == Phase.MOVEMENT and g.turn == 1
    idle = [c for c in deck.event_deck(reporter) if not deck.is_action(c)]
    g.install(Assignment(list(identities), list(colours), reporter), cards_of(reporter, reporter_moves), idle)
    if start is not None:
        g.president = PresidentState(room=start, start=start, route_die=route_die, route=board.route(start, route_die))
    else:
        freeze(g)
        g.president.room = Room.HEALTH_SERVICES  # out of the way until a test puts him somewhere
    return g


def finish_round(g: Assassination, scores: list[int]) -> None:
    """Pretend the round ended with these scores, then deal the next one."""
    g.scores = list(scores)
    g._start_round()


def freeze(g: Assassination) -> None:
    """The president stays where the test puts him unless the agent moves him."""
    g._auto_president_room = lambda: g.president.room  # type: ignore[method-assign]


def unfreeze(g: Assassination) -> None:
    """The president walks by the rules again."""
    del g._auto_president_room


def place(g: Assassination, colour: int, room: Room) -> None:
    g.pieces[colour].enter(room)


def put_president(g: Assassination, room: Room, speech_given: bool = False) -> None:
    g.president.room = room
    g.president.speech_given = speech_given


def card(g: Assassination, seat: int, direction: Direction) -> int:
    """The seat's lowest card going ``direction``; long tests get their six stand-still cards back when spent."""
    hand = g.movement_hands[seat]
    if direction == STAY and not any(deck.direction_of(c) == STAY for c in hand):
        hand.extend(c for c in deck.movement_deck(g.secret.colours[seat]) if deck.direction_of(c) == STAY)
    return min(c for c in hand if deck.direction_of(c) == direction)


def move(g: Assassination, dirs: dict[int, Direction] | None = None, order: Iterable[int] | None = None) -> list[Event]:
    """Every living player plays a movement card (standing still unless told), in ``order``."""
    assert g.phase == Phase.MOVEMENT, g.phase
    dirs = dirs or {}
    events: list[Event] = []
    for seat in list(order if order is not None else g.to_act()):
        events += g.apply(seat, PlayMovement(card(g, seat, dirs.get(seat, STAY))))
    return events


def lead_president(g: Assassination, room: Room | None = None) -> list[Event]:
    """If the agent moves the president, move him to ``room`` (default: where he would go by himself)."""
    if g.phase != Phase.PRESIDENT:
        return []
    seat = g.to_act()[0]
    return g.apply(seat, MovePresident(room if room is not None else g._auto_president_room()))


def play_events(g: Assassination, acting: Iterable[int] = ()) -> list[Event]:
    """Every living player plays an event card: an action card for the seats in ``acting``.

    If the agent moves the president this turn, he first keeps him where he is.
    """
    events: list[Event] = lead_president(g, g.president.room)
    assert g.phase == Phase.EVENT, g.phase
    acting = set(acting)
    for seat in list(g.to_act()):
        hand = g.event_hands[seat]
        wanted = [c for c in hand if deck.is_action(c) == (seat in acting)] or hand
        events += g.apply(seat, PlayEvent(min(wanted)))
    return events


def take(g: Assassination, choices: dict[int, TakeAction] | None = None) -> list[Event]:
    """The revealed players act: as given, else doing nothing."""
    assert g.phase == Phase.ACTION, g.phase
    choices = choices or {}
    events: list[Event] = []
    for seat in list(g.to_act()):
        events += g.apply(seat, choices.get(seat) or g.default_action(seat))
    return events


def react(g: Assassination, yes: Iterable[int] = ()) -> list[Event]:
    """Answer the question the action stage left: these seats say yes (detain, or leave the cell), the others no."""
    assert g.phase == Phase.REACTION, g.phase
    yes = set(yes)
    events: list[Event] = []
    for seat in list(g.to_act()):
        d = g.decision(seat)
        answer: Action = (
            DetainSniper(seat in yes)
            if isinstance(d, SniperDetentionChoice)
            else LeaveCell(seat in yes)
            if isinstance(d, CellChoice)
            else React(seat in yes)
        )
        events += g.apply(seat, answer)
    return events


def turn(
    g: Assassination,
    dirs: dict[int, Direction] | None = None,
    acting: Iterable[int] = (),
    choices: dict[int, TakeAction] | None = None,
    president_to: Room | None = None,
) -> list[Event]:
    """One whole turn: movement, the president, events, actions."""
    events = move(g, dirs)
    events += lead_president(g, president_to)
    if g.phase == Phase.EVENT:
        events += play_events(g, acting)
        if g.phase == Phase.ACTION:
            events += take(g, choices)
    return events


def to_event_stage(g: Assassination) -> list[Event]:
    """Nobody moves (the president may); the test then places pieces and plays the event stage."""
    events = move(g)
    events += lead_president(g, g.president.room)
    assert g.phase == Phase.EVENT, g.phase
    return events


def act(g: Assassination, acting: Iterable[int], choices: dict[int, TakeAction] | None = None) -> list[Event]:
    """The event stage with these seats turning over action cards, then their actions."""
    events = play_events(g, acting)
    if g.phase == Phase.ACTION:
        events += take(g, choices)
    return events


def sniper_shoots(g: Assassination, target: int, room: Room = Room.PUBLIC_EXIT) -> list[Event]:
    """The event stage with the sniper (colour 2) and ``target`` alone in ``room``: he reveals himself and shoots it (AS-23)."""
    to_event_stage(g)
    place(g, 2, room)
    place(g, target, room)
    return act(g, [2], {2: TakeAction(ActionKind.SHOOT_PLAYER, target)})


def agent_detains(g: Assassination, target: int, room: Room = Room.HALL) -> list[Event]:
    """The event stage with the agent (colour 0) and ``target`` in ``room``: he reveals himself and detains it (AS-30)."""
    to_event_stage(g)
    place(g, 0, room)
    place(g, target, room)
    return act(g, [0], {0: TakeAction(ActionKind.DETAIN, target)})


def sniper_detention_question(bad_cop: bool) -> Assassination:
    """The sniper shoots the president in the hall before the police officer, who is asked to detain him (AS-24)."""
    g = make()
    g.secret.bad_cop = bad_cop
    to_event_stage(g)
    for c in (0, 1, 2):
        place(g, c, Room.HALL)
    put_president(g, Room.HALL)
    act(g, [2], {2: TakeAction(ActionKind.SHOOT_PRESIDENT)})
    return g


def allegiance_question() -> Assassination:
    """The last-placed seat (3) holds the bad cop token and is dealt the police officer: he may turn bad cop (AS-36)."""
    g = Assassination(4, 1)
    finish_round(g, [5, 3, 3, 0])
    ids = g.secret.identities
    po = ids.index(PO)
    ids[3], ids[po] = ids[po], ids[3]
    g.forget()
    return g


def cell_question() -> Assassination:
    """The agent detains the police officer, who is asked whether he leaves the holding cell (AS-30)."""
    g = make()
    agent_detains(g, 1)
    return g


def of(events: Iterable[Event], cls: type) -> list[Any]:
    return [e.payload for e in events if isinstance(e.payload, cls)]


def every_seat_sees(events: list[Event], cls: type) -> None:
    """Each event of this kind is told to all four seats: nothing in this game is told to some seats only."""
    found = [e for e in events if isinstance(e.payload, cls)]
    assert found, cls
    for e in found:
        assert all(e.visible(seat) for seat in range(4)), e


def opts(g: Assassination, seat: int) -> tuple[ActionOption, ...]:
    """The actions open to ``seat``, who has turned over an action card."""
    d = g.decision(seat)
    assert isinstance(d, ActionChoice)
    return d.options
