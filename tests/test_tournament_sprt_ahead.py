"""An SPRT under --concurrency plays matches ahead of its decision: they are no part of the result, failed or not."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from referee.tournament.run import PlayedGame, TournamentConfig, _Player, run_sprt
from referee.tournament.schedule import ScheduledGame
from referee.tournament.sprt import Sprt
from tests.support import SAMPLE_BOTS

GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"


@pytest.mark.parametrize("concurrency", [1, 3])
def test_a_match_that_fails_after_the_decision_changes_no_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrency: int) -> None:
    """The first pair decides (bot 0 wins both, and H0 says it scores 0.3%); with -j 1 the third game is never played
    and the verdict is H1. With -j 3 the third game, played ahead, failed first, and its error ended the SPRT before
    the pair that decided it had been read: the outcome depended on --concurrency. A worker stops at its first failed
    match (the next often fails too): none goes on through every game of the schedule."""
    failed = asyncio.Event()
    tried: list[int] = []

    async def umpire(_: _Player, game: ScheduledGame) -> PlayedGame:
        tried.append(game.index)
        if game.index >= 2:
            failed.set()
            raise RuntimeError(f"game {game.index} failed")
        if concurrency > 1:
            await failed.wait()  # the first pair ends only after a game ahead of it has failed, and the SPRT has woken
            for _turn in range(5):
                await asyncio.sleep(0)
        ranks = (1, 2) if game.seats[0] == 0 else (2, 1)
        return PlayedGame(game, ranks, (1.0, 0.0) if ranks == (1, 2) else (0.0, 1.0), (False, False), f"m{game.index}")

    monkeypatch.setattr(_Player, "_play", umpire)
    config = TournamentConfig("generals-war", [GREEDY, RANDOM], games=40, seed=1, log_dir=tmp_path / "logs", concurrency=concurrency)
    result = asyncio.run(run_sprt(config, Sprt(elo0=-1000, elo1=0)))
    assert result.sprt is not None and result.sprt.decision() == "H1" and len(result.games) == 2
    assert len(tried) <= 2 + concurrency, tried


def test_a_match_that_fails_before_the_decision_still_stops_the_sprt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def umpire(_: _Player, game: ScheduledGame) -> PlayedGame:
        if game.index == 3:
            raise RuntimeError(f"game {game.index} failed")
        return PlayedGame(game, (1, 1), (0.0, 0.0), (False, False), f"m{game.index}")  # draws: no decision so soon

    monkeypatch.setattr(_Player, "_play", umpire)
    config = TournamentConfig("generals-war", [GREEDY, RANDOM], games=40, seed=1, log_dir=tmp_path / "logs", concurrency=3)
    with pytest.raises(RuntimeError, match="game 3 failed"):
        asyncio.run(run_sprt(config, Sprt()))
