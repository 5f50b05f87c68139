"""Generals & Assassins: the assist order goes clockwise from the attacker, wherever he sits (GA-7)."""

from __future__ import annotations

import pytest

from referee.games.generals_and_assassins.types import Attack, Decline, Phase
from tests.games.test_generals_and_assassins_rules import act, c, hands, new, turn


@pytest.mark.parametrize(
    ("attacker", "defender", "order"),
    [
        (1, 3, [2, 0]),  # seat 2 first after him, then seat 0 past the end of the table: not seat order 0, 2
        (2, 0, [3, 1]),  # seat 3 first, the defender skipped past the end of the table, then seat 1
    ],
)
def test_ga7_bystanders_are_asked_clockwise_from_an_attacker_who_is_not_seat_0(attacker: int, defender: int, order: list[int]) -> None:
    g = new(4)
    hands(g, {attacker: "Qc 2d 3d 4d 5d"})
    turn(g, attacker)
    act(g, attacker, Attack(defender, (c("Qc", attacker),)))
    asked = []
    while g.phase == Phase.ASSIST:
        (seat,) = g.to_act()
        asked.append(seat)
        act(g, seat, Decline())
    assert asked == order
    assert g.phase == Phase.DEFEND and g.to_act() == (defender,)
