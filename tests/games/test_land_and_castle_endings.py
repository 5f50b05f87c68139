"""Land & Castle: a claim that wins ends the game before the turn's draws (LC-27)."""

from __future__ import annotations

from referee.games.land_and_castle.types import Capture, CardsDrawn, Control, GameOver, LandCaptured, LandControlled, WinReason
from tests.games.test_land_and_castle_rules import NO_CASTLES, NO_GENERALS, C, D, H, S, battle, c, payloads, plain, rigged


def test_lc27_a_claim_that_dominates_ends_the_game_before_the_draws() -> None:
    game = plain([[c(10, C), c(2, C)], [c(2, D), c(3, D)]], owner=[None, 0, 0, 0, 0, 0])
    battle(game, c(10, C), 0, c(2, D))
    piles = [len(p) for p in game.piles]
    events = payloads(game.apply(0, Control(0)))
    assert events == [LandControlled(0, 0, (c(10, C), c(2, D))), GameOver(0, WinReason.DOMINANCE, (6, 0))]
    assert not any(isinstance(e, CardsDrawn) for e in events)
    assert game.hands == [[c(2, C)], [c(3, D)]], "nobody draws after the winning claim"
    assert [len(p) for p in game.piles] == [piles[0] + 2, piles[1]], "control's armies went under the pile and stay there"


def test_lc27_a_capture_that_converts_ends_the_game_before_the_draws() -> None:
    lands = [c(4, H), c(5, S), c(6, D), c(7, C), c(8, H), c(10, S)]
    game = rigged(lands, [[c(9, S), c(2, C)], [c(2, H), c(3, D)]], list(NO_CASTLES), list(NO_GENERALS), face_up=[True] * 6)
    battle(game, c(9, S), 5, c(2, H))
    piles = [len(p) for p in game.piles]
    events = payloads(game.apply(0, Capture(5, c(9, S))))
    assert [type(e) for e in events] == [LandCaptured, GameOver]
    assert events[-1] == GameOver(0, WinReason.CONVERSION, (1, 0))
    assert game.hands == [[c(2, C)], [c(3, D)]] and [len(p) for p in game.piles] == piles
