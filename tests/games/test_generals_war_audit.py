"""General's War, third audit: rule sentences that no earlier test would have caught being implemented otherwise."""

from __future__ import annotations

from referee.core.cards import Suit, card_id
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.rules import power
from referee.games.generals_war.types import BattleResolved, Phase, PlaySquad, RevealGenerals, TargetChosen

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
