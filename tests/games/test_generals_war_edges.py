"""General's War edge cases a mutation pass found open: each test fails under a changed rule the other tests let through."""

from __future__ import annotations

from collections import deque

import pytest

from referee.core.cards import Rank, rank_of, suited_cards
from referee.core.game import Event, IllegalAction
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import (
    Action,
    BattleResolved,
    CardsDrawn,
    ChooseTarget,
    Phase,
    PlayerEliminated,
    PlaySquad,
    RevealGenerals,
    RoundEnded,
    TargetChoice,
)
from tests.games.test_generals_war_rules import C, D, H, S, ace_of_clubs_revealed, c, duel, fillers, four_player_duel, rigged


def plain_duel() -> GeneralsWar:
    """A two-player game at its first attack, no general revealed and every ace at the bottom of its deck."""
    return duel([fillers((C, S), set(), 13), fillers((D,), set(), 13)])


def one_battle(game: GeneralsWar, hand0: list[int], hand1: list[int]) -> list[Event]:
    """Seats 0 and 1, holding these hands (their other cards go to their decks), fight with the first card of each."""
    for seat, hand in ((0, hand0), (1, hand1)):
        game.decks[seat] = deque(x for x in list(game.decks[seat]) + game.hands[seat] if x not in hand)
        game.hands[seat] = list(hand)
    game.apply(0, PlaySquad((hand0[0],)))
    return game.apply(1, PlaySquad((hand1[0],)))


def one_battle_round(game: GeneralsWar, hand0: list[int], hand1: list[int]) -> RoundEnded:
    """One battle (a hand empties in it), and how the round ended."""
    [ended] = [e.payload for e in one_battle(game, hand0, hand1) if isinstance(e.payload, RoundEnded)]
    return ended


def seat_0_wins_the_round(game: GeneralsWar) -> RoundEnded:
    """Seat 0 attacks with a king, keeping a two, against seat 1's lone five: piles 2 to 0."""
    return one_battle_round(game, [c(13, C), c(2, C)], [c(5, D)])


@pytest.mark.parametrize("points,over", [(5, False), (6, True)])
def test_the_default_conquest_target_is_seven(points: int, over: bool) -> None:
    """"7 makes a reasonable target": the seventh conquest point wins, the sixth does not."""
    game = plain_duel()
    game.conquest_points = [points, 0]
    ended = seat_0_wins_the_round(game)
    assert ended.conquest_point_to == 0 and game.conquest_points == [points + 1, 0]
    assert game.is_over() is over


def test_the_default_defeat_limit_is_three() -> None:
    """A second defeat point leaves a four-player seat in the game (the default limit is 3)."""
    game = four_player_duel()
    game.defeat_points[1] = 1
    ended = seat_0_wins_the_round(game)
    assert ended.defeat_point_to == 1 and game.defeat_points[1] == 2
    assert not game.eliminated[1] and not game.is_over()
    assert all(game.view(seat).players[1].defeat_points == 2 for seat in range(4))
    assert ended.conquest_point_to is None and game.conquest_points == [0, 0, 0, 0], "with four, no conquest point"


def test_an_action_of_the_wrong_kind_is_refused_at_every_decision() -> None:
    game = GeneralsWar(4, 0)
    wrong: list[Action] = [RevealGenerals(()), PlaySquad(())]
    for action in wrong:  # choosing a target
        assert game.check(0, action) is not None
        with pytest.raises(IllegalAction):
            game.apply(0, action)
    game.apply(0, ChooseTarget(1))
    seat = game.to_act()[0]  # revealing generals
    for action in (ChooseTarget(2), PlaySquad((game.hands[seat][0],))):
        assert game.check(seat, action) is not None
        with pytest.raises(IllegalAction):
            game.apply(seat, action)
    duel_game = plain_duel()  # placing a squad
    for action in (ChooseTarget(1), RevealGenerals(())):
        assert duel_game.check(0, action) is not None
        with pytest.raises(IllegalAction):
            duel_game.apply(0, action)


@pytest.mark.parametrize(
    "hand,weakest",
    [([c(13, C), c(2, S)], c(2, S)), ([c(2, S), c(2, C)], c(2, C)), ([c(5, S), c(12, C), c(5, C)], c(5, C))],
)
def test_gw15_the_default_squad_is_the_lowest_power_then_the_lowest_card_id(hand: list[int], weakest: int) -> None:
    game = plain_duel()
    game.hands[0] = list(hand)
    assert game.default_action(0) == PlaySquad((weakest,))


def test_cards_a_seat_drew_stay_known_to_it_under_its_deck_and_hidden_from_the_others() -> None:
    game = plain_duel()
    game.hands[1] = game.hands[1][:1]  # seat 1's hand empties at the first battle
    kept = game.hands[0][1:]
    game.apply(0, PlaySquad((game.hands[0][0],)))
    game.apply(1, PlaySquad((game.hands[1][0],)))
    assert game.round == 2 and set(kept) <= set(game.decks[0]) | set(game.hands[0])
    assert not set(kept) & game.hidden_cards(0), "seat 0 drew them"
    assert set(kept) - set(game.hands[0]) <= game.hidden_cards(1), "face down in hand, then under the deck: never shown"


def test_gw2_a_general_revealed_from_an_empty_deck_draws_nothing_and_is_not_asked_again() -> None:
    """Only a fighter who drew is asked: an empty deck draws nothing, so the reveals end there."""
    game = rigged(2, [[c(1, C), c(1, S)] + fillers((C, S), set(), 3), fillers((D, H), set(), 5)])
    assert not game.decks[0]
    game.apply(0, RevealGenerals((c(1, C),)))
    game.apply(1, RevealGenerals(()))
    assert len(game.hands[0]) == 5 and game.revealed[0] == [c(1, C)]
    assert game.to_act() == (0,) and game.decision(0).attacking, "straight to the attack: nobody asked again"


def test_a_revealed_general_put_under_the_deck_is_no_secret_to_anyone() -> None:
    """Shown to all when revealed: once the round puts it under its deck, every seat may still know it (GW-17)."""
    game, hand0 = ace_of_clubs_revealed()
    game.hands[1] = game.hands[1][:1]
    game.apply(0, PlaySquad((hand0[1],)))
    game.apply(1, PlaySquad((game.hands[1][0],)))
    assert game.round == 2 and c(1, C) in set(game.decks[0]) | set(game.hands[0])
    assert c(1, C) not in game.hidden_cards(1)


def test_a_squad_turned_over_in_battle_is_no_secret_once_under_the_deck() -> None:
    game = plain_duel()
    seat_0_wins_the_round(game)
    assert c(13, C) in game.decks[0] and c(13, C) not in game.hidden_cards(1), "seen face up by all in the battle"
    assert c(5, D) in game.dead[1]


def test_an_attacker_who_loses_a_round_at_the_limit_is_eliminated_too() -> None:
    """Four players: the attacker with the smaller pile takes the defeat point, and the limit puts him out."""
    game = four_player_duel()
    game.defeat_points[0] = 2
    events = one_battle(game, [c(5, C)], [c(13, D), c(2, D)])
    deck0 = [x for x in suited_cards((C,)) if x != c(5, C)]  # all of seat 0's cards but the five, dead in the battle
    [ended] = [e.payload for e in events if isinstance(e.payload, RoundEnded)]
    [out] = [e.payload for e in events if isinstance(e.payload, PlayerEliminated)]
    assert ended.conquest_counts[:2] == (0, 2) and ended.defeat_point_to == 0
    assert game.eliminated[0] and not game.eliminated[1] and game.eliminations == [[0]]
    assert (out.seat, out.by, out.cards_transferred) == (0, 1, 12) and not game.decks[0]
    assert sorted(list(game.decks[1])[-12:]) == deck0, "his surviving cards go under the deck of the player he fought"
    assert game.attacker == 1 and game.decision(1) == TargetChoice((2, 3))
    assert all(game.view(seat).players[0].eliminated for seat in range(4))


def test_every_seat_is_told_how_a_round_ended_even_those_sitting_it_out() -> None:
    game = four_player_duel()
    game.defeat_points[1] = 1
    told = [e for e in one_battle(game, [c(13, C), c(2, C)], [c(5, D)]) if isinstance(e.payload, RoundEnded)]
    for seat in range(4):
        [ended] = [e.payload for e in told if e.visible(seat)]
        assert ended.conquest_counts[:2] == (2, 0) and ended.defeat_point_to == 1


def test_gw8_fighters_out_together_hand_over_no_cards_and_say_so() -> None:
    game = four_player_duel()
    for seat, ace in ((0, c(1, C)), (1, c(1, D))):
        game.decks[seat] = deque(x for x in list(game.decks[seat]) + game.hands[seat] if x != ace)
        game.hands[seat] = [ace, c(5, C) if seat == 0 else c(5, D)]
        game.decks[seat] = deque(x for x in game.decks[seat] if x not in game.hands[seat])
    game.apply(0, PlaySquad((c(1, C),)))
    told = [e.payload for e in game.apply(1, PlaySquad((c(1, D),))) if isinstance(e.payload, PlayerEliminated)]
    assert [(p.seat, p.by, p.cards_transferred) for p in told] == [(0, 1, 0), (1, 0, 0)]
    assert game.eliminations == [[0, 1]] and not game.decks[0] and not game.decks[1]
    for seat in range(4):  # the fives left in hand went under the decks, then left play with them: nobody remembers them
        assert [(k.deck, k.hand) for k in game.view(seat).known[:2]] == [((), ()), ((), ())]


def test_every_seat_sees_each_dead_pile_as_it_grows() -> None:
    game = plain_duel()
    game.hands[0], game.hands[1] = [c(13, C), c(2, C), c(3, C)], [c(5, D), c(6, D)]
    game.apply(0, PlaySquad((c(13, C),)))
    game.apply(1, PlaySquad((c(5, D),)))
    for seat in (0, 1):
        assert game.view(seat).players[1].dead == (c(5, D),) and game.view(seat).players[0].dead == ()
    game.apply(0, PlaySquad((c(2, C),)))
    game.apply(1, PlaySquad((c(6, D),)))
    for seat in (0, 1):
        assert game.view(seat).players[0].dead == (c(2, C),) and game.view(seat).players[1].dead == (c(5, D),)


@pytest.mark.parametrize("n", [2, 4])
def test_the_view_names_the_conquest_target_and_the_defeat_limit_chosen(n: int) -> None:
    game = GeneralsWar(n, 0, {"conquest_points": 5, "defeat_points": 2})
    for seat in range(n):
        view = game.view(seat)
        assert (view.conquest_target, view.defeat_limit) == (5, 2)


def test_the_view_names_the_fighters_and_the_last_battle() -> None:
    game = GeneralsWar(4, 0)
    drawn = [e.payload.seat for e in game.apply(0, ChooseTarget(2)) if isinstance(e.payload, CardsDrawn) and e.visible(1)]
    assert drawn == [0, 2], "the attacker draws first"
    assert all((game.view(seat).attacker, game.view(seat).defender) == (0, 2) for seat in range(4))
    while game.phase == Phase.REVEAL:
        for seat in game.to_act():
            game.apply(seat, RevealGenerals(()))
    soldiers = [[x for x in game.hands[seat] if rank_of(x) != Rank.ACE] for seat in range(4)]  # no general dies
    game.apply(0, PlaySquad((soldiers[0][0],)))
    [battle] = [e.payload.battle for e in game.apply(2, PlaySquad((soldiers[2][0],))) if isinstance(e.payload, BattleResolved)]
    assert all(game.view(seat).last_battle == battle for seat in range(4))
    assert (battle.attacker, battle.defender, battle.attacker_power) == (0, 2, int(rank_of(soldiers[0][0])))
    assert battle.defender_power == int(rank_of(soldiers[2][0]))
    game.decks[2].extend(x for x in game.hands[2] if x != soldiers[2][1])
    game.hands[2] = [soldiers[2][1]]  # the next battle empties the defender's hand: a new round, no battle yet
    game.apply(0, PlaySquad((soldiers[0][1],)))
    game.apply(2, PlaySquad((soldiers[2][1],)))
    assert game.round == 2 and all(game.view(seat).last_battle is None for seat in range(4))
