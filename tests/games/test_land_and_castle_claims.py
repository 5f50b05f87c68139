"""Land & Castle: who wins a claim's conversion, castle bonuses in real battles, listings, defaults, the setup's events, and who is told what."""

from __future__ import annotations

import random

from referee.games.land_and_castle import LandAndCastle
from referee.games.land_and_castle.rules import battle_side, castle_suit, converted, is_face, linked
from referee.games.land_and_castle.types import (
    Attack,
    AttackChoice,
    Attacked,
    BattleResolved,
    Capture,
    CardsDrawn,
    CardSwapped,
    CastleChoice,
    CastlePlaced,
    ClaimChoice,
    Control,
    Defend,
    DefendChoice,
    GameOver,
    GeneralPlaced,
    LandCaptured,
    LandControlled,
    LandRevealed,
    PlaceCastle,
    PlaceGeneral,
    SwapCard,
    WinReason,
)
from tests.games.test_land_and_castle_rules import (
    NO_CASTLES,
    NO_GENERALS,
    PLAIN_LANDS,
    A,
    C,
    D,
    H,
    J,
    K,
    Q,
    S,
    battle,
    c,
    payloads,
    plain,
    rigged,
)


def spades_win(land: int, owner: list[int | None] | None = None) -> LandAndCastle:
    """Seat 0, with a spades castle, has just won on ``land`` (10h against 2d); lands 0, 1 and 3 are face up."""
    game = rigged(
        list(PLAIN_LANDS), [[c(10, H), c(2, C)], [c(2, D), c(3, D)]], [c(5, S), c(K, H)], list(NO_GENERALS),
        face_up=[True, True, False, True, False, False], owner=owner,
    )
    battle(game, c(10, H), land, c(2, D))
    return game


def test_lc17_the_defender_whose_capture_converts_the_row_wins() -> None:
    """After a claim the winner of that battle made the last change, so he wins, even when he defended."""
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(10, S)]  # 8h and 10s do not link
    game = rigged(lands, [[c(2, C), c(3, C)], [c(9, S), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS), face_up=[True] * 6)
    battle(game, c(2, C), 5, c(9, S))  # 9s stacks with the 10s land: 19 against 2
    assert game.to_act() == (1,)
    events = payloads(game.apply(1, Capture(5, c(9, S))))  # 8h next to 9s: within one
    assert GameOver(1, WinReason.CONVERSION, (0, 1)) in events
    assert game.result().ranks == (2, 1)


def test_lc10_castle_bonuses_follow_the_role_in_a_played_battle() -> None:
    """Clubs +3 to the attacker and hearts +3 to the defender, each only in its own role."""
    hands = [[c(7, C), c(2, C)], [c(5, D), c(3, D)]]
    game = rigged(list(PLAIN_LANDS), hands, [c(4, C), c(4, H)], list(NO_GENERALS))
    resolved = next(p for p in battle(game, c(7, C), 1, c(5, D)) if isinstance(p, BattleResolved)).battle
    assert resolved.defender is not None
    assert (resolved.attacker.castle_bonus, resolved.attacker.total) == (3, 10)
    assert (resolved.defender.castle_bonus, resolved.defender.total) == (3, 8)
    game = rigged(list(PLAIN_LANDS), hands, [c(4, H), c(4, C)], list(NO_GENERALS))
    resolved = next(p for p in battle(game, c(7, C), 1, c(5, D)) if isinstance(p, BattleResolved)).battle
    assert resolved.defender is not None
    assert (resolved.attacker.castle_bonus, resolved.defender.castle_bonus) == (0, 0)


def test_lc10_a_hearts_castle_turns_a_defence_into_a_win() -> None:
    game = rigged(list(PLAIN_LANDS), [[c(7, C), c(2, C)], [c(5, D), c(3, D)]], [c(K, D), c(4, H)], list(NO_GENERALS))
    battle(game, c(7, C), 1, c(5, D))  # land 1 is the 9 of hearts: no stack; 5 + 3 against 7
    assert game.to_act() == (1,) and game.battle is not None and game.battle.winner == 1


def test_lc21_the_default_claim_controls_the_battled_land_even_with_a_spades_castle() -> None:
    assert spades_win(1).default_action(0) == Control(1)
    assert spades_win(0).default_action(0) == Control(0)


def test_lc11_a_swap_without_a_diamonds_castle_is_refused_for_that_reason() -> None:
    """The card is in the hand: the refusal names the swap, not the card."""
    game = plain([[c(5, S), c(2, C)], [c(7, S), c(3, C)]])
    reason = game.check(0, SwapCard(c(5, S)))
    assert reason is not None and "swap" in reason and "not in your hand" not in reason


def test_lc22_public_happenings_are_told_to_both_seats_and_draws_and_swaps_to_each_in_part() -> None:
    """Every event but a draw or a swap goes to both seats; a draw or swap is told once to each seat, its cards to the owner."""
    public_kinds: set[type] = set()
    for seed in range(30):
        game = LandAndCastle(2, seed)
        rng = random.Random(seed)
        events = list(game.opening_events())
        while True:
            for payload_type in (CardsDrawn, CardSwapped):
                told = [e for e in events if isinstance(e.payload, payload_type)]
                for seat in (0, 1):
                    mine = [e.payload for e in told if e.visible(seat)]
                    assert len(mine) * 2 == len(told), f"{payload_type.__name__}: each seat is told each once"
            for event in events:
                if not isinstance(event.payload, (CardsDrawn, CardSwapped)):
                    assert event.visible_to is None, f"{type(event.payload).__name__} is public"
                    public_kinds.add(type(event.payload))
                elif isinstance(event.payload, CardsDrawn) and event.visible(event.payload.seat):
                    assert len(event.payload.cards) == event.payload.count
            if game.is_over():
                break
            seat = game.to_act()[0]
            events = game.apply(seat, game.random_action(seat, rng))
    assert {Attacked, LandRevealed, BattleResolved, LandControlled, LandCaptured, GameOver} <= public_kinds


def test_lc10_a_face_card_castle_of_diamonds_or_spades_gives_no_swap_and_no_wider_claim() -> None:
    up = [True, True, False, True, False, False]
    game = rigged(list(PLAIN_LANDS), [[c(10, H), c(2, C)], [c(2, D), c(3, D)]], [c(K, S), c(J, D)], list(NO_GENERALS), face_up=up)
    attack = game.decision(0)
    assert isinstance(attack, AttackChoice) and attack.swappable == ()
    game.apply(0, Attack(c(10, H), 0))
    defend = game.decision(1)
    assert isinstance(defend, DefendChoice) and defend.swappable == ()
    game.apply(1, Defend(c(2, D)))
    claim = game.decision(0)
    assert isinstance(claim, ClaimChoice) and claim.lands == (0,)


def test_lc12_a_spades_castle_may_control_or_capture_every_face_up_land() -> None:
    game = spades_win(1)
    exchangeable = (c(10, H), c(2, D), NO_GENERALS[0])
    expected = {Control(land) for land in (0, 1, 3)} | {Capture(land, x) for land in (0, 1, 3) for x in exchangeable}
    assert set(game.legal_actions(0)) == expected


def test_lc19_the_last_turn_ends_after_its_draws() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], piles=[[c(5, H)], [c(7, H)]], max_turns=1)
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Control(0)), 1)
    assert [type(p) for p in events] == [LandControlled, CardsDrawn, CardsDrawn, GameOver]
    assert game.hands == [[c(2, C), c(5, H)], [c(3, D), c(7, H)]] and game.is_over()


def test_lc21_the_default_army_breaks_a_tie_of_values_by_the_lowest_card_id() -> None:
    for hands in ([[c(K, C), c(Q, S)], [c(Q, C), c(K, S)]], [[c(Q, S), c(K, C)], [c(K, S), c(Q, C)]]):
        game = plain(hands)
        assert game.default_action(0) == Attack(min(c(K, C), c(Q, S)), 0)
        game.apply(0, game.default_action(0))
        assert game.default_action(1) == Defend(min(c(Q, C), c(K, S)))


def test_lc13_a_capture_with_the_general_tells_both_seats_the_new_general() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]])
    battle(game, c(10, C), 1, c(2, D))  # land 1 is the 9 of hearts
    events = game.apply(0, Capture(1, NO_GENERALS[0]))
    for seat in (0, 1):
        assert LandCaptured(0, 1, NO_GENERALS[0], c(9, H), (c(10, C), c(2, D))) in payloads(events, seat)
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]])
    battle(game, c(10, C), 1, c(2, D))
    assert LandCaptured(0, 1, c(2, D), None, (c(9, H), c(10, C))) in payloads(game.apply(0, Capture(1, c(2, D))))


def test_lc14_every_army_may_attack_every_land_and_the_swap_is_listed_too() -> None:
    hand = [c(5, S), c(2, C), c(9, C)]
    game = rigged(list(PLAIN_LANDS), [hand, [c(7, S), c(3, C)]], [c(4, D), c(K, H)], list(NO_GENERALS), owner=[0, 1, None, None, 1, 0])
    expected = {Attack(x, land) for x in hand for land in range(6)} | {SwapCard(x) for x in hand}
    assert set(game.legal_actions(0)) == expected


def test_lc4_and_lc11_the_view_names_the_turn_attacker_defender_and_a_swap_used_this_turn() -> None:
    game = rigged(
        list(PLAIN_LANDS), [[c(5, S), c(2, C)], [c(7, H), c(3, C)]], [c(K, D), c(4, D)], list(NO_GENERALS),
        piles=[[c(10, C), c(10, H)], [c(5, H), c(4, H)]],
    )
    battle(game, c(5, S), 0, c(7, H))
    game.apply(1, Control(0))
    game.apply(1, SwapCard(c(3, C)))  # turn 2: seat 1 attacks and swaps first
    for seat in (0, 1):
        view = game.view(seat)
        assert (view.turn, view.attacker, view.defender) == (2, 1, 0)
        assert [p.swap_used for p in view.players] == [False, True]


def test_lc17_neighbours_two_apart_in_value_and_of_other_suits_do_not_link() -> None:
    """"Within one" is one at most: 5 and 7, or an ace and a 3, or a queen (0) and a 2, of other suits, break the row."""
    assert linked(c(5, H), c(6, S)) and linked(c(Q, H), c(A, S)) and linked(c(5, H), c(9, H))
    for a, b in ((c(5, H), c(7, S)), (c(A, H), c(3, S)), (c(Q, H), c(2, S)), (c(10, C), c(8, D))):
        assert not linked(a, b) and not linked(b, a), (a, b)
    row = [c(4, H), c(5, S), c(6, D), c(8, C), c(9, H), c(10, S)]  # 6d and 8c: two apart
    assert not converted(row, [True] * 6)
    assert converted(row[:3] + [c(7, C)] + row[3:], [True] * 7), "a 7 between them mends the row"


def test_lc10_and_lc26_the_castle_bonus_adds_to_every_stack_and_to_a_face_card_army() -> None:
    # Clubs in attack: 5c on the 7c land, general 9c and castle 4c stacked on it, and 3 more: 5 + 7 + 9 + 4 + 3.
    side = battle_side(0, c(5, C), c(7, C), c(9, C), c(4, C), attacking=True)
    assert (side.land_bonus, side.general_bonus, side.castle_bonus, side.total) == (7, 13, 3, 28)
    # Hearts in defence: the land stacks (6h on 2h) and the bonus still comes: 6 + 2 + 3.
    assert battle_side(1, c(6, H), c(2, H), c(Q, S), c(8, H), attacking=False).total == 11
    # A face-card army stacks with nothing, yet takes the bonus: a king 11 + 3, a jack 0 + 3.
    assert battle_side(1, c(K, S), c(7, S), c(5, S), c(4, H), attacking=False).total == 14
    assert battle_side(0, c(J, D), c(2, D), c(5, D), c(4, C), attacking=True).total == 3


def test_lc26_a_jack_defending_with_a_hearts_castle_beats_a_two() -> None:
    """The jack is worth 0, the hearts castle makes it 3: more than the attacker's 2 (land 1 is the 9 of hearts: no stack)."""
    game = rigged(list(PLAIN_LANDS), [[c(2, C), c(5, C)], [c(J, D), c(3, D)]], [c(K, D), c(4, H)], list(NO_GENERALS))
    resolved = next(p for p in battle(game, c(2, C), 1, c(J, D)) if isinstance(p, BattleResolved)).battle
    assert resolved.defender is not None and (resolved.defender.castle_bonus, resolved.defender.total) == (3, 3)
    assert resolved.winner == 1 and game.to_act() == (1,)


def test_lc19_the_turn_limit_counts_lands_owned_and_nothing_else() -> None:
    """Seat 0 wins the last battle and captures (two cards to his discard pile), yet seat 1 owns more lands and wins."""
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 1, 1, None, None, None], max_turns=1)
    battle(game, c(10, C), 0, c(2, D))
    events = payloads(game.apply(0, Capture(0, c(10, C))))
    assert len(game.discards[0]) == 2 and game.discards[1] == []
    assert GameOver(1, WinReason.TURN_LIMIT, (1, 2)) in events
    assert game.result().ranks == (2, 1) and game.result().scores == (1.0, 2.0)


def test_lc16_and_lc17_a_claim_that_both_dominates_and_converts_is_told_as_dominance() -> None:
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(10, S)]  # 8h and 10s do not link
    game = rigged(
        lands, [[c(9, S), c(2, C)], [c(2, H), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS),
        face_up=[True] * 6, owner=[0, 0, 0, 0, 0, None],
    )
    battle(game, c(9, S), 5, c(2, H))
    events = payloads(game.apply(0, Capture(5, c(9, S))))  # 8h next to 9s: the row converts, and seat 0 owns all six
    assert converted(game.lands, game.face_up)
    assert GameOver(0, WinReason.DOMINANCE, (6, 0)) in events


def test_lc3_a_face_card_may_be_placed_as_the_castle() -> None:
    """Every card of the hand may become the castle, a face card too (it then gives nothing, LC-10)."""
    seed = next(s for s in range(100) if any(is_face(x) for x in LandAndCastle(2, s).hands[0]))
    game = LandAndCastle(2, seed)
    face = next(x for x in game.hands[0] if is_face(x))
    decision = game.decision(0)
    assert isinstance(decision, CastleChoice) and decision.playable == tuple(game.hands[0])
    assert PlaceCastle(face) in set(game.legal_actions(0))
    game.apply(0, PlaceCastle(face))
    assert game.castles[0] == face and castle_suit(face) is None


def test_lc12_a_spades_castle_may_claim_its_own_face_up_land_too() -> None:
    """"Whoever owns it": the winner may capture a land he owns already, to change its card."""
    game = spades_win(0, owner=[None, 0, None, 1, None, None])
    claim = game.decision(0)
    assert isinstance(claim, ClaimChoice) and claim.lands == (0, 1, 3)
    game.apply(0, Capture(1, c(2, D)))
    assert game.lands[1] == c(2, D) and game.owner[:4] == [None, 0, None, 1]
    assert game.discards[0] == [PLAIN_LANDS[1], c(10, H)]


def test_lc19_the_game_plays_every_turn_up_to_the_limit() -> None:
    """With ``max_turns`` 2 the first turn's claim starts turn 2; only turn 2's ends the game."""
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], max_turns=2)
    battle(game, c(10, C), 0, c(2, D))
    game.apply(0, Control(0))
    assert not game.is_over() and game.turn == 2 and game.to_act() == (1,)
    battle(game, c(3, D), 1, c(2, C))
    events = payloads(game.apply(1, Control(1)))
    assert GameOver(None, WinReason.TURN_LIMIT, (1, 1)) in events and game.is_over()


def test_lc8_and_lc23_the_land_turns_face_up_even_when_the_defender_has_no_card() -> None:
    """The attack turns the land face up before anything else: it shows when attrition ends the game, and a
    reveal that converts the row wins by conversion, not attrition (LC-23: before the defence)."""
    game = plain([[c(10, C), c(2, C)], []], piles=[[], []])
    events = payloads(game.apply(0, Attack(c(10, C), 1)))
    assert LandRevealed(1, PLAIN_LANDS[1]) in events and game.view(1).lands[1].card == PLAIN_LANDS[1]
    assert GameOver(0, WinReason.ATTRITION, (0, 0)) in events
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(9, S)]
    game = rigged(lands, [[c(2, C), c(3, C)], []], list(NO_CASTLES), list(NO_GENERALS), piles=[[], []], face_up=[True] * 5 + [False])
    assert GameOver(0, WinReason.CONVERSION, (0, 0)) in payloads(game.apply(0, Attack(c(2, C), 5)))


def test_lc3_seat_1_is_told_its_hand_after_seat_0_placed_his_castle_and_drew() -> None:
    """The events keep the table's order: seat 0 places, draws one; only then seat 1 draws his hand, knowing that castle."""
    game = LandAndCastle(2, 5)
    castle = game.hands[0][0]
    events = game.apply(0, PlaceCastle(castle))
    told = [e.payload for e in events if e.visible(1)]
    assert [type(p) for p in told] == [CastlePlaced, CardsDrawn, CardsDrawn]
    assert told[0] == CastlePlaced(0, castle)
    assert (told[1].seat, told[1].count, told[1].cards) == (0, 1, ())
    assert (told[2].seat, told[2].count, told[2].cards) == (1, 4, tuple(game.hands[1]))
    game.apply(1, PlaceCastle(game.hands[1][0]))
    events = game.apply(0, PlaceGeneral(game.hands[0][0]))
    assert [type(e.payload) for e in events if e.visible(1)] == [GeneralPlaced, CardsDrawn]
