"""The clock options every command that plays matches shares, with the bounds the protocol can carry, and the seeds' bounds.

GameStart and DecisionRequest send times and the strike limit as uint32 (proto/arena/v1/referee.proto), and a
request's ``time_left_ms`` is the move time plus the bank: past these bounds a match would fail while sending
its first message instead of being refused here, naming the option.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

#: The most either time may be: move time plus bank still fits a uint32.
MAX_TIME_MS = 2**31 - 1
#: The most strikes a uint32 holds.
MAX_STRIKE_LIMIT = 2**32 - 1

MoveTimeMs = Annotated[int, typer.Option(help="Time per decision, in ms.", min=1, max=MAX_TIME_MS)]
TimeBankMs = Annotated[int, typer.Option(help="Extra time per match, in ms.", min=0, max=MAX_TIME_MS)]
StrikeLimit = Annotated[int, typer.Option(help="Strikes allowed before a seat forfeits.", min=0, max=MAX_STRIKE_LIMIT)]

#: Seeds: any signed 64-bit number. Past some 4,300 digits Python will not turn one into text, and a seed of
#: that size crashed a match when its bots' seeds were derived from it.
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1


def seed_in_range(value: int | None) -> int | None:
    """A ``--seed`` checked against SEED_MIN and SEED_MAX by a callback, not by ``min``/``max``: with those, every
    command's help printed both twenty-digit bounds beside the option."""
    if value is not None and not SEED_MIN <= value <= SEED_MAX:
        raise typer.BadParameter(f"{value} is no seed: a seed is a whole number from -2**63 to 2**63 - 1")
    return value


def seed_option(what: str, unset: str = "one drawn at random") -> Any:  # typer.Option's own type
    """The ``--seed`` option of a command that plays or schedules matches: ``what`` the seed decides, and the seed
    played without one (``unset``)."""
    return typer.Option(help=f"{what} Any 64-bit integer; without it, {unset}.", callback=seed_in_range)
