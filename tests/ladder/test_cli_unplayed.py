"""`arena ladder matches` says why a match failed or was cancelled, on one line (the whole text with --json)."""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console
from typer.testing import CliRunner

from arena.cli.ladder_watch import match_line, matches_table
from arena.cli.main import app
from ladder.models import Match
from tests.ladder.conftest import LadderFixture

#: A failure's text as the API gives it (ladder/worker.py, public_error), made long and of two lines.
REASON = "the ladder could not play or record this match (OSError; the details are in its log)"
LONG = REASON + " and then a great deal more about it, " * 4 + "\nand a second line"


def row(i: int, status: str, error: str = "") -> dict[str, Any]:
    seats: list[dict[str, Any]] = [{"seat": s, "bot": bot, "rank": None, "verdicts": []} for s, bot in enumerate(["gw-greedy", "random"])]
    return {"id": i, "game": "generals-war", "kind": "rated", "status": status, "settled": True, "error": error, "seats": seats}


def shown(rows: list[dict[str, Any]], width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(matches_table(rows))
    return console.export_text()


def test_the_table_gives_an_unplayed_matchs_reason_on_one_line_that_fits() -> None:
    """The list said 'failed' or 'cancelled' and nothing more: why was on the match's page alone."""
    table = shown([row(7, "failed", LONG), row(8, "cancelled", "the files of third #1 are gone"), row(9, "done", "worker w: lost")], 160)
    lines = table.splitlines()
    assert all(len(line) <= 160 for line in lines)
    [failed] = [line for line in lines if line.startswith("│ 7 ")]
    assert REASON[:60] in failed and failed.rstrip(" │").endswith("…"), failed
    assert "second line" not in table, "one line: the rest is cut, not folded onto more"
    assert any("the files of third #1 are gone" in line for line in lines if line.startswith("│ 8 "))
    assert "worker w: lost" not in table, "a match played has no reason to give (an earlier attempt's error is not one)"
    narrow = shown([row(7, "failed", LONG)], 80)
    assert all(len(line) <= 80 for line in narrow.splitlines()) and "…" in narrow and "second line" not in narrow


def test_a_followed_unplayed_match_gives_its_reason_on_its_line() -> None:
    line = match_line(row(7, "cancelled", LONG))
    assert "\n" not in line and f"why: {REASON}" in line and line.endswith("…") and len(line) < 200, line
    assert "why" not in match_line(row(9, "done", "worker w: lost"))


def test_the_reason_is_the_apis_and_json_gives_it_whole(ladder: LadderFixture, server: str) -> None:
    """The terminal shows the error the API (and the pages) give for a match, nothing of its own."""
    runner = CliRunner()
    with ladder.make() as db:
        db.add(Match(game="generals-war", seed=1, num_players=2, kind="rated", status="failed", deal="d1", created_at=1.0, finished_at=2.0, error=LONG))
        db.commit()
    listed = runner.invoke(app, ["ladder", "matches", "--json", "--server", server])
    assert listed.exit_code == 0, listed.output
    [failed] = [m for m in json.loads(listed.stdout) if m["status"] == "failed"]
    assert failed["error"] == LONG
    table = runner.invoke(app, ["ladder", "matches", "--server", server])
    assert table.exit_code == 0, table.output
    [failed_row] = [line for line in table.stdout.splitlines() if "failed" in line]
    assert REASON[:8] in failed_row and "…" in failed_row and "second line" not in table.stdout, table.stdout
