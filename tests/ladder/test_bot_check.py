"""`arena bot check`: the ladder's verdict on a bot, found before submitting, and the same as the ladder's own."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from tests.ladder.conftest import LadderFixture
from tests.ladder.test_submissions import BOT_PY, archive, manifest
from tests.support import ROOT, SAMPLE_BOTS, docker_ready

runner = CliRunner()
CRASHING = ROOT / "tests" / "bots" / "crash_at_start"


def check(*args: str) -> tuple[int, dict[str, Any]]:
    result = runner.invoke(app, ["bot", "check", *args, "--json"])
    return result.exit_code, json.loads(result.stdout.strip().splitlines()[-1])


def write_zip(tmp_path: Path, name: str, *entries: tuple[str, str | bytes]) -> Path:
    path = tmp_path / f"{name}.zip"
    path.write_bytes(archive(*entries))
    return path


def test_a_bot_that_plays_its_games_would_pass(tmp_path: Path) -> None:
    code, said = check(str(SAMPLE_BOTS / "generals_war_greedy"))
    assert code == 0 and said["passed"] is True and said["reason"] == ""
    assert (said["bot"], said["games"]) == ("gw-greedy", ["generals-war"])
    assert "--- validation match, generals-war ---" in said["log"]


def test_a_bot_that_crashes_would_be_rejected_with_the_reason_and_its_output() -> None:
    code, said = check(str(CRASHING))
    assert code == 1 and said["passed"] is False
    assert said["reason"].startswith("the validation match of generals-war failed: crash at decision 0")
    assert "crashing on purpose" in said["log"]  # what the bot printed before it died


def test_the_text_report_says_why_and_keeps_the_logs_lines_whole() -> None:
    result = runner.invoke(app, ["bot", "check", str(CRASHING)], env={"COLUMNS": "60"})
    assert result.exit_code == 1
    assert "would be rejected: the validation match of generals-war failed" in result.stdout.replace("\n", " ")
    lines = result.stdout.splitlines()
    assert any(line.startswith("[referee] at decision 0:") and line.endswith("before it connected to the referee") for line in lines), result.stdout


def test_the_logs_escape_sequences_are_written_out_not_sent_to_the_terminal(tmp_path: Path) -> None:
    """A bot checked before it is trusted printed \\x1b[2J and the screen was cleared, the window retitled."""
    (tmp_path / "bot.toml").write_text(
        'name = "esc"\nversion = "1"\ngames = ["glory"]\ncommand = ["sh", "-c", "printf \'\\\\033[2J\\\\033]0;owned\\\\007 cleared\\\\n\' >&2"]\n'
    )
    result = runner.invoke(app, ["bot", "check", str(tmp_path)])
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\\x1b[2J\\x1b]0;owned\\x07 cleared" in result.stdout, result.stdout
    code, said = check(str(tmp_path))
    assert code == 1 and "\x1b[2J\x1b]0;owned\x07 cleared" in said["log"], "the JSON keeps the log as the bot wrote it"


def test_a_bot_that_needs_a_file_outside_its_folder_plays_locally_but_would_be_rejected(tmp_path: Path) -> None:
    """The check plays the archive the ladder would get, not the folder: what `arena match` cannot show."""
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLE_BOTS / "random", bot)
    (tmp_path / "weights.txt").write_text("0.5\n")
    future = "from __future__ import annotations\n"
    reads = 'from pathlib import Path\nWEIGHTS = (Path(__file__).resolve().parent.parent / "weights.txt").read_text()\n'
    (bot / "bot.py").write_text((bot / "bot.py").read_text().replace(future, future + reads, 1))
    played = runner.invoke(
        app, ["match", "generals-war", str(bot), str(SAMPLE_BOTS / "random"), "--json", "--log-dir", str(tmp_path / "logs"), "--replay", str(tmp_path / "r.json")]
    )
    assert played.exit_code == 0 and json.loads(played.stdout.strip().splitlines()[-1])["seats"][0]["verdicts"] == []
    code, said = check(str(bot))
    assert code == 1 and "crash at decision 0" in said["reason"] and "weights.txt" in said["log"]


def test_a_bot_that_needs_its_installed_packages_is_told_they_were_left_out(tmp_path: Path) -> None:
    """A Node bot without the SDK, its @grpc/grpc-js in node_modules, played `arena match` cleanly and crashed here with
    MODULE_NOT_FOUND: the archive goes without node_modules and .venv, and nothing said so. A bot that passes is told
    nothing (its bundle needed none of them)."""
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLE_BOTS / "random", bot)
    (bot / ".venv" / "site").mkdir(parents=True)
    (bot / ".venv" / "site" / "vendored.py").write_text("LEVEL = 1\n")
    future = "from __future__ import annotations\n"
    needs = 'import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).resolve().parent / ".venv" / "site"))\nimport vendored\n'
    (bot / "bot.py").write_text((bot / "bot.py").read_text().replace(future, future + needs, 1))
    code, said = check(str(bot))
    assert code == 1 and "crash at decision 0" in said["reason"] and said["left_out"] == [".venv"], said
    result = runner.invoke(app, ["bot", "check", str(bot)])
    text = result.stdout.replace("\n", " ")
    assert result.exit_code == 1 and ".venv was left out of the archive" in text and "bundle" in text, result.stdout
    (bot / "bot.py").write_text((SAMPLE_BOTS / "random" / "bot.py").read_text())
    (bot / "node_modules").mkdir()
    code, said = check(str(bot))
    assert code == 0 and said["left_out"] == [".venv", "node_modules"], said
    assert "left out" not in runner.invoke(app, ["bot", "check", str(bot)]).stdout


@pytest.mark.skipif(not docker_ready() and not os.environ.get("CI"), reason="no Docker engine or sandbox image here")
def test_a_bot_checked_in_the_docker_sandbox_would_pass() -> None:
    code, said = check(str(SAMPLE_BOTS / "generals_war_greedy"), "--sandbox", "docker")
    assert code == 0 and said["passed"] is True


def test_what_the_ladder_refuses_before_any_match_is_refused_here_in_its_words(tmp_path: Path) -> None:
    no_manifest = write_zip(tmp_path, "bare", ("bot.py", BOT_PY))
    code, said = check(str(no_manifest))
    assert code == 1 and "bot.toml" in said["reason"] and said["log"] == "" and said["bot"] == ""
    unknown = write_zip(tmp_path, "chess", ("bot.toml", manifest("chess-bot", games='["chess"]')), ("bot.py", BOT_PY))
    code, said = check(str(unknown))
    assert code == 1 and said["reason"].startswith("unknown games in bot.toml: chess") and said["bot"] == "chess-bot"
    # named as in the author's folder, not by the check's scratch folder, gone by the time it is read
    broken = write_zip(tmp_path, "broken", ("bot.toml", 'name = "x"\nversion =\n'), ("bot.py", BOT_PY))
    code, said = check(str(broken))
    assert code == 1 and said["reason"].startswith("<bot>/bot.toml: not valid TOML"), said


def test_a_folder_the_ladders_limits_refuse_would_be_rejected_as_its_zip_would(tmp_path: Path) -> None:
    """A folder of more files than the ladder takes, or holding a link, ended the check with exit 2 and no JSON:
    zipped, the same bot was a verdict (exit 1, "would be rejected"), as docs/ladder.md says the check answers."""
    many = tmp_path / "many"
    shutil.copytree(SAMPLE_BOTS / "random", many)
    for i in range(1000):
        (many / f"f{i}").touch()
    code, said = check(str(many))
    assert code == 1 and said["passed"] is False and "has more than 1000 files" in said["reason"], said
    linked = tmp_path / "linked"
    shutil.copytree(SAMPLE_BOTS / "random", linked)
    (linked / "data").symlink_to(tmp_path)
    code, said = check(str(linked))
    assert code == 1 and said["passed"] is False and "links cannot be submitted" in said["reason"], said
    result = runner.invoke(app, ["bot", "check", str(linked)])
    assert result.exit_code == 1 and "would be rejected" in result.stdout and "links cannot be submitted" in result.stdout.replace("\n", "")


def test_wrong_input_is_an_error_not_a_verdict(tmp_path: Path) -> None:
    result = runner.invoke(app, ["bot", "check", str(tmp_path / "nowhere")])
    assert result.exit_code == 2 and "no such directory or file" in result.stderr
    # The bot's script or manifest for its folder was read as the archive: "would be rejected: not a zip archive".
    for given in ("bot.py", "bot.toml"):
        result = runner.invoke(app, ["bot", "check", str(SAMPLE_BOTS / "random" / given)])
        assert result.exit_code == 2 and "is neither a bot directory nor a .zip of one: give the bot's folder" in result.stderr
        assert "would be rejected" not in result.stdout
    result = runner.invoke(app, ["bot", "check", str(SAMPLE_BOTS / "random"), "--sandbox", "vm"])
    assert result.exit_code == 2 and "unknown sandbox 'vm'" in result.stderr


@pytest.mark.parametrize("case", ["passes", "crashes", "no-manifest", "unknown-game"])
def test_the_check_and_the_ladder_agree(ladder: LadderFixture, tmp_path: Path, case: str) -> None:
    """The same archive, checked here and submitted to a ladder: accepted there exactly when it passes here, for the same reason."""
    if case == "passes":
        bot = tmp_path / "bot"
        shutil.copytree(SAMPLE_BOTS / "generals_war_greedy", bot)
        path = bot
    elif case == "crashes":
        path = CRASHING
    elif case == "no-manifest":
        path = write_zip(tmp_path, "bare", ("bot.py", BOT_PY))
    else:
        path = write_zip(tmp_path, "chess", ("bot.toml", manifest("chess-bot", games='["chess"]')), ("bot.py", BOT_PY))
    code, said = check(str(path))
    if path.is_dir():
        status, reply = ladder.submit(ladder.user("author"), path)
    else:
        response = ladder.client.post("/api/bots", content=path.read_bytes(), headers=ladder.user("author"))
        status, reply = response.status_code, response.json()
    if "detail" in reply:  # refused (422) before it was registered
        assert status == 422 and not said["passed"] and reply["detail"] == said["reason"]
        return
    assert status == (201 if said["passed"] else 422), reply
    assert reply["accepted"] is said["passed"] is (code == 0)
    assert reply["reason"] == ("" if said["passed"] else said["reason"])
    assert (case == "passes") is said["passed"]
