"""ladder/ratings.py: how a duplicate set's matches combine into one result."""

from __future__ import annotations

from ladder.ratings import set_ranks


def test_a_duplicate_set_ranks_its_bots_by_their_ranks_over_every_deal() -> None:
    """One win each is one draw; a bot that won every deal is first; only the last deal counted, a set was its last match."""
    one_each = [[(1, 1), (2, 2)], [(2, 1), (1, 2)]]
    assert set_ranks(one_each, [1, 2]) == [1, 1]
    assert set_ranks([[(1, 1), (2, 2)], [(2, 2), (1, 1)]], [1, 2]) == [1, 2]
    three = [[(7, 1), (8, 2), (9, 3)], [(8, 1), (9, 2), (7, 3)], [(9, 1), (7, 2), (8, 3)]]
    assert set_ranks(three, [7, 8, 9]) == [1, 1, 1]
    assert set_ranks([[(7, 1), (8, 3), (9, 2)], [(8, 2), (9, 3), (7, 1)]], [7, 8, 9]) == [1, 2, 2]
