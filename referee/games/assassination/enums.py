"""the Assassination Game: the enumerations, re-exported by ``types``; a build compiles them apart from the records (referee/compiled.py)."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    ALLEGIANCE = 1
    MOVEMENT = 2
    PRESIDENT = 3
    EVENT = 4
    ACTION = 5
    REACTION = 6
    ROUND_OVER = 7
    OVER = 8


class Room(IntEnum):
    COURTYARD = 1
    HALL = 2
    PODIUM = 3
    TOWER = 4
    HELIPAD = 5
    BUNKER = 6
    SECURITY_OFFICE = 7
    HOLDING_CELL = 8
    HEALTH_SERVICES = 9
    PUBLIC_EXIT = 10


class Identity(IntEnum):
    SECRET_SERVICE = 1
    POLICE_OFFICER = 2
    SNIPER = 3
    BOMBER = 4
    REPORTER = 5


class Direction(IntEnum):
    UP = 1
    DOWN = 2
    LEFT = 3
    RIGHT = 4
    STAY = 5


class ActionKind(IntEnum):
    NOTHING = 1
    SNIPE = 2
    SHOOT_PRESIDENT = 3
    SHOOT_PLAYER = 4
    DETONATE = 5
    DETAIN = 6
    LEAVE_CELL = 7


class PresidentStatus(IntEnum):
    UNHARMED = 1
    INJURED = 2
    KILLED = 3


class RevealReason(IntEnum):
    ACTION_CARD = 1
    INCIDENT = 2
    SHOT = 3
    WITNESS = 4
    BLAST = 5
    DETAIN_ATTEMPT = 6
    DETAINED_BOMBER = 7
    LEFT_CELL = 8


class DiceReason(IntEnum):
    SNIPER_SHOT = 1
    BOMB_BLAST = 2


class RoundOutcome(IntEnum):
    PHOTO_OP_TAKEN = 1
    REACHED_SAFETY = 2
    ASSASSINATED = 3
    TIME_UP = 4


class ScoreReason(IntEnum):
    PHOTO_OP = 1
    PRESIDENT_UNHARMED = 2
    PRESIDENT_WOUNDED = 3
    PRESIDENT_KILLED = 4
    KILLED_GOOD_GUY = 5
    KILLED_BAD_GUY = 6
    KILLED_OWN_SIDE = 7
    KILLED_REPORTER = 8
    BAD_GUY_DETAINED = 9
    DETAINED_REPORTER = 10
    DETAINED_POLICE_OFFICER = 11
    TRIED_TO_DETAIN_SECRET_SERVICE = 12
    ESCAPED = 13

