"""A ladder's database copied into another, empty one: how a ladder started on SQLite moves to PostgreSQL.

Every table is copied row by row, ids and all, in the order of their foreign keys, read in one transaction (a
snapshot) and written in one (all or nothing). Both schemas are this Arena's: the target's is made by the same
migrations first, and its hold row (ladder/hold.py) is its own. PostgreSQL's id sequences are then set past the
copied ids, or the next row a ladder added there would take an id already copied.

The files stay where they are: the bot store, and the replays and logs kept as files, are named relative to the data
folder (ladder/datafiles.py), so the copy is served with the same ``--data`` and ``--db`` naming the target.

An SQLite source is left as it was, and marked moved (``ladder.db.moved`` beside it): a `serve` or a command run on
the data folder without ``--db`` (an old unit's command line, a habit) found the file there and went on with it: a
second ladder on the same bot store and file names, owners added where no ladder served them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, func, insert, select, text
from sqlalchemy.exc import SQLAlchemyError

from ladder.models import Base, LadderHold

#: Rows read and written at a time: a match_files row holds a gzipped replay, a few kilobytes.
BATCH = 500
#: The tables that are not the ladder's history: the hold is each database's own.
NOT_COPIED = frozenset({LadderHold.__tablename__})


class TransferError(Exception):
    """The copy cannot be made (a target that is not empty, a row the target refuses); its message says why."""


@dataclass(frozen=True)
class Transfer:
    rows: dict[str, int]  # table: rows copied


def copy_ladder(source: Engine, target: Engine) -> Transfer:
    """Copy every row of the ladder's tables from ``source`` into ``target``, whose tables must all be empty."""
    tables = [t for t in Base.metadata.sorted_tables if t.name not in NOT_COPIED]
    copied: dict[str, int] = {}
    with source.connect() as reading, target.connect() as writing:
        with reading.begin(), writing.begin():
            if held := [t.name for t in tables if writing.scalar(select(func.count()).select_from(t))]:
                raise TransferError(f"the target database is not empty (rows in {', '.join(held)}): the copy goes into a new one only")
            for table in tables:
                count = 0
                rows = reading.execute(select(table).order_by(*table.primary_key.columns))
                while batch := rows.fetchmany(BATCH):
                    try:
                        writing.execute(insert(table), [row._asdict() for row in batch])
                    except SQLAlchemyError as exc:
                        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
                        raise TransferError(f"the target database refused a row of {table.name}: {reason}") from None
                    count += len(batch)
                copied[table.name] = count
            if writing.dialect.name == "postgresql":
                for table in tables:
                    set_sequence(writing, table.name)
    return Transfer(copied)


def set_sequence(conn: Connection, table: str) -> None:
    """Set the sequence of ``table``'s id past its largest id (PostgreSQL), so that new rows take new ids."""
    conn.execute(
        text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE((SELECT max(id) FROM \"{table}\"), 0) + 1, false)")
    )


#: Beside an SQLite file copied into another database: the copy's URL (its password hidden) and when it was made.
MOVED_SUFFIX = ".moved"


def moved_marker(database: Path) -> Path:
    return database.with_name(database.name + MOVED_SUFFIX)


def mark_moved(database: Path, target: str) -> None:
    """Say beside the SQLite file ``database`` that its ladder was copied into ``target`` (shown, password hidden)."""
    moved_marker(database).write_text(f"{target}\n{time.strftime('%Y-%m-%d %H:%M')}\n")


def moved_away(database: Path | None) -> str | None:
    """Why the SQLite file ``database`` is not to be used, if `copy-database` copied it into another database."""
    marker = None if database is None else moved_marker(database)
    if marker is None or not marker.is_file():
        return None
    target, _, when = marker.read_text().partition("\n")
    return (f"the ladder of {database} was copied into {target} (`arena ladder copy-database`, {when.strip() or 'before'}):"
            f" give --db with that database's URL; {database} is left as it was then (to use it again all the same, remove {marker})")
