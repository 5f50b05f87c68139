"""The ladder's terminal commands against a live ladder on localhost."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from arena.cli.ladder_watch import matches_table, standings_table
from arena.cli.main import app
from ladder.api import LadderState, create_app
from tests.ladder.conftest import LadderFixture
from tests.support import SAMPLE_BOTS

runner = CliRunner()


def arena(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_user_submit_standings_matches_and_challenge(ladder: LadderFixture, server: str, tmp_path: Path) -> None:
    data = str(ladder.ladder.config.data_dir)
    token = arena("ladder", "user", "add", "heidi", "--data", data).strip()
    assert token.startswith("arena_")
    refused = runner.invoke(app, ["ladder", "user", "add", "heidi", "--data", data])
    assert refused.exit_code == 2 and "exists already" in refused.output
    out = arena("ladder", "submit", str(SAMPLE_BOTS / "generals_war_greedy"), "--server", server, "--token", token)
    assert "accepted" in out
    arena("ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", server, "--token", token)
    bad = runner.invoke(app, ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", server, "--token", "nope"])
    assert bad.exit_code == 2 and "401" in bad.output
    ladder.play(4)
    rows = json.loads(arena("ladder", "standings", "generals-war", "--json", "--server", server))
    assert {r["bot"] for r in rows} == {"gw-greedy", "random"} and all(r["games"] >= 4 for r in rows)
    table = arena("ladder", "standings", "generals-war", "--server", server)
    assert "gw-greedy" in table and "μ−3σ" in table
    matches = json.loads(arena("ladder", "matches", "--json", "--limit", "2", "--server", server))
    assert len(matches) == 2 and matches[0]["status"] == "done"
    out = arena("ladder", "challenge", "gw-greedy", "random", "--game", "generals-war", "--server", server, "--token", token)
    assert "queued matches" in out
    for game in ("no-such-game", "generals/war", "generals war"):  # "/" once answered a bare "404: Not Found"
        unknown = runner.invoke(app, ["ladder", "standings", game, "--server", server])
        assert unknown.exit_code == 2 and f"unknown game {game!r}" in unknown.output, unknown.output
    missing = runner.invoke(app, ["ladder", "standings", "generals-war", "--server", "http://127.0.0.1:9"])
    assert missing.exit_code == 2 and "cannot reach the ladder" in missing.output


def test_an_operator_reissues_revokes_and_lists_owners_tokens(ladder: LadderFixture, server: str) -> None:
    """A leaked token was for good: `user add` of an existing name fails, and nothing else touched tokens."""
    data = str(ladder.ladder.config.data_dir)
    first = arena("ladder", "user", "add", "ivan", "--data", data).strip()
    me = ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", server, "--token"]
    second = arena("ladder", "user", "token", "ivan", "--data", data).strip()
    assert second.startswith("arena_") and second != first
    old = runner.invoke(app, [*me, first])
    assert old.exit_code == 2 and "unknown API token" in old.output
    assert "accepted" in arena(*me, second)
    listed = arena("ladder", "user", "list", "--data", data)
    assert [line.split()[:2] for line in listed.splitlines() if "ivan" in line] == [["│", "ivan"]] and "valid" in listed
    assert "revoked" in arena("ladder", "user", "revoke", "ivan", "--data", data)
    revoked = runner.invoke(app, [*me, second])
    assert revoked.exit_code == 2 and "unknown API token" in revoked.output
    row = next(line for line in arena("ladder", "user", "list", "--data", data).splitlines() if "ivan" in line)
    assert row.split("│")[2].strip() == "1" and "revoked" in row, row  # ivan's bot stays his
    third = arena("ladder", "user", "token", "ivan", "--data", data).strip()
    assert "accepted" in arena(*me, third)
    for verb in ("token", "revoke"):
        nobody = runner.invoke(app, ["ladder", "user", verb, "ivna", "--data", data])
        assert nobody.exit_code == 2 and "no user 'ivna'" in nobody.output


def test_a_wrong_database_or_data_folder_gets_a_clear_error(tmp_path: Path) -> None:
    """No traceback, no empty ladder made up where the operator mistyped a path, and no password printed."""
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    taken = socket.create_server(("127.0.0.1", 0))
    cases = [
        (["ladder", "check-ratings", "--data", str(tmp_path / "typo")], "no ladder in"),
        (["ladder", "prune", "--logs-older-than", "30", "--data", str(tmp_path / "typo")], "no ladder in"),
        (["ladder", "check-ratings", "--db", "notaurl"], "cannot open the database"),
        (["ladder", "user", "add", "ann", "--db", f"sqlite:///{tmp_path}/no/such/folder/x.db"],
         f"unable to open database file: its folder {tmp_path}/no/such/folder does not exist (SQLite makes the file, not its folder)"),
        (["ladder", "user", "add", "ann", "--data", str(a_file)], "is not a directory"),
        (["ladder", "user", "add", "ann", "--db", "postgresql+psycopg://ann:secret@127.0.0.1:1/x"], "cannot open the database"),
        (["ladder", "serve", "--data", str(a_file), "--no-samples"], "is not a directory"),
        (["ladder", "serve", "--data", str(tmp_path / "d"), "--port", "99999"], "65535"),
        (["ladder", "user", "add", "ann", "--data", str(tmp_path / "new" / "data"), "--db", "mysql://ann:secret@127.0.0.1:1/x"], "cannot open the database"),
        (["ladder", "user", "add", "ann", "--data", str(tmp_path / "new" / "data"), "--db", "postgresql+psycopg://ann@127.0.0.1:1/x"], "cannot open"),
        (["ladder", "check-ratings", "--db", f"sqlite:///{tmp_path}/typo.db"], "no ladder at"),
        # libpq's spelling: SQLAlchemy said "Can't load plugin: sqlalchemy.dialects:postgres" and nothing of the fix
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--db", "postgres://ann:secret@127.0.0.1:1/x"],
         "postgres:// names no database SQLAlchemy knows (PostgreSQL's is postgresql+psycopg://USER:PASSWORD@HOST/DB)"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--port", str(taken.getsockname()[1])], "Address already in use"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--db", ""], "--db is empty"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--workers", "100000"], "--workers must be at least 1 and at most 256"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--workers", "0"], "--workers must be at least 1 and at most 256"),
        (["ladder", "check-ratings", "--data", str(tmp_path / "new"), "--db", " "], "--db is empty"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--executor", "dask", "--dask-address", ""], "it is empty"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--executor", "dask", "--dask-address", "foo"], "missing port number"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--executor", "dask", "--dask-address", "http://h:8786"], "unknown scheme 'http'"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--executor", "dask", "--dask-address", "tcp://h:x"], "not a Dask scheduler's"),
        (["ladder", "serve", "--data", str(tmp_path / "new"), "--executor", "dask", "--dask-address", "tcp://h:0"], "port 0 is out of range"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in " ".join(result.output.split()) and "secret" not in result.output, (args, result.output)
    taken.close()
    assert not (tmp_path / "typo").exists() and not (tmp_path / "typo.db").exists()
    assert not (tmp_path / "new").exists(), "no empty data folder is left where the database did not open"


def test_check_ratings_says_what_docs_deploy_says_when_all_is_well(tmp_path: Path) -> None:
    from ladder.db import default_url, migrate

    migrate(default_url(tmp_path))
    result = runner.invoke(app, ["ladder", "check-ratings", "--data", str(tmp_path)])
    assert result.exit_code == 0 and result.output.strip() == "ratings match the match log", result.output
    assert '"ratings match\n  the match log"' in (Path(__file__).parents[2] / "docs" / "deploy.md").read_text()


def test_an_sqlite_uri_names_its_file(tmp_path: Path) -> None:
    """``?uri=true`` URLs (SQLite's own options, such as a read-only open) were called missing: the file was looked
    for under the name ``file:/...``."""
    from ladder.db import default_url, migrate

    migrate(default_url(tmp_path))
    for name in (f"file:{tmp_path}/ladder.db", f"file://{tmp_path}/ladder.db"):
        read_only = f"sqlite:///{name}?mode=ro&uri=true"
        result = runner.invoke(app, ["ladder", "check-ratings", "--db", read_only])
        assert result.exit_code == 0 and result.output.strip() == "ratings match the match log", (name, result.output)
        refused = runner.invoke(app, ["ladder", "user", "add", "ann", "--db", read_only])
        assert refused.exit_code == 2 and "readonly database" in " ".join(refused.output.split()), refused.output
    missing = runner.invoke(app, ["ladder", "check-ratings", "--db", f"sqlite:///file:{tmp_path}/typo.db?mode=ro&uri=true"])
    assert missing.exit_code == 2 and "no ladder at" in missing.output, missing.output


def test_a_database_of_a_newer_arena_gets_a_clear_error(tmp_path: Path) -> None:
    """A schema revision this Arena has no migration for (the ladder rolled back after an upgrade): Alembic's
    CommandError came out as a traceback from serve, user add and check-ratings."""
    import sqlite3

    from ladder.db import default_url, migrate

    migrate(default_url(tmp_path))
    with sqlite3.connect(tmp_path / "ladder.db") as db:
        db.execute("UPDATE alembic_version SET version_num = '0099'")
    for args in (["ladder", "user", "add", "ann"], ["ladder", "check-ratings"], ["ladder", "serve", "--port", "0", "--no-samples"]):
        result = runner.invoke(app, [*args, "--data", str(tmp_path)])
        assert result.exit_code == 2, (args, result.output)
        assert "newer Arena" in " ".join(result.output.split()) and "Traceback" not in result.output, (args, result.output)


def test_only_serve_brings_an_older_schema_up_to_date(tmp_path: Path) -> None:
    """An operator who installed a newer Arena and listed the users upgraded the schema under the older ladder still
    running on it: every command migrated. Now the others refuse, saying what will; a new database is still made."""
    from alembic import command

    from ladder.db import alembic_config, default_url, migrate

    def revision() -> str:
        import sqlite3

        with sqlite3.connect(tmp_path / "ladder.db") as db:
            return str(db.execute("SELECT version_num FROM alembic_version").fetchone()[0])

    arena("ladder", "user", "add", "ann", "--data", str(tmp_path))  # a new database: made whole
    head = revision()
    command.downgrade(alembic_config(default_url(tmp_path)), "-1")
    older = revision()
    for args in (["user", "list"], ["user", "add", "bob"], ["check-ratings"], ["prune", "--logs-older-than", "30", "--dry-run"]):
        result = runner.invoke(app, ["ladder", *args, "--data", str(tmp_path)])
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and "older than this Arena's" in said and "arena ladder serve" in said, (args, result.output)
        assert revision() == older
    migrate(default_url(tmp_path))  # as serve does (LadderConfig's open_db)
    assert revision() == head and "ann" in arena("ladder", "user", "list", "--data", str(tmp_path))


def test_a_read_only_or_damaged_database_gets_a_clear_error(tmp_path: Path) -> None:
    """serve and user add found a read-only database at their first write, user list a damaged one at its first
    read: each was a traceback."""
    import sqlite3

    from ladder.db import default_url, migrate

    migrate(default_url(tmp_path))
    read_only = f"sqlite:///file:{tmp_path / 'ladder.db'}?mode=ro&uri=true"
    for args in (["ladder", "user", "add", "ann"], ["ladder", "serve", "--port", "0", "--no-samples", "--data", str(tmp_path / "d")]):
        result = runner.invoke(app, [*args, "--db", read_only])
        assert result.exit_code == 2, (args, result.output)
        assert "readonly database" in " ".join(result.output.split()) and "Traceback" not in result.output, (args, result.output)
    with sqlite3.connect(tmp_path / "ladder.db") as db:  # enough rows for the table to span pages past the file's middle
        db.executemany("INSERT INTO users (name, token_hash, created_at) VALUES (?, ?, 0)", [(f"u{i}", f"{i:064x}") for i in range(3000)])
    db.close()
    with open(tmp_path / "ladder.db", "r+b") as file:
        file.seek(file.seek(0, 2) // 2)
        file.write(b"\xff" * 8192)
    result = runner.invoke(app, ["ladder", "user", "list", "--data", str(tmp_path)])
    assert result.exit_code == 2 and "malformed" in result.output and "Traceback" not in result.output, result.output


def test_a_server_that_is_not_the_ladder_gets_a_clear_error(tmp_path: Path) -> None:
    """--server naming another web server: a one-line error, not a JSONDecodeError traceback or a whole HTML page."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    (tmp_path / "api" / "games" / "glory").mkdir(parents=True)
    (tmp_path / "api" / "games" / "glory" / "standings").write_text("<html>a page</html>")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as web:
        threading.Thread(target=web.serve_forever, daemon=True).start()
        other = f"http://127.0.0.1:{web.server_address[1]}"
        for args in (["ladder", "standings", "glory"], ["ladder", "matches"], ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--token", "t"]):
            result = runner.invoke(app, [*args, "--server", other])
            assert result.exit_code == 2, (args, result.output)
            assert "does not answer as the ladder does" in " ".join(result.output.split()) and "<" not in result.output, (args, result.output)
        web.shutdown()


@contextlib.contextmanager
def answering(body: str) -> Iterator[str]:
    """A web server answering ``body`` as JSON to every GET and POST: its address."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Answer(BaseHTTPRequestHandler):
        def answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body.encode())))
            self.end_headers()
            self.wfile.write(body.encode())

        do_GET = do_POST = answer

        def log_message(self, *args: Any) -> None:
            pass

    with ThreadingHTTPServer(("127.0.0.1", 0), Answer) as web:
        threading.Thread(target=web.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{web.server_address[1]}"
        web.shutdown()


@pytest.mark.parametrize("body", ['{"hello": 1}', "[1, 2]", '"x"', '{"log": 7}'])
def test_a_server_answering_json_of_another_shape_gets_a_clear_error_and_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """Another JSON service at --server: KeyError, TypeError and AttributeError tracebacks, --json printed its
    answer with exit 0, and `ladder replay` wrote it as replays/ladder-1.json and exited 0."""
    monkeypatch.chdir(tmp_path)
    commands = (
        ["standings", "glory"], ["standings", "glory", "--json"], ["matches"], ["matches", "--json"], ["bot", "random"], ["bot", "random", "--json"],
        ["log", "1", "0", "--token", "t"], ["replay", "1"], ["submit", str(SAMPLE_BOTS / "random"), "--token", "t"],
        ["withdraw", "random", "--token", "t"], ["challenge", "random", "other", "--game", "glory", "--token", "t"],
    )  # fmt: skip
    with answering(body) as other:
        for args in commands:
            result = runner.invoke(app, ["ladder", *args, "--server", other])
            assert result.exit_code == 2, (args, result.output)
            assert f"error: {other} does not answer as the ladder does" in " ".join(result.output.split()), (args, result.output)
    assert not list(tmp_path.rglob("*")), "nothing written"


def test_a_rejected_bots_log_cannot_drive_the_terminal() -> None:
    """The log is what the bot printed: an escape sequence in it cleared the screen and retitled the window."""
    # The reason quotes the bot's note on a malformed answer: its escape sequences are the bot's too.
    reason = "the validation match of glory failed: malformed at decision 0: no action; the bot's note: \x1b]0;noted\x07"
    reply = {"accepted": False, "bot": "b", "version": "1", "seq": 1, "reason": reason, "log": "\x1b[2J\x1b]0;owned\x07 cleared\n\tindented\n"}
    with answering(json.dumps(reply)) as server:
        result = runner.invoke(app, ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--token", "t", "--server", server])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b[2J\\x1b]0;owned\\x07 cleared\n        indented\n" in result.output, result.output  # a tab is a tab


def test_a_server_given_without_http_is_reached_as_curl_reaches_it() -> None:
    """--server localhost:8765 failed with httpx's "Request URL is missing an 'http://' or 'https://' protocol"."""
    reply = {"accepted": False, "bot": "b", "version": "1", "seq": 1, "reason": "it crashed", "log": ""}
    with answering(json.dumps(reply)) as server:
        result = runner.invoke(app, ["ladder", "submit", str(SAMPLE_BOTS / "random"), "--token", "t", "--server", server.removeprefix("http://")])
    assert result.exit_code == 1 and "it crashed" in result.output, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--server", "http://[::1"], "--server 'http://[::1' is not an address"),
        (["--server", "http://127.0.0.1:9/\x01"], "is not an address"),
        (["--token", "tok\u00e9n"], "--token is not an API token"),  # a UnicodeEncodeError traceback
        (["--token", "to\nken"], "--token is not an API token"),  # "cannot reach the ladder: Illegal header value"
    ],
)
def test_a_server_that_is_no_address_or_a_token_that_cannot_be_sent_gets_a_clear_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["ladder", "log", "1", "0", "--server", "http://127.0.0.1:9", "--token", "t", *args])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split()), result.output


def test_a_watch_interval_must_be_positive() -> None:
    result = runner.invoke(app, ["ladder", "standings", "glory", "--watch", "--interval", "-1", "--server", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and "--interval" in result.output


def rendered(table: Any, width: int = 80) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(table)
    return console.export_text()


def folded(text: str, column: int) -> str:
    """The cells of a table column (0 = the first), every line of them joined: a folded name in one piece."""
    return "".join(line.split("│")[column + 1].strip() for line in text.splitlines() if line.startswith("│"))


def test_names_in_the_terminal_tables_are_folded_at_80_columns_never_cut_short() -> None:
    """At 80 columns the standings showed 'glory-heurist…' and 'a-very-long-b…', the matches 'generals-and-assa…':
    a spectator could not tell which bot was which."""
    long_name = "a-very-long-bot-name-that-goes-on-and-on-and-on-for-sixty-four-c"
    bots = ["glory-heuristic", long_name, "random"]
    rows = [
        {"rank": i + 1, "bot": bot, "owner": "carol", "version": "ünïcødé β-1 ♠ 漢字", "mu": 30.0 - i, "sigma": 2.0, "conservative": 24.0 - i, "games": 60}
        for i, bot in enumerate(bots)
    ]
    standings = rendered(standings_table("glory", rows))
    assert "…" not in standings
    assert all(len(line) <= 80 for line in standings.splitlines())
    assert "│ glory-heuristic " in standings, "a sample bot's name keeps a line of its own"
    assert long_name in folded(standings, 1) and "ünïcødé β-1 ♠ 漢字".replace(" ", "") in folded(standings, 3).replace(" ", "")

    seats = [{"seat": s, "bot": bot, "rank": s + 1, "verdicts": [{"kind": "TIMEOUT"}] if s == 1 else []} for s, bot in enumerate(bots)]
    match = {"id": 7, "game": "generals-and-assassins", "kind": "exhibition", "status": "done", "seats": seats}
    matches = rendered(matches_table([match]))
    assert "…" not in matches
    assert all(len(line) <= 80 for line in matches.splitlines())
    assert folded(matches, 1) == "generals-and-assassins"
    assert long_name in folded(matches, 4).replace(" ", "") and f"{long_name}:timeout" in folded(matches, 5).replace(" ", "")


def test_an_empty_ladder_says_so_in_the_terminal_as_the_pages_do() -> None:
    """An empty game or ladder printed the tables' headings and nothing under them."""
    assert "No rated bot in this game yet." in rendered(standings_table("glory", []))
    assert "No match finished yet." in rendered(matches_table([]))
    one = {"rank": 1, "bot": "random", "owner": "arena", "version": "1", "mu": 25.0, "sigma": 8.0, "conservative": 1.0, "games": 2}
    assert "No rated bot" not in rendered(standings_table("glory", [one]))
    newcomer = {**one, "rank": None, "games": 0, "conservative": 0.0}  # entered, no rated game yet: no rank, and said so
    shown = rendered(standings_table("glory", [newcomer]))
    assert "No rated bot in this game yet." in shown and "None" not in shown and "│    – │ random" in shown


def test_a_log_printed_in_the_terminal_has_its_escape_sequences_written_out(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`ladder log` printed the bot's text as it was: "\x1b[2J" cleared the reader's screen. With -o it stays exact."""
    from arena.cli import ladder_bot

    stored = "move 1\x1b[2J\tdone\x1b]0;owned\x07\nnext\n"
    monkeypatch.setattr(ladder_bot, "call", lambda *args, **kwargs: {"log": stored})
    printed = runner.invoke(app, ["ladder", "log", "3", "0", "--server", "http://ladder.invalid", "--token", "t"])
    assert printed.exit_code == 0, printed.output
    assert printed.stdout == "move 1\\x1b[2J\tdone\\x1b]0;owned\\x07\nnext\n" and "\x1b" not in printed.stdout
    runner.invoke(app, ["ladder", "log", "3", "0", "--server", "http://ladder.invalid", "--token", "t", "-o", str(tmp_path / "log.txt")])
    assert (tmp_path / "log.txt").read_text() == stored


def test_a_versions_reason_in_the_terminal_has_its_escape_sequences_written_out() -> None:
    """`ladder bot NAME` shows anyone another owner's rejected version's reason, which quotes that bot's note on a
    malformed answer: "\x1b]0;..." in it retitled the reader's window."""
    import io

    from rich.console import Console

    from arena.cli.ladder_bot import versions_table

    version = {"seq": 1, "version": "1", "status": "rejected", "games": ["glory"], "ratings": {}, "created_at": 0, "reason": "note: \x1b]0;owned\x07"}
    out = io.StringIO()
    Console(file=out, width=200).print(versions_table({"name": "b", "owner": "o", "versions": [version]}))
    assert "\x1b" not in out.getvalue() and "\\x1b]0;owned\\x07" in out.getvalue(), out.getvalue()


def test_an_owner_or_the_operator_withdraws_a_bot_whose_queued_matches_are_still_played(ladder: LadderFixture, server: str) -> None:
    """A bot author could not take a bot off the ladder: it played on until a new version replaced it."""
    from sqlalchemy import select

    from ladder.models import Bot, BotVersion, Match, MatchSeat
    from ladder.scheduler import entrants, fill_queue

    data = str(ladder.ladder.config.data_dir)
    token = arena("ladder", "user", "add", "wendy", "--data", data).strip()
    other = arena("ladder", "user", "add", "xavier", "--data", data).strip()
    for bot, owner in ((SAMPLE_BOTS / "generals_war_greedy", token), (SAMPLE_BOTS / "random", other)):
        arena("ladder", "submit", str(bot), "--server", server, "--token", owner)
    with ladder.make() as db:
        assert fill_queue(db, random.Random(1), target=2, games=["generals-war"])
        queued = db.scalars(select(Match.id).where(Match.status == "queued")).all()
        assert queued and "gw-greedy" in {e.bot for e in entrants(db, "generals-war")}

    refusals = [
        (["gw-greedy", "--token", other], "403: you do not own gw-greedy"),
        (["nobody", "--token", token], "404: no bot 'nobody'"),
        (["gw-greedy", "--token", "nope"], "401"),
        (["gw-greedy"], "give your API token"),
    ]
    for args, said in refusals:
        refused = runner.invoke(app, ["ladder", "withdraw", *args, "--server", server], env={"ARENA_LADDER_TOKEN": ""})
        assert refused.exit_code == 2 and said in " ".join(refused.output.split()), (args, refused.output)
    out = arena("ladder", "withdraw", "gw-greedy", "--server", server, "--token", token)
    assert "withdrawn: gw-greedy (version #1 retired)" in out
    again = runner.invoke(app, ["ladder", "withdraw", "gw-greedy", "--server", server, "--token", token])
    assert again.exit_code == 2 and "409: gw-greedy has no version on the ladder to withdraw" in again.output

    with ladder.make() as db:
        assert "gw-greedy" not in {e.bot for e in entrants(db, "generals-war")}
        withdrawn = db.scalars(select(BotVersion).where(BotVersion.status == "retired")).one()
        assert withdrawn.reason == "withdrawn by its owner"
    rows = json.loads(arena("ladder", "standings", "generals-war", "--json", "--server", server))
    assert [r["bot"] for r in rows] == ["random"]
    ladder.play(len(queued))  # the matches queued with it are played (its duplicate sets are not left half played)
    with ladder.make() as db:
        assert {db.get_one(Match, m).status for m in queued} == {"done"}
        later = db.scalars(select(MatchSeat.match_id).where(MatchSeat.bot_version_id == withdrawn.id, MatchSeat.match_id.not_in(queued))).all()
        assert later == [], "a match was scheduled for the withdrawn bot"
    arena("ladder", "submit", str(SAMPLE_BOTS / "generals_war_greedy"), "--server", server, "--token", token)
    with ladder.make() as db:
        assert "gw-greedy" in {e.bot for e in entrants(db, "generals-war")}

    # The operator, on the database and with no token, takes any owner's bot off.
    out = arena("ladder", "retire", "random", "--data", data)
    assert "withdrawn: random (version #1 retired)" in out
    for name, said in (("random", "random has no version on the ladder to withdraw"), ("nobody", "no bot 'nobody'")):
        refused = runner.invoke(app, ["ladder", "retire", name, "--data", data])
        assert refused.exit_code == 2 and said in refused.output, refused.output
    with ladder.make() as db:
        assert {e.bot for e in entrants(db, "generals-war")} == {"gw-greedy"}
        assert db.scalar(select(BotVersion.reason).join(Bot).where(Bot.name == "random")) == "withdrawn by the operator"


def greedy_against_random(ladder: LadderFixture, server: str) -> tuple[str, str, str]:
    """Owner yara's gw-greedy and zeno's random entered from the terminal, two matches played: the data folder,
    yara's token and zeno's."""
    data = str(ladder.ladder.config.data_dir)
    token = arena("ladder", "user", "add", "yara", "--data", data).strip()
    other = arena("ladder", "user", "add", "zeno", "--data", data).strip()
    arena("ladder", "submit", str(SAMPLE_BOTS / "generals_war_greedy"), "--server", server, "--token", token)
    arena("ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", server, "--token", other)
    ladder.play(2)
    return data, token, other


def test_a_bot_author_looks_up_a_bot_its_log_and_a_replay_from_the_terminal(
    ladder: LadderFixture, server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The web pages showed a bot's versions and head-to-head, its owner's logs and the replays; the terminal did not."""
    from sqlalchemy import select

    from ladder.models import MatchSeat
    from referee.server.replay import load_replay

    data, token, other = greedy_against_random(ladder, server)

    shown = json.loads(arena("ladder", "bot", "gw-greedy", "--json", "--server", server))
    assert shown["owner"] == "yara" and [v["status"] for v in shown["versions"]] == ["active"]
    [against] = shown["head_to_head"]
    assert against["opponent"] == "random" and against["games"] == against["wins"] + against["draws"] + against["losses"] >= 1
    table = " ".join(arena("ladder", "bot", "gw-greedy", "--server", server).split())
    assert "gw-greedy · owned by yara" in table and "generals-war" in table and "random" in table

    matches = json.loads(arena("ladder", "matches", "--bot", "gw-greedy", "--json", "--server", server))
    done = next(m for m in matches if m["status"] == "done" and m["settled"])
    seat = next(s["seat"] for s in done["seats"] if s["bot"] == "gw-greedy")
    assert f"{seat}: gw-greedy (" in " ".join(arena("ladder", "matches", "--server", server).split())  # the seat to ask for
    log = arena("ladder", "log", str(done["id"]), str(seat), "--server", server, "--token", token)
    with ladder.make() as db:
        kept = db.scalars(select(MatchSeat).where(MatchSeat.match_id == done["id"], MatchSeat.seat == seat)).one()
        from ladder.queries import seat_log

        assert log.rstrip("\n") == (seat_log(db, kept, ladder.ladder.config.data_dir) or "").rstrip("\n") and log.strip()
    saved = tmp_path / "logs" / "greedy.log"
    arena("ladder", "log", str(done["id"]), str(seat), "--server", server, "--token", token, "-o", str(saved))
    assert saved.read_text() == log

    where = tmp_path / "r" / "match.json"
    out = " ".join(arena("ladder", "replay", str(done["id"]), "--server", server, "-o", str(where)).split())
    assert f"watch it: arena replay {where}" in out
    replay = load_replay(where)
    assert [s["name"] for s in replay["seats"]] == [s["bot"] for s in done["seats"]] and replay["events"]
    monkeypatch.chdir(tmp_path)  # without -o: where its help says, for `arena replay` to show
    assert f"replay of match {done['id']}: replays/ladder-{done['id']}.json" in arena("ladder", "replay", str(done["id"]), "--server", server)
    assert load_replay(tmp_path / "replays" / f"ladder-{done['id']}.json") == replay
    printed = arena("ladder", "replay", str(done["id"]), "--server", server, "-o", str(where), "--text", "--seat", str(seat)).splitlines()
    assert printed[0].endswith(f"as seat {seat} (gw-greedy) saw it") and printed[-2].startswith("result: ")
    assert sum(bool(re.match(r"\d+\. seat \d", line)) for line in printed) == len(replay["actions"])

    refusals = [
        (["log", str(done["id"]), str(seat), "--token", other], "403: only the bot's owner may read its logs"),
        (["log", str(done["id"]), str(seat)], "give your API token"),
        (["log", "999999", "0", "--token", token], "404"),
        (["replay", "999999"], "404"),
        (["bot", "nobody"], "404: no bot 'nobody'"),
    ]
    for args, said in refusals:
        refused = runner.invoke(app, ["ladder", *args, "--server", server], env={"ARENA_LADDER_TOKEN": ""})
        assert refused.exit_code == 2 and said in " ".join(refused.output.split()), (args, refused.output)


def test_the_operator_backs_up_a_running_ladder_into_a_folder_a_ladder_can_serve(ladder: LadderFixture, server: str, tmp_path: Path) -> None:
    """There was no backup: `cp` of ladder.db while the ladder writes leaves out what its WAL file holds."""
    import sqlite3

    from sqlalchemy import func, select

    from ladder.accounts import add_user
    from ladder.hold import Hold
    from ladder.models import Match, MatchSeat
    from ladder.service import LadderConfig, open_db
    from fastapi.testclient import TestClient

    data = ladder.ladder.config.data_dir
    token = arena("ladder", "user", "add", "olga", "--data", str(data)).strip()
    arena("ladder", "submit", str(SAMPLE_BOTS / "generals_war_greedy"), "--server", server, "--token", token)
    arena("ladder", "submit", str(SAMPLE_BOTS / "random"), "--server", server, "--token", token)
    ladder.play(2)
    (data / "bots" / ".staging" / "half-unpacked").mkdir(parents=True, exist_ok=True)
    live = Hold(ladder.make, "127.0.0.1:8765")
    live.take()  # a ladder serves the database while the backup is taken

    stop, written = threading.Event(), list[int]()

    def writing() -> None:  # the ladder's writes go on meanwhile
        while not stop.is_set():
            with ladder.make() as db:
                add_user(db, f"late-{len(written)}")
            written.append(1)

    writer = threading.Thread(target=writing)
    writer.start()
    try:
        copy = tmp_path / "backups" / "monday"
        out = " ".join(arena("ladder", "backup", str(copy), "--data", str(data)).split())
    finally:
        stop.set()
        writer.join(10)
        live.release()
    assert f"into {copy}; `arena ladder serve --data {copy}` serves the copy" in out and written

    with sqlite3.connect(copy / "ladder.db") as check:
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    restored = open_db(LadderConfig(copy))
    with ladder.make() as db, restored() as db_copy:
        assert db_copy.scalar(select(func.count()).select_from(Match)) == db.scalar(select(func.count()).select_from(Match))
        seat = db_copy.scalars(select(MatchSeat).where(MatchSeat.log_path.is_not(None))).first()
        assert seat is not None and not Path(seat.log_path or "/").is_absolute()  # named within the data folder
        match_id, seat_number = seat.match_id, seat.seat
    original = {path: ladder.client.get(path, headers={"Authorization": f"Bearer {token}"}) for path in (
        f"/api/matches/{match_id}/replay", f"/api/matches/{match_id}/logs/{seat_number}", f"/api/matches/{match_id}/frames?seat=0")}
    assert all(r.status_code == 200 for r in original.values()), {p: r.text for p, r in original.items()}
    away = data.with_name(data.name + "-away")
    data.rename(away)  # the original gone: the copy serves every replay and log from its own folder
    try:
        with TestClient(create_app(LadderState(restored, copy / "bots", copy))) as served:
            for path, reply in original.items():
                again = served.get(path, headers={"Authorization": f"Bearer {token}"})
                assert again.status_code == 200 and again.content == reply.content, (path, again.text)
    finally:
        away.rename(data)
    assert (copy / "bots" / "gw-greedy" / "1" / "bot.toml").is_file() and not (copy / "bots" / ".staging").exists()
    Hold(restored, "127.0.0.1:8766").take()  # not held by the ladder that was running (LadderBusy otherwise)
    assert "ratings match the match log" in arena("ladder", "check-ratings", "--data", str(copy))

    for args, said in (
        ([str(copy), "--data", str(data)], "is not an empty folder"),
        ([str(data / "inside"), "--data", str(data)], "inside the data folder"),
        ([str(tmp_path / "other"), "--data", str(tmp_path / "nothing")], "no ladder in"),
    ):
        refused = runner.invoke(app, ["ladder", "backup", *args])
        assert refused.exit_code == 2 and said in " ".join(refused.output.split()), (args, refused.output)
    assert not (tmp_path / "other").exists() and not (data / "inside").exists()


def test_commands_on_a_database_named_by_url_leave_no_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`user add/list`, `retire`, `check-ratings` with --db need no data folder: none is made (./arena-data was, empty)."""
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    assert arena("ladder", "user", "add", "nina", "--db", url).startswith("arena_")
    assert "nina" in arena("ladder", "user", "list", "--db", url)
    assert "ratings match the match log" in arena("ladder", "check-ratings", "--db", url)
    assert runner.invoke(app, ["ladder", "retire", "nobot", "--db", url]).exit_code == 2
    assert not (tmp_path / "arena-data").exists()
