"""`arena ladder bot|log|replay`: what a bot author looks up on a ladder from the terminal.

A bot's versions, ratings and head-to-head, its log of a match (owner only) and a match's replay, to watch with
`arena replay`: the web pages had them, and a bot author at a terminal had to call the API by hand.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer
from rich.table import Table
from rich.text import Text

from arena.cli.failing import fail
from arena.cli.ladder import DEFAULT_SERVER, NO_TOKEN, Server, Token, call, console, ladder_answers, ladder_app, not_the_ladder, rows_of
from arena.cli.replay_text import printable


def versions_table(detail: dict[str, Any]) -> Table:
    table = Table(title=f"{detail['name']} · owned by {detail['owner']}")
    for column in ("#", "version", "status", "plays", "ratings (μ−3σ, games)", "submitted", "note"):
        table.add_column(column, overflow="fold", justify="right" if column == "#" else "left")
    for v in reversed(detail["versions"]):  # the newest first
        ratings = ", ".join(f"{game} {r['conservative']:.2f} ({r['games']})" for game, r in sorted(v["ratings"].items()))
        submitted = time.strftime("%Y-%m-%d %H:%M", time.localtime(v["created_at"]))
        table.add_row(str(v["seq"]), Text(v["version"]), v["status"], ", ".join(v["games"]), ratings or "-", submitted, Text(printable(v["reason"] or "")))
    return table


def head_to_head_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Head to head", caption=None if rows else "No finished match against another bot yet.")
    for column in ("game", "opponent", "games", "W", "D", "L", "score"):
        table.add_column(column, overflow="fold", justify="left" if column in ("game", "opponent") else "right")
    for r in rows:
        table.add_row(r["game"], r["opponent"], str(r["games"]), str(r["wins"]), str(r["draws"]), str(r["losses"]), f"{r['score']:.0%}")
    return table


@ladder_app.command()
def bot(
    name: Annotated[str, typer.Argument(help="The bot.")],
    server: Server = DEFAULT_SERVER,
    game: Annotated[str | None, typer.Option(help="Head-to-head in this game only.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: the bot and its head-to-head.")] = False,
) -> None:
    """A bot's versions (status, ratings, why one was rejected, retired or suspended) and its head-to-head against each opponent."""
    path = f"/api/bots/{quote(name, safe='')}"
    detail = call("GET", server, path)
    if not isinstance(detail, dict) or "versions" not in detail:
        fail(not_the_ladder(server))
    rows = rows_of(server, call("GET", server, f"{path}/crosstable", params={"game": game} if game else None))
    with ladder_answers(server):
        if as_json:
            print(json.dumps({**detail, "head_to_head": rows}))
            return
        console.print(versions_table(detail))
        console.print(head_to_head_table(rows))


@ladder_app.command()
def log(
    match: Annotated[int, typer.Argument(help="The match's id.", min=0)],
    seat: Annotated[int, typer.Argument(help="Your bot's seat in it (arena ladder matches --bot NAME).", min=0)],
    server: Server = DEFAULT_SERVER,
    token: Token = "",
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write it to this file instead of printing it.")] = None,
) -> None:
    """Your bot's log of one match (what it printed), once every match of its deal is over."""
    if not token:
        fail(NO_TOKEN)
    answer = call("GET", server, f"/api/matches/{match}/logs/{seat}", token)
    text = answer.get("log") if isinstance(answer, dict) else None
    if not isinstance(text, str):
        fail(not_the_ladder(server))
    if out is None:  # the bot's own text: an escape sequence in it would clear or retitle the terminal; -o keeps it exact
        from arena.cli.replay_text import printable_log

        print(printable_log(text), end="" if text.endswith("\n") else "\n")
        return
    write(out, text)
    console.print(f"log of match {match}, seat {seat}: {out}", soft_wrap=True, markup=False)


@ladder_app.command()
def replay(
    match: Annotated[int, typer.Argument(help="The match's id.", min=0)],
    server: Server = DEFAULT_SERVER,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Where to write it (default: replays/ladder-MATCH.json).")] = None,
    text: Annotated[bool, typer.Option("--text", help="Print it in the terminal too, step by step (as `arena replay FILE --text`).")] = False,
    seat: Annotated[str | None, typer.Option(help="With --text: as this seat saw it (a number), or 'all' (default).")] = None,
) -> None:
    """Download a match's replay, once every match of its deal is over; `arena replay FILE` then shows it."""
    from referee.server.replay import FORMAT

    data = call("GET", server, f"/api/matches/{match}/replay")
    if not isinstance(data, dict) or data.get("format") != FORMAT:  # written, it was a "replay" that is not one, and exit 0
        fail(not_the_ladder(server))
    if seat is not None:  # before the file is written: a seat refused after it left a file the command said nothing of
        from referee.server.frames import parse_seat

        try:
            parse_seat(seat, int(data.get("num_players", 0)))
        except (ValueError, TypeError) as exc:
            fail(str(exc))
    where = out or Path("replays") / f"ladder-{match}.json"
    write(where, json.dumps(data, separators=(",", ":")))
    if text or seat is not None:
        from arena.cli.replay import print_text

        print_text(where, seat or "all", None)
        return
    console.print(f"replay of match {match}: {where}   watch it: arena replay {where}", soft_wrap=True, markup=False)


def write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
