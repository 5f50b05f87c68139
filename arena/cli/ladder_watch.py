"""`arena ladder standings|matches` in the terminal: the leaderboard and the matches as tables or JSON, once, or kept
up to date (``--watch``, ``--follow``) through a restart of the ladder."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from rich.console import Group
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from arena.cli.failing import fail
from arena.cli.ladder import Unreachable, call, console, err, rows_of
from arena.cli.ladder_verdicts import said_verdicts


def standings_table(game: str, rows: list[dict[str, Any]]) -> Table:
    table = Table(title=f"{game} · {time.strftime('%H:%M:%S')}", caption=None if any(r["rank"] for r in rows) else "No rated bot in this game yet.")
    # A narrow terminal folds a long name onto more lines rather than cut it short with "…"; the owner and the
    # version give way first, so that a bot's name keeps a line of its own.
    table.add_column("rank", justify="right")
    table.add_column("bot", overflow="fold")
    table.add_column("owner", overflow="fold", max_width=12)
    table.add_column("version", overflow="fold", max_width=12)
    for column in ("μ", "σ", "μ−3σ", "games"):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row("–" if r["rank"] is None else str(r["rank"]), Text(r["bot"]), Text(r["owner"]), Text(r["version"]), f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['conservative']:.2f}", str(r["games"]))
    return table


def show_standings(server: str, game: str, watch: bool, as_json: bool, interval: float) -> None:
    if "/" in game:  # the web server decodes %2F before routing: the ladder would answer a bare "404: Not Found"
        fail(f"unknown game {game!r} (`arena games` lists them)")
    rows = rows_of(server, call("GET", server, f"/api/games/{quote(game, safe='')}/standings"))

    def show(rows: list[dict[str, Any]]) -> None:
        if as_json:
            print(json.dumps(rows), flush=True)
        else:
            console.print(standings_table(game, rows))
            sys.stdout.flush()

    if not watch:
        show(rows)
        return
    look = Watcher(lambda: rows_of(server, call("GET", server, f"/api/games/{quote(game, safe='')}/standings", retry=True)))
    if as_json or not console.is_terminal:  # a pipe or a file: Live drew only at exit (nothing at all when killed), so a table per update
        try:
            while True:
                show(rows)
                rows = look.next(interval)
        except KeyboardInterrupt:
            return
    with Live(standings_table(game, rows), console=console, refresh_per_second=4) as live:
        try:
            while True:
                live.update(standings_table(game, look.next(interval)))
        except KeyboardInterrupt:
            pass


class Watcher:
    """One look of a watching command (``--watch``, ``--follow``): None while the ladder cannot be reached or fails,
    said once on stderr when it starts and once when it ends, so that a watch outlives a restart of the ladder."""

    def __init__(self, look: Callable[[], Any]) -> None:
        self.look = look
        self.down = False

    def __call__(self) -> Any:
        try:
            answer = self.look()
        except Unreachable as exc:
            if not self.down:
                err.print(f"[yellow]warning:[/] {escape(str(exc))}; trying again", soft_wrap=True, highlight=False)
            self.down = True
            return None
        if self.down:
            err.print("the ladder answers again", soft_wrap=True)
        self.down = False
        return answer

    def next(self, interval: float) -> Any:
        """The next answer: a look after ``interval`` seconds, and another after each interval until one comes."""
        while True:
            time.sleep(interval)
            if (answer := self()) is not None:
                return answer


#: The matches each look of --follow reads (the API's most): more than this settling between two looks are missed.
MAX_FOLLOWED = 200


def follow_matches(rows: list[dict[str, Any]], limit: int, look: Watcher, interval: float, as_json: bool) -> None:
    """Print the last ``limit`` settled matches of ``rows`` (newest first, as the API lists them), then every match
    ``look`` finds settled since, oldest first: a match is printed once, when its ranks are out (the whole deal over)."""
    shown = {m["id"] for m in rows if m["settled"]}
    backlog = [m for m in rows if m["settled"]][:limit]
    while True:
        for m in reversed(backlog):
            print(json.dumps(m) if as_json else match_line(m), flush=True)
        rows = look.next(interval)
        backlog = [m for m in rows if m["settled"] and m["id"] not in shown]
        shown = {m["id"] for m in rows if m["settled"]}  # a match that left the window (the newest ends) never comes back


def match_line(m: dict[str, Any]) -> str:
    """One match on one line: ``#id game kind status  seat: bot rank N ...  verdicts``; a rank said as one, where a line
    with no header above it read "0: gw-greedy (1)" (a seat's rank? its score? a count?)."""
    seats = "  ".join(f"{s['seat']}: {s['bot']}" + ("" if s["rank"] is None else f" rank {s['rank']}") for s in m["seats"])
    verdicts = said_verdicts(m)
    line = f"#{m['id']} {m['game']} {m['kind']} {m['status']}  {seats}" + (f"  verdicts: {verdicts}" if verdicts else "")
    if why := unplayed_reason(m):
        line += f"  why: {why if len(why) <= FOLLOWED_REASON else why[:FOLLOWED_REASON - 1] + '…'}"
    return line


#: Characters of an unplayed match's reason that a line of --follow gives (all of it with --json).
FOLLOWED_REASON = 100


def unplayed_reason(m: dict[str, Any]) -> str:
    """Why a match listed (a finished one) was not played: its error as the API gives it (the text its page shows),
    on one line; "" for a match played, whose error, if any, was an earlier attempt's."""
    return " ".join((m.get("error") or "").split()) if m["status"] != "done" else ""


def matches_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Recent matches", caption=None if rows else "No match finished yet.")
    for column in ("id", "game", "kind", "status", "seat: bot (rank)", "verdicts / reason"):
        table.add_column(column, overflow="fold")  # a long game or bot name folds onto more lines, never cut short with "…"
    for m in rows:
        # no rank until every match of the deal is over (the API keeps it back from the twin's bots)
        # each with its seat (`arena ladder log MATCH SEAT` asks for it), on a line of its own: wrapped, "1:" ended a line
        seats = "\n".join(f"{s['seat']}: {s['bot']} ({s['rank'] if s['rank'] is not None else 'not yet'})" for s in m["seats"])
        verdicts = said_verdicts(m)
        # Why a failed or cancelled match was not played, on one line cut to the column ("…"): the whole text is in --json.
        why = Text(reason, no_wrap=True, overflow="ellipsis") if (reason := unplayed_reason(m)) else None
        said = Group(*([Text(verdicts)] if verdicts else []), why) if why is not None else Text(verdicts or "-")
        table.add_row(str(m["id"]), m["game"], m["kind"], m["status"], Text(seats), said)
    return table
