"""Land & Castle: the enumerations, re-exported by ``types``; a build compiles them apart from the records (referee/compiled.py)."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    PHASE_CASTLE = 1
    PHASE_GENERAL = 2
    PHASE_ATTACK = 3
    PHASE_DEFEND = 4
    PHASE_CLAIM = 5
    PHASE_OVER = 6


class WinReason(IntEnum):
    DOMINANCE = 1
    CONVERSION = 2
    ATTRITION = 3
    TURN_LIMIT = 4

