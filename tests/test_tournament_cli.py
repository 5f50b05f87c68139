"""``arena tournament``'s options: those that do not apply to the event asked for are refused, not ignored."""

from __future__ import annotations

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
