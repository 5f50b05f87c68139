"""Glory: the enumerations, re-exported by ``types``; a build compiles them apart from the records (referee/compiled.py)."""

from __future__ import annotations

from enum import IntEnum


class Phase(IntEnum):
    """What the game is waiting for."""

    TURN = 1  # the player on turn chooses his action
    OFFERS = 2  # Attack a King: the attacker, then the defender, make offers for assistance
    ASSIST = 3  # Attack a King: another player chooses a side (or none)
    DEFEND = 4  # the defender commits his defence
    THWART = 5  # Assassination: the defender matches the assassins or not
    MORE_ASSASSINS = 6  # Assassination: the attacker presents more assassins or stops
    ROUND_OVER = 7  # the round is scored; the next first player starts the next round
    GAME_OVER = 8


class AttackKind(IntEnum):
    CONQUER_LAND = 1
    ATTACK_KING = 2
    ASSASSINATION = 3


class GloryReason(IntEnum):
    """Why Glory Points were awarded."""

    CONQUEST = 1  # the attacker conquered land (+2)
    CONQUEST_REPELLED = 2  # the defender repelled a conquest (+2)
    KING_ATTACK = 3  # a successful Attack a King (+5, +10 on elimination)
    KING_ATTACK_ASSIST = 4  # assisted a successful Attack a King (+2, +4 on elimination)
    KING_DEFENCE = 5  # repelled an Attack a King (+5)
    KING_DEFENCE_ASSIST = 6  # assisted the defender who repelled an Attack a King (+2)
    ASSASSINATION = 7  # a successful assassination (+2)
    ASSASSINATION_KILL = 8  # the assassination eliminated the defender (+2 more)
    ASSASSINATION_THWARTED = 9  # the defender survived an assassination attempt (+2)
    LAND = 10  # land in the Domain at the end of the round


class RoundEndReason(IntEnum):
    DECK_EMPTY = 1  # the last card of the deck was drawn; the turn finished
    KING_ELIMINATED = 2  # a king was reduced to 0 HP

