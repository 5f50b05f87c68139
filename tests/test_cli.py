"""The arena command, end to end: real bot processes on a real referee."""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import socket
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from referee.server.replay import load_replay, replay_game
from tests.boxed_tables import boxed_tables
from tests.support import ROOT, SAMPLE_BOTS, TEST_BOTS
from tests.waiting import wait_for

runner = CliRunner()
GREEDY = str(SAMPLE_BOTS / "generals_war_greedy")
RANDOM = str(SAMPLE_BOTS / "random")


def match_json(tmp_path: Path, *args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["match", *args, "--json", "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_games_lists_every_game_with_player_counts() -> None:
    result = runner.invoke(app, ["games", "--json"])
    assert result.exit_code == 0
    games = {g["id"]: g for g in json.loads(result.stdout)}
    assert games["generals-war"]["players"] == [2, 4]
    assert games["generals-war"]["options"]["conquest_points"]["default"] == 7
    assert games["glory"]["score"] == "Glory Points"  # what a result's score counts, from the game's spec
    table = runner.invoke(app, ["games"])
    assert "General's War" in table.stdout and "2 or 4" in table.stdout and "2 to 6" in table.stdout


def test_version_names_arenas_and_the_bot_protocols() -> None:
    """As cutechess-cli's and fastchess's: a bug report says which Arena, and a bot author which protocol."""
    import tomllib

    from referee.protocol.messages import PROTOCOL_VERSION

    result = runner.invoke(app, ["--version"])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert result.exit_code == 0 and result.stdout == f"arena {project} (bot protocol {PROTOCOL_VERSION})\n", result.output


def test_games_table_shows_every_id_and_option_whole_at_80_columns() -> None:
    """The ids and options are what a user types next; a cut one ('generals-and-assa…') cannot be copied."""
    table = runner.invoke(app, ["games"], env={"COLUMNS": "80"}).stdout
    assert max(len(line) for line in table.splitlines()) <= 80
    words = set(table.split())
    for game in json.loads(runner.invoke(app, ["games", "--json"]).stdout):
        assert game["id"] in words
        for name, option in game["options"].items():
            default = option["default"]  # as typed after -o: JSON's true, not Python's True
            assert f"{name}={default if isinstance(default, str) else json.dumps(default)}" in words


def test_every_commands_summary_is_printed_on_one_line_when_the_terminal_is_wide_enough() -> None:
    """Typer's list of a group's commands keeps a line break of a command's first paragraph: `arena --help` broke
    `play`'s summary after "pick or type", mid-sentence, however wide the terminal."""
    import typer.main

    def check(group: Any, path: list[str]) -> int:
        commands = getattr(group, "commands", {})
        if not commands:
            return 0
        listed = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "400"}).stdout
        lines = [" ".join(line.split()) for line in listed.splitlines()]
        checked = 0
        for name, command in commands.items():
            summary = " ".join((command.help or "").split("\n\n")[0].split())
            assert any(f"{name} {summary}" in line for line in lines), (path, name, summary, listed)
            checked += 1 + check(command, [*path, name])
        return checked

    assert check(typer.main.get_command(app), []) > 30


def test_no_flag_is_shown_as_taking_a_value_in_any_commands_help() -> None:
    """Typer 0.29 printed ``<bool>`` beside every flag (``--help <bool>``, ``--json <bool>``): a reader typed
    ``--json true`` and was told "got unexpected extra argument". A flag's line shows no value to give."""
    import typer.main

    def helps(group: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
        yield path, group
        for name, command in getattr(group, "commands", {}).items():
            yield from helps(command, [*path, name])

    flags = 0
    for path, command in helps(typer.main.get_command(app), []):
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout
        assert "<bool>" not in shown and "BOOLEAN" not in shown, (path, shown)
        flags += sum(1 for p in command.params if getattr(p, "is_flag", False) and p.opts[0] in shown)
    assert flags > 20


def test_every_seed_option_takes_any_64_bit_integer_and_its_help_prints_no_bounds() -> None:
    """With ``min``/``max`` on ``--seed``, each command's help printed -9223372036854775808<=x<=9223372036854775807
    beside it; the bounds are checked by a callback now, with the same refusal past them."""
    import typer.main

    def with_seed(group: Any, path: list[str]) -> Iterator[list[str]]:
        for name, command in getattr(group, "commands", {}).items():
            if any("--seed" in getattr(param, "opts", ()) for param in command.params):
                yield [*path, name]
            yield from with_seed(command, [*path, name])

    found = list(with_seed(typer.main.get_command(app), []))
    assert len(found) >= 5, found  # match, play, tournament, referee serve, ladder serve
    for path in found:
        shown = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"}).output
        assert "--seed" in shown and "922337203685477" not in shown, (path, shown)
        for bad in (str(2**63), str(-(2**63) - 1)):
            refused = runner.invoke(app, [*path, "--seed", bad])
            assert refused.exit_code == 2 and "is no seed" in " ".join(refused.output.split()), (path, refused.output)


def test_match_prints_json_writes_a_replay_and_is_deterministic(tmp_path: Path) -> None:
    replay = tmp_path / "m.json"
    first = match_json(tmp_path, "generals-war", GREEDY, RANDOM, "--seed", "42", "--replay", str(replay))
    assert first["game"] == "generals-war" and first["seed"] == 42
    assert [s["bot"] for s in first["seats"]] == ["gw-greedy", "random"]
    assert sorted(s["rank"] for s in first["seats"]) in ([1, 2], [1, 1])
    for seat in first["seats"]:
        assert set(seat) >= {"seat", "bot", "rank", "score", "verdicts"} and seat["verdicts"] == []
    data = load_replay(replay)
    replay_game(data)
    again = match_json(tmp_path, "generals-war", GREEDY, RANDOM, "--seed", "42", "--replay", str(tmp_path / "m2.json"))
    assert [(s["rank"], s["score"]) for s in again["seats"]] == [(s["rank"], s["score"]) for s in first["seats"]]
    assert load_replay(tmp_path / "m2.json")["actions"] == data["actions"]


def test_a_second_match_with_the_same_seed_keeps_the_first_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default replays/<game>-<seed>.json was overwritten by any later match with that seed, other bots or not."""
    monkeypatch.chdir(tmp_path)
    first = match_json(tmp_path, "generals-war", GREEDY, RANDOM, "--seed", "7")
    second = match_json(tmp_path, "generals-war", RANDOM, RANDOM, "--seed", "7")
    assert first["replay"] == "replays/generals-war-7.json" and second["replay"] == "replays/generals-war-7-2.json"
    assert [s["name"] for s in load_replay(tmp_path / first["replay"])["seats"]] == ["gw-greedy", "random"]
    assert [s["name"] for s in load_replay(tmp_path / second["replay"])["seats"]] == ["random", "random"]


def test_an_unbuilt_bot_is_refused_before_the_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A TypeScript bot before build-bots.sh: the match was played, the bot crashed at once, 'Cannot find module' in its log."""
    monkeypatch.chdir(tmp_path)
    unbuilt = tmp_path / "unbuilt"
    shutil.copytree(SAMPLE_BOTS / "typescript_random", unbuilt, ignore=shutil.ignore_patterns("dist"))
    for args in (["match", "generals-war", str(unbuilt), RANDOM], ["tournament", "generals-war", str(unbuilt), RANDOM, "--games", "2"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "names dist/main.js, which is not in the bot's folder (build the bot first" in " ".join(result.output.split())
    assert not (tmp_path / "replays").exists()


def test_a_typescript_bot_edited_since_its_build_is_warned_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The referee runs dist/main.js: an author who edited bot.ts and played without building again played the old bot, unwarned."""
    monkeypatch.chdir(tmp_path)
    edited = tmp_path / "edited"
    (edited / "dist").mkdir(parents=True)
    (edited / "bot.toml").write_text('name = "edited"\nversion = "1"\nlanguage = "typescript"\ngames = ["generals-war"]\ncommand = ["node", "dist/main.js"]\n')
    (edited / "dist" / "main.js").write_text("")  # no need of node: the warning comes before the match, whatever the bot does
    (edited / "bot.ts").write_text("")
    os.utime(edited / "dist" / "main.js", (1e9, 1e9))
    warning = "warning: edited: bot.ts changed after dist/main.js was built, so the old bot plays: build it again (npm run build)"
    commands = (
        ["match", "generals-war", str(edited), str(edited), "--json"],
        ["tournament", "generals-war", str(edited), RANDOM, "--games", "2", "--json"],
        ["bot", "check", str(edited)],
        ["ladder", "submit", str(edited), "--server", "http://127.0.0.1:9", "--token", "t"],  # warned before it fails to connect
    )
    for args in commands:
        result = runner.invoke(app, args)
        assert " ".join(result.output.split()).count(warning) == 1, result.output  # once, for a bot given twice too
    os.utime(edited / "bot.ts", (0.9e9, 0.9e9))
    result = runner.invoke(app, ["match", "generals-war", str(edited), RANDOM, "--json"])
    assert "warning" not in result.output


def test_four_player_match_with_a_table(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["match", "generals-war", GREEDY, RANDOM, RANDOM, GREEDY, "--seed", "3", "--replay", str(tmp_path / "r.json"), "--log-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert "gw-greedy" in result.stdout and "rank" in result.stdout
    assert "opponents a seat outlasted" in " ".join(result.stdout.split())  # the caption says what the score counts


def test_paths_that_look_like_markup_are_printed_as_they_are(tmp_path: Path) -> None:
    """A folder named "[old]" vanished from the printed replay path, one named "[/x]" raised rich's MarkupError."""
    for name in ("[old]", "[/x]"):
        folder = tmp_path / name
        result = runner.invoke(app, ["match", "generals-war", GREEDY, RANDOM, "--seed", "3", "--replay", str(folder / "r.json"), "--log-dir", str(folder)])
        assert result.exit_code == 0, result.output
        assert f"replay: {folder / 'r.json'}" in result.stdout and f"logs: {folder}/" in result.stdout, result.output


def test_a_crashing_and_a_silent_bot_get_verdicts_and_the_match_ends(tmp_path: Path) -> None:
    out = match_json(tmp_path, "generals-war", str(TEST_BOTS / "crash_at_start"), RANDOM, "--seed", "1", "--replay", str(tmp_path / "a.json"))
    crash = out["seats"][0]
    assert [v["kind"] for v in crash["verdicts"]] == ["CRASH", "FORFEIT"] and crash["rank"] == 2
    log = next((tmp_path / "logs").glob("*crash-at-start.log")).read_text()
    assert "crashing on purpose" in log
    assert log.splitlines()[-1].startswith("[referee] at decision 0: the bot's process exited with code "), "the log says how it ended"
    out = match_json(
        tmp_path, "generals-war", RANDOM, str(TEST_BOTS / "sleepy"), "--seed", "1", "--move-time-ms", "100", "--time-bank-ms", "0",
        "--strike-limit", "1", "--replay", str(tmp_path / "b.json"),
    )
    sleepy = out["seats"][1]
    assert [v["kind"] for v in sleepy["verdicts"]] == ["TIMEOUT", "TIMEOUT", "FORFEIT"]
    assert sleepy["rank"] == 2 and out["seats"][0]["verdicts"] == []


def test_a_verdict_names_the_decision_it_was_given_at(tmp_path: Path) -> None:
    """A bot that crashes mid-game: its verdict's decision is the one its log names, not the match's first."""
    from tests.test_faults import faulty_bot

    out = match_json(tmp_path, "generals-war", str(faulty_bot(tmp_path, "crash_mid_game")), RANDOM, "--seed", "1", "--replay", str(tmp_path / "a.json"))
    crash = out["seats"][0]["verdicts"][0]
    said = re.search(r"^\[referee\] at decision (\d+): ", Path(out["seats"][0]["log"]).read_text(), re.MULTILINE)
    assert crash["kind"] == "CRASH" and said is not None and crash["decision"] == int(said[1]) > 0


def test_a_run_of_one_verdict_is_counted_in_the_table(tmp_path: Path) -> None:
    """A bot refused 20 times a decision filled the verdicts' column with 80 "illegal action@N", wrapped down the
    screen; each run of one kind at one decision is now said once, with its count."""
    from tests.test_faults import faulty_bot

    args = ["match", "generals-war", str(faulty_bot(tmp_path, "illegal_forever")), RANDOM, "--seed", "1", "--strike-limit", "1",
            "--move-time-ms", "10000", "--time-bank-ms", "0", "--replay", str(tmp_path / "a.json"), "--log-dir", str(tmp_path / "logs")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    # The cell read whole, its folded lines joined: the console may be 80 wide (a width fixed when another test made it).
    rows = boxed_tables(result.stdout)[0]
    first = next(i for i, row in enumerate(rows) if row["bot"] == "faulty-illegal-forever")
    folded = [rows[first], *itertools.takewhile(lambda row: not row["seat"], rows[first + 1 :])]
    said = " ".join(row["verdicts"] for row in folded)
    assert re.fullmatch(r"illegal action@(\d+) ×21, illegal action@(\d+) ×21, forfeit@\2", said), result.stdout


def test_a_command_the_shell_cannot_find_is_named_as_such(tmp_path: Path) -> None:
    """Exit code 127 with "with an SDK, call run" sent an author who misspelt "python" hunting in their code."""
    bot = tmp_path / "typo"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "typo"\nversion = "1"\ngames = ["generals-war"]\ncommand = ["pythno", "bot.py"]\n')
    (bot / "bot.py").write_text("")
    out = match_json(tmp_path, "generals-war", str(bot), RANDOM, "--seed", "1", "--replay", str(tmp_path / "a.json"))
    detail = out["seats"][0]["verdicts"][0]["detail"]
    assert "code 127 before it connected" in detail and "on PATH" in detail and "call run" not in detail


def test_a_seat_with_verdicts_is_told_why_and_where_its_log_is(tmp_path: Path) -> None:
    """The table gives only 'crash@0'; the log that says why is one of many in the log folder. The verdicts' kinds
    read in words, as the viewer's ("illegal action"), where the JSON keeps their names."""
    result = runner.invoke(
        app,
        ["match", "generals-war", str(TEST_BOTS / "crash_at_start"), RANDOM, "--seed", "1",
         "--replay", str(tmp_path / "a.json"), "--log-dir", str(tmp_path / "logs")],
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert re.search(r"crash@0, forfeit@\d+", " ".join(result.stdout.split())) and "CRASH" not in result.stdout, result.stdout
    note = next(i for i, line in enumerate(lines) if line.startswith("seat 0 (crash-at-start) forfeited: crash at decision 0: "))
    assert "exited with code" in lines[note] and "(and 1 more verdict)" in lines[note]
    # The code alone does not name the cause: the last line the bot wrote (an exception's message) does.
    assert lines[note + 1] == "  its last words: crashing on purpose", result.stdout
    log = Path(lines[note + 2].removeprefix("  log: "))
    assert log.name.endswith("-seat0-crash-at-start.log") and "crashing on purpose" in log.read_text()
    assert not any(line.startswith("seat 1 ") for line in lines), "a seat without verdicts gets no note"
    out = match_json(tmp_path, "generals-war", str(TEST_BOTS / "crash_at_start"), RANDOM, "--seed", "1", "--replay", str(tmp_path / "b.json"))
    assert "crashing on purpose" in Path(out["seats"][0]["log"]).read_text()


@pytest.mark.parametrize(
    "args,message",
    [
        (["no-such-game", RANDOM, RANDOM], "unknown game"),
        (["generals-war", RANDOM, RANDOM, RANDOM], "2 or 4 players"),
        (["generals-war", RANDOM, RANDOM, "-o", "conquest_points=0"], "at least 1"),
        (["generals-war", RANDOM, RANDOM, "-o", "speed"], "NAME=VALUE"),
        # int() reads other scripts' digits and underscores: "３" was 3 rounds
        (["generals-war", RANDOM, RANDOM, "-o", "conquest_points=\uff13"], "takes a whole number"),
        (["generals-war", RANDOM, RANDOM, "-o", "conquest_points=1_0"], "takes a whole number"),
        (["generals-war", RANDOM, RANDOM, "-o", "conquest_points=2", "-o", "conquest_points=3"], "given twice"),
        (["generals-war", RANDOM, "/nonexistent"], "not a directory"),
        (["generals-war", RANDOM, str(ROOT / "tests")], "no bot.toml"),
        # past what the protocol's uint32 carries, the match failed sending its first message (a traceback)
        (["generals-war", RANDOM, RANDOM, "--move-time-ms", "5000000000"], "Invalid value for '--move-time-ms'"),
        (["generals-war", RANDOM, RANDOM, "--strike-limit", "5000000000"], "Invalid value for '--strike-limit'"),
        (["generals-war", RANDOM, RANDOM, "--move-time-ms", "0"], "Invalid value for '--move-time-ms'"),
        (["generals-war", RANDOM, RANDOM, "--time-bank-ms", "-1"], "Invalid value for '--time-bank-ms'"),
        # each fits a uint32, but a request's time left is the two added
        (["generals-war", RANDOM, RANDOM, "--move-time-ms", "3000000000", "--time-bank-ms", "3000000000"], "Invalid value for '--move-time-ms'"),
        # a seed of some 4,300 digits crashed the match when the bots' seeds were derived from it
        (["generals-war", RANDOM, RANDOM, "--seed", str(2**63)], "Invalid value for '--seed'"),
    ],
)
def test_bad_input_gets_a_clear_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["match", *args])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


def test_a_bot_whose_manifest_misspells_its_game_is_told_so(tmp_path: Path) -> None:
    """'does not play generals-war (its games: generals-wars)' left the author to spot the extra letter."""
    (tmp_path / "bot.toml").write_text('name = "b"\nversion = "1"\ngames = ["generals-wars"]\ncommand = ["python", "bot.py"]\n')
    result = runner.invoke(app, ["match", "generals-war", RANDOM, str(tmp_path)])
    assert result.exit_code == 2
    assert "no game is called generals-wars: `arena games` lists them" in " ".join(result.output.split())


def test_paths_that_cannot_take_logs_or_replays_are_refused_before_playing(tmp_path: Path) -> None:
    """A result must not be lost after the match to a replay path that is a folder, nor every seat to a log path that is a file."""
    a_file, a_folder = tmp_path / "a-file", tmp_path / "a-folder"
    a_file.write_text("x")
    a_folder.mkdir()
    manifest_folder = tmp_path / "bot"
    (manifest_folder / "bot.toml").mkdir(parents=True)
    taken = socket.create_server(("127.0.0.1", 0))
    cases = [
        (["match", "glory", RANDOM, RANDOM, "--log-dir", str(a_file)], "--log-dir " + str(a_file) + " is not a directory"),
        (["match", "glory", RANDOM, RANDOM, "--log-dir", str(a_file / "logs")], f"{a_file} is a file, not a directory"),
        (["match", "glory", RANDOM, RANDOM, "--log-dir", str(tmp_path / "logs"), "--replay", str(a_folder)], "is a directory"),
        (["match", "glory", RANDOM, str(manifest_folder)], "cannot be read"),
        (["tournament", "glory", RANDOM, RANDOM, "--games", "1", "--log-dir", str(tmp_path / "logs"), "--replay-dir", str(a_file)], "is not a directory"),
        (["replay", str(a_file), "--port", "99999"], "65535"),
        (["referee", "serve", "glory", "--port", "99999"], "65535"),
        (["referee", "serve", "glory", "--connect-timeout-s", "0"], "1"),
        (["referee", "serve", "glory", "--port", str(taken.getsockname()[1])], "cannot listen on 127.0.0.1:"),
        (["referee", "serve", "glory", "--host", "no-such-host.invalid"], "cannot listen on no-such-host.invalid:50051"),
        (["match", "glory", RANDOM, RANDOM, "--log-dir", str(tmp_path / "new1" / "logs"), "--replay", str(a_file / "r.json")], "is not a directory"),
        (["tournament", "glory", RANDOM, RANDOM, "--log-dir", str(tmp_path / "new2"), "--replay-dir", str(a_file)], "is not a directory"),
        # a file that cannot be made where the folder is fine: found only after the match, which was lost with it
        (["match", "glory", RANDOM, RANDOM, "--log-dir", str(tmp_path / "logs"), "--replay", "/proc/arena-replay.json"], "--replay /proc/arena-replay.json: No such file"),
        (["referee", "serve", "glory", "--port", "0", "--replay", "/proc/arena-replay.json"], "--replay /proc/arena-replay.json: No such file"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()), (args, result.output)
    taken.close()
    assert not list(tmp_path.rglob("*.json")), "no match was played"
    assert not (tmp_path / "new1").exists() and not (tmp_path / "new2").exists(), "no folder made for a command that failed"


def test_referee_serve_takes_a_name_per_seat_or_none() -> None:
    """The names go into every seat's GameStart and the replay: one per seat, each a bot name, or the match is not hosted."""
    for args, message in [
        (["--players", "3", "--name", "a", "--name", "b"], "3 names for 3 seats, not 2"),
        (["--name", "a", "--name", "a b"], "--name 'a b' must start with a letter or digit"),
    ]:
        result = runner.invoke(app, ["referee", "serve", "glory", "--port", "0", *args])
        assert result.exit_code == 2 and message in " ".join(result.output.split()), (args, result.output)
        assert "listening" not in result.output


def test_a_replay_that_cannot_be_written_after_the_match_keeps_the_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The disk full when the match ends: a traceback, and with --json no result at all."""
    import referee.server.replay

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(referee.server.replay, "write_replay", full)
    replay = tmp_path / "r.json"
    result = runner.invoke(app, ["match", "glory", RANDOM, RANDOM, "--seed", "3", "--json", "--replay", str(replay), "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 1, result.output
    said = [line for line in result.output.splitlines() if line.startswith("{")]
    assert len(said) == 1 and json.loads(said[0])["replay"] is None and len(json.loads(said[0])["seats"]) == 2, result.output
    assert f"error: the replay could not be written to {replay}: No space left on device" in result.output
    assert "Traceback" not in result.output
    table = runner.invoke(app, ["match", "glory", RANDOM, RANDOM, "--seed", "3", "--replay", str(replay), "--log-dir", str(tmp_path / "logs")])
    assert table.exit_code == 1 and "replay: (not written)" in table.output, table.output  # the table too: a script sees it failed


def test_a_replay_nested_too_deep_or_with_a_huge_number_is_refused(tmp_path: Path) -> None:
    """Both were tracebacks: RecursionError from the JSON parser, ValueError from a number of 5,000 digits."""
    deep, huge = tmp_path / "deep.json", tmp_path / "huge.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    huge.write_text('{"format": "arena-replay", "seed": ' + "9" * 5000 + "}")
    for path, message in ((deep, "its JSON nests too deep"), (huge, "not a JSON replay (Exceeds the limit")):
        result = runner.invoke(app, ["replay", str(path), "--no-browser", "--port", "0"])
        assert result.exit_code == 2, result.output
        assert message in " ".join(result.output.split()), result.output


def test_a_tournaments_save_file_given_as_a_replay_is_named_as_what_it_is(tmp_path: Path) -> None:
    """`arena replay t.jsonl` said "not a JSON replay (Extra data: line 2 column 1)": an author who took the
    tournament's file for its replays was not told what it was, nor where a tournament's replays go."""
    saved = tmp_path / "t.jsonl"
    result = runner.invoke(app, ["tournament", "glory", RANDOM, RANDOM, "--games", "2", "--seed", "1", "--save", str(saved), "--json", "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    for path in (saved, tmp_path / "header-only.jsonl"):
        if path != saved:
            path.write_text(saved.read_text().splitlines()[0] + "\n")
        shown = runner.invoke(app, ["replay", str(path), "--text"])
        said = " ".join(shown.output.split())
        assert shown.exit_code == 2 and "a tournament's --save file" in said and "--replay-dir" in said, said


def test_referee_serve_seats_a_game_without_a_two_seat_table_at_its_smallest_count(tmp_path: Path) -> None:
    """As `arena tournament --players` does: the default of 2 refused the Assassination Game ("played by 4 players,
    not 2") though no --players was given."""
    replay = tmp_path / "r.json"
    args = ["referee", "serve", "assassination", "--port", "0", "--connect-timeout-s", "1", "--replay", str(replay)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert [line.split(":")[0] for line in result.stdout.splitlines() if "ARENA_TOKEN=" in line] == [f"seat {i}" for i in range(4)]
    assert load_replay(replay)["num_players"] == 4
    glory = runner.invoke(app, ["referee", "serve", "glory", "--port", "0", "--connect-timeout-s", "1", "--replay", str(tmp_path / "g.json")])
    assert glory.exit_code == 0 and glory.stdout.count("ARENA_TOKEN=") == 2, glory.output  # 2 where the game allows it


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6")
def test_referee_serve_listens_on_an_ipv6_address(tmp_path: Path) -> None:
    """gRPC reads "::1:0" as host "::1:0"; an IPv6 address needs brackets."""
    args = ["referee", "serve", "glory", "--host", "::1", "--port", "0", "--connect-timeout-s", "1", "--replay", str(tmp_path / "r.json")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "listening on ::1:" in result.output and (tmp_path / "r.json").is_file()


def test_referee_serve_names_its_default_replay_by_the_match_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """replays/<game>-<seed>.json alone: a second match on the same seed wrote over the first one's replay."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["referee", "serve", "glory", "--port", "0", "--seed", "3", "--connect-timeout-s", "1"])
    assert result.exit_code == 0, result.output
    match_id = re.search(r"ARENA_MATCH_ID=(\S+)", result.stdout)
    assert match_id is not None and f"replay: replays/glory-3-{match_id[1]}.json" in result.stdout
    assert load_replay(tmp_path / "replays" / f"glory-3-{match_id[1]}.json")["seed"] == 3


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6")
def test_the_replay_viewer_on_an_ipv6_address_prints_an_address_a_browser_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """http://::1:8000/ is no address: a browser reads the port as part of the host."""
    import uvicorn

    from tests.web.test_frames import replay_data

    monkeypatch.setattr(uvicorn.Server, "run", lambda *_, **__: None)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(replay_data("glory", 2, seed=3)))
    result = runner.invoke(app, ["replay", str(path), "--no-browser", "--port", "0", "--host", "::1"])
    assert result.exit_code == 0, result.output
    assert re.search(r"replay viewer for .*: http://\[::1\]:\d+/ ", result.stdout), result.stdout


@pytest.mark.parametrize(
    "change,message",
    [
        (lambda d: d["actions"][0].pop("action"), "is refused: 'action'"),
        (lambda d: d["actions"][0].pop("seat"), "action 0 of seat None is refused"),
        (lambda d: d["actions"].__setitem__(0, 7), "action 0 of seat None is refused"),
        (lambda d: d.__setitem__("seats", None), "its seats are not a list"),
        (lambda d: d.__setitem__("seats", [1, 2]), "its seats are not a list"),
        (lambda d: d["seats"][0].__setitem__("verdicts", "TIMEOUT"), "its seats are not a list"),
        (lambda d: d.__setitem__("game_result", [1, 2]), "result differs"),
        (lambda d: d.__setitem__("options", ["rounds"]), "its options are not an object"),
        (lambda d: d.__setitem__("seed", "x"), "its seed is not a whole number"),  # it dealt another match, refused later
    ],
)
def test_a_replay_file_with_malformed_parts_gets_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any, message: str) -> None:
    """A replay edited by hand, or written by another tool, is refused with the part that is wrong, not a traceback."""
    import uvicorn

    from tests.web.test_frames import replay_data

    monkeypatch.setattr(uvicorn.Server, "run", lambda *_, **__: None)  # a file let through is not served until the test is killed

    data = replay_data("glory", 2, seed=3)
    change(data)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(path), "--no-browser", "--port", "0"])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())


@pytest.mark.parametrize(
    "game,heuristic,players",
    [("glory", "glory_heuristic", n) for n in (2, 3, 4, 6)] + [("generals-and-assassins", "generals_and_assassins_heuristic", n) for n in (2, 3, 4)],
)
def test_multiplayer_games_run_with_sample_bots(tmp_path: Path, game: str, heuristic: str, players: int) -> None:
    bots = [str(SAMPLE_BOTS / heuristic)] + [RANDOM] * (players - 1)
    out = match_json(tmp_path, game, *bots, "--seed", str(players), "--replay", str(tmp_path / "r.json"))
    assert len(out["seats"]) == players and min(s["rank"] for s in out["seats"]) == 1
    assert all(s["verdicts"] == [] for s in out["seats"])
    replay_game(load_replay(tmp_path / "r.json"))


def test_sigterm_stops_a_match_with_its_bots_and_scratch_folder(tmp_path: Path) -> None:
    """`kill`, `timeout` or a cancelled CI job sends SIGTERM: the match stops as on Ctrl-C, its clean-up done."""
    import os
    import signal
    import subprocess
    import sys
    import tempfile
    import time

    bot = tmp_path / "sleepy"
    shutil.copytree(TEST_BOTS / "sleepy", bot)  # its own folder: its processes are found by it
    scratch = Path(tempfile.mkdtemp(prefix="t-", dir="/tmp"))  # short: a unix socket's path has at most 107 bytes
    arena = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "match", "generals-war", str(bot), RANDOM, "--seed", "1", "--move-time-ms", "60000",
         "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")],
        env={**os.environ, "TMPDIR": str(scratch)}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip

    def bot_processes() -> list[str]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                cwd = os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                continue
            if cwd == str(bot) and b"bot.py" in cmdline:
                found.append(pid)
        return found

    deadline = time.monotonic() + 30
    while not bot_processes() and time.monotonic() < deadline and arena.poll() is None:
        time.sleep(0.1)
    if not bot_processes():
        arena.kill()
        pytest.fail(f"the bot never started: {arena.communicate()[0].decode(errors='replace')}")
    logs = tmp_path / "logs"

    def sleeping() -> bool:
        return any("asked to decide: sleeping" in log.read_text(errors="replace") for log in logs.glob("*sleepy.log"))

    wait_for("the bot to be asked to decide (it then sleeps in act)", lambda: sleeping() or arena.poll() is not None, timeout=60, every=0.05)
    if not sleeping():
        pytest.fail(f"the bot was never asked to decide: {arena.communicate()[0].decode(errors='replace')}")
    arena.send_signal(signal.SIGTERM)
    out, _ = arena.communicate(timeout=30)
    assert arena.returncode == 128 + signal.SIGTERM, out.decode(errors="replace")
    assert bot_processes() == []
    assert list(scratch.iterdir()) == []
    scratch.rmdir()
    assert not (tmp_path / "r.json").exists()  # no result: nothing written as if the match had been played


def test_a_match_names_its_replay_and_logs_whole_at_80_columns(tmp_path: Path) -> None:
    """Rich broke a long path across lines at 80 columns (a pipe, CI's log): the replay's path could not be copied."""
    deep = tmp_path / "a-folder-with-a-rather-long-name" / "and-another-one-inside-it"
    replay, logs = deep / "generals-war-replay-of-seed-42.json", deep / "the-bots-logs"
    args = ["match", "generals-war", GREEDY, RANDOM, "--seed", "42", "--replay", str(replay), "--log-dir", str(logs)]
    result = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert f"replay: {replay}   logs: {logs}/" in result.stdout.splitlines()
    assert replay.is_file()
