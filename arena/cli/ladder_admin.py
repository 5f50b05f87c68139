"""The operator's commands on a stopped ladder's database.

`arena ladder copy-database` moves a ladder's database (SQLite, started with the demo) to another (PostgreSQL):
docs/deploy.md sends a ladder that outgrew one machine to PostgreSQL and Dask workers; nothing moved its owners,
bots, matches and ratings there, so the move began an empty ladder. `arena ladder vacuum` hands the space of pruned
rows back to the disk (ladder/vacuum.py): an SQLite file keeps it after `arena ladder prune`. And `arena ladder user
retire`, while the ladder serves too, takes an owner and every bot of theirs off it at once. The other `arena ladder
user` commands are here too; `add` makes a ladder where there was none, which it says.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
import time
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from arena.cli.failing import fail
from arena.cli.folders import first_missing, remove_made
from arena.cli.ladder import DEFAULT_DATA, DataDir, DbUrl, console, database_errors, err, ladder_app, on_owner, open_ladder_db, sqlite_database, user_app


@user_app.command("add")
def user_add(name: str, data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Create an owner and print their API token (shown once)."""
    from ladder.accounts import add_user

    database = sqlite_database(data, db)
    new = database is not None and not database.exists()
    made = first_missing(data if database is None or db is None else database.parent)
    try:
        token = on_owner(add_user, name, data, db, existing=False)
    except typer.Exit:
        if new and database is not None:  # a name refused: no empty ladder is left where there was none
            forget_new_database(database, made)
        raise
    print(token)
    if new and database is not None:
        # A --data mistyped, or the default arena-data of another directory: the token printed works on no running ladder.
        where = f"in {data}" if db is None else f"at {database}"
        serve = f"--data {data}" if db is None else f"--db {db}"
        err.print(f"[yellow]note:[/] {escape(f'there was no ladder {where}: a new one was made there, {name} its first owner')}"
                  f" ({escape(f'`arena ladder serve {serve}` serves it')}); a ladder running elsewhere knows nothing of this"
                  " token: give its --data (or --db)", soft_wrap=True, highlight=False)


@user_app.command("token")
def user_token(name: str, data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Give an owner a new API token and print it (shown once); their old token stops working."""
    from ladder.accounts import reissue_token

    print(on_owner(reissue_token, name, data, db))


@user_app.command("revoke")
def user_revoke(name: str, data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Stop an owner's API token working; their bots stay on the ladder (`user token` gives them a new one)."""
    from ladder.accounts import revoke_token

    name = on_owner(revoke_token, name, data, db)
    console.print(f"{name}'s token is revoked: the ladder refuses it from now on")


@user_app.command("list")
def user_list(data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """The owners, with their number of bots and whether their token is revoked."""
    from ladder.accounts import list_users

    with database_errors(), open_ladder_db(data, db, existing=True)() as session:
        owners = list_users(session)
    table = Table()
    for column in ("owner", "bots", "since", "token"):
        table.add_column(column, justify="right" if column == "bots" else "left", no_wrap=column == "owner")
    for o in owners:
        table.add_row(o.name, str(o.bots), time.strftime("%Y-%m-%d %H:%M", time.localtime(o.created_at)), "revoked" if o.revoked else "valid")
    console.print(table)


def forget_new_database(database: Path, made: Path | None) -> None:
    """Remove the SQLite file (and what SQLite and the vacuum's lock left beside it) that the command made, unless a
    ladder started on it meanwhile (`serve` in another terminal): its house user is there then."""
    import sqlite3
    from contextlib import closing

    from ladder.db import MIGRATE_LOCK_SUFFIX
    from ladder.vacuum import LOCK_SUFFIX, let_go

    try:
        with closing(sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)) as db:
            if db.execute("SELECT count(*) FROM users").fetchone()[0]:
                return
    except sqlite3.Error:
        return  # not the empty ladder this command made: left alone
    let_go()
    for suffix in ("", "-wal", "-shm", "-journal", LOCK_SUFFIX, MIGRATE_LOCK_SUFFIX):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    remove_made(made)


@ladder_app.command("copy-database")
def copy_database(
    to: Annotated[str, typer.Argument(help="The URL of a new, empty database, e.g. postgresql+psycopg://USER:PASSWORD@HOST/DB.")],
    data: DataDir = DEFAULT_DATA,
    db: DbUrl = None,
) -> None:
    """Operator: copy the ladder's database (SQLite in --data, or --db) into a new, empty one, with the ladder stopped."""
    from ladder.hold import LadderBusy, check_free
    from ladder.transfer import TransferError, copy_ladder, mark_moved

    if not to.strip():  # an unset variable: open_ladder_db took it for --db, and said "--db is empty"
        fail("the target URL is empty: give the URL of a new, empty database, e.g. postgresql+psycopg://USER:PASSWORD@HOST/DB")
    source = open_ladder_db(data, db, existing=True, moved=True)  # this Arena's schema: an older one is brought up by `serve` first
    try:
        with database_errors():
            check_free(source)  # a ladder serving it would go on writing what the copy leaves out
    except LadderBusy as exc:
        fail(str(exc))
    target = open_ladder_db(data, to, write=True)  # its schema made by the same migrations
    if source.kw["bind"].url == target.kw["bind"].url:
        fail(f"the target is the ladder's own database ({'--db' if db is not None else f'{data}/ladder.db'}): copy it into another")
    try:
        with database_errors():
            done = copy_ladder(source.kw["bind"], target.kw["bind"])
    except TransferError as exc:
        fail(str(exc))
    left = ""
    if (copied := sqlite_database(data, db)) is not None:  # served no more, unless the operator says so
        mark_moved(copied, target.kw["bind"].url.render_as_string(hide_password=True))
        left = f"; {copied} is left as it was, and refused without --db from now on"
    counts = ", ".join(f"{table.replace('_', ' ')}: {done.rows[table]}" for table in ("users", "bots", "bot_versions", "matches"))
    console.print(f"copied the ladder's database ({counts}); serve it with `arena ladder serve --data {data} --db URL`, the URL of"
                  f" the copy: the bot store, replays and logs stay in that data folder{left}", soft_wrap=True, markup=False)


@ladder_app.command()
def vacuum(data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Operator: shrink the SQLite file to the rows it keeps (after `arena ladder prune`), with the ladder stopped."""
    from ladder.hold import LadderBusy, check_free
    from ladder.vacuum import InUse, VacuumError, alone, postgresql_size, vacuum as vacuumed

    database = sqlite_database(data, db)
    try:
        # Alone on the file first: the ladders and commands started meanwhile wait for the vacuum (ladder/vacuum.py).
        with database_errors(), alone(database) if database is not None and database.is_file() else contextlib.nullcontext():
            make = open_ladder_db(data, db, existing=True, write=True)
            done = vacuumed(make)
            size = postgresql_size(make) if done.path is None else None
    except InUse:
        try:
            with database_errors():
                check_free(open_ladder_db(data, db, existing=True))  # a ladder serving it is named
        except LadderBusy as exc:
            fail(str(exc))
        fail("a ladder is starting on this database, or another `arena ladder` command writes to it: try again once it has ended")
    except (LadderBusy, VacuumError, OSError) as exc:
        fail(str(exc))
    if done.path is not None:
        console.print(f"vacuumed {done.path}: {done.before} bytes before, {done.after} after ({done.before - done.after} given back to the disk)",
                      soft_wrap=True, markup=False)
        return
    held = f" (it holds {size} bytes)" if size is not None else ""
    console.print(f"nothing done: the database is not SQLite{held}. PostgreSQL's autovacuum keeps the space of pruned rows for new"
                  " ones; VACUUM FULL hands it back to the disk, but locks each table while it rewrites it: run it yourself"
                  " (psql), with the ladder stopped", soft_wrap=True, markup=False)


@user_app.command("retire")
def user_retire(name: str, data: DataDir = DEFAULT_DATA, db: DbUrl = None) -> None:
    """Operator: take an owner off the ladder: their token revoked and each of their bots retired (history kept)."""
    from ladder.submissions import retire_owner

    name, retired = on_owner(retire_owner, name, data, db)  # the name as the ladder holds it, not as typed
    bots = ", ".join(f"{bot} (version #{seq})" for bot, seq in retired) or "none had a version on the ladder"
    console.print(f"{name}'s token is revoked and their bots withdrawn: {bots}; `user token` lets them submit again", soft_wrap=True, markup=False)
