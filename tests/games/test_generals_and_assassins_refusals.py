"""Generals & Assassins: land bought one short, a block or second try without a joker, an assist naming no side are refused (checks only the golden playthroughs, or nothing, caught dropping)."""

from __future__ import annotations

from typing import cast

import pytest

from referee.compiled import in_use
from referee.core.game import IllegalAction
from referee.games.generals_and_assassins.types import (
    AssassinChoice,
    Assist,
    Attack,
    BuyLand,
    LandBought,
    PlayAssassin,
    Side,
)
from tests.games.test_generals_and_assassins_rules import act, c, first_assassin_blocked, hand, hands, new, payloads, turn


def test_ga13_money_one_short_of_the_land_buys_nothing() -> None:
    """Money worth 8 cannot buy land worth 9; worth 9 it can (GA-13: at least the lands' value)."""
    g = new(2)
    hand(g, 0, "8d 9d 9s 2h 3h")
    turn(g, 0)
    short = BuyLand((c("8d", 0),), (c("9s", 0),))
    assert g.check(0, short) is not None
    assert short not in set(g.legal_actions(0))
    try:
        g.apply(0, short)
    except IllegalAction:
        pass
    else:
        raise AssertionError("land was bought with too little money")
    assert g.lands[0] == []
    bought = payloads(act(g, 0, BuyLand((c("9d", 0),), (c("9s", 0),))), LandBought)
    assert [(b.money, b.lands) for b in bought] == [((c("9d", 0),), (c("9s", 0),))]


def test_ga12_only_a_joker_in_hand_blocks_or_tries_again() -> None:
    """A second try or a block names a joker of one's own hand: another card, or a joker played or left in the deck, is refused."""
    g = first_assassin_blocked("X0 X1 Kc 2d 3d", "X0 Qc 2h 3h 4h")
    assert g.decision(0) == AssassinChoice((c("X1", 0),), False)
    for wrong in (c("Kc", 0), c("X0", 0), c("X0", 1)):
        assert g.check(0, PlayAssassin(wrong)) is not None, wrong
    act(g, 0, PlayAssassin(c("X1", 0)))
    assert g.decision(1) == AssassinChoice((), True)
    for wrong in (c("Qc", 1), c("2h", 1), c("X0", 1), c("X1", 1)):
        assert g.check(1, PlayAssassin(wrong)) is not None, wrong


def test_ga7_an_assist_names_one_of_the_two_sides() -> None:
    """A side that is neither the attacker's nor the defender's is refused by the check, not left to fail in play
    (a compiled build refuses a number where a Side belongs itself, with a TypeError)."""
    g = new(3)
    hands(g, {0: "Qc 2d 3d 4d 5d", 2: "8c 2h 3h 4h 5h"})
    turn(g, 0)
    act(g, 0, Attack(1, (c("Qc", 0),)))
    assert g.to_act() == (2,)
    for number in (0, 3):
        if in_use():
            with pytest.raises(TypeError):
                g.check(2, Assist(cast(Side, number), c("8c", 2)))
        else:
            assert g.check(2, Assist(cast(Side, number), c("8c", 2))) is not None
    assert g.check(2, Assist(Side.DEFENDER, c("8c", 2))) is None
