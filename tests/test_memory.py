"""referee.core.memory: what each seat remembers of face-down cards, as the views of General's War and Land & Castle show it."""

from __future__ import annotations

from referee.core.memory import PileCard, TableMemory, everyone

Known = tuple[int, tuple[PileCard, ...], tuple[int, ...]]


def record(seat: int, pile: tuple[PileCard, ...], hand: tuple[int, ...]) -> Known:
    return (seat, pile, hand)


def test_a_dropped_pile_is_no_longer_shown_to_those_who_knew_its_cards() -> None:
    memory = TableMemory(3, record)
    memory.put(1, 4, [7, 8], everyone(3))
    assert memory.known(0)[1] == (1, (PileCard(4, 7), PileCard(5, 8)), ())
    memory.drop_pile(1, 6)
    assert memory.known(0)[1] == (1, (), ())
    assert memory.known(2)[1] == (1, (), ())


def test_who_else_knows_a_drawn_card_leaves_out_the_seat_that_drew_it() -> None:
    memory = TableMemory(3, record)
    memory.put(0, 0, [5], 0b011)  # seat 0's own pile, its top card known to seats 0 and 1
    memory.put(0, 1, [6], 0b001)  # the next card known to seat 0 alone
    memory.draw(0, [5, 6])
    assert memory.hand_knowers(0, 5) == 0b010
    assert memory.hand_knowers(0, 6) == 0
    assert [r[2] for r in memory.known(1)] == [(5,), (), ()]
    assert [r[2] for r in memory.known(2)] == [(), (), ()]
    assert memory.known(0)[0] == (0, (), ())  # a seat is not told its own hand as others know it


def test_a_hand_the_others_lost_track_of_is_no_longer_shown_to_them() -> None:
    """Each seat's answer is kept until something it remembers changes: forgetting a hand is such a change."""
    memory = TableMemory(2, record)
    memory.put(0, 0, [5], everyone(2))
    memory.draw(0, [5])
    assert memory.known(1)[0] == (0, (), (5,))
    memory.forget_hand(0)
    assert memory.known(1)[0] == (0, (), ()) and memory.hand_knowers(0, 5) == 0
