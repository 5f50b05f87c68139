"""Database connection and migrations: SQLite (a file, WAL mode) by default, any SQLAlchemy URL otherwise."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from threading import Lock
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import URL, Engine, create_engine, event, func, inspect, make_url, select, text, update
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
log = logging.getLogger("arena.ladder")


def database_time(db: Session) -> float:
    """Now, in seconds since the epoch, by the database's clock: PostgreSQL's server, which every ladder and worker
    shares, or for SQLite (a file on this machine) this machine's.

    The hold and the matches' leases are timed so: a worker or ladder whose own clock is off by more than a
    lease would otherwise see live leases as lost, or lost ones as live.
    """
    if db.get_bind().dialect.name == "postgresql":
        return float(db.scalar(select(func.extract("epoch", func.clock_timestamp()))) or 0.0)
    return time.time()


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` is the database out of reach (its server stopped, a connection dropped), not a bug of ours."""
    if isinstance(exc, (OperationalError, InterfaceError)):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


#: The SQLite database's file in a data folder, when no --db names another database.
DB_FILE = "ladder.db"


def default_url(data_dir: Path) -> str:
    """The SQLite URL of the data folder's database, its path escaped: a '%', '?' or '#' in a folder's name is part of
    the path, not of the URL's syntax (written raw, '?' began the URL's query and another file was opened)."""
    return URL.create("sqlite", database=str((data_dir / DB_FILE).resolve())).render_as_string(hide_password=False)


#: Seconds a connection to PostgreSQL may take to open (unless the URL sets connect_timeout itself).
CONNECT_TIMEOUT_S = 10


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(conn: Any, _record: Any) -> None:
            cur = conn.cursor()
            try:
                cur.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:  # opened read-only (``?mode=ro&uri=true``): its journal stays as it is
                pass
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        return engine
    # A server out of reach (a host down, a firewall dropping packets) held a connection attempt for TCP's own
    # minutes: every request of the pages, and Prometheus's scrape of /metrics, waited that long for an error.
    query = make_url(url).query
    timeout = {} if "connect_timeout" in query or not url.startswith("postgresql") else {"connect_timeout": CONNECT_TIMEOUT_S}
    return create_engine(url, pool_pre_ping=True, connect_args=timeout)


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the schema up to the newest migration."""
    command.upgrade(alembic_config(url), "head")


class SchemaBehind(Exception):
    """The database's schema is older than this Arena's, and the command may not upgrade it."""


def bring_up(url: str, upgrade: bool) -> None:
    """Make a new database's schema; an older one's, only with ``upgrade`` (`arena ladder serve`), else SchemaBehind.

    Every command upgraded it: an operator who installed a newer Arena and listed the users changed the schema
    under the older ladder still running on it. `serve` did too, before it was refused as the second ladder on the
    database: an older schema is brought up only once no live ladder holds it (ladder/hold.py; else LadderBusy), nor,
    older than the hold, plays matches under live leases (OlderLadderServes).
    A schema newer than this Arena's is Alembic's CommandError.
    """
    engine = make_engine(url)
    try:
        with migrating_alone(engine):
            look_and_migrate(engine, url, upgrade)
    finally:
        engine.dispose()


def look_and_migrate(engine: Engine, url: str, upgrade: bool) -> None:
    """``bring_up``'s work, alone on the database (``migrating_alone``)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from ladder.hold import check_free, check_unleased

    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
        held = inspect(conn).has_table("ladder_hold")  # from migration 0005 on
    scripts = ScriptDirectory.from_config(alembic_config(url))
    head = scripts.get_current_head()
    if current is not None and current != head:
        scripts.get_revision(current)  # one this Arena does not know (a newer one's) is a CommandError
        if not upgrade:
            raise SchemaBehind(
                f"its schema is older than this Arena's (migration {current}, this Arena's {head}):"
                " `arena ladder serve` of this Arena brings it up to date, once the ladder of the older one is stopped"
            )
        (check_free if held else check_unleased)(sessions(engine))  # an older ladder that holds nothing: its leases
        log.info("the database's schema is brought up to date: migration %s -> %s", current, head)
    migrate(url)


#: The key of the PostgreSQL advisory lock ``bring_up`` holds while it looks at the schema and migrates it.
MIGRATE_LOCK = int.from_bytes(b"migrate", "big")


@contextlib.contextmanager
def migrating_alone(engine: Engine) -> Iterator[None]:
    """On PostgreSQL, hold an advisory lock (of the session) while the schema is looked at and migrated.

    Two ladders (or a ladder and a command) started at once on a new database, or on an older one, each found the
    schema to make and ran the same migrations: the second failed with the server's "duplicate key value violates
    unique constraint pg_type_typname_nsp_index", naming nothing the operator knows. It now waits for the first, then
    finds the schema made and goes on to the hold, which names the ladder serving (ladder/hold.py). On SQLite, an
    exclusive flock of a file beside the database (``sqlite_migrating_alone``) does the same.
    """
    if engine.dialect.name == "sqlite":
        with sqlite_migrating_alone(engine.url.database):
            yield
        return
    if engine.dialect.name != "postgresql":
        yield
        return
    with engine.connect() as conn:
        if not conn.scalar(select(func.pg_try_advisory_lock(MIGRATE_LOCK))):
            log.warning("another ladder or `arena ladder` command is making or migrating this database's schema: waiting for it")
            conn.scalar(select(func.pg_advisory_lock(MIGRATE_LOCK)))
        conn.commit()  # the lock is the session's: no transaction left open while the migrations run
        try:
            yield
        finally:
            conn.scalar(select(func.pg_advisory_unlock(MIGRATE_LOCK)))
            conn.commit()


#: Beside an SQLite database (``ladder.db.migrate-lock``): held alone while its schema is looked at and migrated.
#: Two processes started at once on a new file (`serve` and a `user add` in one script) both made the tables, and
#: the second failed with "table matches already exists". A file of its own: a lock on the database file itself is
#: released by closing any of this process's descriptors of it, SQLite's POSIX locks with it. It stays after.
MIGRATE_LOCK_SUFFIX = ".migrate-lock"


@contextlib.contextmanager
def sqlite_migrating_alone(database: str | None) -> Iterator[None]:
    """Hold the migration lock of the SQLite file ``database`` (none for an in-memory one, or one whose folder takes
    no file: its database cannot be written either, which is told elsewhere)."""
    if not database or database == ":memory:" or database.startswith("file:"):
        yield
        return
    try:
        fd = os.open(f"{database}{MIGRATE_LOCK_SUFFIX}", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.warning("another ladder or `arena ladder` command is making or migrating this database's schema: waiting for it")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # the flock goes with it


#: Rows ANALYZE samples per index on SQLite: a few milliseconds at 200,000 matches, where the whole took 0.3 s.
ANALYSIS_LIMIT = 1000


def refresh_statistics(make: sessionmaker[Session]) -> None:
    """Let SQLite's planner know the tables' sizes (ANALYZE); PostgreSQL's autovacuum does this by itself.

    Without them SQLite guessed that "status = 'done'" picked few matches, and a bot's head-to-head record walked
    every finished match of a long history (1.4 s at 200,000 matches for a bot that played 2,000; 56 ms after).
    A connection reads the statistics when it first reads the schema, and an ANALYZE on another connection does not
    make it read them again: the pool's connections are replaced after it (those in use are dropped when given back),
    or only the one connection that ran it would plan with them.
    """
    with make() as db:
        engine = db.get_bind()
        if engine.dialect.name != "sqlite":
            return
        db.execute(text(f"PRAGMA analysis_limit={ANALYSIS_LIMIT}"))
        db.execute(text("ANALYZE"))
        db.commit()
    if isinstance(engine, Engine) and engine.url.database not in (None, "", ":memory:"):  # a memory database would be lost
        engine.dispose()


def check_writable(make: sessionmaker[Session]) -> None:
    """Raise the database's own error unless it can be written (a read-only file or folder, a role without UPDATE).

    An UPDATE of no row, rolled back: the ladder would otherwise find out at its first write, in a traceback.
    """
    from ladder.models import User

    with make() as db:
        db.execute(update(User).where(User.id < 0).values(name=User.name))
        db.rollback()


def sessions(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


_shared: dict[str, sessionmaker[Session]] = {}
_shared_lock = Lock()


def shared_sessions(url: str) -> sessionmaker[Session]:
    """One engine (and connection pool) per URL in this process, for workers that are handed URLs job by job."""
    with _shared_lock:
        if url not in _shared:
            _shared[url] = sessions(make_engine(url))
        return _shared[url]
