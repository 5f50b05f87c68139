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

import contextlib
import fcntl
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from ladder.hold import check_free
from referee.server.launchers import this_machine


class VacuumError(Exception):
    """The vacuum was refused before anything was changed."""


class InUse(Exception):
    """The vacuum's lock is shared: a ladder serves the database, or is starting, or a command writes to it."""


#: Beside the SQLite file (``ladder.db.vacuum-lock``): `arena ladder vacuum` holds it alone while it runs, naming
#: itself in it; `serve`, for as long as it serves, and the commands that write share it. They waited on SQLite's
#: own lock for 30 s and failed ("database is locked") while a vacuum of minutes ran: they wait for the vacuum now,
#: and a vacuum is refused while one of them holds it. The file stays (removed, a waiter would hold a lock on a
#: file nobody else sees).
LOCK_SUFFIX = ".vacuum-lock"

#: The locks this process holds, by file: for a command's life, or the ladder's.
_held: dict[Path, int] = {}


def lock_file(database: Path) -> Path:
    return database.with_name(database.name + LOCK_SUFFIX)


def _open_lock(database: Path) -> tuple[Path, int] | None:
    """The lock file, open; None if it cannot be made (a folder nobody may write: nor can the database be written)."""
    path = lock_file(database)
    try:
        return path, os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return None


def who_vacuums(fd: int) -> str:
    """`arena ladder vacuum` as its lock names it: its pid, host and start."""
    try:
        pid, host, started = os.pread(fd, 1024, 0).decode().split(" ", 2)
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(started)))
        return f"`arena ladder vacuum` (pid {pid} on {host.split('/')[0]}, started {when})"
    except (OSError, ValueError):  # the lock taken, its words not yet written
        return "`arena ladder vacuum`"


def share(database: Path, waiting: Callable[[str], None]) -> None:
    """Share the vacuum's lock of ``database`` until ``let_go()``: while a vacuum holds it, say so through ``waiting``
    (once) and wait for it to end. Nothing if this process holds it already."""
    if lock_file(database) in _held or (opened := _open_lock(database)) is None:
        return
    path, fd = opened
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        waiting(f"{who_vacuums(fd)} is rewriting {database}, which it locks while it runs: waiting for it to end")
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
        except BaseException:  # Ctrl-C while waiting
            os.close(fd)
            raise
    _held[path] = fd


def let_go() -> None:
    """End this process's shares of vacuums' locks (its command is over)."""
    while _held:
        os.close(_held.popitem()[1])


@contextlib.contextmanager
def alone(database: Path) -> Iterator[None]:
    """Hold the vacuum's lock of ``database`` alone, naming this process in it, or raise at once: VacuumError while
    another vacuum runs, InUse while a ladder or a command shares it."""
    opened = _open_lock(database)
    if opened is None:
        yield  # the folder cannot be written: neither can the database, which check_writable told first
        return
    path, fd = opened
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # shared by others: no vacuum holds it
            except BlockingIOError:
                raise VacuumError(f"{who_vacuums(fd)} is rewriting {database} already: wait for it to end") from None
            raise InUse() from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {this_machine()} {time.time()}".encode(), 0)
        _held[path] = fd
        try:
            yield
        finally:
            del _held[path]
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # lets go of the lock


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
        pause_for_tests(conn.connection.driver_connection, path)
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


#: Tests only: a folder. The vacuum, once SQLite holds the database's write lock for it, makes ``paused`` there and
#: waits until ``go`` is there: a vacuum in progress for as long as a test needs, with no file big enough to last.
PAUSE_ENV = "ARENA_TEST_VACUUM_PAUSE"


def pause_for_tests(raw: Any, database: Path) -> None:
    """With PAUSE_ENV set, pause VACUUM (from SQLite's progress handler) once another connection cannot write."""
    folder = os.environ.get(PAUSE_ENV)
    if not folder:
        return
    done: list[bool] = []

    def look() -> int:
        if done:
            return 0
        probe = sqlite3.connect(database, timeout=0)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.rollback()
        except sqlite3.OperationalError:  # locked: VACUUM holds the file
            done.append(True)
            Path(folder, "paused").touch()
            while not Path(folder, "go").exists():
                time.sleep(0.05)
        finally:
            probe.close()
        return 0

    raw.set_progress_handler(look, 100)
