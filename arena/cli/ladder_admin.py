"""`arena ladder copy-database`: the operator moves a ladder's database (SQLite, started with the demo) to another (PostgreSQL).

docs/deploy.md sends a ladder that outgrew one machine to PostgreSQL and Dask workers; nothing moved its owners,
bots, matches and ratings there, so the move began an empty ladder.
"""

from __future__ import annotations

from typing import Annotated

import typer

from arena.cli.failing import fail
from arena.cli.ladder import DEFAULT_DATA, DataDir, DbUrl, console, database_errors, ladder_app, open_ladder_db


@ladder_app.command("copy-database")
def copy_database(
    to: Annotated[str, typer.Argument(help="The URL of a new, empty database, e.g. postgresql+psycopg://USER:PASSWORD@HOST/DB.")],
    data: DataDir = DEFAULT_DATA,
    db: DbUrl = None,
) -> None:
    """Operator: copy the ladder's database (SQLite in --data, or --db) into a new, empty one, with the ladder stopped."""
    from ladder.hold import LadderBusy, check_free
    from ladder.transfer import TransferError, copy_ladder

    source = open_ladder_db(data, db, existing=True)  # this Arena's schema: an older one is brought up by `serve` first
    try:
        with database_errors():
            check_free(source)  # a ladder serving it would go on writing what the copy leaves out
    except LadderBusy as exc:
        fail(str(exc))
    target = open_ladder_db(data, to, write=True)  # its schema made by the same migrations
    if source.kw["bind"].url == target.kw["bind"].url:
        fail("--db and the target name the same database")
    try:
        with database_errors():
            done = copy_ladder(source.kw["bind"], target.kw["bind"])
    except TransferError as exc:
        fail(str(exc))
    counts = ", ".join(f"{table.replace('_', ' ')}: {done.rows[table]}" for table in ("users", "bots", "bot_versions", "matches"))
    console.print(f"copied the ladder's database ({counts}); serve it with `arena ladder serve --data {data} --db URL`, the URL of"
                  " the copy: the bot store, replays and logs stay in that data folder", soft_wrap=True, markup=False)
