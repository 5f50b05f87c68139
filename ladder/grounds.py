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

The same pause serves the ladder's own disk full or read-only (``Grounds.unwritable``), once a match of the local pool
found so and a probe confirmed it: each match failed at its third try while it lasted, one a minute, played and thrown
away. And one version's folder removed by hand (``MissingVersions``) holds that version's matches (an hour at most), not the ladder's.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from sqlalchemy import make_url, select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.models import PENDING, Bot, BotVersion, Match, MatchSeat
from ladder.recorded import number_settled
from referee.server.manifest import MANIFEST

STORE = "bots"
#: How often the serving ladder looks for bot versions whose folder is gone from the store (``MissingVersions``).
LOOK_EVERY_S = 5.0
#: How long a match waits for a bot version whose folder is gone before it is cancelled (``MissingVersions``; 0: for ever).
HOLD_MISSING_S = 3600.0
#: How often a ladder whose own disk could not be written tries writing again (``Grounds.unwritable``).
PROBE_EVERY_S = 5.0
log = logging.getLogger("arena.ladder")


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
        self._unwritable: str | None = None  # what could not be written, while it cannot (``cannot_write``)
        self._probed = 0.0

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

    def cannot_write(self, what: str) -> None:
        """A match of the local pool found the ladder's own disk full or read-only (``what``, from ``unwritable``): until
        a probe writes again, ``unwritable`` says so, and the ladder claims and schedules nothing, as for a folder gone."""
        self._unwritable, self._probed = what, time.monotonic()

    def unwritable(self) -> str | None:
        """What of the ladder's folders cannot be written, since ``cannot_write``; probed again every PROBE_EVERY_S."""
        if self._unwritable is not None and time.monotonic() - self._probed >= PROBE_EVERY_S:
            self._unwritable, self._probed = unwritable(ladder_folders(self.root)), time.monotonic()
        return self._unwritable


def ladder_folders(data_dir: Path) -> list[Path]:
    """The folders a match of the local pool writes in: the replays', the logs', the data folder's (SQLite's) and the
    temporary one its bots are copied into."""
    return [data_dir / "replays", data_dir / "logs", data_dir, Path(tempfile.gettempdir())]


def unwritable(folders: Iterable[Path]) -> str | None:
    """Whether a small file can be made, written and removed in each of ``folders`` that exists: what refused, or None.

    A few system calls: a file of no bytes needs no room, so a byte is written (a full disk refuses it at once)."""
    for folder in folders:
        if not folder.is_dir():
            continue
        probe = folder / f".arena-probe-{os.getpid()}-{threading.get_ident()}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, b"\n")
            finally:
                os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            try:
                os.unlink(probe)
            except OSError:
                pass
            return f"{folder} cannot be written ({exc.strerror or exc})"
    return None


def store_gone(folders: list[str | None], data_dir: str) -> str | None:
    """For a job that failed: whether the ladder's own folders are gone (then not the match's fault), as a sentence."""
    if data_dir and not Path(data_dir).is_dir():
        return f"the data folder {data_dir} is gone"
    for folder in folders:
        if folder is not None and not Path(folder).parent.parent.is_dir():  # STORE/NAME/SEQ
            return f"the bot store {Path(folder).parent.parent} is gone"
    return None


def files_gone(store: Path, rel: str) -> bool:
    """Whether a version's folder ``rel`` of the bot store is gone (or holds no manifest any more): one stat."""
    return not (store / rel / MANIFEST).is_file()


#: The versions the ladder would play: those on it, and any seated in a match queued or playing (a retired or suspended
#: version's set in progress is played to its end).
_WOULD_PLAY = (
    select(BotVersion.id, Bot.name, BotVersion.seq, BotVersion.path, BotVersion.status, BotVersion.reason)
    .join(Bot, Bot.id == BotVersion.bot_id)
    .where(
        (BotVersion.status == "active")
        | BotVersion.id.in_(select(MatchSeat.bot_version_id).join(Match, Match.id == MatchSeat.match_id).where(Match.status.in_(PENDING)))
    )
)
#: The versions a ladder found gone, and when it first did (``MissingVersions.remember``).
_FOUND_GONE = select(BotVersion.id, BotVersion.files_gone_at).where(BotVersion.files_gone_at.is_not(None))


def held_for(hold_for: float) -> str:
    """How long a missing version's matches wait, as the log and `arena ladder serve`'s warning say it (0: for ever)."""
    return f"{span(hold_for)} at most, then cancelled" if hold_for > 0 else "for as long as it takes"


def cancel_held(db: Session, version_id: int, error: str, at: float, queued_by: float | None = None) -> int:
    """Cancel the matches queued with a version whose folder is gone (those queued by ``queued_by``, when given): status
    "cancelled" (never played: "failed" told of a failure where there was none), no attempt counted, ``error`` saying why.
    Not one claimed meanwhile: it comes back (bot_files_gone) or is played."""
    seated = select(MatchSeat.match_id).where(MatchSeat.bot_version_id == version_id)
    which = update(Match).where(Match.status == "queued", Match.id.in_(seated))
    if queued_by is not None:
        which = which.where(Match.created_at <= queued_by)
    done = db.scalars(which.values(status="cancelled", error=error, finished_at=at).returning(Match.id).execution_options(synchronize_session=False)).all()
    number_settled(db.connection(), done)  # last: the caller commits at once (ladder/recorded.py)
    return len(done)


def span(seconds: float) -> str:
    """A hold time as an operator wrote it: "1 h", "10 min", "90 s"."""
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"


class MissingVersions:
    """The bot versions whose folder was removed from the store by hand (the rest of it there), looked for every few seconds.

    Each match such a version was drawn for went back to the queue at the cost of an attempt, and failed at its third,
    its innocent opponents' with it, while the scheduler drew it again and again. Now the scheduler draws it no more and
    the dispatcher claims none of its queued matches (``held``), which wait, no attempt counted; its rating and history
    are left alone, and once its folder is back it is drawn and its matches played again. Said once each way in the log.

    They waited for ever, though, and their opponents with them. A held match is cancelled (status "cancelled", no attempt
    counted, its error saying why; ``cancelled`` is told how many, for /metrics) once it has waited ``hold_for`` seconds
    since the folder was first found gone (0: for ever), and at once when the version is off the ladder (withdrawn, or
    replaced by a newer version): nothing would bring it back to play them. The version itself stays held until its
    folder is back. That moment is kept with the version (``files_gone_at``): kept in memory, it was timed again at each
    start, and a ladder restarted more often than ``hold_for`` never cancelled.
    """

    def __init__(
        self, store: Path, every: float = LOOK_EVERY_S, hold_for: float = HOLD_MISSING_S, cancelled: Callable[[int], None] | None = None
    ) -> None:
        self.store = store
        self.every = every
        self.hold_for = hold_for
        self.cancelled = cancelled
        self.clock: Callable[[], float] = time.time  # the matches' created_at's clock
        self.held: frozenset[int] = frozenset()  # the versions found gone at the last look
        self._named: dict[int, str] = {}  # how the log named them
        self._since: dict[int, float] = {}  # when each held was first found gone (``clock``; ``remember``)
        self._looked = -1e9
        self._lock = threading.Lock()  # looked at from the scheduler's thread and the dispatcher's

    def look(self, make: sessionmaker[Session], now: bool = False) -> frozenset[int]:
        """``held``, looked at again if the last look is ``every`` seconds old (or ``now``): two queries and a stat per
        version (a write when a folder went or came back), and the held matches cancelled that are due (``cancel_due``)."""
        with self._lock:
            if not now and time.monotonic() - self._looked < self.every:
                return self.held
            self._looked = time.monotonic()
            if not self.store.is_dir():  # the whole store is gone: Grounds says so, and nothing is played meanwhile
                return self.held
            with make() as db:
                rows = db.execute(_WOULD_PLAY).all()
                known = {vid: since for vid, since in db.execute(_FOUND_GONE) if since is not None}
            off = {vid: reason for vid, _, _, _, status, reason in rows if status == "retired"}
            gone = {vid: f"{name} #{seq} (its folder {self.store / path})" for vid, name, seq, path, _, _ in rows if files_gone(self.store, path)}
            at = self.clock()
            self._since = self.remember(make, set(gone), known, at)
            for vid in sorted(gone.keys() - self.held):
                if vid not in off:  # one off the ladder is said with its matches cancelled, below
                    log.error("bot version %s is gone from the bot store: it is drawn for no match until the folder is back, and its"
                              " queued matches wait for it, %s (its rating and history are kept)", gone[vid], self.waiting(self._since[vid], at))
            for vid in sorted(self.held - gone.keys()):
                if any(row[0] == vid for row in rows):
                    log.warning("bot version %s is back in the bot store: it is drawn and its matches played again", self._named[vid])
            self.held, self._named = frozenset(gone), gone
            names = {vid: f"{name} #{seq}" for vid, name, seq, _, _, _ in rows}
            self.cancel_due(make, at, {vid: names[vid] for vid in gone}, off)
            return self.held

    @staticmethod
    def remember(make: sessionmaker[Session], gone: set[int], known: dict[int, float], at: float) -> dict[int, float]:
        """When each version ``gone`` was first found so: as the database keeps it (``known``), across the ladder's
        restarts, else ``at``, written down. Forgotten for any other (back, or no longer looked at): gone again, a
        version's matches wait from then. A write only when something changed."""
        found, back = sorted(gone - known.keys()), sorted(known.keys() - gone)
        if found or back:
            with make() as db:
                if found:
                    db.execute(update(BotVersion).where(BotVersion.id.in_(found), BotVersion.files_gone_at.is_(None)).values(files_gone_at=at))
                if back:
                    db.execute(update(BotVersion).where(BotVersion.id.in_(back)).values(files_gone_at=None))
                db.commit()
        return {vid: known.get(vid, at) for vid in gone}

    def waiting(self, since: float, at: float) -> str:
        """How long a version's held matches wait, said in the log at ``at`` of one first found gone at ``since``."""
        if self.hold_for > 0 and since < at:  # found by a ladder before this one
            return f"{span(self.hold_for)} at most from when it was found gone ({span(round(at - since))} ago), then cancelled"
        return held_for(self.hold_for)

    def cancel_due(self, make: sessionmaker[Session], at: float, public: dict[int, str], off: dict[int, str]) -> None:
        """Cancel the held matches of the versions off the ladder (``off``: their reasons), and those that have waited
        ``hold_for`` for theirs; each version's said once in the log. ``public`` names the versions held, no path."""
        if not public:
            return
        ended = 0
        with make() as db:
            for vid in sorted(public):
                if vid in off:
                    why = f" ({off[vid]})" if off[vid] else ""
                    n = cancel_held(db, vid, f"{public[vid]} is off the ladder{why} and its files are gone from the ladder's bot store", at)
                    said, after = f"is off the ladder{why} and gone from the bot store", ""
                elif self.hold_for > 0 and at - self._since[vid] >= self.hold_for:
                    n = cancel_held(db, vid, f"the files of {public[vid]} were gone from the ladder's bot store for {span(self.hold_for)}, the"
                                             " longest a match waits for them", at, at - self.hold_for)
                    said = f"has been gone from the bot store for {span(self.hold_for)}"
                    after = "; it is drawn for no match until the folder is back (its rating and history are kept)"
                else:
                    continue
                db.commit()
                if n:
                    ended += n
                    log.error("bot version %s %s: its %d queued matches are cancelled (no attempt counted; what their sets played"
                              " is rated)%s", self._named[vid], said, n, after)
        if ended and self.cancelled is not None:
            self.cancelled(ended)
