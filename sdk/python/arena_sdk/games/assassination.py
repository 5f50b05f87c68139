"""Assassination Game helpers: the board, what a card does, action builders, and a legal random action.

The board (docs/games/assassination.md)::

             col 0            col 1              col 2              col 3
    row 0    Tower            Security office    Health services    (wall)
    row 1    Podium           Courtyard          Hall               Helipad
    row 2    (wall)           (wall)             Public exit        Bunker

A movement card sends its piece one room: spades up, hearts down, diamonds
left, clubs right, aces and jokers nowhere; a piece that cannot go the way
shown goes the opposite way. A card's id tells its colour (``id // 108``)
and whether it is a movement card (``id // 54`` even) or an event card
(odd: aces act, jacks to kings do nothing).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

from arena.v1 import assassination_pb2 as asn
from arena_sdk.bot import Request
from arena_sdk.games.common import ACE as ACE, CLUBS as CLUBS, DIAMONDS as DIAMONDS, HEARTS as HEARTS, JACK as JACK
from arena_sdk.games.common import JOKER as JOKER, KING as KING, QUEEN as QUEEN, SPADES as SPADES, card_id, flag, whole

pb = asn
GAME = "assassination"
View = asn.View
Decision = asn.Decision
Action = asn.Action
Event = asn.Event
ActionKind = asn.ActionKind
DiceReason = asn.DiceReason
Direction = asn.Direction
Identity = asn.Identity
Phase = asn.Phase
PresidentStatus = asn.PresidentStatus
RevealReason = asn.RevealReason
Room = asn.Room
RoundOutcome = asn.RoundOutcome
ScoreReason = asn.ScoreReason

COURTYARD, HALL, PODIUM, TOWER, HELIPAD, BUNKER = asn.COURTYARD, asn.HALL, asn.PODIUM, asn.TOWER, asn.HELIPAD, asn.BUNKER
SECURITY_OFFICE, HOLDING_CELL, HEALTH_SERVICES, PUBLIC_EXIT = asn.SECURITY_OFFICE, asn.HOLDING_CELL, asn.HEALTH_SERVICES, asn.PUBLIC_EXIT
UP, DOWN, LEFT, RIGHT, STAY = asn.UP, asn.DOWN, asn.LEFT, asn.RIGHT, asn.STAY
#: The four ways a piece can go (not STAY).
MOVES: tuple[int, ...] = (UP, DOWN, LEFT, RIGHT)

GRID: tuple[tuple[int | None, ...], ...] = (
    (TOWER, SECURITY_OFFICE, HEALTH_SERVICES, None),
    (PODIUM, COURTYARD, HALL, HELIPAD),
    (None, None, PUBLIC_EXIT, BUNKER),
)
POSITION: dict[int, tuple[int, int]] = {room: (r, c) for r, row in enumerate(GRID) for c, room in enumerate(row) if room is not None}
POSITION[HOLDING_CELL] = POSITION[SECURITY_OFFICE]
DELTA: dict[int, tuple[int, int]] = {UP: (-1, 0), DOWN: (1, 0), LEFT: (0, -1), RIGHT: (0, 1)}
OPPOSITE: dict[int, int] = {UP: DOWN, DOWN: UP, LEFT: RIGHT, RIGHT: LEFT}
_SUIT_DIRECTION: dict[int, int] = {SPADES: UP, CLUBS: RIGHT, HEARTS: DOWN, DIAMONDS: LEFT}


def neighbour(room: int, direction: int) -> int | None:
    """The room next to ``room`` the way of ``direction``; None for a wall, the edge or STAY."""
    if direction not in DELTA:
        return None
    r, c = POSITION[room]
    dr, dc = DELTA[direction]
    r, c = r + dr, c + dc
    if 0 <= r < len(GRID) and 0 <= c < len(GRID[r]):
        return GRID[r][c]
    return None


def adjacent(room: int) -> list[int]:
    """The rooms next to ``room`` (the holding cell's are the security office's)."""
    return [n for n in (neighbour(room, d) for d in MOVES) if n is not None]


def step(room: int, direction: int) -> int:
    """Where a piece in ``room`` goes on a card of ``direction``."""
    if room == HOLDING_CELL or direction == STAY:
        return room
    target = neighbour(room, direction)
    if target is not None:
        return target
    back = neighbour(room, OPPOSITE[direction])
    return back if back is not None else room


def first_step(start: int, goal: int) -> int:
    """The direction of the first card on a shortest way from ``start`` to ``goal`` (STAY if there)."""
    if start == goal:
        return STAY
    seen: dict[int, int] = {start: STAY}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        for d in MOVES:
            nxt = step(room, d)
            if nxt not in seen:
                seen[nxt] = seen[room] if room != start else d
                if nxt == goal:
                    return seen[nxt]
                queue.append(nxt)
    return STAY


def distance(start: int, goal: int) -> int:
    """Movement cards needed from ``start`` to ``goal`` (99 if unreachable)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        room = queue.popleft()
        if room == goal:
            return dist[room]
        for d in MOVES:
            nxt = step(room, d)
            if nxt not in dist:
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return 99


def colour_of(card: Any) -> int:
    """The colour of the marked deck a card comes from: the piece it moves, 0 to 4."""
    return int(card.id) // 108


def is_movement(card: Any) -> bool:
    """True for a movement card (of the blue deck of its mark), False for an event card."""
    return (int(card.id) // 54) % 2 == 0


def is_action(card: Any) -> bool:
    """True for an event card that acts (an ace): turned over, it reveals its owner."""
    return not is_movement(card) and card.rank == ACE


def direction_of(card: Any) -> int:
    """Where a movement card sends its piece."""
    if card.rank in (ACE, JOKER):
        return STAY
    return _SUIT_DIRECTION[card.suit]


# --- action builders ----------------------------------------------------------------------


def allegiance(bad_cop: bool) -> asn.Action:
    """The answer to an AllegianceChoice: True to be the bad cop (only the police officer may)."""
    return asn.Action(choose_allegiance=asn.ChooseAllegiance(bad_cop=flag(bad_cop, "bad_cop")))


def movement(card: Any) -> asn.Action:
    """The answer to a MovementChoice: play this movement card of ``playable`` (a card or its id)."""
    return asn.Action(play_movement=asn.PlayMovement(card_id=card_id(card)))


def move_president(room: int | str) -> asn.Action:
    """The answer to a PresidentMoveChoice: one of its ``rooms`` (a ``Room``, such as ``HALL``, or its name ``"HALL"``)."""
    if isinstance(room, str) and room in asn.Room.keys():
        room = asn.Room.Value(room)
    return asn.Action(move_president=asn.MovePresident(room=whole(room, "room", "a Room, such as HALL")))  # type: ignore[arg-type]


def event(card: Any) -> asn.Action:
    """The answer to an EventChoice: play this event card of ``playable`` (a card or its id)."""
    return asn.Action(play_event=asn.PlayEvent(card_id=card_id(card)))


def take(option: Any) -> asn.Action:
    """The action for one of an ActionChoice's options."""
    act = asn.TakeAction(kind=option.kind)
    if option.HasField("target_colour"):
        act.target_colour = option.target_colour
    if option.HasField("target_room"):
        act.target_room = option.target_room
    return asn.Action(take_action=act)


def react(detain: bool) -> asn.Action:
    """The answer to a ReactionChoice: True to detain the bomber (only when ``can_detain``)."""
    return asn.Action(react=asn.React(detain=flag(detain, "detain")))


def detain_sniper(detain: bool) -> asn.Action:
    """The answer to a SniperDetentionChoice: only the bad cop (``can_ignore``) may answer False."""
    return asn.Action(detain_sniper=asn.DetainSniper(detain=flag(detain, "detain")))


def leave_cell(leave: bool) -> asn.Action:
    """The answer to a CellChoice: only the police officer the agent detained (``can_leave``) may answer True."""
    return asn.Action(leave_cell=asn.LeaveCell(leave=flag(leave, "leave")))


def start_round() -> asn.Action:
    """The answer to a NextRoundChoice: deal the next round."""
    return asn.Action(start_round=asn.StartRound())


def card_for(hand: Any, direction: int) -> int | None:
    """A movement card of ``direction`` from ``hand`` (the lowest id), if any."""
    ids = [c.id for c in hand if direction_of(c) == direction]
    return min(ids) if ids else None


def sample(request: Request, rng: random.Random) -> asn.Action:
    """A legal action chosen at random from the decision alone."""
    choice = request.choice
    kind = request.kind
    if kind == "allegiance_choice":
        return allegiance(bool(choice.police_officer) and rng.random() < 0.5)
    if kind == "movement_choice":
        return movement(rng.choice(list(choice.playable)).id)
    if kind == "president_move_choice":
        return move_president(rng.choice(list(choice.rooms)))
    if kind == "event_choice":
        return event(rng.choice(list(choice.playable)).id)
    if kind == "action_choice":
        return take(rng.choice(list(choice.options)))
    if kind == "reaction_choice":
        return react(bool(choice.can_detain) and rng.random() < 0.5)
    if kind == "sniper_detention_choice":
        return detain_sniper(not (choice.can_ignore and rng.random() < 0.5))
    if kind == "cell_choice":
        return leave_cell(bool(choice.can_leave) and rng.random() < 0.5)
    return start_round()
