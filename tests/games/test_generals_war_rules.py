"""General's War rulings (docs/games/generals-war.md), one test or more each."""

from __future__ import annotations

import random
from collections import deque

import pytest

from referee.core.cards import Rank, Suit, card_id, rank_of, suit_of, suited_cards
from referee.core.game import Event
from referee.games.generals_war import GeneralsWar
from referee.games.generals_war.types import (
    BattleResolved,
    CardsDrawn,
    ChooseTarget,
    EliminationReason,
    GameEnded,
    GameEndReason,
    GeneralsRevealed,
    Phase,
    PlayerEliminated,
    PlaySquad,
    RevealChoice,
    RevealGenerals,
    RoundEnded,
    RoundStarted,
    SquadChoice,
    TargetChoice,
)

C, D, H, S = Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES


def c(rank: int, suit: Suit) -> int:
    return card_id(rank, suit)


def rigged(n: int, decks: list[list[int]], **options: object) -> GeneralsWar:
    """A game whose decks are ``decks`` (top first) with any missing aces of the seat put at the bottom, dealt afresh."""
    game = GeneralsWar(n, 0, options)
    for seat in range(n):
        aces = [card_id(1, s) for s in game.suits[seat] if card_id(1, s) not in decks[seat]]
        game.hands[seat] = []
        game.decks[seat] = deque(decks[seat] + aces)
    game.round = 0
    game._opening = game._start_round()
    return game


def duel(decks: list[list[int]]) -> GeneralsWar:
    """A two-player game rigged with ``decks`` whose fighters revealed no general: the first attack is next."""
    game = rigged(2, decks)
    while game.phase == Phase.REVEAL:
        for seat in game.to_act():
            game.apply(seat, RevealGenerals(()))
    return game


def fillers(suits: tuple[Suit, ...], skip: set[int], count: int) -> list[int]:
    pool = [x for x in suited_cards(suits) if x not in skip and rank_of(x) != Rank.ACE]
    return pool[:count]


def test_gw1_seats_suits_and_alternating_attacker() -> None:
    game = GeneralsWar(2, 4)
    assert {suit_of(x) for x in game.hands[0] + list(game.decks[0])} == {C, S}
    assert {suit_of(x) for x in game.hands[1] + list(game.decks[1])} == {D, H}
    assert game.attacker == 0
    four = GeneralsWar(4, 4)
    for seat, suit in enumerate((C, D, H, S)):
        assert {suit_of(x) for x in four.decks[seat]} == {suit}
    assert four.to_act() == (0,)
    # Play a round out and check the attack passes to seat 1.
    rng = random.Random(1)
    while game.round == 1 and not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.random_action(seat, rng))
    assert not game.is_over() and game.attacker == 1


def test_gw2_reveals_are_simultaneous_and_only_for_new_aces() -> None:
    a0 = [c(1, C), c(1, S)] + fillers((C, S), set(), 3)
    rest0 = fillers((C, S), set(a0), 20)
    a1 = [c(1, D)] + fillers((D, H), set(), 4)
    rest1 = [c(1, H)] + fillers((D, H), set(a1) | {c(1, H)}, 20)
    game = rigged(2, [a0 + rest0, a1 + rest1])
    assert game.to_act() == (0, 1)
    assert game.decision(0) == RevealChoice((c(1, C), c(1, S)))
    events = game.apply(0, RevealGenerals((c(1, C),)))
    assert events == [], "seat 0's reveal must stay secret until seat 1 has chosen"
    assert game.to_act() == (1,)
    events = game.apply(1, RevealGenerals((c(1, D),)))
    revealed = [e.payload for e in events if isinstance(e.payload, GeneralsRevealed)]
    assert [(r.seat, r.cards) for r in revealed] == [(0, (c(1, C),)), (1, (c(1, D),))]
    assert len(game.hands[0]) == 10 and len(game.hands[1]) == 10
    # Seat 1 drew the ace of hearts in its five extra cards: a new wave, in which it may reveal that ace only.
    # Seat 0, who held back the ace of spades, is asked again (it drew) but may not reveal it now:
    # an ace is revealed in its own wave or never.
    assert game.to_act() == (0, 1)
    assert game.decision(0) == RevealChoice(())
    assert game.decision(1) == RevealChoice((c(1, H),))
    assert game.check(1, RevealGenerals((c(1, D),))) is not None, "an ace of an earlier wave is not offered again"
    assert game.check(0, RevealGenerals((c(1, S),))) is not None
    game.apply(0, RevealGenerals(()))
    game.apply(1, RevealGenerals((c(1, H),)))
    assert game.to_act() == (1,) and game.decision(1) == RevealChoice(())
    game.apply(1, RevealGenerals(()))
    assert len(game.hands[1]) == 15
    assert game.phase == Phase.ATTACK
    assert c(1, S) in game.hands[0] and c(1, S) not in game.revealed[0], "the ace of spades stays a hidden general"


def test_gw2_a_short_deck_draws_what_is_left() -> None:
    game = rigged(2, [[c(1, C)] + fillers((C, S), set(), 6), fillers((D, H), set(), 5)])
    assert len(game.decks[0]) == 3  # two fillers and the ace of spades put at the bottom
    game.apply(0, RevealGenerals((c(1, C),)))
    game.apply(1, RevealGenerals(()))
    assert len(game.hands[0]) == 8 and not game.decks[0]
    assert game.decision(0) == RevealChoice((c(1, S),))


def test_gw3_equal_power_kills_both_squads() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    seven_c, seven_d = c(7, C), c(7, D)
    game.hands[0] = [seven_c, c(2, C)]
    game.hands[1] = [seven_d, c(3, D)]
    game.apply(0, PlaySquad((seven_c,)))
    events = game.apply(1, PlaySquad((seven_d,)))
    battle = next(e.payload.battle for e in events if isinstance(e.payload, BattleResolved))
    assert battle.winner is None
    assert seven_c in game.dead[0] and seven_d in game.dead[1]


def test_gw4_killing_both_generals_wins_and_a_double_kill_draws() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    # Put seat 1's aces in its hand; one is already dead.
    game.dead[1] = [c(1, D)]
    game.decks[1] = deque(x for x in game.decks[1] if x != c(1, D))
    game.hands[1] = [c(1, H), c(2, D)]
    game.decks[1] = deque(x for x in game.decks[1] if x not in (c(1, H), c(2, D)))
    game.hands[0] = [c(13, C), c(2, C)]
    game.apply(0, PlaySquad((c(13, C),)))
    game.apply(1, PlaySquad((c(1, H),)))
    assert game.is_over()
    assert game.result().ranks == (1, 2)

    draw = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    draw.dead = [[c(1, C)], [c(1, D)]]
    draw.hands = [[c(1, S), c(2, C)], [c(1, H), c(2, D)]]
    draw.decks = [deque(), deque()]
    draw.apply(0, PlaySquad((c(1, S),)))
    draw.apply(1, PlaySquad((c(1, H),)))
    assert draw.is_over()
    assert draw.result().ranks == (1, 1)


def test_gw5_equal_conquest_piles_give_no_point() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.hands = [[c(9, C)], [c(9, D), c(2, D)]]  # tie kills both; seat 0's hand is empty
    game.conquest = [[c(5, C)], []]
    game.apply(0, PlaySquad((c(9, C),)))
    events = game.apply(1, PlaySquad((c(9, D),)))
    ended = next(e.payload for e in events if isinstance(e.payload, RoundEnded))
    assert ended.conquest_counts == (1, 1)
    assert ended.conquest_point_to is None and game.conquest_points == [0, 0]


def four_player_duel() -> GeneralsWar:
    game = GeneralsWar(4, 0)
    game.apply(0, ChooseTarget(1))
    while game.phase == Phase.REVEAL:
        for seat in game.to_act():
            game.apply(seat, RevealGenerals(()))
    return game


def test_gw5_equal_conquest_piles_give_no_defeat_point_with_four_players() -> None:
    game = four_player_duel()
    assert tuple(game._participants()) == (0, 1)
    for seat, ace in ((0, c(1, C)), (1, c(1, D))):  # each keeps his one general in his deck: nobody falls (GW-6)
        game.decks[seat] = deque(x for x in game.decks[seat] if x != ace)
        game.decks[seat].append(ace)
    game.hands[0], game.hands[1] = [c(9, C)], [c(9, D), c(2, D)]  # as with two: a tie kills both, seat 0's hand is empty
    game.conquest[0], game.conquest[1] = [c(5, C)], []
    game.apply(0, PlaySquad((c(9, C),)))
    events = game.apply(1, PlaySquad((c(9, D),)))
    ended = next(e.payload for e in events if isinstance(e.payload, RoundEnded))
    assert ended.conquest_counts[:2] == (1, 1) and not ended.interrupted
    assert ended.defeat_point_to is None and game.defeat_points == [0, 0, 0, 0]


def test_gw6_and_gw7_losing_the_last_general_eliminates_at_once_and_cards_move() -> None:
    game = four_player_duel()
    ace1 = c(1, D)
    for zone in (game.decks[1],):
        if ace1 in zone:
            zone.remove(ace1)
    if ace1 in game.hands[1]:
        game.hands[1].remove(ace1)
    game.hands[1].append(ace1)
    game.hands[0] = [c(13, C), c(12, C)]
    game.decks[0] = deque(x for x in game.decks[0] if x not in (c(13, C), c(12, C)))
    deck0_before = len(game.decks[0])
    deck1_before = list(game.decks[1])
    game.apply(0, PlaySquad((c(13, C),)))
    events = game.apply(1, PlaySquad((ace1,)))
    payloads = [e.payload for e in events]
    ended = next(p for p in payloads if isinstance(p, RoundEnded))
    out = next(p for p in payloads if isinstance(p, PlayerEliminated))
    assert ended.interrupted and ended.defeat_point_to is None
    assert out.seat == 1 and out.by == 0 and out.cards_transferred > 0
    assert game.eliminated[1] and not game.decks[1] and not game.hands[1]
    # Seat 0 got back its hand and conquest (2 cards) and then seat 1's survivors.
    assert len(game.decks[0]) == deck0_before + 2 + out.cards_transferred
    moved = list(game.decks[0])[-out.cards_transferred:]
    assert moved[: len(deck1_before)] == deck1_before, "seat 1's deck, in its order, then its round's cards"
    assert set(moved) <= set(suited_cards((D,)))


def test_gw8_both_fighters_eliminated_together_share_rank() -> None:
    game = four_player_duel()
    for seat, ace in ((0, c(1, C)), (1, c(1, D))):
        for zone in (game.decks[seat], game.hands[seat]):
            if ace in zone:
                zone.remove(ace)
    game.hands[0] = [c(1, C), c(5, C)]
    game.hands[1] = [c(1, D), c(5, D)]
    game.apply(0, PlaySquad((c(1, C),)))
    game.apply(1, PlaySquad((c(1, D),)))
    assert game.eliminated[0] and game.eliminated[1]
    assert not game.decks[0] and not game.decks[1]
    rng = random.Random(3)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.random_action(seat, rng))
    ranks = game.result().ranks
    assert ranks[0] == ranks[1] == 3
    # Each score counts the opponents outlasted (GW-14): the two who went out together count for two.
    assert sorted(game.result().scores) == [0.0, 0.0, 2.0, 3.0] and sorted(ranks) == [1, 2, 3, 3]


def test_gw9_target_first_then_only_the_two_fighters_draw() -> None:
    game = GeneralsWar(4, 7)
    assert game.phase == Phase.CHOOSE_TARGET and all(not h for h in game.hands)
    assert game.decision(0) == TargetChoice((1, 2, 3))
    events = game.apply(0, ChooseTarget(2))
    drew = {e.payload.seat for e in events if isinstance(e.payload, CardsDrawn)}
    assert drew == {0, 2}
    assert not game.hands[1] and not game.hands[3]
    # With one opponent left, nobody is asked to choose.
    last = GeneralsWar(4, 7)
    last.eliminated = [False, True, True, False]
    last.attacker = 3
    last.round = 5
    last._start_round()
    assert last.phase != Phase.CHOOSE_TARGET and last.defender == 0


def test_gw10_the_attack_passes_left_skipping_the_eliminated() -> None:
    game = GeneralsWar(4, 1)
    game.eliminated = [False, True, False, False]
    game.attacker = 0
    assert game._next_attacker() == 2
    game.attacker = 3
    assert game._next_attacker() == 0


def test_gw11_an_empty_hand_ends_the_round() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.hands = [[c(10, C), c(9, C)], [c(2, D)]]
    game.apply(0, PlaySquad((c(10, C),)))
    events = game.apply(1, PlaySquad((c(2, D),)))
    assert any(isinstance(e.payload, RoundEnded) for e in events)
    assert game.round == 2 and game.attacker == 1


def test_gw12_piles_go_under_the_deck_in_order_and_hands_stay_hidden() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.hands = [[c(10, C), c(3, C)], [c(2, D)]]
    game.conquest = [[c(4, C)], []]
    game.apply(0, PlaySquad((c(10, C),)))
    events = game.apply(1, PlaySquad((c(2, D),)))
    ended = next(e for e in events if isinstance(e.payload, RoundEnded))
    assert ended.payload.conquest_counts == (3, 0)
    # Seat 0: the earlier conquest, the squad won, then the card left in hand, under the deck in that order.
    assert list(game.decks[0])[-3:] == [c(4, C), c(10, C), c(3, C)]
    assert c(3, C) not in game.view(1).players[0].conquest


def test_gw13_the_defender_sees_the_count_not_the_cards() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    squad = tuple(game.hands[0][:2])
    events = game.apply(0, PlaySquad(squad))
    for e in events:
        if e.visible(1):
            assert e.payload.cards == () and e.payload.count == 2
    choice = game.decision(1)
    assert isinstance(choice, SquadChoice) and choice.opposing_squad_size == 2
    assert game.view(1).players[0].squad_size == 2
    assert not set(squad) & set(game.view(1).hand) and game.view(1).squad == ()
    assert set(squad) <= game.hidden_cards(1)


def test_gw14_ranks_and_scores() -> None:
    game = GeneralsWar(2, 2, {"conquest_points": 1})
    rng = random.Random(2)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.random_action(seat, rng))
    result = game.result()
    assert sorted(result.ranks) in ([1, 2], [1, 1])
    assert result.scores == tuple(float(p) for p in game.conquest_points)
    four = GeneralsWar(4, 2)
    while not four.is_over():
        seat = four.to_act()[0]
        four.apply(seat, four.random_action(seat, rng))
    r = four.result()
    winner = r.ranks.index(1)
    assert not four.eliminated[winner] and r.scores[winner] == 3.0


def test_gw15_default_actions() -> None:
    game = rigged(2, [[c(1, C)] + fillers((C, S), set(), 12), fillers((D, H), set(), 13)])
    assert game.default_action(0) == RevealGenerals(()) and game.default_action(1) == RevealGenerals(())
    game.apply(0, game.default_action(0))
    game.apply(1, game.default_action(1))
    weakest = min(game.hands[0], key=lambda x: (int(rank_of(x)), x))
    assert game.default_action(0) == PlaySquad((weakest,))
    four = GeneralsWar(4, 0)
    assert four.default_action(0) == ChooseTarget(1)
    four.attacker = 2  # the lowest-numbered target, not the next seat to the left
    assert four.decision(2) == TargetChoice((0, 1, 3)) and four.default_action(2) == ChooseTarget(0)


@pytest.mark.parametrize("option,value", [("conquest_points", 0), ("defeat_points", -1), ("nonsense", 1)])
def test_bad_options_are_refused(option: str, value: int) -> None:
    from referee.core.game import OptionError

    with pytest.raises(OptionError):
        GeneralsWar(2, 0, {option: value})


def test_three_players_are_refused() -> None:
    from referee.core.game import OptionError

    with pytest.raises(OptionError, match="played by 2 or 4 players, not 3"):
        GeneralsWar(3, 0)


def test_the_random_action_is_uniform_over_the_legal_actions_without_listing_them() -> None:
    """Every legal action comes up about equally often (each kind of decision met in play)."""
    game = GeneralsWar(4, 3)
    rng = random.Random(3)
    met: set[str] = set()
    while game.to_act() and len(met) < 3:
        seat = game.to_act()[0]
        legal = list(game.legal_actions(seat))
        kind = type(game.decision(seat)).__name__
        if 2 <= len(legal) <= 40 and kind not in met:
            met.add(kind)
            assert game.least_count(seat) == len(legal)
            draws = 300 * len(legal)
            counts = {a: 0 for a in legal}
            for _ in range(draws):
                counts[game.random_action(seat, rng)] += 1  # a KeyError would be an illegal action
            assert min(counts.values()) > 200 and max(counts.values()) < 400, (kind, counts)
        game.apply(seat, game.random_action(seat, rng))
    assert met == {"RevealChoice", "TargetChoice", "SquadChoice"}


def test_a_players_public_record_follows_every_change_even_of_equal_size() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    before = game.view(1).players[0]
    assert game.view(1).players[0] is before, "nothing changed: the same record"
    assert before.generals_alive == 2
    # A general swapped for another card of the same zone sizes: only the count of generals alive shows it.
    ace = next(card for card in game.decks[0] if rank_of(card) == Rank.ACE)
    game.decks[0][game.decks[0].index(ace)] = c(5, D)
    assert game.view(1).players[0].generals_alive == 1


def test_gw2_every_fighter_who_drew_is_asked_so_being_asked_tells_nothing() -> None:
    """Who acts is public (a request's decision_index counts every seat's decisions): asking only the seats that
    drew an ace would tell the opponent that an ace was drawn and kept hidden."""
    hand0 = [c(1, C)] + fillers((C, S), set(), 4)
    game = rigged(2, [hand0 + fillers((C, S), set(hand0), 20), fillers((D, H), set(), 25)])
    assert game.to_act() == (0, 1), "seat 1 drew no ace and is asked all the same"
    assert game.decision(1) == RevealChoice(())
    assert list(game.legal_actions(1)) == [RevealGenerals(())]
    game.apply(0, RevealGenerals((c(1, C),)))
    game.apply(1, RevealGenerals(()))
    # Only seat 0 drew again (everyone saw it draw): only seat 0 is asked, though its five new cards hold no ace.
    assert not any(rank_of(x) == Rank.ACE for x in game.hands[0][5:])
    assert game.to_act() == (0,) and game.decision(0) == RevealChoice(())
    game.apply(0, RevealGenerals(()))
    assert game.phase == Phase.ATTACK
    # Neither fighter drew an ace: both are asked.
    plain = rigged(2, [fillers((C, S), set(), 24), fillers((D, H), set(), 24)])
    assert plain.to_act() == (0, 1) and plain.decision(0) == RevealChoice(())


def ace_of_clubs_revealed() -> tuple[GeneralsWar, list[int]]:
    """A duel where seat 0 revealed the ace of clubs (drawn first in its hand ``hand0``), and the attack is next."""
    hand0 = [c(1, C)] + fillers((C, S), set(), 4)
    game = rigged(2, [hand0 + fillers((C, S), set(hand0), 20), fillers((D, H), set(), 25)])
    game.apply(0, RevealGenerals((c(1, C),)))
    game.apply(1, RevealGenerals(()))
    game.apply(0, RevealGenerals(()))
    return game, hand0


def test_gw16_a_revealed_general_placed_face_down_is_not_pointed_out() -> None:
    game, hand0 = ace_of_clubs_revealed()
    events = game.apply(0, PlaySquad((c(1, C), hand0[1])))
    told = [e.payload for e in events if e.visible(1)]
    assert [(p.count, p.cards) for p in told] == [(2, ())]
    seen_by_1 = game.view(1).players[0]
    assert seen_by_1.revealed_generals == (c(1, C),), "still listed as revealed: its squad is not pointed out"
    assert seen_by_1.hand_size == 8 and seen_by_1.squad_size == 2
    game.apply(1, PlaySquad((game.hands[1][0],)))
    assert game.view(1).players[0].revealed_generals == (), "turned over in the battle: no longer in hand"


def test_gw7_defeat_points_eliminate_and_the_winner_takes_a_living_general() -> None:
    """'By eliminating other player by means of defeat points, one may acquire a second ... general.'"""
    game = four_player_duel()
    ace1 = c(1, D)
    if ace1 in game.hands[1]:  # seat 1's general waits in its deck: it is alive when seat 1 goes out
        game.hands[1].remove(ace1)
        game.decks[1].append(ace1)
    game.defeat_points[1] = 2  # one more is the default limit, 3
    game.hands[0] = [c(13, C), c(2, C)]
    game.decks[0] = deque(x for x in game.decks[0] if x not in game.hands[0])
    game.decks[1].extend(x for x in game.hands[1] if x != c(5, D))
    game.decks[1] = deque(x for x in game.decks[1] if x != c(5, D))
    game.hands[1] = [c(5, D)]
    deck1 = list(game.decks[1])
    game.apply(0, PlaySquad((c(13, C),)))
    payloads = [e.payload for e in game.apply(1, PlaySquad((c(5, D),)))]
    ended = next(p for p in payloads if isinstance(p, RoundEnded))
    out = next(p for p in payloads if isinstance(p, PlayerEliminated))
    assert ended.conquest_counts[:2] == (2, 0) and ended.defeat_point_to == 1 and not ended.interrupted
    assert out.seat == 1 and out.by == 0 and out.reason == EliminationReason.DEFEAT_POINTS
    assert out.cards_transferred == len(deck1) and list(game.decks[0])[-len(deck1):] == deck1
    assert game.eliminated[1] and game.generals_alive(0) == 2, "seat 0 now has seat 1's ace as a second general"
    assert game.attacker == 2 and game.phase == Phase.CHOOSE_TARGET and game.decision(2) == TargetChoice((0, 3))


def test_gw2_each_ace_revealed_at_once_draws_five_cards() -> None:
    """Two aces revealed in one wave draw five cards each: ten."""
    hand0 = [c(1, C), c(1, S)] + fillers((C, S), set(), 3)
    game = rigged(2, [hand0 + fillers((C, S), set(hand0), 20), fillers((D, H), set(), 25)])
    game.apply(0, RevealGenerals((c(1, C), c(1, S))))
    events = game.apply(1, RevealGenerals(()))
    assert [e.payload.count for e in events if isinstance(e.payload, CardsDrawn)] == [10, 10]
    assert len(game.hands[0]) == 15 and len(game.decks[0]) == 23 - 15 + 2


def test_a_squad_is_one_to_three_cards_for_the_attacker_and_the_defender() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    for seat in (0, 1):
        choice = game.decision(seat)
        assert isinstance(choice, SquadChoice) and (choice.min_cards, choice.max_cards) == (1, 3)
        hand = tuple(game.hands[seat])
        assert game.check(seat, PlaySquad(())) is not None, "a squad has at least one card"
        assert game.check(seat, PlaySquad(hand[:4])) is not None, "a squad has at most three cards"
        assert {len(a.card_ids) for a in game.legal_actions(seat) if isinstance(a, PlaySquad)} == {1, 2, 3}
        game.apply(seat, PlaySquad(hand[:3]))
    # With fewer than three cards in hand, the squad is at most the hand.
    short = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    short.hands[0] = short.hands[0][:2]
    choice = short.decision(0)
    assert isinstance(choice, SquadChoice) and choice.max_cards == 2


def test_gw14_reaching_the_conquest_target_wins_at_once() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.conquest_points = [6, 6]  # the default target is 7
    game.hands = [[c(10, C), c(9, C)], [c(2, D), c(3, D)]]
    game.apply(0, PlaySquad((c(10, C), c(9, C))))
    events = game.apply(1, PlaySquad((c(2, D),)))
    ended = next(e.payload for e in events if isinstance(e.payload, RoundEnded))
    assert ended.conquest_point_to == 0 and game.conquest_points == [7, 6]
    assert game.is_over() and game.result().ranks == (1, 2) and game.result().scores == (7.0, 6.0)


def test_gw4_the_last_general_dying_as_a_hand_empties_still_ends_the_game() -> None:
    """The battle that kills the last general and empties a hand: the general's death decides, not the round's end."""
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.dead[1] = [c(1, D)]
    game.decks[1] = deque(x for x in game.decks[1] if x not in (c(1, D), c(1, H)))
    game.hands[1] = [c(1, H)]  # seat 1's last general, its last card in hand
    game.hands[0] = [c(13, C), c(2, C)]
    game.conquest_points = [0, 6]  # winning the round's count would not matter: seat 1 has no general left
    game.apply(0, PlaySquad((c(13, C),)))
    game.apply(1, PlaySquad((c(1, H),)))
    assert game.is_over() and game.result().ranks == (1, 2)


def test_gw6_the_last_general_dying_as_a_hand_empties_still_eliminates() -> None:
    game = four_player_duel()
    ace1 = c(1, D)
    game.decks[1] = deque(x for x in game.decks[1] + deque(game.hands[1]) if x != ace1)
    game.hands[1] = [ace1]
    game.hands[0] = [c(13, C), c(12, C)]
    game.decks[0] = deque(x for x in game.decks[0] if x not in game.hands[0])
    game.apply(0, PlaySquad((c(13, C),)))
    payloads = [e.payload for e in game.apply(1, PlaySquad((ace1,)))]
    ended = next(p for p in payloads if isinstance(p, RoundEnded))
    assert ended.interrupted and ended.defeat_point_to is None
    assert game.eliminated[1] and any(isinstance(p, PlayerEliminated) for p in payloads)


def test_gw16_revealed_generals_are_listed_until_the_round_ends() -> None:
    game, hand0 = ace_of_clubs_revealed()
    assert game.view(1).players[0].revealed_generals == (c(1, C),)
    # Seat 1 runs out of cards; the ace of clubs, still in seat 0's hand, goes under its deck with the round.
    game.hands[1] = game.hands[1][:1]
    game.apply(0, PlaySquad((hand0[1],)))
    game.apply(1, PlaySquad((game.hands[1][0],)))
    assert game.round == 2 and c(1, C) in game.decks[0]
    assert all(p.revealed_generals == () for p in game.view(0).players), "a new round: nothing revealed yet"


def test_gw18_a_battle_moves_no_card_between_players() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.hands = [[c(10, C), c(3, C)], [c(2, D)]]
    game.apply(0, PlaySquad((c(10, C),)))
    events = game.apply(1, PlaySquad((c(2, D),)))
    battle = next(e.payload.battle for e in events if isinstance(e.payload, BattleResolved))
    assert battle.winner == 0
    # The loser's squad dies in its owner's dead pile; the winner keeps only his own squad, which goes under his deck.
    assert game.dead == [[], [c(2, D)]]
    assert c(10, C) in game.decks[0] and c(2, D) not in game.decks[0]
    for seat in (0, 1):
        assert {suit_of(x) for x in game.decks[seat]} <= set(game.suits[seat]), f"seat {seat} holds another's card"


def ending(events: list[Event]) -> list[object]:
    """The payloads from the battle on, each checked to be told to every seat (GW-21)."""
    payloads = [e.payload for e in events]
    start = next(i for i, p in enumerate(payloads) if isinstance(p, BattleResolved))
    assert all(e.visible_to is None for e in events[start:])
    return payloads[start:]


def test_gw21_a_two_player_win_by_the_generals_ends_the_round_and_the_game_in_events() -> None:
    """Killing the last general ended the game with no word after the battle: no round's end, no game's end."""
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.dead[1] = [c(1, D)]
    game.decks[1] = deque(x for x in game.decks[1] if x not in (c(1, D), c(1, H), c(2, D)))
    game.hands[1] = [c(1, H), c(2, D)]
    game.hands[0] = [c(13, C), c(2, C)]
    game.conquest_points = [2, 3]
    game.apply(0, PlaySquad((c(13, C),)))
    battle, ended, over = ending(game.apply(1, PlaySquad((c(1, H),))))
    assert isinstance(battle, BattleResolved) and isinstance(ended, RoundEnded) and isinstance(over, GameEnded)
    assert ended == RoundEnded(1, (2, 1), None, None, True), "hands counted with the piles, no point: the round stopped"
    assert over == GameEnded(GameEndReason.GENERALS_KILLED, (0,), (2, 3))
    assert game.is_over() and game.result().ranks == (1, 2)


def test_gw21_a_double_kill_tells_a_draw() -> None:
    draw = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    draw.dead = [[c(1, C)], [c(1, D)]]
    draw.hands = [[c(1, S), c(2, C)], [c(1, H), c(2, D)]]
    draw.decks = [deque(), deque()]
    draw.apply(0, PlaySquad((c(1, S),)))
    _, ended, over = ending(draw.apply(1, PlaySquad((c(1, H),))))
    assert isinstance(ended, RoundEnded) and ended.interrupted and ended.conquest_point_to is None
    assert over == GameEnded(GameEndReason.GENERALS_KILLED, (0, 1), (0, 0))


def test_gw21_the_conquest_target_ends_the_game_in_events() -> None:
    game = duel([fillers((C, S), set(), 13), fillers((D, H), set(), 13)])
    game.conquest_points = [6, 4]
    game.hands = [[c(10, C), c(9, C)], [c(2, D), c(3, D)]]
    game.apply(0, PlaySquad((c(10, C), c(9, C))))
    _, ended, over = ending(game.apply(1, PlaySquad((c(2, D),))))
    assert isinstance(ended, RoundEnded) and ended.conquest_point_to == 0 and not ended.interrupted
    assert over == GameEnded(GameEndReason.CONQUEST_POINTS, (0,), (7, 4))


@pytest.mark.parametrize("players", [2, 4])
def test_gw21_every_round_and_every_game_ends_in_the_events_as_the_result_says(players: int) -> None:
    """Random games: one RoundEnded per round begun, one GameEnded, last, whose winners and scores are the result's."""
    for seed in range(12):
        game = GeneralsWar(players, seed)
        rng = random.Random(seed)
        payloads = [e.payload for e in game.opening_events()]
        while not game.is_over():
            seat = game.to_act()[0]
            payloads += [e.payload for e in game.apply(seat, game.random_action(seat, rng))]
        started = [p.round for p in payloads if isinstance(p, RoundStarted)]
        assert [p.round for p in payloads if isinstance(p, RoundEnded)] == started
        over = payloads[-1]
        assert isinstance(over, GameEnded) and sum(isinstance(p, GameEnded) for p in payloads) == 1
        result = game.result()
        assert over.winners == tuple(s for s in range(players) if result.ranks[s] == 1)
        assert over.scores == tuple(int(x) for x in result.scores)
        if players == 4:
            assert over.reason == GameEndReason.LAST_PLAYER_STANDING
            assert sum(isinstance(p, PlayerEliminated) for p in payloads) >= 2
