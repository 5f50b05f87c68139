"""The helpers of referee.core.game that every game's rules lean on: events by seat, card choices, ranks."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee.core.game import Event, IllegalAction, broadcast, card_subsets, choose_cards_reason, private, ranks_from_scores, split
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import RevealChoice


def seeing(events: list[Event], n: int) -> list[list[str]]:
    """What each of ``n`` seats is told, event by event."""
    return [[e.payload for e in events if e.visible(seat)] for seat in range(n)]


def test_an_event_reaches_only_the_seats_it_is_for() -> None:
    assert seeing([broadcast("all"), private("mine", 1), private("ours", 0, 2)], 3) == [["all", "ours"], ["all", "mine"], ["all", "ours"]]
    assert private("nobody").visible_to == frozenset()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_split_happening_is_told_in_full_to_its_seat_and_in_part_to_each_other(n: int) -> None:
    told = seeing(split(1, n, "drew the 7h", "drew a card"), n)
    assert told == [["drew the 7h"] if seat == 1 else ["drew a card"] for seat in range(n)]


def test_a_split_with_nobody_else_is_one_event() -> None:
    assert split(0, 1, "mine", "theirs") == [private("mine", 0)]


def test_a_choice_of_cards_is_refused_with_its_reason() -> None:
    hand = [3, 9, 20, 41]
    assert choose_cards_reason([9, 20], hand, 2, 2) is None
    assert choose_cards_reason([], hand, 0, 3) is None
    assert choose_cards_reason([3, 9, 20], hand, 0, 3) is None
    assert choose_cards_reason([9, 9], hand, 2, 2) == "a card is named twice"
    assert choose_cards_reason([9, 5], hand, 2, 2) == "card 5 may not be chosen now"
    assert choose_cards_reason([9], hand, 2, 2) == "choose exactly 2 card(s), not 1"
    assert choose_cards_reason([9, 20, 3], hand, 2, 2) == "choose exactly 2 card(s), not 3"
    assert choose_cards_reason([3, 9, 20, 41], hand, 1, 3) == "choose 1 to 3 cards, not 4"
    assert choose_cards_reason([], hand, 1, 3) == "choose 1 to 3 cards, not 0"


def test_card_subsets_are_every_allowed_choice_smallest_first() -> None:
    assert list(card_subsets([7, 2, 5], 0, 2)) == [(), (2,), (5,), (7,), (2, 5), (2, 7), (5, 7)]
    assert list(card_subsets([7, 2, 5], 3, 9)) == [(2, 5, 7)]
    assert list(card_subsets([7, 2], 3, 3)) == []
    for least, most in [(0, 2), (1, 3), (2, 2)]:
        for chosen in card_subsets([1, 4, 6, 8], least, most):
            assert choose_cards_reason(chosen, [1, 4, 6, 8], least, most) is None


def test_ranks_from_scores_share_a_rank_on_a_tie_and_skip_the_next() -> None:
    assert ranks_from_scores([5, 9, 9, 1]) == (3, 1, 1, 4)
    assert ranks_from_scores([(2, 1), (2, 3), (0, 9)]) == (2, 1, 3)
    assert ranks_from_scores([4, 4]) == (1, 1)


def test_a_decision_is_worked_out_again_after_forget() -> None:
    """Tests that edit a state by hand call ``forget``: the decision kept for the old state must go with it."""
    game = GeneralsWar(2, 1)
    seat = game.to_act()[0]
    assert game.decision(seat) == RevealChoice(())
    game.revealable[seat] = (0,)
    assert game.decision(seat) == RevealChoice(()), "kept until forgotten"
    game.forget()
    assert game.decision(seat) == RevealChoice((0,))


def test_the_opening_events_cannot_be_changed_through_the_list_returned() -> None:
    game = GeneralsWar(2, 1)
    told = game.opening_events()
    told.clear()
    assert game.opening_events() and game.opening_events() == GeneralsWar(2, 1).opening_events()


def test_player_counts_are_said_as_a_range_only_past_two_in_a_row() -> None:
    def said(*counts: int) -> str:
        return dataclasses.replace(GeneralsWar.spec, player_counts=counts).players_text

    assert [said(4), said(2, 3), said(2, 4), said(2, 3, 4), said(2, 4, 6)] == ["4", "2 or 3", "2 or 4", "2 to 4", "2, 4 or 6"]


def test_an_action_of_a_seat_not_to_act_is_illegal_whatever_it_is() -> None:
    """Not a ValueError of working out a decision it does not have: the referee tells IllegalAction apart."""
    game, rng = GeneralsWar(4, 3), random.Random(3)
    while set(game.to_act()) == set(range(4)):
        seat = game.to_act()[0]
        game.apply(seat, game.random_action(seat, rng))
    acting = game.to_act()[0]
    idle = next(s for s in range(4) if s not in game.to_act())
    with pytest.raises(IllegalAction, match=f"seat {idle} is not to act"):
        game.apply(idle, game.random_action(acting, rng))


def test_a_decision_of_exactly_the_limit_is_listed_and_one_more_is_not() -> None:
    game, rng = GeneralsWar(2, 5), random.Random(5)
    while game.least_count(seat := game.to_act()[0]) < 3:
        game.apply(seat, game.random_action(seat, rng))
    count = game.least_count(seat)  # exact in General's War
    listed = game.listing(seat, count)
    assert listed is not None and sorted(map(repr, listed)) == sorted(map(repr, game.legal_actions(seat)))
    assert len(listed) == count and game.listing(seat, count - 1) is None
