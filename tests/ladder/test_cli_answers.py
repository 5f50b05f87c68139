"""The ladder's terminal commands against a stand-in ladder: what they ask it for, and what they make of its answers."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from arena.cli.ladder_watch import MAX_FOLLOWED, standings_table
from arena.cli.main import app
from tests.ladder.test_cli import folded, rendered
from tests.support import SAMPLE_BOTS
from tests.test_replay_text import replay  # noqa: F401  (the fixture)

runner = CliRunner()


@contextlib.contextmanager
def stand_in(*answers: tuple[int, Any]) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A web server answering each request with the next of ``answers`` (status, JSON), the last one again and
    again: its address, and the requests it was sent (method, path, query and JSON body)."""
    sent: list[dict[str, Any]] = []

    class Answer(BaseHTTPRequestHandler):
        def answer(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            url = urlsplit(self.path)
            body = json.loads(raw) if raw and self.headers.get("Content-Type") == "application/json" else raw or None  # an upload: its bytes
            sent.append({"method": self.command, "path": url.path, "query": parse_qs(url.query), "body": body})
            status, body = answers[min(len(sent), len(answers)) - 1]
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = answer

        def log_message(self, *args: Any) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Answer) as web:
        threading.Thread(target=web.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{web.server_address[1]}", sent
        web.shutdown()


def said(result: Any) -> str:
    return " ".join(result.output.split())


def test_a_challenge_asks_for_the_bot_against_the_opponent_and_a_refusal_tells_the_ladders_reason() -> None:
    """The ladder refuses a challenge it cannot make with a 422 and its reason: "does not answer as the ladder does" hid it."""
    with stand_in((201, {"matches": [7, 8]}), (422, {"detail": "random does not play glory"})) as (server, sent):
        made = runner.invoke(app, ["ladder", "challenge", "gw-greedy", "random", "--game", "generals-war", "--server", server, "--token", "t"])
        refused = runner.invoke(app, ["ladder", "challenge", "gw-greedy", "random", "--game", "glory", "--server", server, "--token", "t"])
    assert made.exit_code == 0 and "queued matches 7, 8" in said(made), made.output
    assert sent[0]["body"] == {"bot": "gw-greedy", "opponent": "random", "game": "generals-war"}
    assert refused.exit_code == 2 and "error: random does not play glory" in said(refused), refused.output


def test_a_withdrawal_names_the_version_the_ladder_retired() -> None:
    with stand_in((200, {"bot": "gw-greedy", "seq": 3, "status": "retired"})) as (server, sent):
        done = runner.invoke(app, ["ladder", "withdraw", "gw-greedy", "--server", server, "--token", "t"])
    assert done.exit_code == 0 and "withdrawn: gw-greedy (version #3 retired)" in said(done), done.output
    assert [(s["method"], s["path"]) for s in sent] == [("POST", "/api/bots/gw-greedy/withdraw")]


def test_a_submission_stopped_while_the_ladder_validates_it_says_it_may_still_join(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while `arena ladder submit` waited for the validation matches ended it without a word, and the ladder,
    which had the upload, went on and put the bot on the ladder: the owner was not told to look."""
    import arena.cli.ladder as cli

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "call", stopped)
    result = runner.invoke(app, ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", "http://127.0.0.1:9", "--token", "t"])
    assert result.exit_code != 0 and (
        "stopped waiting: the ladder may have the upload and go on validating it without you; "
        "`arena ladder bot NAME` (the name in its bot.toml) says whether it joined"
    ) in said(result), result.output


def interrupt(seconds: float) -> None:
    raise KeyboardInterrupt


def test_the_matches_listed_are_those_of_the_bot_and_game_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """--bot and --game reach the ladder; --follow reads the most matches a look may, not the --limit printed first."""
    with stand_in((200, [])) as (server, sent):
        listed = runner.invoke(app, ["ladder", "matches", "--bot", "gw-greedy", "--game", "glory", "--limit", "5", "--server", server])
        monkeypatch.setattr("arena.cli.ladder_watch.time.sleep", interrupt)  # Ctrl-C at the first wait for news
        followed = runner.invoke(app, ["ladder", "matches", "--follow", "--limit", "5", "--server", server])
    assert listed.exit_code == 0 and followed.exit_code == 0, (listed.output, followed.output)
    assert sent[0]["query"] == {"bot": ["gw-greedy"], "game": ["glory"], "limit": ["5"]}
    assert sent[1]["query"] == {"limit": [str(MAX_FOLLOWED)]}


def test_a_watch_stops_at_a_refusal_and_tries_again_only_when_the_ladder_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 404 while watching is an answer (a game or a bot gone), told and the end; only a 5xx or no answer is worth waiting out."""
    looks = []

    def sleep(seconds: float) -> None:
        looks.append(seconds)
        if len(looks) > 6:  # a watch that never stops
            raise KeyboardInterrupt

    monkeypatch.setattr("arena.cli.ladder_watch.time.sleep", sleep)
    answers = [(200, []), (200, []), (503, {"detail": "busy"}), (200, []), (404, {"detail": "unknown game 'glory'"})]
    with stand_in(*answers) as (server, sent):
        result = runner.invoke(app, ["ladder", "standings", "glory", "--watch", "--json", "--server", server])
    assert result.exit_code == 2 and "error: 404: unknown game 'glory'" in said(result), result.output
    assert len(sent) == 5 and result.stdout.count("[]") == 3
    assert said(result).count("warning: 503: busy; trying again") == 1 and said(result).count("the ladder answers again") == 1, result.output


def test_the_standings_table_puts_each_rating_under_its_own_heading() -> None:
    row = {"rank": 1, "bot": "gw-greedy", "owner": "yara", "version": "1", "mu": 31.5, "sigma": 2.25, "conservative": 24.75, "games": 60}
    table = rendered(standings_table("glory", [row]), width=120)
    heading = next(line for line in table.splitlines() if line.startswith("┃"))
    assert [cell.strip() for cell in heading.split("┃")[1:-1]] == ["rank", "bot", "owner", "version", "μ", "σ", "μ−3σ", "games"]
    assert [folded(table, column) for column in range(8)] == ["1", "gw-greedy", "yara", "1", "31.50", "2.25", "24.75", "60"]


def cells(output: str, having: str) -> list[str]:
    """The cells of the table row of ``output`` that holds ``having``."""
    line = next(line for line in output.splitlines() if having in line)
    return [cell.strip() for cell in line.split("│")[1:-1]]


def test_a_bot_shows_its_versions_newest_first_and_its_head_to_head_in_the_game_asked_for() -> None:
    version = {"version": "1", "status": "retired", "games": ["glory"], "reason": "withdrawn by its owner", "created_at": 0.0, "ratings": {}}
    rating = {"mu": 31.5, "sigma": 2.25, "conservative": 24.75, "games": 60}
    detail = {"name": "gw", "owner": "yara", "versions": [{**version, "seq": 1}, {**version, "seq": 2, "version": "2", "status": "active", "reason": None, "ratings": {"glory": rating}}]}
    rows = [{"game": "glory", "opponent": "random", "games": 5, "wins": 3, "draws": 0, "losses": 2, "score": 0.6}]
    with stand_in((200, detail), (200, rows), (200, detail), (200, rows)) as (server, sent):
        shown = runner.invoke(app, ["ladder", "bot", "gw", "--game", "glory", "--server", server])
        as_json = runner.invoke(app, ["ladder", "bot", "gw", "--json", "--server", server])
    assert shown.exit_code == 0 and as_json.exit_code == 0, (shown.output, as_json.output)
    assert [(s["path"], s["query"]) for s in sent[:2]] == [("/api/bots/gw", {}), ("/api/bots/gw/crosstable", {"game": ["glory"]})]
    assert sent[3]["query"] == {}  # every game's head-to-head when none is asked for
    assert [cells(shown.output, "active")[0], cells(shown.output, "retired")[0]] == ["2", "1"]
    assert shown.output.index("active") < shown.output.index("retired"), "the newest version first"
    assert cells(shown.output, "active")[4].startswith("glory 24.75")  # μ−3σ, not μ
    assert cells(shown.output, "random") == ["glory", "random", "5", "3", "0", "2", "60%"]
    assert json.loads(as_json.stdout) == {**detail, "head_to_head": rows}


def test_a_log_is_the_one_of_the_match_and_seat_given() -> None:
    with stand_in((200, {"log": "thinking\n"})) as (server, sent):
        done = runner.invoke(app, ["ladder", "log", "4", "1", "--server", server, "--token", "t"])
    assert done.exit_code == 0 and done.stdout == "thinking\n", done.output
    assert [s["path"] for s in sent] == ["/api/matches/4/logs/1"]


def test_a_replay_asked_for_as_a_seat_saw_it_is_printed_and_one_that_cannot_be_written_is_told(replay: Path, tmp_path: Path) -> None:
    """--seat says how to print it, so it prints it (--text is implied); a folder that cannot take the file is one line."""
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    with stand_in((200, json.loads(replay.read_text()))) as (server, sent):
        seat = runner.invoke(app, ["ladder", "replay", "3", "--seat", "1", "-o", str(tmp_path / "r.json"), "--server", server])
        unwritable = runner.invoke(app, ["ladder", "replay", "3", "-o", str(a_file / "r.json"), "--server", server])
    assert seat.exit_code == 0 and seat.stdout.splitlines()[0].endswith("as seat 1 (b1) saw it"), seat.output
    assert [s["path"] for s in sent] == ["/api/matches/3/replay"] * 2
    assert unwritable.exit_code == 2 and f"error: cannot write {a_file / 'r.json'}" in said(unwritable), unwritable.output


@pytest.mark.parametrize("seat", ["7", "-1", "north"])
def test_a_replay_asked_for_as_a_seat_the_match_has_not_is_refused_before_it_is_written(replay: Path, tmp_path: Path, seat: str) -> None:
    """The seat was looked at once the file was written: the command failed and left a file it said nothing of."""
    with stand_in((200, json.loads(replay.read_text()))) as (server, _):
        refused = runner.invoke(app, ["ladder", "replay", "3", "--seat", seat, "-o", str(tmp_path / "r.json"), "--server", server])
    assert refused.exit_code == 2 and "error: " in said(refused) and "seat" in said(refused), refused.output
    assert not (tmp_path / "r.json").exists()


def test_text_of_the_ladders_that_looks_like_markup_is_shown_as_it_is() -> None:
    """A version string is any printable text: "[/x]" in one raised rich's MarkupError for everyone who looked at the
    standings, and "[red]" vanished; the same for a submission's reason and a version's note."""
    row = {"rank": 1, "bot": "gw", "owner": "yara", "version": "[/x]", "mu": 31.5, "sigma": 2.25, "conservative": 24.75, "games": 60}
    assert folded(rendered(standings_table("glory", [row]), width=120), 3) == "[/x]"
    version = {"seq": 1, "version": "[red]2", "status": "retired", "games": ["glory"], "reason": "a [/b] note", "created_at": 0.0, "ratings": {}}
    detail = {"name": "gw", "owner": "yara", "versions": [version]}
    with stand_in((200, detail), (200, [])) as (server, _):
        shown = runner.invoke(app, ["ladder", "bot", "gw", "--server", server])
    assert shown.exit_code == 0, shown.output
    assert cells(shown.output, "retired")[1] == "[red]2" and "a [/b] note" in shown.output
    refused = {"accepted": False, "bot": "gw", "version": "[/x]", "reason": "a zip entry [bold]odd[/]", "seq": None}
    with stand_in((201, refused)) as (server, _):
        done = runner.invoke(app, ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", server, "--token", "t"])
    assert "rejected: gw version [/x]: a zip entry [bold]odd[/]" in said(done), done.output
