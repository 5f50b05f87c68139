"""What `arena match`, `arena play` and `arena referee serve` hand the match: the options typed reach it, and a match that does not end
leaves the files it was given as they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import referee.server.runner
from arena.cli.main import app, parse_options, verdict_note
from referee.server.replay import load_replay
from referee.server.session import TimeControl
from tests.support import SAMPLE_BOTS

runner = CliRunner()
GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"


class Stop(Exception):
    """Raised in place of playing: the test wanted only the setup."""


def setups(monkeypatch: pytest.MonkeyPatch, play: bool) -> list[Any]:
    """Every ``MatchSetup`` the command hands the runner; the match is played only if ``play``."""
    seen: list[Any] = []
    real = referee.server.runner.run_local_match

    def run_local_match(setup: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(setup)
        if not play:
            raise Stop
        return real(setup, *args, **kwargs)

    monkeypatch.setattr(referee.server.runner, "run_local_match", run_local_match)
    return seen


def test_a_match_is_played_with_the_seed_seats_options_and_clock_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game option or a clock lost on the way played another match than the one asked for, with nothing said."""
    seen = setups(monkeypatch, play=True)
    replay = tmp_path / "r.json"
    args = [
        "match", "generals-war", str(GREEDY), str(RANDOM), "--seed", "11", "-o", "conquest_points=2", "--move-time-ms", "4321",
        "--time-bank-ms", "765", "--strike-limit", "5", "--replay", str(replay), "--log-dir", str(tmp_path / "logs"), "--json",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    [setup] = seen
    assert (setup.seed, setup.options, setup.bot_dirs) == (11, {"conquest_points": "2"}, [GREEDY, RANDOM])
    assert (setup.time_control.move_time_ms, setup.time_control.time_bank_ms, setup.time_control.strike_limit) == (4321, 765, 5)
    data = load_replay(replay)
    assert data["options"]["conquest_points"] == 2 and data["seed"] == 11
    assert [s["name"] for s in data["seats"]] == ["gw-greedy", "random"]


def test_seed_0_is_the_seed_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A seed is any whole number: 0 read as "none given" would play a random match, not the one asked for."""
    seen = setups(monkeypatch, play=False)
    result = runner.invoke(app, ["match", "glory", str(RANDOM), str(RANDOM), "--seed", "0", "--replay", str(tmp_path / "r.json"), "--log-dir", str(tmp_path / "logs")])
    assert isinstance(result.exception, Stop), result.output
    assert seen[0].seed == 0


def test_play_hands_the_match_its_own_clock_and_strike_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`arena play` allows a person 10 minutes a decision and 10 strikes; the referee's defaults (1 s, 3) would forfeit them."""
    seen = setups(monkeypatch, play=False)
    args = ["play", "glory", str(RANDOM), "--seat", "1", "--seed", "4", "-o", "rounds=3", "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")]
    result = runner.invoke(app, args)
    assert isinstance(result.exception, Stop), result.output
    [setup] = seen
    assert setup.time_control == TimeControl(600_000, 0, 10)
    assert setup.seed == 4 and setup.options == {"rounds": "3"}
    assert setup.bot_dirs[0] == RANDOM and setup.bot_dirs[1].name == "you"


def test_a_match_that_does_not_end_leaves_the_replay_file_it_was_given_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--replay names a file that holds an earlier match: a match stopped before its end must not have removed it."""
    setups(monkeypatch, play=False)
    kept = tmp_path / "earlier.json"
    kept.write_text('{"an": "earlier match"}')
    result = runner.invoke(app, ["match", "glory", str(RANDOM), str(RANDOM), "--replay", str(kept), "--log-dir", str(tmp_path / "logs")])
    assert isinstance(result.exception, Stop), result.output
    assert kept.read_text() == '{"an": "earlier match"}'


def test_a_link_left_in_the_replay_folder_is_not_written_through(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """replays/<game>-<seed>.json as a link to a file gone: the replay went to wherever the link pointed."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "replays").mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    (tmp_path / "replays" / "glory-5.json").symlink_to(elsewhere)
    result = runner.invoke(app, ["match", "glory", str(RANDOM), str(RANDOM), "--seed", "5", "--json", "--log-dir", str(tmp_path / "logs")])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout.splitlines()[-1])["replay"] == "replays/glory-5-2.json"
    assert not elsewhere.exists() and load_replay(tmp_path / "replays" / "glory-5-2.json")["seed"] == 5


def test_referee_serve_hands_its_session_the_clock_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--connect-timeout-s` lost on the way left remote bots the default wait, with nothing said (a slower test only)."""
    import referee.server.session as session_module

    clocks: list[TimeControl] = []
    real = session_module.MatchSession

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, game: Any, names: list[str], tc: TimeControl, *args: Any, **kwargs: Any) -> None:
            clocks.append(tc)
            super().__init__(game, names, tc, *args, **kwargs)

    monkeypatch.setattr(session_module, "MatchSession", Recording)
    args = ["referee", "serve", "glory", "--port", "0", "--seed", "3", "--connect-timeout-s", "1", "--move-time-ms", "432",
            "--time-bank-ms", "765", "--replay", str(tmp_path / "r.json")]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    [tc] = clocks
    assert (tc.move_time_ms, tc.time_bank_ms, tc.connect_timeout_ms) == (432, 765, 1000)
    assert "seat 0: rank" in result.output and "(forfeited)" in result.output, "no bot came: every seat forfeits after 1 s"


def test_a_seat_that_drew_verdicts_and_played_on_is_not_said_to_have_forfeited() -> None:
    """A timeout under the strike limit is a verdict, not a forfeit: the seat played the match to its end."""
    seat = {"seat": 1, "bot": "slow", "forfeited": False, "verdicts": [{"kind": "TIMEOUT", "decision": 4, "detail": "no answer"}], "log": "logs/x.log"}
    assert verdict_note(seat) == "seat 1 (slow) drew verdicts: timeout at decision 4: no answer\n  log: logs/x.log"
    assert verdict_note({**seat, "forfeited": True}).startswith("seat 1 (slow) forfeited: timeout at decision 4")
    # A malformed action's verdict quotes the bot's note: a hostile bot's escape sequences must not reach the terminal.
    malformed = {**seat, "verdicts": [{"kind": "MALFORMED", "decision": 2, "detail": "no action; the bot's note: \x1b]0;PWNED\x07"}]}
    assert verdict_note(malformed).splitlines()[0].endswith("the bot's note: \\x1b]0;PWNED\\x07")


def test_a_crashed_seat_is_told_the_last_line_its_bot_wrote(tmp_path: Path) -> None:
    """A CRASH verdict gives only the exit code; the traceback's last line, above the referee's, names the cause."""
    log = tmp_path / "x.log"
    log.write_text("Traceback (most recent call last):\n  ...\nKeyError: 'hand'\n\n[referee] at decision 3: the bot's process exited with code 1\n")
    seat = {"seat": 0, "bot": "b", "forfeited": True, "verdicts": [{"kind": "CRASH", "decision": 3, "detail": "exited with code 1"}], "log": str(log)}
    assert verdict_note(seat).splitlines()[1:] == ["  its last words: KeyError: 'hand'", f"  log: {log}"]
    log.write_text("[b] ERROR the bot failed: TypeError: x is undefined\n    at B.act (bot.ts:20:74)\n    at run (client.ts:1:1)\n")
    assert verdict_note(seat).splitlines()[1] == "  its last words: [b] ERROR the bot failed: TypeError: x is undefined"
    log.write_text("[referee] at decision 0: the bot's process exited with code 1\n")
    assert verdict_note(seat).splitlines()[1:] == [f"  log: {log}"], "a bot that wrote nothing has no last words"
    assert verdict_note({**seat, "log": str(tmp_path / "gone.log")}).splitlines()[1:] == [f"  log: {tmp_path / 'gone.log'}"]
    log.write_text("\x1b]0;PWNED\x07\x1b[2Jall good\n")  # a hostile bot's last words: a new title, a cleared screen
    assert verdict_note(seat).splitlines()[1] == "  its last words: \\x1b]0;PWNED\\x07\\x1b[2Jall good"
    timeout = {**seat, "verdicts": [{"kind": "TIMEOUT", "decision": 3, "detail": "no answer"}]}
    log.write_text("[b] WARNING slow\n")
    assert verdict_note(timeout).splitlines()[1:] == [f"  log: {log}"], "only a crash quotes the log"


def test_an_option_is_read_without_the_spaces_around_its_name_and_value() -> None:
    """`-o "bad_cop = false"` as a shell quotes it: a value kept as " false" is refused as not true or false."""
    assert parse_options(["bad_cop = false ", " rounds=3"]) == {"bad_cop": "false", "rounds": "3"}
