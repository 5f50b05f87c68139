"""Land & Castle rulings (docs/games/land-and-castle.md), one test or more each."""

from __future__ import annotations

import random
from collections import deque

import pytest

from referee.core.cards import Suit, card_id, full_deck
from referee.core.game import Event, IllegalAction
from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle.rules import army_value, battle_side, converted, land_value
from referee.games.land_and_castle.types import (
    Attack,
    AttackChoice,
    Attacked,
    BattleResolved,
    CardsDrawn,
    CardSwapped,
    CastleChoice,
    Capture,
    ClaimChoice,
    Control,
    Defend,
    DefendChoice,
    Defended,
    GameOver,
    GeneralChoice,
    LandRevealed,
    Phase,
    PlaceCastle,
    PlaceGeneral,
    SwapCard,
    TurnStarted,
    WinReason,
)

C, D, H, S = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES
A, J, Q, K = 1, 11, 12, 13


def c(rank: int, suit: Suit) -> int:
    return card_id(rank, suit)


def rigged(
    lands: list[int],
    hands: list[list[int]],
    castles: list[int],
    generals: list[int],
    piles: list[list[int]] | None = None,
    attacker: int = 0,
    face_up: list[bool] | None = None,
    owner: list[int | None] | None = None,
    **options: object,
) -> LandAndCastle:
    """A game at the attack of turn 1 with the given cards; unnamed cards fill the piles unless ``piles`` is given."""
    game = LandAndCastle(2, 0, options)
    game.lands = list(lands)
    game.face_up = list(face_up) if face_up is not None else [False] * len(lands)
    game.owner = list(owner) if owner is not None else [None] * len(lands)
    game.dealt_by = [p % 2 for p in range(len(lands))]
    game.hands = [list(h) for h in hands]
    game.castles = list(castles)
    game.generals = list(generals)
    if piles is None:
        used = set(lands) | set(castles) | set(generals) | set(hands[0]) | set(hands[1])
        rest = [x for x in full_deck() if x not in used]
        piles = [rest[::2], rest[1::2]]
    game.piles = [deque(piles[0]), deque(piles[1])]
    placed = list(lands) + hands[0] + hands[1] + list(castles) + list(generals) + piles[0] + piles[1]
    assert len(placed) == len(set(placed)), "a card is placed twice"
    game.discards = [[], []]
    game.seen = [set(game.hands[0]) | set(castles) | set(generals), set(game.hands[1]) | set(castles) | set(generals)]
    game.attacker = attacker
    game.turn = 1
    game.battle = None
    game.phase = Phase.PHASE_ATTACK
    game.swap_used = [False, False]
    return game


def setup_done(seed: int = 0, **options: object) -> LandAndCastle:
    game = LandAndCastle(2, seed, options)
    while game.phase in (Phase.PHASE_CASTLE, Phase.PHASE_GENERAL):
        seat = game.to_act()[0]
        game.apply(seat, game.default_action(seat))
    return game


def payloads(events: list[Event], seat: int = 0) -> list[object]:
    """What ``seat`` is told (a split event appears once)."""
    return [e.payload for e in events if e.visible(seat)]


# A plain board: six face-down lands nobody cares about, castles and generals that give nothing.
PLAIN_LANDS = [c(7, D), c(9, H), c(4, S), c(6, C), c(8, D), c(6, H)]
NO_CASTLES = [c(K, D), c(K, H)]  # face cards: no bonus, no stack
NO_GENERALS = [c(Q, D), c(Q, H)]


def plain(hands: list[list[int]], **kwargs: object) -> LandAndCastle:
    return rigged(list(PLAIN_LANDS), hands, list(NO_CASTLES), list(NO_GENERALS), **kwargs)  # type: ignore[arg-type]


def battle(game: LandAndCastle, a_card: int, land: int, d_card: int) -> list[object]:
    events = game.apply(game.attacker, Attack(a_card, land))
    return payloads(events + game.apply(1 - game.attacker, Defend(d_card)))


def test_lc1_one_deck_split_in_halves_and_shuffled_once() -> None:
    game = LandAndCastle(2, 7)
    deck = full_deck()
    random.Random(7).shuffle(deck)
    halves = [deck[:26], deck[26:]]
    # Seat 0's lands are the first cards of its half, then its hand, in order.
    assert game.lands[0::2] == halves[0][:3] and game.lands[1::2] == halves[1][:3]
    assert game.hands[0] == halves[0][3:7]
    game = setup_done(7)
    for seat in (0, 1):
        assert len(game.piles[seat]) == 26 - 3 - 4 - 2 == 17
    everything = game.lands + game.hands[0] + game.hands[1] + list(game.piles[0]) + list(game.piles[1])
    everything += [x for x in game.castles + game.generals if x is not None]
    assert sorted(everything) == full_deck()
    assert LandAndCastle(2, 8).lands != LandAndCastle(2, 7).lands


def test_lc1_every_card_stays_somewhere_to_the_end_of_every_game() -> None:
    """The 52 cards are always in a pile, a hand, the row, a castle, a general, a discard pile or this turn's battle."""
    for seed in range(60):
        game = LandAndCastle(2, seed, {"lands_per_player": 1 + seed % 8, "hand_size": 1 + seed % 5})
        rng = random.Random(seed)
        while True:
            placed = game.lands + game.hands[0] + game.hands[1] + game.discards[0] + game.discards[1]
            placed += list(game.piles[0]) + list(game.piles[1]) + [x for x in game.castles + game.generals if x is not None]
            if game.battle is not None:  # the armies lie on the land until the claim puts them away
                armies = [game.battle.attacker.army] + ([game.battle.defender.army] if game.battle.defender else [])
                placed += [a for a in armies if a not in placed]
            assert sorted(placed) == full_deck(), f"seed {seed}, {game.phase.name}"
            if game.is_over():
                break
            seat = game.to_act()[0]
            game.apply(seat, game.random_action(seat, rng))


def test_lc2_lands_dealt_in_turns_face_down_unclaimed_and_unknown_to_both() -> None:
    game = LandAndCastle(2, 3)
    assert len(game.lands) == 6 and game.dealt_by == [0, 1, 0, 1, 0, 1]
    assert game.owner == [None] * 6 and game.face_up == [False] * 6
    for seat in (0, 1):
        view = game.view(seat)
        assert all(land.card is None and not land.face_up for land in view.lands)
        assert set(game.lands) <= game.hidden_cards(seat), "even the dealer does not know his lands"
    assert len(LandAndCastle(2, 3, {"lands_per_player": 5}).lands) == 10


def test_lc3_castles_then_generals_in_turns_with_draws() -> None:
    game = LandAndCastle(2, 5)
    assert game.to_act() == (0,) and isinstance(game.decision(0), CastleChoice)
    assert len(game.hands[0]) == 4 and game.hands[1] == [], "seat 1 draws its hand on its turn"
    castle0 = game.hands[0][1]
    game.apply(0, PlaceCastle(castle0))
    assert len(game.hands[0]) == 4 and len(game.hands[1]) == 4
    assert game.to_act() == (1,) and isinstance(game.decision(1), CastleChoice)
    assert game.view(1).players[0].castle == castle0, "castles are face up"
    game.apply(1, PlaceCastle(game.hands[1][0]))
    assert game.to_act() == (0,) and isinstance(game.decision(0), GeneralChoice)
    with pytest.raises(IllegalAction):
        game.apply(0, PlaceCastle(game.hands[0][0]))
    general0 = game.hands[0][0]
    game.apply(0, PlaceGeneral(general0))
    assert game.view(1).players[0].general == general0
    game.apply(1, PlaceGeneral(game.hands[1][0]))
    assert [len(h) for h in game.hands] == [4, 4]
    assert game.phase == Phase.PHASE_ATTACK and game.turn == 1


def test_lc3_hand_size_option() -> None:
    game = setup_done(1, hand_size=6)
    assert [len(h) for h in game.hands] == [6, 6]


def test_lc4_seat_0_attacks_first_and_roles_swap_whoever_wins() -> None:
    game = plain([[c(10, C), c(9, C), c(2, S)], [c(2, D), c(3, D), c(5, S)]])
    assert game.to_act() == (0,)
    battle(game, c(10, C), 0, c(5, S))  # the attacker wins
    game.apply(0, Control(0))
    assert game.turn == 2 and game.attacker == 1 and game.to_act() == (1,)
    assert isinstance(game.decision(1), AttackChoice)


def test_lc5_army_and_land_values() -> None:
    armies = [army_value(c(r, S)) for r in range(1, 14)]
    lands = [land_value(c(r, S)) for r in range(1, 14)]
    assert armies == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 11, 11]
    assert lands == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 0]


def test_lc6_stacks_chain_castle_general_army_and_land() -> None:
    # Army 5h on land 7h (suit), general 5c (rank 5), castle 9c (suit with the general): 5 + 7 + 5 + 9.
    side = battle_side(0, c(5, H), c(7, H), c(5, C), c(9, C), attacking=False)
    assert (side.army_value, side.land_bonus, side.general_bonus, side.castle_bonus, side.total) == (5, 7, 14, 0, 26)
    # The castle matches the general but the general does not match the army: nothing passes.
    side = battle_side(0, c(6, D), c(2, S), c(5, C), c(9, C), attacking=False)
    assert (side.land_bonus, side.general_bonus, side.total) == (0, 0, 6)
    # The castle matches the army but not the general: castles never stack with armies.
    side = battle_side(0, c(6, D), c(2, S), c(5, C), c(9, D), attacking=False)
    assert side.total == 6
    # The general never stacks with the land.
    side = battle_side(0, c(6, D), c(5, C), c(5, H), c(9, S), attacking=False)
    assert side.total == 6


def test_lc6_the_land_stacks_with_both_armies_and_always_applies() -> None:
    game = plain([[c(3, S), c(2, C)], [c(10, S), c(2, D)]])
    events = battle(game, c(3, S), 2, c(10, S))  # land 2 is the 4 of spades
    resolved = next(p for p in events if isinstance(p, BattleResolved)).battle
    assert resolved.attacker.land_bonus == 4 and resolved.defender is not None and resolved.defender.land_bonus == 4
    assert resolved.attacker.total == 7 and resolved.defender.total == 14


def test_lc6_a_castle_stacks_with_the_general_by_rank_as_well_as_by_suit() -> None:
    # General 5c on army 5h (rank), castle 5d on general 5c (rank): 5 + 5 + 5, and a diamonds castle adds no bonus.
    side = battle_side(0, c(5, H), c(2, S), c(5, C), c(5, D), attacking=True)
    assert (side.general_bonus, side.castle_bonus, side.total) == (10, 0, 15)


def test_lc7_face_cards_break_stacks_and_aces_do_not() -> None:
    assert battle_side(0, c(K, H), c(7, H), c(K, C), c(9, D), False).total == 11
    assert battle_side(0, c(J, H), c(7, H), c(5, H), c(9, D), False).total == 0
    # A face-card general passes no castle value even when the castle matches it.
    assert battle_side(0, c(5, H), c(2, S), c(Q, H), c(9, H), False).total == 5 + 3
    # A face-card land adds nothing (and is worth 0 anyway).
    assert battle_side(0, c(5, H), c(Q, H), c(2, S), c(K, D), False).total == 5
    # Aces stack: ace army on an ace land, ace general.
    side = battle_side(0, c(A, H), c(A, S), c(A, C), c(K, D), True)
    assert (side.land_bonus, side.general_bonus, side.total) == (1, 1, 3)


def test_lc8_the_land_turns_face_up_when_attacked_and_the_defender_sees_the_army() -> None:
    game = plain([[c(7, C), c(2, C)], [c(2, D), c(3, D)]])
    events = payloads(game.apply(0, Attack(c(7, C), 3)))
    assert events == [Attacked(0, 3, c(7, C)), LandRevealed(3, c(6, C))], "the army is played onto it, and so it turns"
    view = game.view(1)
    assert view.lands[3].card == c(6, C) and view.lands[3].face_up
    decision = game.decision(1)
    assert isinstance(decision, DefendChoice)
    assert decision.attacking_army == c(7, C) and decision.land == 3 and decision.attacker_total == 7 + 6
    assert c(6, C) not in game.hidden_cards(0) and c(6, C) not in game.hidden_cards(1)


def test_lc9_undercut_lower_total_wins_and_ties_go_to_the_attacker() -> None:
    game = plain([[c(9, S), c(2, C)], [c(2, S), c(3, D)]])
    events = battle(game, c(9, S), 0, c(2, S))  # land 0 is the 2 of diamonds: no stack
    resolved = next(p for p in events if isinstance(p, BattleResolved)).battle
    assert resolved.undercut and resolved.winner == 1 and game.to_act() == (1,)
    assert isinstance(game.decision(1), ClaimChoice)
    assert [type(p) for p in events[-2:]] == [Defended, BattleResolved], "the defence is played, then the battle resolved"
    tie = plain([[c(5, S), c(2, C)], [c(5, H), c(3, D)]])
    resolved = next(p for p in battle(tie, c(5, S), 0, c(5, H)) if isinstance(p, BattleResolved)).battle
    assert not resolved.undercut and resolved.winner == 0
    # The defender's 3c stacks with its general 2c: 5 against 5, an undercut tie.
    tie = rigged(list(PLAIN_LANDS), [[c(5, C), c(4, D)], [c(3, C), c(2, D)]], list(NO_CASTLES), [c(Q, D), c(2, C)])
    resolved = next(p for p in battle(tie, c(5, C), 0, c(3, C)) if isinstance(p, BattleResolved)).battle
    assert resolved.undercut and resolved.defender is not None and resolved.defender.total == 5 and resolved.winner == 0


def test_lc9_castle_bonus_counts_in_an_undercut() -> None:
    # A clubs castle adds 3 to the attacker: 6 + 3 = 9 against an undercutting 8 of the same suit.
    game = rigged(list(PLAIN_LANDS), [[c(6, S), c(2, C)], [c(8, S), c(2, D)]], [c(4, C), c(K, H)], list(NO_GENERALS))
    resolved = next(p for p in battle(game, c(6, S), 0, c(8, S)) if isinstance(p, BattleResolved)).battle
    assert resolved.attacker.castle_bonus == 3 and resolved.attacker.total == 9
    assert resolved.undercut and resolved.winner == 1


def test_lc9_face_cards_of_one_suit_undercut_too() -> None:
    """Face cards break stacks, not undercuts: a jack (0) beats a king (11) of its suit."""
    game = plain([[c(K, S), c(2, C)], [c(J, S), c(3, D)]])
    resolved = next(p for p in battle(game, c(K, S), 0, c(J, S)) if isinstance(p, BattleResolved)).battle
    assert resolved.undercut and resolved.defender is not None
    assert (resolved.attacker.total, resolved.defender.total, resolved.winner) == (11, 0, 1)


def test_lc10_hearts_defend_clubs_attack_face_castles_nothing() -> None:
    assert battle_side(0, c(5, S), c(2, D), c(Q, C), c(4, H), attacking=False).castle_bonus == 3
    assert battle_side(0, c(5, S), c(2, D), c(Q, C), c(4, H), attacking=True).castle_bonus == 0
    assert battle_side(0, c(5, S), c(2, D), c(Q, C), c(4, C), attacking=True).castle_bonus == 3
    assert battle_side(0, c(5, S), c(2, D), c(Q, C), c(4, C), attacking=False).castle_bonus == 0
    assert battle_side(0, c(5, S), c(2, D), c(Q, C), c(J, C), attacking=True).castle_bonus == 0
    assert battle_side(0, c(5, S), c(2, D), c(Q, C), c(K, H), attacking=False).castle_bonus == 0


def test_lc10_a_face_card_castle_stacks_with_nothing() -> None:
    # The king of clubs shares the general's suit, yet adds nothing: only the general 5c stacks on the army 5h.
    side = battle_side(0, c(5, H), c(2, S), c(5, C), c(K, C), attacking=True)
    assert (side.general_bonus, side.castle_bonus, side.total) == (5, 0, 10)


def test_lc11_diamonds_swap_once_a_turn_before_the_army() -> None:
    game = rigged(
        list(PLAIN_LANDS),
        [[c(5, S), c(2, C)], [c(7, S), c(3, C)]],
        [c(4, D), c(9, D)],
        list(NO_GENERALS),
        piles=[[c(10, C), c(10, H)], [c(5, H)]],
    )
    decision = game.decision(0)
    assert isinstance(decision, AttackChoice) and set(decision.swappable) == {c(5, S), c(2, C)}
    events = game.apply(0, SwapCard(c(2, C)))
    assert game.hands[0] == [c(5, S), c(10, C)] and list(game.piles[0]) == [c(10, H), c(2, C)]
    mine = [e.payload for e in events if e.visible(0)]
    theirs = [e.payload for e in events if e.visible(1)]
    assert CardSwapped(0, c(2, C)) in mine and CardSwapped(0, None) in theirs
    assert CardsDrawn(0, 1, ()) in theirs
    assert c(2, C) in game.hidden_cards(1) and c(10, C) in game.hidden_cards(1)
    decision = game.decision(0)
    assert isinstance(decision, AttackChoice) and decision.swappable == ()
    with pytest.raises(IllegalAction):
        game.apply(0, SwapCard(c(5, S)))
    game.apply(0, Attack(c(5, S), 0))
    # The defender swaps too, then its pile is empty: no second swap even in a later turn.
    defend = game.decision(1)
    assert isinstance(defend, DefendChoice) and set(defend.swappable) == {c(7, S), c(3, C)}
    game.apply(1, SwapCard(c(3, C)))
    assert game.hands[1] == [c(7, S), c(5, H)]
    decision2 = game.decision(1)
    assert isinstance(decision2, DefendChoice) and decision2.swappable == ()
    game.apply(1, Defend(c(7, S)))
    assert game.to_act() == (0,), "an undercut: the attacker's 5 is the lower total"

def test_lc11_no_swap_with_an_empty_pile_or_without_a_diamonds_castle() -> None:
    game = rigged(list(PLAIN_LANDS), [[c(5, S)], [c(7, S)]], [c(4, D), c(9, S)], list(NO_GENERALS), piles=[[], [c(2, C)]])
    decision = game.decision(0)
    assert isinstance(decision, AttackChoice) and decision.swappable == ()
    game.apply(0, Attack(c(5, S), 0))
    defend = game.decision(1)
    assert isinstance(defend, DefendChoice) and defend.swappable == ()
    assert game.check(1, SwapCard(c(7, S))) is not None


def test_lc12_spades_claim_any_face_up_land() -> None:
    up = [True, True, False, True, False, False]
    game = rigged(
        list(PLAIN_LANDS), [[c(10, H), c(2, C)], [c(2, D), c(3, D)]], [c(5, S), c(K, H)], list(NO_GENERALS),
        face_up=up, owner=[None, 1, None, 1, None, None],
    )
    battle(game, c(10, H), 0, c(2, D))
    decision = game.decision(0)
    assert isinstance(decision, ClaimChoice) and decision.lands == (0, 1, 3) and decision.battle_land == 0
    game.apply(0, Control(3))
    assert game.owner == [None, 1, None, 0, None, None], "the battled land stays as it was"
    # Without a spades castle only the battled land may be claimed.
    other = plain([[c(10, H), c(2, C)], [c(2, D), c(3, D)]], face_up=up)
    battle(other, c(10, H), 0, c(2, D))
    claim = other.decision(0)
    assert isinstance(claim, ClaimChoice) and claim.lands == (0,)
    assert other.check(0, Control(1)) is not None


def test_lc12_a_defending_spades_castle_captures_elsewhere() -> None:
    game = rigged(
        list(PLAIN_LANDS), [[c(2, C), c(3, C)], [c(10, H), c(3, D)]], [c(K, D), c(5, S)], list(NO_GENERALS),
        face_up=[False, True, False, False, False, False], owner=[None, 0, None, None, None, None],
    )
    battle(game, c(2, C), 0, c(10, H))
    assert game.to_act() == (1,)
    game.apply(1, Capture(1, c(2, C)))
    assert game.lands[1] == c(2, C) and game.owner[1] == 1 and game.lands[0] == PLAIN_LANDS[0]
    assert game.discards[1] == [PLAIN_LANDS[1], c(10, H)]


def test_lc13_control_puts_both_armies_under_the_winners_pile() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]])
    bottom = list(game.piles[0])
    battle(game, c(10, C), 0, c(2, D))
    game.apply(0, Control(0))
    assert game.owner[0] == 0 and game.lands[0] == PLAIN_LANDS[0]
    # The attacker drew its top card; the armies sit at the bottom, attacker's first.
    assert list(game.piles[0]) == bottom[1:] + [c(10, C), c(2, D)]
    assert c(2, D) not in game.hidden_cards(1) and c(10, C) not in game.hidden_cards(1)


def test_lc13_capture_with_an_army_or_the_general() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]])
    battle(game, c(10, C), 0, c(2, D))
    decision = game.decision(0)
    assert isinstance(decision, ClaimChoice) and decision.exchangeable == (c(10, C), c(2, D), NO_GENERALS[0])
    game.apply(0, Capture(0, c(2, D)))  # the opponent's army becomes the land
    assert game.lands[0] == c(2, D) and game.owner[0] == 0 and game.face_up[0]
    assert game.discards[0] == [PLAIN_LANDS[0], c(10, C)]

    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]])
    battle(game, c(10, C), 1, c(2, D))
    game.apply(0, Capture(1, NO_GENERALS[0]))
    assert game.lands[1] == NO_GENERALS[0] and game.generals[0] == PLAIN_LANDS[1]
    assert game.discards[0] == [c(10, C), c(2, D)] and game.owner[1] == 0
    with pytest.raises(IllegalAction):
        game.apply(1, Capture(1, c(3, D)))


def test_lc13_the_land_won_as_general_is_the_general_of_the_next_battles() -> None:
    game = plain([[c(10, C), c(5, H), c(2, C)], [c(2, D), c(3, S), c(5, S)]])
    battle(game, c(10, C), 1, c(2, D))  # land 1 is the 9 of hearts
    game.apply(0, Capture(1, NO_GENERALS[0]))
    assert game.view(1).players[0].general == c(9, H)
    events = battle(game, c(3, S), 0, c(5, H))  # seat 1 attacks; seat 0's 5h stacks with its new general 9h
    resolved = next(p for p in events if isinstance(p, BattleResolved)).battle
    assert resolved.defender is not None and (resolved.defender.general_bonus, resolved.defender.total) == (9, 14)


def test_lc14_any_land_may_be_attacked_and_claiming_takes_it() -> None:
    game = plain([[c(10, C), c(2, C)], [c(10, H), c(3, D)]], owner=[0, 1, None, None, None, None])
    decision = game.decision(0)
    assert isinstance(decision, AttackChoice) and decision.lands == tuple(range(6))
    battle(game, c(10, C), 1, c(3, D))
    game.apply(0, Control(1))
    assert game.owner[:2] == [0, 0]
    # Attacking the opponent's land and winning takes it from him.
    battle(game, c(10, H), 0, c(2, C))  # seat 1 attacks seat 0's land 0 and wins (10 > 2)
    game.apply(1, Control(0))
    assert game.owner[0] == 1
    # Attacking one's own land and losing hands it over.
    own = plain([[c(2, C), c(4, C)], [c(10, H), c(3, D)]], owner=[0, 1, None, None, None, None])
    battle(own, c(2, C), 0, c(10, H))  # seat 0 attacks its own land 0 and loses (2 < 10)
    own.apply(1, Control(0))
    assert own.owner[0] == 1


def test_lc15_draws_after_the_claim_attacker_first_and_an_empty_pile_draws_nothing() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], piles=[[], [c(7, H)]])
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Control(0)))
    draws = [p for p in events if isinstance(p, CardsDrawn)]
    assert [(d.seat, d.count) for d in draws] == [(0, 1), (1, 1)]
    assert game.hands[0] == [c(2, C), c(10, C)], "control refilled the empty pile before the draw"
    assert list(game.piles[0]) == [c(2, D)] and game.hands[1] == [c(3, D), c(7, H)]
    # Seat 1's pile is now empty: it does not draw, and the game goes on.
    battle(game, c(3, D), 0, c(2, C))
    events = payloads(game.apply(1, Capture(0, c(3, D))))
    draws = [p for p in events if isinstance(p, CardsDrawn)]
    assert [(d.seat, d.count) for d in draws] == [(1, 0), (0, 1)]
    assert not game.is_over() and len(game.hands[1]) == 1


def test_lc15_a_hand_never_exceeds_the_limit() -> None:
    rng = random.Random(2)
    for seed in range(30):
        game = setup_done(seed, hand_size=3)
        while not game.is_over():
            assert all(len(h) <= 3 for h in game.hands)
            seat = game.to_act()[0]
            game.apply(seat, game.random_action(seat, rng))


def test_lc16_dominance_wins_after_the_claim() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 0, 0, 0, 0, 0])
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Control(0)))
    assert GameOver(0, WinReason.DOMINANCE, (6, 0)) in events
    assert game.is_over() and game.result().ranks == (1, 2)


def test_lc17_conversion_neighbours_in_a_row_all_face_up() -> None:
    # Neighbours share a suit or are within one.
    row = [c(K, H), c(A, S), c(2, D), c(9, D), c(10, C), c(J, C)]
    assert converted(row, [True] * 6)
    assert not converted(row, [True] * 5 + [False])
    # The ends are not compared: 2h and 5s do not link (other suits, three apart), and the row still converts.
    assert converted([c(2, H), c(3, H), c(4, S), c(5, S)], [True] * 4), "a row, not a circle"
    assert not converted([c(2, H), c(3, H), c(6, D), c(5, S)], [True] * 4), "a pair of neighbours that do not link"
    assert not converted([c(K, H), c(3, S)], [True, True])
    assert converted([c(K, H), c(Q, S), c(J, D), c(A, C)], [True] * 4), "face cards are 0 as land, an ace 1"
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(10, S)]
    game = rigged(lands, [[c(9, S), c(2, C)], [c(2, H), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS), face_up=[True] * 6)
    battle(game, c(9, S), 5, c(2, H))
    events = payloads(game.apply(0, Capture(5, c(9, S))))  # 8h next to 9s: within one
    assert GameOver(0, WinReason.CONVERSION, (1, 0)) in events


def test_lc23_a_reveal_completing_the_row_wins_for_the_attacker_at_once() -> None:
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(9, S)]
    up = [True] * 5 + [False]
    game = rigged(lands, [[c(2, C), c(3, C)], [c(10, H), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS), face_up=up)
    # Seat 0's attack turns the last land face up: the row is converted by his attack, not by the battle's winner.
    events = payloads(game.apply(0, Attack(c(2, C), 5)))
    assert LandRevealed(5, c(9, S)) in events and GameOver(0, WinReason.CONVERSION, (0, 0)) in events
    assert game.is_over() and game.result().ranks == (1, 2) and game.to_act() == ()
    # A reveal that leaves the row unconverted lets the battle go on as usual.
    other = rigged(lands[:5] + [c(K, C)], [[c(2, C), c(3, C)], [c(10, H), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS), face_up=up)
    other.apply(0, Attack(c(2, C), 5))
    assert not other.is_over() and other.to_act() == (1,)


def test_lc23_the_army_of_the_converting_attack_stays_face_up_on_its_land() -> None:
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(9, S)]
    game = rigged(lands, [[c(2, C), c(3, C)], [c(10, H), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS), face_up=[True] * 5 + [False])
    game.apply(0, Attack(c(2, C), 5))
    assert game.is_over()
    for seat in (0, 1):
        shown = game.view(seat).battle
        assert shown is not None and (shown.land, shown.attacker.army, shown.defender, shown.winner) == (5, c(2, C), None, None)
    battle = game.full_state()["battle"]
    assert (battle["land"], battle["attacker"]["army"], battle["defender"], battle["winner"]) == (5, "2c", None, None)


def test_lc18_attrition_when_a_player_must_play_with_an_empty_hand() -> None:
    game = plain([[c(10, C)], [c(2, D), c(3, D)]], piles=[[], []])
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Capture(0, c(2, D))))
    # Seat 0 cannot draw: not lost yet. Seat 1 attacks; seat 0 must defend with no card.
    assert not game.is_over() and game.hands[0] == []
    events = payloads(game.apply(1, Attack(c(3, D), 1)))
    assert GameOver(1, WinReason.ATTRITION, (1, 0)) in events
    assert game.result().ranks == (2, 1)


def test_lc18_the_attacker_with_no_card_loses_at_the_start_of_his_turn() -> None:
    game = plain([[c(10, C), c(4, C)], [c(2, D)]], piles=[[], []])
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Capture(0, c(10, C))))
    assert GameOver(0, WinReason.ATTRITION, (1, 0)) in events and game.is_over()
    assert events[-2:] == [TurnStarted(2, 1), GameOver(0, WinReason.ATTRITION, (1, 0))], "told whose turn he could not play"


def test_lc19_the_turn_limit_decides_by_lands_owned() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 1, 1, 0, None, None], max_turns=1)
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Control(0)))
    assert GameOver(None, WinReason.TURN_LIMIT, (2, 2)) in events and game.result().ranks == (1, 1)
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 1, 0, 0, None, None], max_turns=1)
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Control(0)))
    assert GameOver(0, WinReason.TURN_LIMIT, (3, 1)) in events


def test_lc19_a_win_in_the_last_turn_comes_before_the_limit() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 0, 0, 0, 0, 0], max_turns=1)
    battle(game, c(10, C), 0, c(2, D))
    assert GameOver(0, WinReason.DOMINANCE, (6, 0)) in payloads(game.apply(0, Control(0)))


def test_lc19_games_always_end() -> None:
    for seed in range(20):
        game = setup_done(seed, max_turns=60)
        rng = random.Random(seed)
        steps = 0
        while not game.is_over():
            seat = game.to_act()[0]
            legal = list(game.legal_actions(seat))
            controls = [a for a in legal if isinstance(a, Control)]  # the most stalling policy: always control
            game.apply(seat, rng.choice(controls or legal))
            steps += 1
        assert game.turn <= 60 and steps < 60 * 8


def test_lc20_result_ranks_and_scores() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 0, 0, 0, 0, 0])
    battle(game, c(10, C), 0, c(2, D))
    game.apply(0, Control(0))
    result = game.result()
    assert result.ranks == (1, 2) and result.scores == (6.0, 0.0)


def test_lc21_default_actions() -> None:
    game = LandAndCastle(2, 4)
    assert game.default_action(0) == PlaceCastle(game.hands[0][0])
    while game.phase == Phase.PHASE_CASTLE:
        game.apply(game.to_act()[0], game.default_action(game.to_act()[0]))
    assert game.default_action(0) == PlaceGeneral(game.hands[0][0])
    game = plain([[c(10, C), c(J, C), c(2, C)], [c(2, D), c(A, D), c(3, D)]])
    assert game.default_action(0) == Attack(c(J, C), 0)
    game.apply(0, game.default_action(0))
    assert game.default_action(1) == Defend(c(A, D))
    game.apply(1, game.default_action(1))
    assert game.default_action(1) == Control(0)


def test_lc22_views_hide_hands_piles_and_face_down_lands() -> None:
    game = setup_done(9)
    for seat in (0, 1):
        view = game.view(seat)
        assert view.hand == tuple(game.hands[seat])
        hidden = game.hidden_cards(seat)
        assert set(game.hands[1 - seat]) <= hidden and set(game.lands) <= hidden
        assert not set(game.hands[seat]) & hidden
        assert view.players[1 - seat].castle == game.castles[1 - seat]
    game.apply(0, Attack(game.hands[0][0], 2))
    assert game.lands[2] not in game.hidden_cards(1) and game.lands[0] in game.hidden_cards(0)


def test_the_public_records_follow_every_change_of_the_lands_and_players() -> None:
    game = LandAndCastle(2, 5)
    before = game.view(1)
    assert game.view(1).lands is before.lands, "nothing changed: the same rows"
    game.face_up[0] = True
    game.owner[0] = 1
    after = game.view(1)
    assert after.lands[0].card == game.lands[0] and after.lands[0].owner == 1
    assert after.players[1].lands_owned == before.players[1].lands_owned + 1
    assert after.lands[1:] == before.lands[1:]


def test_lc24_both_players_out_of_cards_at_once_the_next_attacker_loses() -> None:
    # Each plays his last card; seat 1 defends and wins (10 > 2).
    game = plain([[c(2, C)], [c(10, H)]], piles=[[], []])
    battle(game, c(2, C), 0, c(10, H))
    events = payloads(game.apply(1, Capture(0, c(2, C))))
    assert game.hands == [[], []] and [len(p) for p in game.piles] == [0, 0]
    assert GameOver(0, WinReason.ATTRITION, (0, 1)) in events, "seat 1 must attack next and cannot"
    # Controlling instead keeps seat 1 a card: it attacks, and seat 0 cannot answer.
    game = plain([[c(2, C)], [c(10, H)]], piles=[[], []])
    battle(game, c(2, C), 0, c(10, H))
    game.apply(1, Control(0))
    assert game.hands == [[], [c(2, C)]] and game.to_act() == (1,)
    assert GameOver(1, WinReason.ATTRITION, (0, 1)) in payloads(game.apply(1, Attack(c(2, C), 0)))
    # In the last turn the limit comes first: nobody has to play again, and lands decide.
    game = plain([[c(2, C)], [c(10, H)]], piles=[[], []], max_turns=1)
    battle(game, c(2, C), 0, c(10, H))
    assert GameOver(1, WinReason.TURN_LIMIT, (0, 1)) in payloads(game.apply(1, Capture(0, c(2, C))))


def test_lc16_every_land_claimed_but_not_all_by_one_player_is_no_dominance() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 1, 0, 0, 0, 0])
    battle(game, c(10, C), 0, c(2, D))
    game.apply(0, Control(0))
    assert not game.is_over(), "every land is claimed, one by seat 1: nobody dominates"
    assert game.lands_owned() == [5, 1] and game.phase == Phase.PHASE_ATTACK


def test_lc11_the_swap_comes_back_every_turn() -> None:
    game = rigged(
        list(PLAIN_LANDS), [[c(5, S), c(2, C)], [c(7, H), c(3, C)]], [c(4, D), c(K, H)], list(NO_GENERALS),
        piles=[[c(10, C), c(10, H), c(9, C)], [c(5, H), c(4, H)]],
    )
    game.apply(0, SwapCard(c(2, C)))
    battle(game, c(5, S), 0, c(7, H))
    game.apply(1, Control(0))
    # Turn 2: seat 0 defends and may swap again, once.
    game.apply(1, Attack(game.hands[1][0], 1))
    defend = game.decision(0)
    assert isinstance(defend, DefendChoice) and defend.swappable != ()
    assert not game.view(1).players[0].swap_used


def test_lc8_the_previous_turns_battle_is_shown_with_this_one() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]])
    battle(game, c(10, C), 0, c(2, D))
    first = game.battle
    game.apply(0, Control(0))
    view = game.view(1)
    assert view.battle is None and view.last_battle == first and first is not None and first.winner == 0
    game.apply(1, Attack(c(3, D), 1))
    assert game.view(0).last_battle == first and game.view(0).battle is not None
