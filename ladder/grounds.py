"""The serving ladder's data folder, looked at before each claim and each tick: while it is gone, nothing is played.

Removed while the ladder served (an `rm -rf` of the wrong folder, a disk unmounted, a folder moved), the data folder
took the bot store with it: every match handed out failed at once, its bots' folders gone, some 150 a second with a
traceback each, while the scheduler queued more. Its SQLite database, unlinked, went on taking every write through the
connections still open to it, to be lost when the ladder stopped, and recording a replay made the folder again.

A careful operator expects the ladder to stop playing, say so, and go on when the folder is back: while the data folder,
its bot store or the SQLite database file is missing, the ladder claims and schedules no match (its pages still answer),
a match in play that cannot be recorded is queued again with no attempt counted, and the ladder's log says so once (and
every few minutes while it lasts); a folder moved back (or remounted) lets it go on by itself. A database file replaced by
another (a backup restored over it while the ladder served) stops the ladder (DatabaseReplaced): its connections still
write to the old file, and what they wrote would be lost.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import make_url

STORE = "bots"


class DatabaseReplaced(Exception):
    """The SQLite file the ladder opened is not the one its path names any more."""


def sqlite_file(url: str) -> Path | None:
    """The file an SQLite URL names (not a ``file:`` URI), or None for any other database."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:") or parsed.database.startswith("file:"):
        return None
    return Path(parsed.database)


def identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


class Grounds:
    """The data folder ``root``, its bot store and the SQLite file ``database`` (None for a database server's)."""

    def __init__(self, root: Path, database: Path | None) -> None:
        self.root = root.absolute()
        self.database = database
        self.opened = identity(database) if database is not None else None

    @classmethod
    def of(cls, root: Path, url: str) -> Grounds:
        return cls(root, sqlite_file(url))

    def missing(self) -> str | None:
        """What is gone, as a sentence's subject, or None; DatabaseReplaced if the database file is another one now."""
        if not self.root.is_dir():
            return f"the data folder {self.root}"
        if not (self.root / STORE).is_dir():
            return f"the bot store {self.root / STORE}"
        if self.database is None or self.opened is None:
            return None
        now = identity(self.database)
        if now is None:
            return f"the database file {self.database}"
        if now != self.opened:
            raise DatabaseReplaced(
                f"the database file {self.database} was replaced while the ladder served it (a backup restored over it?):"
                " the ladder's connections write to the file it replaced, so it stopped; start it again to serve the new one"
            )
        return None


def store_gone(folders: list[str | None], data_dir: str) -> str | None:
    """For a job that failed: whether the ladder's own folders are gone (then not the match's fault), as a sentence."""
    if data_dir and not Path(data_dir).is_dir():
        return f"the data folder {data_dir} is gone"
    for folder in folders:
        if folder is not None and not Path(folder).parent.parent.is_dir():  # STORE/NAME/SEQ
            return f"the bot store {Path(folder).parent.parent} is gone"
    return None

