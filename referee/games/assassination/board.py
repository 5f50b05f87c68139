"""The board: nine rooms on a grid of three rows and four columns, and the holding cell (AS-1).

::

             col 0            col 1              col 2              col 3
    row 0    Tower            Security office    Health services    (wall)
                              [holding cell]
    row 1    Podium           Courtyard          Hall               Helipad
    row 2    (wall)           (wall)             Public exit        Bunker

Up is towards row 0, left towards column 0. The holding cell is a locked
room inside the security office: it has the office's neighbours, but
nobody walks into it or out of it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Final

from referee.games.assassination.types import Direction, Room

GRID: Final[tuple[tuple[Room | None, ...], ...]] = (
    (Room.TOWER, Room.SECURITY_OFFICE, Room.HEALTH_SERVICES, None),
    (Room.PODIUM, Room.COURTYARD, Room.HALL, Room.HELIPAD),
    (None, None, Room.PUBLIC_EXIT, Room.BUNKER),
)

POSITION: Final[dict[Room, tuple[int, int]]] = {
    room: (r, c) for r, row in enumerate(GRID) for c, room in enumerate(row) if room is not None
}
POSITION[Room.HOLDING_CELL] = POSITION[Room.SECURITY_OFFICE]

DELTA: Final[dict[Direction, tuple[int, int]]] = {
    Direction.UP: (-1, 0),
    Direction.DOWN: (1, 0),
    Direction.LEFT: (0, -1),
    Direction.RIGHT: (0, 1),
}
OPPOSITE: Final = {
    Direction.UP: Direction.DOWN,
    Direction.DOWN: Direction.UP,
    Direction.LEFT: Direction.RIGHT,
    Direction.RIGHT: Direction.LEFT,
}

#: Rooms where an explosion is in the open air (AS-29).
OPEN_AIR: Final = frozenset({Room.COURTYARD, Room.HELIPAD})
#: Rooms the president walks through by himself without an incident, on his route or his own way (AS-10, AS-61).
WALK: Final = frozenset({Room.COURTYARD, Room.HALL, Room.PODIUM, Room.PUBLIC_EXIT, Room.HEALTH_SERVICES})
#: Rooms the president may be moved into after an incident or by the Secret Service (AS-13).
ESCORT: Final = frozenset(POSITION) - {Room.TOWER, Room.SECURITY_OFFICE, Room.HOLDING_CELL}
#: Where the president is safe after an incident (AS-14).
REFUGES: Final = (Room.BUNKER, Room.HELIPAD)
#: The walk after the speech (AS-12).
PHOTO_OP: Final = (Room.PODIUM, Room.COURTYARD, Room.HALL, Room.PUBLIC_EXIT)


def neighbour(room: Room, direction: Direction) -> Room | None:
    """The room next to ``room`` in ``direction`` on the grid, if any (the holding cell sees the office's)."""
    if direction == Direction.STAY:
        return None
    r, c = POSITION[room]
    dr, dc = DELTA[direction]
    r, c = r + dr, c + dc
    if 0 <= r < len(GRID) and 0 <= c < len(GRID[r]):
        return GRID[r][c]
    return None


def adjacent(room: Room) -> tuple[Room, ...]:
    """Rooms orthogonally next to ``room`` (for the holding cell: next to the security office)."""
    out = [neighbour(room, d) for d in (Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT)]
    return tuple(r for r in out if r is not None)


def step(room: Room, direction: Direction) -> Room:
    """Where a player's piece goes on a movement card (AS-7): the way shown, else the opposite way, else nowhere."""
    if room == Room.HOLDING_CELL or direction == Direction.STAY:
        return room
    target = neighbour(room, direction)
    if target is not None:
        return target
    back = neighbour(room, OPPOSITE[direction])
    return back if back is not None else room


def band(die: int) -> str:
    """The president's route band for a die roll: low (1-2), middle (3-4), high (5-6)."""
    return "low" if die <= 2 else "middle" if die <= 4 else "high"


_PREFERENCES: Final = {
    "low": (Direction.DOWN, Direction.LEFT),
    "middle": (Direction.LEFT,),
    "high": (Direction.UP, Direction.LEFT),
}


def route(start: Room, die: int) -> tuple[Room, ...]:
    """The rooms the president enters, one per turn, from ``start`` to the podium (AS-10, AS-11)."""
    preferences = _PREFERENCES[band(die)]
    path: list[Room] = []
    room = start
    while room != Room.PODIUM:
        nxt = Room.PODIUM
        for d in preferences:
            candidate = neighbour(room, d)
            if candidate is not None and candidate in WALK:
                nxt = candidate
                break
        path.append(nxt)
        room = nxt
    return tuple(path)


def distances(goals: Iterable[Room], allowed: frozenset[Room] = ESCORT) -> dict[Room, int]:
    """Steps from every allowed room to the nearest of ``goals``, moving between allowed rooms."""
    dist: dict[Room, int] = {}
    queue: deque[Room] = deque()
    for g in goals:
        dist[g] = 0
        queue.append(g)
    while queue:
        room = queue.popleft()
        for nxt in adjacent(room):
            if nxt in allowed and nxt not in dist:
                dist[nxt] = dist[room] + 1
                queue.append(nxt)
    return dist


def toward(room: Room, goals: tuple[Room, ...], allowed: frozenset[Room] = ESCORT) -> Room:
    """The president's next room on a shortest way to the nearest goal; ties go to the earlier goal, then to grid order."""
    if room in goals:
        return room
    best: tuple[int, int, int] | None = None
    choice = room
    for rank, goal in enumerate(goals):
        dist = distances((goal,), allowed)
        for nxt in adjacent(room):
            if nxt in allowed and nxt in dist:
                key = (dist[nxt], rank, list(POSITION).index(nxt))
                if best is None or key < best:
                    best, choice = key, nxt
    return choice


def escort_moves(room: Room) -> tuple[Room, ...]:
    """Rooms the Secret Service may move the president to from ``room``, staying put first (AS-13)."""
    return (room,) + tuple(r for r in adjacent(room) if r in ESCORT)


def drawing() -> str:
    """The board as text, for the docs and for humans."""
    names = {r: r.name.replace("_", " ").title() for r in POSITION}
    lines = []
    for row in GRID:
        lines.append(" | ".join(f"{(names[r] if r else '(wall)'):<16}" for r in row))
    return "\n".join(lines)
