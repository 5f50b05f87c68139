"""`arena bot check`: the limits, the sandbox and the fields of its verdict are the ladder's own."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from ladder.upload import Limits
from tests.ladder.test_bot_check import check, write_zip
from tests.ladder.test_submissions import BOT_PY, manifest
from tests.support import ROOT, SAMPLE_BOTS, docker_ready

runner = CliRunner()


def test_a_passing_verdict_names_the_bot_and_its_version(tmp_path: Path) -> None:
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLE_BOTS / "random", bot)
    (bot / "bot.toml").write_text(manifest("named", version="2.5.1"))
    code, said = check(str(bot))
    assert code == 0 and (said["bot"], said["version"], said["games"]) == ("named", "2.5.1", ["generals-war"]), said


def test_a_zip_past_the_ladders_limits_would_be_rejected(tmp_path: Path) -> None:
    """A .zip is checked under the ladder's limits, as the ladder would: one entry too many is no pass here."""
    entries: list[tuple[str, str | bytes]] = [("bot.toml", manifest("crowded")), ("bot.py", BOT_PY)]
    entries += [(f"f{i}", "") for i in range(Limits().files - 1)]
    code, said = check(str(write_zip(tmp_path, "crowded", *entries)))
    assert code == 1 and not said["passed"], said
    assert said["reason"] == f"the archive has {Limits().files + 1} entries; the limit is {Limits().files}"


def test_a_sandbox_that_breaks_after_it_was_looked_at_is_an_error_not_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot is not to blame for this machine's Docker: exit 2 and the sandbox's message, as when it is missing at the start."""
    import referee.server.runner as runner_module
    from referee.server.sandbox import SandboxError

    real = runner_module.launcher_for
    calls: list[str] = []

    def breaks_after_the_first_look(sandbox: str, pin_cpus: bool = False) -> object:
        calls.append(sandbox)
        if len(calls) > 1:
            raise SandboxError("the sandbox image arena-sandbox is missing; build it with `arena sandbox build`")
        return real(sandbox, pin_cpus)

    monkeypatch.setattr(runner_module, "launcher_for", breaks_after_the_first_look)
    result = runner.invoke(app, ["bot", "check", str(SAMPLE_BOTS / "random"), "--json"])
    assert result.exit_code == 2 and "arena sandbox build" in result.stderr, result.output
    assert result.stdout.strip() == "" or "would be rejected" not in result.stdout
    assert len(calls) == 2


@pytest.mark.skipif(not docker_ready() and not os.environ.get("CI"), reason="no Docker engine or sandbox image here")
def test_the_validation_matches_are_played_in_the_sandbox_asked_for(tmp_path: Path) -> None:
    """A bot reading a file of the author's machine outside its folder plays as a process, not in a container."""
    outside = tmp_path / "weights.txt"
    outside.write_text("0.5\n")
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLE_BOTS / "random", bot)
    future = "from __future__ import annotations\n"
    reads = f"from pathlib import Path\nWEIGHTS = Path({str(outside)!r}).read_text()\n"
    (bot / "bot.py").write_text((bot / "bot.py").read_text().replace(future, future + reads, 1))
    code, said = check(str(bot))
    assert code == 0, said
    code, said = check(str(bot), "--sandbox", "docker")
    assert code == 1 and "crash at decision 0" in said["reason"] and "weights.txt" in said["log"], said


def test_a_long_log_is_shown_by_its_end_where_the_bot_failed(tmp_path: Path) -> None:
    from arena.cli.bot_check import SHOWN_LOG

    (tmp_path / "bot.toml").write_text(manifest("chatty"))
    (tmp_path / "bot.py").write_text(f"import sys\nsys.stderr.write('chatter\\n' * {SHOWN_LOG // 8 + 100})\nsys.exit('the last words')\n")
    result = runner.invoke(app, ["bot", "check", str(tmp_path)])
    assert result.exit_code == 1 and "would be rejected" in result.stdout
    assert "the last words" in result.stdout and "--- validation match, generals-war ---" not in result.stdout, result.stdout[:300]


def test_an_unknown_sandbox_is_an_error_even_for_a_bot_refused_before_any_match(tmp_path: Path) -> None:
    """The sandbox is looked at before the archive: a bot without a manifest, checked with --sandbox vm, is no verdict on it."""
    bare = write_zip(tmp_path, "bare", ("bot.py", BOT_PY))
    result = runner.invoke(app, ["bot", "check", str(bare), "--sandbox", "vm", "--json"])
    assert result.exit_code == 2 and "unknown sandbox 'vm'" in result.stderr, result.output
    assert result.stdout.strip() == ""


def test_an_illegal_action_sent_every_time_is_said_once_with_how_often(tmp_path: Path) -> None:
    """A bot that sent the same illegal action until its SDK gave up was told "reveal generals (possibly none) now"
    four times over, which read as four problems: each distinct one is said once, with how many times it came."""
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy(ROOT / "tests" / "bots" / "faulty" / "bot.py", bot / "bot.py")
    (bot / "bot.toml").write_text('name = "stubborn"\nversion = "1"\ngames = ["generals-war"]\ncommand = ["python", "bot.py", "illegal_then_give_up"]\n')
    code, said = check(str(bot))
    assert code == 1 and not said["passed"], said
    reason = said["reason"]
    assert reason.count("reveal generals (possibly none) now") == 1, reason
    assert "illegal action at decision 0 (4 times): reveal generals (possibly none) now" in reason, reason
    assert "timeout at decision 0: the bot gave up on the decision" in reason, reason  # a different problem: its own entry


def test_verdicts_are_grouped_by_kind_and_detail_across_decisions() -> None:
    from arena.v1 import referee_pb2 as pb
    from ladder.submissions import described_verdicts

    illegal, crash = pb.ILLEGAL_ACTION, pb.CRASH
    verdicts = [
        pb.Verdict(kind=illegal, decision_index=2, detail="there is no land 99"),
        pb.Verdict(kind=illegal, decision_index=5, detail="there is no land 99"),
        pb.Verdict(kind=illegal, decision_index=5, detail="there is no land 98"),
        pb.Verdict(kind=crash, decision_index=7, detail="exit code 1"),
    ]
    assert described_verdicts(verdicts) == (
        "illegal action at decisions 2, 5 (2 times): there is no land 99; "
        "illegal action at decision 5: there is no land 98; crash at decision 7: exit code 1"
    )
    every = [pb.Verdict(kind=pb.MALFORMED, decision_index=i, detail="got none") for i in range(500)]
    assert described_verdicts(every) == "malformed message at decisions 0, 1, 2, 3, 4 and 495 more (500 times): got none"


def test_a_traceback_in_the_log_names_the_bots_files_not_the_checks_copy_of_them(tmp_path: Path) -> None:
    """The validation match plays a copy in a folder removed once the check is done: a crash's traceback pointed at
    /tmp/arena-check-…/bot/bot.py, a file nowhere. It names <bot>/bot.py, as a reason names the bot's folder."""
    bot = tmp_path / "bot"
    shutil.copytree(SAMPLE_BOTS / "random", bot)
    source = (bot / "bot.py").read_text()
    (bot / "bot.py").write_text(source.replace("        return random_action(request, self.rng)", '        raise RuntimeError("a slip in act")', 1))
    code, said = check(str(bot))
    assert code == 1 and "RuntimeError: a slip in act" in said["log"], said
    assert 'File "<bot>/bot.py", line ' in said["log"] and "arena-check-" not in said["log"], said["log"]


def test_a_rejections_reason_cannot_drive_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reason quotes the bot's own note on a malformed answer: a bot checked before it is trusted sent an escape
    sequence there, and the reader's window was retitled."""
    from ladder import submissions

    async def malformed(*args: object, **kwargs: object) -> tuple[str, str]:
        return "the validation match of generals-war failed: malformed at decision 0: no action; the bot's note: \x1b]0;owned\x07", ""

    monkeypatch.setattr(submissions, "validation_matches", malformed)
    result = runner.invoke(app, ["bot", "check", str(SAMPLE_BOTS / "random")])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\\x1b]0;owned\\x07" in result.output, result.output
