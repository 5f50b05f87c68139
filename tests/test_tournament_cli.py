"""``arena tournament`` at the command line: options that do not apply are refused, failures are said in one line."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from tests.support import SAMPLE_BOTS

runner = CliRunner()
RANDOM = str(SAMPLE_BOTS / "random")


@pytest.mark.parametrize(
    "given",
    [["--elo0", "-10"], ["--elo1", "10"], ["--alpha", "0.01"], ["--beta", "0.1"], ["--sprt-model", "trinomial"]],
    ids=["elo0", "elo1", "alpha", "beta", "sprt-model"],
)
def test_an_sprt_setting_without_sprt_is_refused_not_ignored(given: list[str]) -> None:
    """Without --sprt they were ignored: `--elo1 10 --games 2000` (--sprt forgotten) played a 2,000-game round-robin
    and no test, as --format with --sprt would have played no format."""
    result = runner.invoke(app, ["tournament", "generals-war", RANDOM, RANDOM, *given, "--games", "2", "--seed", "1"])
    assert result.exit_code == 2, result.output
    assert f"{given[0]} applies only with --sprt" in " ".join(result.output.split())


@pytest.mark.parametrize("sprt", [[], ["--sprt"]], ids=["round-robin", "sprt"])
def test_a_disk_that_fills_during_a_tournament_stops_it_with_one_line_and_keeps_the_saved_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sprt: list[str]
) -> None:
    """A replay (or a saved game) that could not be written raised OSError out of the command: a traceback, and no word
    that the games finished so far are kept in --save, as Ctrl-C says. `arena match` says such a failure in one line."""
    from referee.server import replay

    written: list[Path] = []

    def fill_up(record: object, path: Path, compact: bool = False) -> None:
        if len(written) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        written.append(path)

    monkeypatch.setattr(replay, "write_replay", fill_up)
    save = tmp_path / "games.jsonl"
    args = ["tournament", "generals-war", RANDOM, RANDOM, "-n", "6", "--seed", "1", *sprt, "--replay-dir", str(tmp_path / "replays")]
    result = runner.invoke(app, [*args, "--save", str(save), "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    said = " ".join(result.output.split())
    assert f"error: the tournament stopped: {tmp_path / 'replays'}" in said and "No space left on device" in said, said
    assert f"the games finished so far are kept in {save}; the same command goes on from there" in said
    assert len(save.read_text().splitlines()) == 1 + 2, "the header and the two games whose replays were written"


@pytest.mark.parametrize("given", [["--games", "100000000"], ["--games", "100000000", "--sprt"]], ids=["round-robin", "sprt"])
def test_a_tournament_past_a_million_games_is_refused_before_its_schedule_is_made(given: list[str]) -> None:
    """Its whole schedule is made before the first match: `--games 100000000` filled the memory and never began."""
    result = runner.invoke(app, ["tournament", "generals-war", RANDOM, RANDOM, *given, "--seed", "1"])
    assert result.exit_code == 2, result.output
    assert "a tournament plays at most 1,000,000" in " ".join(result.output.split())


def test_the_games_planned_are_those_the_schedule_holds() -> None:
    """Counted rather than made (so that a huge tournament is refused before its schedule is made), the count must
    stay the schedule's: the progress bar's total and the refusal both read it."""
    from referee.tournament.run import TournamentConfig, planned_games
    from referee.tournament.schedule import fixed_schedule

    for fmt in ("round-robin", "gauntlet"):
        for bots in range(2, 8):
            for players in range(2, min(bots, 6) + 1):
                for games in (1, 2, 3, 7):
                    config = TournamentConfig("glory", [Path(RANDOM)] * bots, fmt, games, players, seed=3)
                    assert planned_games(config) == len(fixed_schedule(fmt, bots, players, games, 3)), (fmt, bots, players, games)


@pytest.mark.parametrize("given,at_once", [([], 3), (["-j", "1"], 1)], ids=["default", "given"])
def test_a_tournament_plays_a_match_per_core_unless_told(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, given: list[str], at_once: int) -> None:
    """One match at a time was the default: on two cores the second stood idle and a tournament took twice as long."""
    import arena.cli.tournament as command
    import referee.tournament.run as run

    seen: list[int] = []
    real = run.run_tournament

    async def counted(config: run.TournamentConfig, progress: object = None) -> run.TournamentResult:
        seen.append(config.concurrency)
        return await real(config, None)

    monkeypatch.setattr(command, "usable_cores", lambda: 3, raising=False)
    monkeypatch.setattr(run, "run_tournament", counted)
    result = runner.invoke(app, ["tournament", "generals-war", RANDOM, RANDOM, "-n", "2", "--seed", "1", *given, "--log-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert seen == [at_once]


def test_a_tournament_piped_to_a_file_writes_nothing_to_stderr_but_what_it_has_to_say(tmp_path: Path) -> None:
    """The progress bar, not drawn where stderr is no terminal, still ended with a blank line there: a script that
    reads stderr for errors found one line of nothing. --report-every's lines are all it says."""
    args = ["tournament", "generals-war", RANDOM, RANDOM, "-n", "4", "--seed", "1", "--log-dir", str(tmp_path)]
    assert runner.invoke(app, args).stderr == ""
    reported = runner.invoke(app, [*args, "--report-every", "2"]).stderr
    assert reported.startswith("after 2 of 4 games: 1. random") and reported.count("\n") == 1, repr(reported)


def test_the_help_s_paragraph_is_wrapped_to_the_terminal_not_where_the_source_broke_it() -> None:
    """Its lines were broken in the source at 75 characters and `--help` kept each break: at 60 columns the paragraph
    read in ragged halves ("rotation of the" alone on a line), at 200 it still took three lines."""
    said = runner.invoke(app, ["tournament", "--help"], env={"COLUMNS": "200"}).output
    line = next(x for x in said.splitlines() if "Games come in duplicate deals" in x)
    assert "once per rotation of the seats (for two players: swapped), so each bot plays each seat equally and card luck" in line
