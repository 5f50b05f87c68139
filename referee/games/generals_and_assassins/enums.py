"""Generals & Assassins: the enumerations, re-exported by ``types``; a build compiles them apart from the records (referee/compiled.py)."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """What the game waits for."""

    TURN = 1  # the turn player chooses an action
    OFFER = 2  # the attacker or the defender may offer lands for help
    ASSIST = 3  # a player who is neither attacker nor defender may help one side
    DEFEND = 4  # the defender commits his defence
    ASSASSIN = 5  # the defender may block an assassin, or the attacker may play a second one
    OVER = 6
    ROUND_OVER = 7  # a round was scored; the next round's first player starts it (GA-27)


class Side(IntEnum):
    """A side of an attack."""

    ATTACKER = 1
    DEFENDER = 2


class BattleKind(IntEnum):
    ATTACK = 1
    ASSASSINATION = 2


class RoundEndReason(IntEnum):
    LAST_CARD = 1  # a deck ran out and every player had one more turn
    KING_DEFEATED = 2  # a player fell to 0 HP

