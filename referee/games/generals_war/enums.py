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

