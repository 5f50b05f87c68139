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


def test_an_sprt_stopped_part_way_counts_the_games_played_ahead_of_it_that_its_file_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test reads games in order: the first still playing, the five after it finished and saved. It said "stopped
    after 0 of 6 games", and an author took the file to hold nothing, though it held five games that will not be
    played again."""
    import errno
    import os

    from typer.testing import CliRunner

    from arena.cli.main import app

    others_done = asyncio.Event()
    finished: list[int] = []

    async def umpire(_: _Player, game: ScheduledGame) -> PlayedGame:
        if game.index == 0:  # the first game stops the tournament (a full disk), once every other has finished
            await others_done.wait()
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "replays" / "0.json"))
        finished.append(game.index)
        if len(finished) == 5:
            others_done.set()
        return PlayedGame(game, (1, 1), (0.5, 0.5), (False, False), f"m{game.index}")

    monkeypatch.setattr(_Player, "_play", umpire)
    save = tmp_path / "games.jsonl"
    args = ["tournament", "generals-war", str(GREEDY), str(RANDOM), "--sprt", "-n", "6", "--seed", "1", "-j", "6"]
    result = CliRunner().invoke(app, [*args, "--save", str(save), "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert f"stopped after 0 of 6 games the test has read, and 5 more played ahead of it: the games finished so far are kept in {save}" in said, said
    assert len(save.read_text().splitlines()) == 1 + 5, "the header and the five games played ahead"
