"""Handing a pruned ladder's space back to the disk (``arena ladder vacuum``).

``arena ladder prune`` deletes rows; SQLite keeps their pages in the file for the rows to come, so the file stops
growing but never shrinks. ``VACUUM`` rewrites the file without them. It locks the whole database while it runs, so it
is refused while a ladder serves it (ladder/hold.py), and it needs room: SQLite builds the new content in a temporary
database (in the temporary folder: ``SQLITE_TMPDIR``, ``TMPDIR``, else /var/tmp or /tmp) and, the ladder's file
being in WAL mode, writes it again to the file's ``-wal`` beside it before it is copied back; each is about the size
of the rows kept. PostgreSQL's autovacuum keeps the space of deleted rows for new ones by itself; ``VACUUM FULL``
would hand it back, but locks each table while it rewrites it, so it is left to the operator.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from ladder.hold import check_free


class VacuumError(Exception):
    """The vacuum was refused before anything was changed."""


@dataclass(frozen=True)
class Vacuumed:
    """What a vacuum did: the SQLite file (None for another database) and its size, with its ``-wal``, before and after."""

    path: Path | None
    before: int
    after: int


def sqlite_file(engine: Engine) -> Path | None:
    """The SQLite file of ``engine``, as SQLite names it (a ``file:`` URI's too), or None for another database (or
    one in memory)."""
    if engine.dialect.name != "sqlite":
        return None
    with engine.connect() as conn:
        name = conn.exec_driver_sql("PRAGMA database_list").fetchone()
    return Path(name[2]) if name is not None and name[2] else None


def file_size(path: Path) -> int:
    """The database file's size with its write-ahead log's (what it holds on the disk until the next checkpoint)."""
    return sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())


def kept_bytes(engine: Engine) -> int:
    """The bytes of the pages in use (the file's pages less its free ones): about what VACUUM writes, twice."""
    with engine.connect() as conn:
        pages = int(conn.exec_driver_sql("PRAGMA page_count").scalar_one())
        free = int(conn.exec_driver_sql("PRAGMA freelist_count").scalar_one())
        size = int(conn.exec_driver_sql("PRAGMA page_size").scalar_one())
    return (pages - free) * size


def check_room(path: Path, needed: int) -> None:
    """VacuumError unless the file's disk and the temporary folder's have room for ``needed`` bytes each (twice
    that on one disk): the temporary copy and the write-ahead log."""
    folders = [path.parent, Path(os.environ.get("SQLITE_TMPDIR") or tempfile.gettempdir())]
    first: dict[int, Path] = {}
    wanted: dict[int, int] = {}
    for folder in folders:
        device = folder.stat().st_dev
        first.setdefault(device, folder)
        wanted[device] = wanted.get(device, 0) + needed
    for device, bytes_ in wanted.items():
        folder = first[device]
        free = shutil.disk_usage(folder).free
        if free < bytes_:
            raise VacuumError(
                f"VACUUM needs about {bytes_} bytes free on the disk of {folder} (a copy of the {needed} bytes the database"
                f" keeps, in the temporary folder and in its write-ahead log), and it has {free}: free some space first"
            )


def vacuum(make: sessionmaker[Session]) -> Vacuumed:
    """VACUUM the ladder's SQLite database, once no ladder serves it (else LadderBusy) and its disks have the room
    (else VacuumError); another database is left as it is (``Vacuumed.path`` None)."""
    engine: Engine = make.kw["bind"]
    path = sqlite_file(engine)
    if path is None:
        return Vacuumed(None, 0, 0)
    check_free(make)
    before = file_size(path)
    check_room(path, kept_bytes(engine))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:  # VACUUM runs in no transaction
        conn.execute(text("VACUUM"))
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))  # the new content back into the file, the log emptied
    return Vacuumed(path, before, file_size(path))


def postgresql_size(make: sessionmaker[Session]) -> int | None:
    """The PostgreSQL database's size on its server's disk, or None for another database."""
    engine: Engine = make.kw["bind"]
    if engine.dialect.name != "postgresql":
        return None
    with make() as db:
        return int(db.execute(text("SELECT pg_database_size(current_database())")).scalar_one())
