"""General's War, third audit: rule sentences that no earlier test would have caught being implemented otherwise."""

from __future__ import annotations

from collections import deque

from referee.core.cards import Suit, card_id
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.rules import power
from referee.games.generals_war.types import (
    BattleResolved,
    CardsDrawn,
    GeneralsRevealed,
    Phase,
    PlaySquad,
    RevealChoice,
    RevealGenerals,
    TargetChosen,
)
from tests.games.test_generals_war_rules import fillers, four_player_duel, rigged

C, D, H, S = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES


def c(rank: int, suit: Suit) -> int:
    return card_id(rank, suit)


def duel(hand0: list[int], hand1: list[int]) -> GeneralsWar:
    """A two-player game at its first attack, the fighters holding ``hand0`` and ``hand1`` (their aces left in the decks)."""
    game = GeneralsWar(2, 0)
    while game.phase == Phase.REVEAL:
        for seat in game.to_act():
            game.apply(seat, RevealGenerals(()))
    for seat, hand in ((0, hand0), (1, hand1)):
        every = game.hands[seat] + list(game.decks[seat])
        game.hands[seat] = list(hand)
        game.decks[seat].clear()
        game.decks[seat].extend(x for x in every if x not in hand)
    return game


def test_power_is_the_rank_number_ace_one_jack_to_king_eleven_to_thirteen() -> None:
    """"2 through 10 have a power of 2 through 10, Jacks through Kings 11 through 13, and Aces 1 point."""
    assert [power((c(rank, C),)) for rank in range(1, 14)] == list(range(1, 14))
    assert power((c(11, S), c(12, S), c(13, C))) == 36
    # A king against a jack and a two is a tie (13 to 13): both die (GW-3).
    game = duel([c(13, C), c(5, C)], [c(11, D), c(2, D), c(5, D)])
    game.apply(0, PlaySquad((c(13, C),)))
    events = game.apply(1, PlaySquad((c(11, D), c(2, D))))
    battle = next(e.payload.battle for e in events if isinstance(e.payload, BattleResolved))
    assert (battle.attacker_power, battle.defender_power, battle.winner) == (13, 13, None)


def test_gw9_with_one_opponent_left_everyone_is_still_told_who_fights() -> None:
    game = GeneralsWar(4, 7)
    game.eliminated = [False, True, True, False]
    game.attacker = 3
    events = game._start_round()
    chosen = [e.payload for e in events if isinstance(e.payload, TargetChosen)]
    assert [(t.attacker, t.target) for t in chosen] == [(3, 0)]
    assert all(e.visible(seat) for e in events if isinstance(e.payload, TargetChosen) for seat in range(4))


def test_gw19_a_deal_from_a_deck_of_fewer_than_five_draws_what_is_left_and_the_round_is_played() -> None:
    """"Each player draws 5 cards": a deck of four deals four, and the fighter reveals and attacks as usual."""
    game = rigged(2, [fillers((C, S), set(), 13), [c(2, D), c(3, D)]])  # seat 1: the two, the three, then its aces
    assert game.hands[1] == [c(2, D), c(3, D), c(1, D), c(1, H)] and not game.decks[1]
    drawn = [e.payload for e in game.opening_events() if isinstance(e.payload, CardsDrawn) and e.visible(0)]
    assert [(d.seat, d.count) for d in drawn] == [(0, 5), (1, 4)], "everyone sees four cards dealt, not five"
    assert game.decision(1) == RevealChoice((c(1, D), c(1, H)))
    game.apply(0, RevealGenerals(()))
    game.apply(1, RevealGenerals((c(1, D),)))  # nothing left to draw: straight to the attack
    assert game.phase == Phase.ATTACK and len(game.hands[1]) == 4


def test_gw20_a_general_revealed_in_an_earlier_round_may_be_revealed_again_and_draws_again() -> None:
    """"Upon reviewing their cards" each round: an ace drawn again is offered again, and revealing it draws five more."""
    clubs = [c(1, C), c(13, C), c(12, C), c(11, C), c(10, C)] + [c(r, C) for r in (9, 8, 7, 6, 5)]
    game = rigged(2, [clubs, [c(r, D) for r in range(2, 14)]])  # seat 0's deck ends with its ace of spades
    game.apply(0, RevealGenerals((c(1, C),)))
    game.apply(1, RevealGenerals(()))
    game.apply(0, RevealGenerals(()))  # its five extra cards hold no ace; its deck is now the ace of spades alone
    assert list(game.decks[0]) == [c(1, S)]
    game.apply(0, PlaySquad((c(1, C), c(13, C), c(12, C))))  # 26 against 9: the ace of clubs survives in the conquest pile
    game.apply(1, PlaySquad((c(2, D), c(3, D), c(4, D))))
    game.apply(0, PlaySquad((c(11, C),)))
    game.apply(1, PlaySquad((c(5, D), c(6, D))))  # 11 against 11: both die, and seat 1's hand is empty
    assert game.round == 2 and game.attacker == 1
    assert game.hands[0] == [c(1, S), c(1, C), c(13, C), c(12, C), c(10, C)], "the squad won, under the deck, dealt again"
    assert game.decision(0) == RevealChoice((c(1, S), c(1, C)))
    game.apply(1, RevealGenerals(()))
    events = game.apply(0, RevealGenerals((c(1, C),)))
    revealed = [e.payload for e in events if isinstance(e.payload, GeneralsRevealed)]
    assert [(r.seat, r.cards) for r in revealed] == [(0, (c(1, C),))]
    assert len(game.hands[0]) == 10, "the ace of clubs draws five cards again"


def test_gw8_the_last_two_out_together_leave_nobody_alive_and_share_the_win() -> None:
    """"The last player alive wins": when the last two lose their generals in one battle, nobody is left; they tie first."""
    game = four_player_duel()
    for seat in (2, 3):
        game.eliminated[seat] = True
        game.eliminations.append([seat])
        game.decks[seat].clear()
    for seat, ace, five in ((0, c(1, C), c(5, C)), (1, c(1, D), c(5, D))):
        game.decks[seat] = deque(x for x in list(game.decks[seat]) + game.hands[seat] if x not in (ace, five))
        game.hands[seat] = [ace, five]
    game.forget()
    game.apply(0, PlaySquad((c(1, C),)))
    game.apply(1, PlaySquad((c(1, D),)))  # one against one: both aces die, the last generals of both
    assert game.is_over() and game.phase == Phase.OVER
    result = game.result()
    assert result.ranks == (1, 1, 4, 3) and result.scores == (2.0, 2.0, 0.0, 1.0)
