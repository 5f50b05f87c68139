"""General's War: the enumerations, re-exported by ``types``; a build compiles them apart from the records (referee/compiled.py)."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    REVEAL = 1
    CHOOSE_TARGET = 2
    ATTACK = 3
    DEFEND = 4
    OVER = 5


class EliminationReason(IntEnum):
    DEFEAT_POINTS = 1
    NO_GENERAL = 2


class GameEndReason(IntEnum):
    CONQUEST_POINTS = 1  # two players: a seat reached the conquest points that win
    GENERALS_KILLED = 2  # two players: a seat's last general died (both at once: a draw) (GW-4)
    LAST_PLAYER_STANDING = 3  # four players: one seat is left, or the last two went out together (GW-8)
