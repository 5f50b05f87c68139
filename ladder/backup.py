"""A backup of a ladder, taken while it runs: its database and its files, as a data folder `arena ladder serve` can use.

Copying ladder.db with `cp` while the ladder writes gives a file that may not open (SQLite in WAL mode keeps recent
transactions in ladder.db-wal until a checkpoint). SQLite's online backup copies a consistent snapshot instead. The
database is copied first and the files after: every bot version and log the copied database names is then in the
copy (a version or log newer than the snapshot is harmless; the ladder keeps a store with more in it, docs/ladder.md).
A PostgreSQL database is left to pg_dump, which does the same for it; its files are still copied.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import inspect, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from ladder.db import DB_FILE, MIGRATE_LOCK_SUFFIX, make_engine
from ladder.submissions import IN_PROGRESS
from ladder.vacuum import LOCK_SUFFIX


class BackupError(Exception):
    """A backup that cannot be taken (its folder in use, the database unreadable); its message says why."""


@dataclass(frozen=True)
class Backup:
    folder: Path
    database: bool  # the database was copied (SQLite); False: it is PostgreSQL's (pg_dump)
    files: int


def back_up(url: str, data_dir: Path, dest: Path) -> Backup:
    """Copy the ladder whose database is ``url`` and whose files are in ``data_dir`` into the new folder ``dest``."""
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise BackupError(f"{dest} exists and is not an empty folder: a backup never writes over one")
    if dest.resolve().is_relative_to(data_dir.resolve()):
        raise BackupError(f"{dest} is inside the data folder {data_dir}: it would be copied into itself")
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise BackupError(f"--db {url!r} is not a database URL (e.g. postgresql+psycopg://USER:PASSWORD@HOST/DB)") from None
    source = Path(parsed.database) if parsed.get_backend_name() == "sqlite" and parsed.database else None
    if source is not None and not source.is_file():
        raise BackupError(f"no ladder database at {source}")
    if source is None:
        check_served_elsewhere(url)
    made = not dest.exists()
    dest.mkdir(parents=True, exist_ok=True)
    try:
        if source is not None:
            copy_database(source, dest / DB_FILE)
        # The data folder's own ladder.db too, when --db named another: copied after the snapshot, it replaced it; and
        # with PostgreSQL's, the copy served with no --db would be that stale file's ladder, not the one backed up.
        stale = {(data_dir / DB_FILE).resolve()}
        files = copy_files(data_dir, dest, skip=stale | {source.resolve()} if source is not None else stale)
    except BaseException:
        # Half a backup is not left to be mistaken for one; an empty folder the operator made stays, emptied.
        if made:
            shutil.rmtree(dest, ignore_errors=True)
        else:
            for entry in list(dest.iterdir()):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
        raise
    return Backup(dest, source is not None, files)


def check_served_elsewhere(url: str) -> None:
    """A database server's ladder is left to its own tools (pg_dump), but ``url`` must name it: a mistyped --db (a
    server down, another database) copied the files alone and said "backed up", the database never looked at."""
    shown = make_url(url).render_as_string(hide_password=True)
    try:
        engine = make_engine(url)
        try:
            with engine.connect() as connection:
                ladder = inspect(connection).has_table("ladder_hold")
        finally:
            engine.dispose()
    except (SQLAlchemyError, ImportError) as exc:  # ImportError: the URL's driver is not installed
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise BackupError(f"cannot open the database {shown}: {reason}; nothing was copied") from None
    if not ladder:
        raise BackupError(f"the database {shown} holds no ladder (is --db the URL its ladder serves?); nothing was copied")


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of the SQLite database ``source``, with its hold on the database let go: the copy is served
    by whoever starts a ladder on it, not refused as held by the ladder that was running when it was taken."""
    try:  # as_uri: a '#', '?' or '%' in a folder's name is part of the path, not of the URI's syntax
        with closing(sqlite3.connect(f"{source.resolve().as_uri()}?mode=ro", uri=True)) as src, closing(sqlite3.connect(target)) as dst:
            src.backup(dst)  # one step: a snapshot, however the ladder writes meanwhile
            # The pages are copied as they are: a damaged database made a damaged copy, told "backed up", for which
            # an operator might let the last good backup go.
            found = [" ".join(str(row[0]).split()) for row in dst.execute("PRAGMA quick_check(3)")]
            if found != ["ok"]:
                raise BackupError(
                    f"the database {source} is damaged (SQLite's quick_check: {'; '.join(found)}), and so would"
                    " be its copy: keep the backups you have; `sqlite3 ladder.db .recover` may save what it holds"
                )
            dst.execute("UPDATE ladder_hold SET holder = NULL")
            dst.commit()
    except sqlite3.Error as exc:
        raise BackupError(f"cannot copy the database {source}: {exc}") from None


def copy_files(data_dir: Path, dest: Path, skip: set[Path]) -> int:
    """Everything of the data folder but the database (and its journal files and vacuum's lock) and submissions in progress."""
    in_progress = {(data_dir / "bots" / name).resolve() for name in IN_PROGRESS}
    journals = {Path(f"{p}{suffix}") for p in skip for suffix in ("", "-wal", "-shm", "-journal", LOCK_SUFFIX, MIGRATE_LOCK_SUFFIX)}

    def ignored(folder: str, names: list[str]) -> set[str]:
        here = Path(folder).resolve()
        return {n for n in names if here / n in journals or here / n in in_progress}

    for entry in sorted(data_dir.iterdir()) if data_dir.is_dir() else []:
        if entry.resolve() in journals or entry.resolve() in in_progress:
            continue
        if entry.is_dir():  # a folder linked from another disk too: the backup holds its files, not a link to them
            copy_tree(entry, dest / entry.name, ignored)
        else:
            shutil.copy2(entry, dest / entry.name, follow_symlinks=False)
    return sum(path.is_file() for path in dest.rglob("*"))


def copy_tree(source: Path, target: Path, ignore: Callable[[str, list[str]], set[str]]) -> None:
    """``shutil.copytree``, but what the ladder removed after it was listed is left out, not an error: a rejected
    version's folder (submissions.discard), a replay whose record was refused. Any other error fails the backup."""
    try:
        shutil.copytree(source, target, symlinks=True, ignore=ignore)
    except shutil.Error as exc:
        left = [e for e in exc.args[0] if os.path.lexists(e[0])]
        if left:
            # One line, not shutil's list of every file it could not copy: a backup to a full disk printed each of
            # thousands of logs with its error, 150 KB in the operator's terminal or cron mail.
            first, _, why = left[0]
            full = os.strerror(errno.ENOSPC) in why
            raise BackupError(
                f"{len(left)} file{'' if len(left) == 1 else 's'} of {source} could not be copied into {target}"
                + (f": the backup's disk is full ({why})" if full else f"; the first, {first}: {why}")
            ) from None
