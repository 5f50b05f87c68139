"""``arena tournament --save``: an interrupted tournament goes on where it stopped, and only with its own games."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.progress import Progress, TaskID
from typer.testing import CliRunner

from arena.cli.main import app
from tests.support import ROOT, SAMPLE_BOTS, TEST_BOTS
from tests.waiting import wait_for

runner = CliRunner()
GREEDY = str(SAMPLE_BOTS / "generals_war_greedy")
RANDOM = str(SAMPLE_BOTS / "random")
SLEEPY = str(TEST_BOTS / "sleepy")
CRASH = str(ROOT / "tests" / "bots" / "crash_at_start")


def tournament(tmp_path: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["tournament", *args, "--json", "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return data


def cut(save: Path, keep: int) -> set[int]:
    """Leave the header and ``keep`` games, then half a line: a tournament killed while it wrote a game.

    Returns the kept games' indices (games are written as they end: with -j 2, not always in schedule order).
    """
    lines = save.read_text().splitlines(keepends=True)
    save.write_text("".join(lines[: 1 + keep]) + lines[1 + keep][:20])
    return {json.loads(line)["index"] for line in lines[1 : 1 + keep]}


def ids(data: dict[str, Any]) -> dict[int, str]:
    return {g["index"]: g["match_id"] for g in data["results"]}


def without_ids(data: dict[str, Any]) -> dict[str, Any]:
    """The result less what differs from one run to the next: the match ids, and the logs' paths, named by them."""
    return {**data, "results": [{k: v for k, v in g.items() if k not in ("match_id", "logs")} for g in data["results"]]}


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["-n", "6"], id="round-robin"),
        pytest.param(["-f", "swiss", "-n", "3", RANDOM], id="swiss"),  # a round's pairings follow the rounds before
        pytest.param(["--sprt", "--elo1", "300", "-n", "10", "-j", "2"], id="sprt"),
    ],
)
def test_a_tournament_run_again_with_its_file_plays_only_the_missing_games_and_ends_as_if_never_stopped(tmp_path: Path, args: list[str]) -> None:
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "--seed", "3", "--save", str(save), *args)  # as without --save
    kept = cut(save, 2)
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "--seed", "3", "--save", str(save), *args)
    assert without_ids(again) == without_ids(first)
    # The kept games were taken from the file (their match ids), the others played anew (new ids).
    assert {i for i, match in ids(again).items() if match == ids(first).get(i)} == kept
    assert not {m for i, m in ids(again).items() if i not in kept} & set(ids(first).values())
    # The cut-short line did not spoil the file: a third run plays nothing.
    third = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "--seed", "3", "--save", str(save), *args)
    assert ids(third) == ids(again)


def test_the_same_command_without_a_seed_goes_on_with_the_seed_the_file_holds(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--save", str(save))
    (kept,) = cut(save, 1)
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--save", str(save))
    assert again["seed"] == first["seed"] and ids(again)[kept] == ids(first)[kept]


def test_the_progress_bar_times_only_the_games_played_after_a_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The saved games are counted at once: as progress like any other, they made the time left look a few seconds
    long for half a minute (rich times the rate over the last 30 s). Each restarts the bar's clock instead."""
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save))
    kept = cut(save, 2)
    resets: list[int | None] = []
    original = Progress.reset

    def reset(self: Progress, task: TaskID, **kwargs: Any) -> None:
        resets.append(kwargs.get("completed"))
        original(self, task, **kwargs)

    monkeypatch.setattr(Progress, "reset", reset)
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save))
    assert len(resets) == len(kept) == 2  # once for each saved game, none for the two played


def test_a_resumed_tournament_reports_its_saved_games_once_not_a_line_per_interval(tmp_path: Path) -> None:
    """--report-every 1 reprinted a report for every saved game at once when a tournament went on: 182 lines for 364 games."""
    save = tmp_path / "games.jsonl"
    args = ["tournament", "generals-war", GREEDY, RANDOM, "-n", "8", "--seed", "3", "--save", str(save), "--log-dir", str(tmp_path / "logs")]
    assert runner.invoke(app, args).exit_code == 0
    cut(save, 5)
    result = runner.invoke(app, [*args, "--report-every", "2"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    said = [line.split(":")[0] for line in result.stderr.splitlines() if line.startswith("after ")]
    # 2 and 4 fell due among the five saved games: one line at the first game played, the sixth; none at the last
    assert said == ["after 6 of 8 games"]
    cut(save, 3)
    result = runner.invoke(app, [*args, "--report-every", "3"], env={"COLUMNS": "300"})
    said = [line.split(":")[0] for line in result.stderr.splitlines() if line.startswith("after ")]
    assert said == ["after 4 of 8 games", "after 6 of 8 games"]  # 3 was saved: said at 4; then every third as ever


def refused(tmp_path: Path, *args: str) -> str:
    result = runner.invoke(app, ["tournament", "generals-war", *args, "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


def test_another_tournaments_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    before = save.read_bytes()
    assert "seed 3 there, 4 here" in refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "4", "--save", str(save))
    assert "bot 1 is gw-greedy 1.0.0 there, random 1.0.0 here" in refused(tmp_path, RANDOM, GREEDY, "-n", "2", "--seed", "3", "--save", str(save))
    assert "format 'round-robin' there, 'sprt' here" in refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--sprt", "--save", str(save))
    # another clock plays other games: its timeouts and forfeits are not this tournament's
    assert "time_bank_ms 10000 there, 5000 here" in refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--time-bank-ms", "5000", "--save", str(save))
    assert "strike_limit 3 there, 1 here" in refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--strike-limit", "1", "--save", str(save))
    assert save.read_bytes() == before


def test_the_same_games_asked_for_in_other_words_go_on_from_the_file(tmp_path: Path) -> None:
    """--games 3 of two bots plays 4 (whole duplicate deals, as its note says) and -o conquest_points=07 plays the
    default 7: a resume asked for as --games 4 without -o is the same tournament, which was refused as another."""
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "3", "--seed", "3", "-o", "conquest_points=07", "--save", str(save))
    kept = cut(save, 2)
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save))
    assert without_ids(again)["results"] == without_ids(first)["results"] and len(again["results"]) == 4
    assert {i for i, match in ids(again).items() if match == ids(first).get(i)} == kept
    # Other games are still another tournament's, and said as they were asked for.
    assert "options {'conquest_points': '07'} there, {'conquest_points': '5'} here" in refused(
        tmp_path, GREEDY, RANDOM, "-n", "4", "--seed", "3", "-o", "conquest_points=5", "--save", str(save)
    )


def test_a_saved_tournament_goes_on_with_more_games_but_not_fewer(tmp_path: Path) -> None:
    """Run again with a larger --games, a finished tournament plays only the games it lacks (every schedule for more
    games begins with the one for fewer), and ends as a run of that many from the start. Fewer is refused: a command
    without its --games would report two of the file's games as the tournament."""
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save))
    longer = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "8", "--seed", "3", "--save", str(save))
    assert len(longer["results"]) == 8 and {i: ids(longer)[i] for i in range(4)} == ids(first)
    fresh = tournament(tmp_path / "fresh", "generals-war", GREEDY, RANDOM, "-n", "8", "--seed", "3")
    assert without_ids(longer)["results"] == without_ids(fresh)["results"]
    assert longer["standings"] == fresh["standings"]
    assert "games 4 there, 2 here (it may go on with more games, not fewer)" in refused(
        tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save)
    )
    # Its header still says 4: 6, more than 4 and fewer than the 8 played since, read the file's first 6 as the tournament.
    assert "game 8 there, of a run made longer since it began; 6 here (it may go on with more games, not fewer)" in refused(
        tmp_path, GREEDY, RANDOM, "-n", "6", "--seed", "3", "--save", str(save)
    )


def test_a_bot_whose_files_changed_since_is_another_bot(tmp_path: Path) -> None:
    bot = tmp_path / "mine"
    shutil.copytree(RANDOM, bot, ignore=shutil.ignore_patterns("__pycache__"))
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, str(bot), "-n", "2", "--seed", "3", "--save", str(save))
    (bot / "__pycache__").mkdir(exist_ok=True)
    (bot / "__pycache__" / "x.pyc").write_bytes(b"cache")  # a cache is not a change
    tournament(tmp_path, "generals-war", GREEDY, str(bot), "-n", "2", "--seed", "3", "--save", str(save))
    main = next(p for p in bot.glob("*.py"))
    main.write_text(main.read_text() + "\n# tuned\n")
    assert "bot 2 (random): its files changed since" in refused(tmp_path, GREEDY, str(bot), "-n", "2", "--seed", "3", "--save", str(save))


def test_the_logs_replays_and_save_a_tournament_writes_in_a_bot_s_folder_do_not_make_it_another_bot(tmp_path: Path) -> None:
    """A tournament run from inside a bot's folder writes there; going on with it was refused as "its files changed since"."""
    bot = tmp_path / "mine"
    shutil.copytree(RANDOM, bot, ignore=shutil.ignore_patterns("__pycache__"))
    save = bot / "games.jsonl"
    args = ["tournament", "generals-war", GREEDY, str(bot), "-n", "2", "--seed", "3", "--save", str(save), "--json"]
    args += ["--replay-dir", str(bot / "replays"), "--log-dir", str(bot / "logs")]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    kept = cut(save, 1)
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    before, after = (json.loads(r.stdout.strip().splitlines()[-1]) for r in (first, again))
    assert {i for i, match in ids(after).items() if match == ids(before)[i]} == kept


def test_a_file_that_is_not_a_save_is_never_written_over(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert "is not a file of saved tournament games" in refused(tmp_path, GREEDY, RANDOM, "--save", str(notes))
    assert notes.read_text() == "my notes\n"
    assert "is a folder" in refused(tmp_path, GREEDY, RANDOM, "--seed", "1", "--save", str(tmp_path))


@pytest.mark.parametrize("seed", [[], ["--seed", "1"]], ids=["seed-from-the-file", "seed-given"])
def test_a_binary_or_deeply_nested_file_is_not_a_save_and_is_left_as_it_was(tmp_path: Path, seed: list[str]) -> None:
    """Both were tracebacks (UnicodeDecodeError, RecursionError) instead of the refusal a text file gets."""
    for name, content in (("photo.jpg", b"\xff\xd8\xff\xe0 not text"), ("deep.json", b"[" * 100_000 + b"]" * 100_000)):
        path = tmp_path / name
        path.write_bytes(content)
        assert "is not a file of saved tournament games" in refused(tmp_path, GREEDY, RANDOM, *seed, "--save", str(path))
        assert path.read_bytes() == content


def test_a_damaged_line_among_the_saved_games_is_played_again_like_a_line_cut_short(tmp_path: Path) -> None:
    """A line of bytes that are not UTF-8 ended the command with a decoding error that named no file."""
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save))
    lines = save.read_bytes().splitlines(keepends=True)
    save.write_bytes(b"".join(lines[:2]) + b"\xff\xfe" + b"[" * 100_000 + b"\n" + b"".join(lines[3:]))
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save))
    assert without_ids(again) == without_ids(first)
    kept = {i for i, match in ids(again).items() if match == ids(first)[i]}
    assert len(kept) == 3, "the other games were taken from the file, the damaged one played again"


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(lambda g: g.pop("ranks"), id="no-ranks"),  # a KeyError traceback
        pytest.param(lambda g: g.__setitem__("ranks", [1]), id="ranks-of-one-seat"),  # standings of a seat that did not play
        pytest.param(lambda g: g.__setitem__("scores", "12"), id="scores-as-text"),
        pytest.param(lambda g: g.__setitem__("replay", 5), id="replay-not-a-path"),  # a TypeError traceback
        pytest.param(lambda g: g.pop("match_id"), id="no-match-id"),
    ],
)
def test_a_saved_game_edited_since_is_played_again_not_a_traceback(tmp_path: Path, edit: Any) -> None:
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    header, *games = save.read_text().splitlines()
    edited = json.loads(games[0])
    edit(edited)
    save.write_text("\n".join([header, json.dumps(edited), *games[1:]]) + "\n")
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    assert without_ids(again) == without_ids(first)
    assert {i for i, match in ids(again).items() if match == ids(first)[i]} == {json.loads(line)["index"] for line in games[1:]}


def test_a_forfeit_taken_from_the_file_is_still_a_forfeit(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", RANDOM, CRASH, "-n", "2", "--seed", "1", "--save", str(save))
    assert {r["bot"]: r["forfeits"] for r in first["standings"]} == {"random": 0, "crash-at-start": 2}
    kept = cut(save, 1)
    again = tournament(tmp_path, "generals-war", RANDOM, CRASH, "-n", "2", "--seed", "1", "--save", str(save))
    assert {i for i, match in ids(again).items() if match == ids(first)[i]} == kept
    assert without_ids(again) == without_ids(first)


def test_a_kept_game_whose_replay_is_gone_names_no_replay(tmp_path: Path) -> None:
    save, replays = tmp_path / "games.jsonl", tmp_path / "replays"
    args = ["generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save), "--replay-dir", str(replays)]
    first = tournament(tmp_path, *args)
    gone, still = (Path(g["replay"]) for g in first["results"])
    gone.unlink()
    again = tournament(tmp_path, *args)
    assert ids(again) == ids(first), "both games taken from the file"
    assert [g["replay"] for g in again["results"]] == [None, str(still.resolve())]


def test_a_tournament_stopped_by_sigterm_keeps_its_finished_games_and_says_how_to_go_on(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "arena.cli.main", "tournament", "generals-war", GREEDY, RANDOM, "-n", "200", "--seed", "3", "-j", "1"]
    command += ["--save", str(save), "--log-dir", str(tmp_path / "logs")]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"})
    deadline = time.monotonic() + 120
    while not (save.is_file() and len(save.read_text().splitlines()) >= 3):  # the header and two games
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    kept = [json.loads(line) for line in save.read_text().splitlines()[1:]]
    assert len(kept) >= 2 and [g["index"] for g in kept] == sorted(g["index"] for g in kept)
    said = f"stopped after {len(kept)} of 200 games: the games finished so far are kept in {save}; the same command goes on from there"
    assert said in " ".join(stderr.split())  # how far it got: the progress bar that told is gone, and into a file there was none


def test_a_save_file_that_cannot_be_written_is_refused_before_any_match(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    message = refused(tmp_path, GREEDY, RANDOM, "--seed", "1", "--save", str(blocker / "games.jsonl"))
    assert "--save's folder" in message and str(blocker) in message
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())
    # the replay folder it had made by then is taken away too: a command that failed leaves no folder behind
    message = refused(tmp_path, GREEDY, RANDOM, "--seed", "1", "--replay-dir", str(tmp_path / "new" / "replays"), "--save", "/proc/games.jsonl")
    assert "--save /proc/games.jsonl" in message and not (tmp_path / "new").exists()


def test_a_bots_digest_reads_its_linked_folders_and_any_file_name(tmp_path: Path) -> None:
    from referee.tournament.saved import bot_digest

    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "strategy.py").write_text("AGGRESSION = 1\n")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("from lib.strategy import AGGRESSION\n")
    (bot / "lib").symlink_to(shared, target_is_directory=True)  # the bot's code, kept beside it
    (bot / "lib" / "loop").symlink_to(bot, target_is_directory=True)  # a link back up is read once, not forever
    before = bot_digest(bot)
    (shared / "strategy.py").write_text("AGGRESSION = 9\n")
    assert bot_digest(bot) != before  # the bot plays otherwise: another bot
    (bot / os.fsdecode(b"caf\xe9.txt")).write_bytes(b"a name that is not UTF-8 (Latin-1)")
    assert bot_digest(bot) != before


def test_each_bot_folder_is_read_once_per_tournament(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's check and the run each hashed every folder, and a bot entered twice twice more."""
    from referee.tournament import saved

    read: list[Path] = []
    real = saved.bot_digest

    def counted(folder: Path, skip: Any = ()) -> str:
        read.append(Path(folder).resolve())
        return real(folder, skip)

    monkeypatch.setattr(saved, "bot_digest", counted)
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, RANDOM, "-n", "2", "--seed", "1", "--save", str(tmp_path / "games.jsonl"))
    assert sorted(read) == sorted({Path(GREEDY).resolve(), Path(RANDOM).resolve()})


def test_other_options_players_clock_or_bots_are_another_tournament(tmp_path: Path) -> None:
    """Each of these plays other games than the file holds: taken from it, they would be another tournament's results."""
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    before = save.read_bytes()
    same = ["-n", "2", "--seed", "3", "--save", str(save)]
    assert "options {} there, {'conquest_points': '5'} here" in refused(tmp_path, GREEDY, RANDOM, *same, "-o", "conquest_points=5")
    assert "move_time_ms 1000 there, 500 here" in refused(tmp_path, GREEDY, RANDOM, *same, "--move-time-ms", "500")
    assert "2 bots there, 3 here" in refused(tmp_path, GREEDY, RANDOM, RANDOM, *same)
    four = refused(tmp_path, GREEDY, RANDOM, GREEDY, RANDOM, *same, "--players", "4")
    assert "players 2 there, 4 here" in four and "2 bots there, 4 here" in four
    assert save.read_bytes() == before


def test_an_sprt_run_again_with_other_hypotheses_error_rates_or_model_is_another_test(tmp_path: Path) -> None:
    """Its saved pairs were taken and read against the new bounds: an SPRT that had accepted H0 at elo1 50 went on
    where it stopped under --elo1 10 as though one test, and the verdict of neither held its error rates."""
    save = tmp_path / "games.jsonl"
    same = ["-n", "4", "--seed", "3", "--sprt", "--save", str(save)]
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, *same)
    before = save.read_bytes()
    assert "elo1 50.0 there, 10.0 here" in refused(tmp_path, GREEDY, RANDOM, *same, "--elo1", "10")
    assert "elo0 0.0 there, -10.0 here" in refused(tmp_path, GREEDY, RANDOM, *same, "--elo0", "-10")
    assert "alpha 0.05 there, 0.1 here" in refused(tmp_path, GREEDY, RANDOM, *same, "--alpha", "0.1")
    assert "beta 0.05 there, 0.01 here" in refused(tmp_path, GREEDY, RANDOM, *same, "--beta", "0.01")
    assert "sprt_model 'pentanomial' there, 'trinomial' here" in refused(tmp_path, GREEDY, RANDOM, *same, "--sprt-model", "trinomial")
    # no test here: the format says it, not each setting of the test there ("alpha 0.05 there, None here; beta…")
    assert "games (format 'sprt' there, 'round-robin' here): give" in refused(tmp_path, GREEDY, RANDOM, *[a for a in same if a != "--sprt"])
    assert save.read_bytes() == before
    assert ids(tournament(tmp_path, "generals-war", GREEDY, RANDOM, *same, "--elo1", "50")) == ids(first)  # the same test
    # an earlier Arena's file named none of them: taken to be this run's, and said so
    header, *games = save.read_text().splitlines(keepends=True)
    older = json.loads(header)
    for key in ("elo0", "elo1", "alpha", "beta", "sprt_model"):
        del older["tournament"][key]
    save.write_text(json.dumps(older) + "\n" + "".join(games))
    again = runner.invoke(app, ["tournament", "generals-war", GREEDY, RANDOM, *same, "--elo1", "10", "--json", "--log-dir", str(tmp_path / "logs")])
    assert again.exit_code == 0, again.output
    assert "which did not record the elo0, the elo1, the alpha, the beta and the sprt_model" in " ".join(again.stderr.split())


def test_a_save_of_another_format_version_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    header, *games = save.read_text().splitlines(keepends=True)
    later = "".join([json.dumps({**json.loads(header), "version": 2}) + "\n", *games])
    save.write_text(later)
    assert f"{save} holds saved games of format version 2, not 1" in refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    assert save.read_text() == later


def test_a_file_saved_before_match_seeds_widened_goes_on_with_the_matches_it_would_have_played(tmp_path: Path) -> None:
    """An earlier Arena derived match seeds below 2**31 and named no ``seeds`` in its header: a resumed tournament
    that took the new seeds found none of its saved games in its schedule and played them all again."""
    import asyncio

    from referee.tournament.run import TournamentConfig, run_tournament
    from referee.tournament.schedule import derive_seed

    save = tmp_path / "games.jsonl"
    config = TournamentConfig("generals-war", [Path(GREEDY), Path(RANDOM)], games=4, seed=3, log_dir=tmp_path / "logs", save=save, seeds=1)
    old = asyncio.run(run_tournament(config))  # the file an earlier Arena wrote
    assert "seeds" not in json.loads(save.read_text().splitlines()[0])["tournament"]
    kept = cut(save, 2)
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--save", str(save))
    assert [r["seed"] for r in again["results"]] == [g.scheduled.seed for g in old.games] == [derive_seed(3, "round", r, seeds=1) for r in (0, 0, 1, 1)]
    assert {i for i, match in ids(again).items() if match == old.games[i].match_id} == kept
    assert [(r["seats"], r["ranks"]) for r in again["results"]] == [([old.labels[b] for b in g.scheduled.seats], list(g.ranks)) for g in old.games]
    # a tournament begun now names its seeds, past 2**31, and goes on with them
    new = tmp_path / "new.jsonl"
    fresh = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(new))
    assert json.loads(new.read_text().splitlines()[0])["tournament"]["seeds"] == 2
    assert [r["seed"] for r in fresh["results"]] == [derive_seed(3, "round", r) for r in (0, 0, 1, 1)]
    kept = cut(new, 2)
    resumed = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "4", "--save", str(new))
    assert {i for i, match in ids(resumed).items() if match == ids(fresh)[i]} == kept


def test_an_sprt_saved_before_match_seeds_widened_goes_on_with_its_pairs(tmp_path: Path) -> None:
    import asyncio

    from referee.tournament.run import TournamentConfig, run_sprt
    from referee.tournament.schedule import derive_seed
    from referee.tournament.sprt import Sprt

    save = tmp_path / "games.jsonl"
    config = TournamentConfig("generals-war", [Path(GREEDY), Path(RANDOM)], games=4, seed=3, log_dir=tmp_path / "logs", save=save, seeds=1)
    old = asyncio.run(run_sprt(config, Sprt()))
    header, *games = save.read_text().splitlines(keepends=True)
    older = json.loads(header)
    for key in ("elo0", "elo1", "alpha", "beta", "sprt_model"):  # nor did an earlier Arena name the test
        del older["tournament"][key]
    save.write_text(json.dumps(older) + "\n" + "".join(games))
    kept = cut(save, 2)
    again = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "--sprt", "-n", "4", "--save", str(save))
    assert [r["seed"] for r in again["results"]] == [derive_seed(3, "round", r, seeds=1) for r in (0, 0, 1, 1)]
    assert {i for i, match in ids(again).items() if match == old.games[i].match_id} == kept


def test_a_save_of_unknown_match_seeds_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    header, *games = save.read_text().splitlines(keepends=True)
    data = json.loads(header)
    later = "".join([json.dumps({**data, "tournament": {**data["tournament"], "seeds": 3}}) + "\n", *games])
    save.write_text(later)
    message = refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--save", str(save))
    assert f"{save} holds games played on match seeds of version 3, which this Arena does not know" in message
    assert save.read_text() == later


def test_a_tournament_without_a_seed_draws_one_as_match_seeds_are_drawn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below 2**31 (Python's random), its every match seed was one of 2**31 whatever the derivation's bound."""
    import secrets

    bounds: list[int] = []

    def highest(bound: int) -> int:
        bounds.append(bound)
        return bound - 1

    monkeypatch.setattr(secrets, "randbelow", highest)
    data = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2")
    assert bounds == [2**53] and data["seed"] == 2**53 - 1


def test_an_empty_file_is_a_save_with_no_games_yet(tmp_path: Path) -> None:
    """`touch games.jsonl` first, or a run killed before it wrote anything: the tournament is played and kept there."""
    save = tmp_path / "games.jsonl"
    save.touch()
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    header, *games = save.read_text().splitlines()
    assert json.loads(header)["format"] == "arena-tournament"
    # by index: two games at a time (one per core) are written as they end, not always in schedule order
    assert {json.loads(g)["index"]: json.loads(g)["match_id"] for g in games} == ids(first)


def test_a_saved_game_is_taken_only_for_the_same_deal_with_the_same_bots_in_the_same_seats(tmp_path: Path) -> None:
    """A swiss round is paired from the results before it: a game played again may pair the next round otherwise, and
    the file's game of that index is then another game."""
    from referee.tournament.saved import SavedGames
    from referee.tournament.schedule import ScheduledGame

    save = tmp_path / "games.jsonl"
    kept = {"index": 0, "seed": 7, "seats": [0, 1], "ranks": [1, 2], "scores": [1.0, 0.0], "forfeited": [False, False], "match_id": "m", "replay": None}
    games = SavedGames(save, {"seed": 1})
    games.add(kept)
    games.close()
    again = SavedGames(save, {"seed": 1})
    assert again.get(ScheduledGame(0, 0, 0, (0, 1), 7, (0, 1))) == kept
    assert again.get(ScheduledGame(0, 0, 0, (0, 1), 7, (1, 0))) is None  # the seats swapped
    assert again.get(ScheduledGame(0, 0, 0, (0, 2), 7, (0, 2))) is None  # another table
    assert again.get(ScheduledGame(0, 0, 0, (0, 1), 8, (0, 1))) is None  # another deal
    assert again.get(ScheduledGame(1, 0, 0, (0, 1), 7, (0, 1))) is None  # not saved


def test_a_bots_digest_counts_file_names_and_not_its_version_control_or_caches(tmp_path: Path) -> None:
    from referee.tournament.saved import bot_digest

    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "bot.py").write_text("import tactics\n")
    (bot / "tactics_new.py").write_text("AGGRESSION = 9\n")
    before = bot_digest(bot)
    for folder in (".git", ".mypy_cache", ".pytest_cache", "__pycache__"):  # a commit, a type check, a test run
        (bot / folder).mkdir()
        (bot / folder / "state").write_text("changed")
    assert bot_digest(bot) == before
    (bot / "tactics_new.py").rename(bot / "tactics.py")  # the same bytes under another name: `import tactics` reads them now
    assert bot_digest(bot) != before


@pytest.mark.parametrize("kept,said", [(2, "2 games saved there are"), (1, "1 game saved there is")])
def test_going_on_says_how_many_games_the_file_held(tmp_path: Path, kept: int, said: str) -> None:
    save = tmp_path / "games.jsonl"
    args = ["tournament", "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save), "--log-dir", str(tmp_path / "logs")]
    assert runner.invoke(app, args).exit_code == 0
    cut(save, kept)
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert f"going on from {save}: {said} not played again" in " ".join(again.stderr.split())


def test_games_saved_under_other_rules_are_another_tournament(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An arena update that changes a game's rules (its rules_version) plays other games from the same seeds: taken from
    the file, the games saved under the old rules were mixed into the standings with the new ones, and nothing said so."""
    import dataclasses

    from referee.games.registry import game_class

    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    before = save.read_bytes()
    cls = game_class("generals-war")
    monkeypatch.setattr(cls, "spec", dataclasses.replace(cls.spec, rules_version=cls.spec.rules_version + 1))
    said = refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    assert f"rules_version {cls.spec.rules_version - 1} there, {cls.spec.rules_version} here" in said
    assert save.read_bytes() == before


def test_a_file_of_an_earlier_arena_which_did_not_name_the_rules_version_or_sandbox_goes_on(tmp_path: Path) -> None:
    """Refused as another tournament's, a tournament under way when Arena was upgraded could not go on: its file is
    taken to hold this run's rules and sandbox, and says so."""
    save = tmp_path / "games.jsonl"
    first = tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    header, *games = save.read_text().splitlines(keepends=True)
    older = json.loads(header)
    for key in ("rules_version", "sandbox", "pin_cpus"):
        del older["tournament"][key]
    save.write_text(json.dumps(older) + "\n" + games[0])  # one game saved of the four
    again = runner.invoke(app, ["tournament", "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save), "--json", "--log-dir", str(tmp_path / "logs")])
    assert again.exit_code == 0, again.output
    said = " ".join(again.stderr.split())
    assert "going on from" in said and "written by an earlier Arena, which did not record the rules_version, the sandbox and the pin_cpus" in said, said
    assert json.loads(again.stdout.strip().splitlines()[-1])["standings"] == first["standings"]
    assert "rules_version" not in save.read_text().splitlines()[0]  # the header stays as it was


def test_games_saved_in_another_sandbox_are_another_tournament(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In Docker a bot runs under the container's limits (memory, no network, its folder alone: docs/faults.md), and one
    that exceeds them forfeits there where it plays as a process: a file of process games went on under --sandbox docker
    and mixed the two, as another clock would."""
    from referee.tournament import run

    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    before = save.read_bytes()
    monkeypatch.setattr(run, "launcher_for", lambda sandbox: None)  # Docker need not be here: the file is refused first
    said = refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--sandbox", "docker", "--save", str(save))
    assert "sandbox 'process' there, 'docker' here" in said
    assert save.read_bytes() == before


def test_games_saved_with_pinned_cpus_are_another_tournament_than_unpinned(tmp_path: Path) -> None:
    """Pinned, a bot that searches on many threads plays on one CPU, unpinned on every core: a file of pinned games
    went on unpinned and mixed the two, as another clock would."""
    from referee.server import cpus

    if not cpus.available():
        pytest.skip(cpus.UNAVAILABLE)
    save = tmp_path / "games.jsonl"
    tournament(tmp_path, "generals-war", GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save), "--pin-cpus")
    before = save.read_bytes()
    said = refused(tmp_path, GREEDY, RANDOM, "-n", "2", "--seed", "3", "--save", str(save))
    assert "pin_cpus True there, False here" in said, said
    assert save.read_bytes() == before


def stopped_midway(tmp_path: Path, command: list[str]) -> str:
    """``command``, stopped by SIGTERM once the sleepy bot is asked to decide (its match under way): its stderr."""
    logs = tmp_path / "logs"
    proc = subprocess.Popen([*command, "--log-dir", str(logs)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"})
    try:
        wait_for("the sleepy bot asked", lambda: any("asked to decide" in log.read_text() for log in logs.glob("*sleepy.log")))
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, stderr
    return " ".join(stderr.split())


def test_a_tournament_stopped_without_save_says_its_games_are_not_kept_and_how_to_keep_them(tmp_path: Path) -> None:
    """With --save, a stopped tournament says where its games are kept; without, it said nothing at all, and an author
    who stopped an hour's tournament learnt only by running it again that every game was gone."""
    said = stopped_midway(tmp_path, [sys.executable, "-m", "arena.cli.main", "tournament", "generals-war", SLEEPY, RANDOM, "-n", "4", "--seed", "3"])
    assert "stopped after 0 of 4 games: the games played so far are not kept; --save FILE keeps each finished game" in said, said


def test_a_tournament_stopped_before_its_first_game_ended_says_its_file_keeps_none(tmp_path: Path) -> None:
    """It said "the games finished so far are kept in games.jsonl" of a file that held no game."""
    save = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "arena.cli.main", "tournament", "generals-war", SLEEPY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save)]
    said = stopped_midway(tmp_path, command)
    assert f"stopped after 0 of 4 games: none had finished, so {save} keeps none yet; the same command starts the tournament again" in said, said
    assert not save.exists() or not save.read_text()


def test_a_match_stopped_midway_says_no_replay_was_written_and_where_the_logs_are(tmp_path: Path) -> None:
    """`arena match` stopped by Ctrl-C or SIGTERM ended in silence: no replay, and no word of where the logs were."""
    replay = tmp_path / "r.json"
    said = stopped_midway(tmp_path, [sys.executable, "-m", "arena.cli.main", "match", "generals-war", SLEEPY, RANDOM, "--seed", "3", "--replay", str(replay)])
    assert f"stopped: the match was not finished, so no replay was written; the bots' logs so far are in {tmp_path / 'logs'}/" in said, said
    assert not replay.exists()


@pytest.mark.parametrize(
    "junk",
    [{"logs": 5}, {"why": [{"kind": 5}, None]}, {"why": "x"}, {"logs": [1, 2]}, {"why": [{"kind": "CRASH"}, None]}],
)
def test_a_saved_games_forfeit_notes_edited_into_junk_lose_only_the_note(tmp_path: Path, junk: dict[str, Any]) -> None:
    """A saved game's `logs` and `why` (the explanation of a forfeit) are read only when whole: junk there was a
    TypeError traceback, or a KeyError when the forfeit was printed. The game's result still counts."""
    save = tmp_path / "games.jsonl"
    args = ["generals-war", str(TEST_BOTS / "crash_at_start"), RANDOM, "--games", "2", "--seed", "1", "--save", str(save)]
    first = tournament(tmp_path, *args)
    header, *games = save.read_text().splitlines()
    save.write_text("\n".join([header, *(json.dumps({**json.loads(g), **junk}) for g in games)]) + "\n")
    again = runner.invoke(app, ["tournament", *args, "--log-dir", str(tmp_path / "logs")])
    assert again.exit_code == 0 and "Traceback" not in again.output, again.output
    assert "forfeited games: crash-at-start (2)" in " ".join(again.output.split())
    assert tournament(tmp_path, *args)["standings"] == first["standings"]


def test_a_junk_line_for_a_game_already_saved_neither_replaces_it_nor_counts(tmp_path: Path) -> None:
    """A later line of the same game edited into junk replaced the whole one (the game was played again), and the
    command counted it and a line of no result among the games "not played again"."""
    save = tmp_path / "games.jsonl"
    args = ["tournament", "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save), "--log-dir", str(tmp_path / "logs")]
    first = runner.invoke(app, [*args, "--json"])
    assert first.exit_code == 0, first.output
    with open(save, "a") as f:
        f.write('{"index": 1}\n{"index": 7, "ranks": "none"}\n')
    lines = save.read_text().splitlines()
    again = runner.invoke(app, [*args, "--json"])
    assert again.exit_code == 0, again.output
    assert "going on from " in again.stderr and ": 4 games saved there are not played again" in " ".join(again.stderr.split())
    assert save.read_text().splitlines() == lines, "no game played again"
    assert ids(json.loads(again.stdout.strip().splitlines()[-1])) == ids(json.loads(first.stdout.strip().splitlines()[-1]))


def test_a_file_another_tournament_is_writing_now_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    """The same command started twice (a second terminal): both played every game and wrote the file at once, the
    second opening it afresh over the first's lines. The second is now refused until the first lets go."""
    import fcntl

    save = tmp_path / "games.jsonl"
    args = ["tournament", "generals-war", GREEDY, RANDOM, "-n", "4", "--seed", "3", "--save", str(save), "--log-dir", str(tmp_path / "logs")]
    assert runner.invoke(app, args).exit_code == 0
    cut(save, 2)
    before = save.read_bytes()
    with open(save, "rb") as running:
        fcntl.flock(running.fileno(), fcntl.LOCK_EX)  # as a tournament playing now holds it
        refused = runner.invoke(app, args)
        assert refused.exit_code == 2, refused.output
        assert f"{save} is being written by another tournament running now" in " ".join(refused.output.split())
        assert save.read_bytes() == before
    assert runner.invoke(app, args).exit_code == 0, "let go, the file is this tournament's again"
    assert len(save.read_text().splitlines()) == 1 + 2 + 1 + 2, "the header, two games, the line cut short and the other two"
