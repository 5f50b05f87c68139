"""``arena tournament`` tells each bot's verdicts: the timeouts and illegal actions of a bot that played on, which
its forfeits never counted (fastchess's "Timeouts" and "Illegal moves" per engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from arena.cli.main import app
from tests.support import SAMPLE_BOTS
from tests.test_faults import faulty_bot

runner = CliRunner()
RANDOM = str(SAMPLE_BOTS / "random")
NAME = "faulty-illegal-then-give-up"


def _args(tmp_path: Path, *more: str) -> list[str]:
    """Every decision of the faulty bot: its answer and its SDK's 3 retries refused, then it gives up (a TIMEOUT verdict,
    a strike); a strike limit past its decisions lets it play every game to the end."""
    bot = faulty_bot(tmp_path, "illegal_then_give_up")
    return [
        "tournament", "generals-war", str(bot), RANDOM, "-n", "2", "--seed", "1", "--strike-limit", "1000",
        "--move-time-ms", "30000", "--log-dir", str(tmp_path / "logs"), *more,
    ]  # fmt: skip


def _json(args: list[str]) -> dict[str, Any]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_bot_that_timed_out_and_played_on_has_its_verdicts_counted_and_told(tmp_path: Path) -> None:
    """It lost every game without a forfeit: the standings said 0-0-2 and nothing of why."""
    args = _args(tmp_path)
    data = _json(args)
    rows = {r["bot"]: r for r in data["standings"]}
    faulty = rows[NAME]
    assert faulty["forfeits"] == 0 and rows["random"]["verdicts"] == {}
    timeouts = faulty["verdicts"]["TIMEOUT"]
    assert timeouts > 0 and faulty["verdicts"] == {"ILLEGAL_ACTION": 4 * timeouts, "TIMEOUT": timeouts}
    seats = [(r["seats"].index(NAME), r["verdicts"]) for r in data["results"]]
    assert sum(verdicts[seat]["TIMEOUT"] for seat, verdicts in seats) == timeouts
    assert all(verdicts[1 - seat] == {} for seat, verdicts in seats)
    printed = runner.invoke(app, args)
    assert printed.exit_code == 0, printed.output
    said = [" ".join(line.split()) for line in printed.stdout.splitlines()]
    assert f"{NAME}: illegal action ×{4 * timeouts}, timeout ×{timeouts} in 2 of 2 games" in said
    assert not any(line.startswith("random:") for line in said)


def test_the_verdicts_of_saved_games_are_counted_after_a_resume_and_an_older_file_s_are_passed_over(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    args = _args(tmp_path, "--save", str(save))
    first = _json(args)
    header, *games = save.read_text().splitlines()
    assert _json(args)["standings"] == first["standings"]  # every game taken from the file, its verdicts with it
    older = [json.dumps({k: v for k, v in json.loads(g).items() if k != "verdicts"}) for g in games[:1]]
    save.write_text("\n".join([header, *older, *games[1:]]) + "\n")  # the first game as an earlier Arena saved it
    again = _json(args)
    index = json.loads(games[0])["index"]
    assert again["results"][index]["verdicts"] is None
    other = first["results"][1 - index]
    (faulty,) = [r for r in again["standings"] if r["bot"] == NAME]
    assert faulty["verdicts"] == other["verdicts"][other["seats"].index(NAME)]  # the other game's alone
