"""One ladder per database: a second `arena ladder serve` on a database another ladder serves is refused.

Two ladders on one database would both schedule (every queue filled twice, every placement doubled) and
both reject the other's submissions in flight as interrupted. The serving ladder holds the one row of
``ladder_hold`` and renews it every RENEW_S seconds. A row not renewed for STALE_S seconds, or held by a
process of this machine that is gone (a ladder killed with SIGKILL), is taken over at once by the next ladder.
A process is known by its pid and start time: a container restarted runs its new ladder under the old one's
pid, and a pid of another PID namespace (a container sharing the host's name) is another machine's.

Every step is a compare-and-set UPDATE on that row, so it works alike on SQLite and PostgreSQL. Its times are
the database's clock (``database_time``): on PostgreSQL the server's, so ladders on machines whose clocks
disagree still judge staleness alike; an SQLite file is this machine's, and so is its clock.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, Result, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from ladder.db import database_time
from ladder.models import LadderHold
from referee.server.launchers import process_start, same_process, this_machine

RENEW_S = 5.0
STALE_S = 30.0
ROW = 1


class LadderBusy(Exception):
    """Another ladder serves this database."""

    def __init__(self, other: HolderInfo, now: float) -> None:
        self.other = other
        where = f" at {other.address}" if other.address else ""
        super().__init__(
            f"another ladder serves this database{where} (host {other.host_name}, pid {other.pid}, started"
            f" {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(other.started_at))}, last heard from"
            f" {max(0.0, now - other.renewed_at):.0f} s ago): stop it first. A ladder killed on another machine is"
            f" taken over {STALE_S:.0f} s after it was last heard from; one killed on this machine, at once"
        )


class OlderLadderServes(LadderBusy):
    """A database older than ``ladder_hold`` (migration 0005) has matches played under live leases: the ladder of an
    Arena of then, which holds no row, is serving it."""

    def __init__(self, playing: int, until: float, now: float) -> None:
        Exception.__init__(
            self,
            f"{playing} of its matches are being played, under leases renewed until"
            f" {time.strftime('%H:%M:%S', time.localtime(until))} ({max(0.0, until - now):.0f} s from now): a ladder of an older"
            " Arena (from before migration 0005, which names the ladder serving a database) serves it. Stop it first:"
            " a clean stop gives its matches back at once; one killed leaves them to their leases, which run out",
        )


class HoldLost(Exception):
    """This ladder's hold on its database was taken by another ladder (it went unrenewed for STALE_S seconds)."""


@dataclass(frozen=True)
class HolderInfo:
    host: str  # launchers.this_machine(): host name and PID namespace
    pid: int
    address: str
    started_at: float
    renewed_at: float

    @property
    def host_name(self) -> str:
        return self.host.split("/")[0]


#: The holds taken by this process and not let go: the row's pid may be this process's and the holder gone.
_held_here: set[str] = set()


def abandoned(row: LadderHold, now: float) -> bool:
    """Whether the row's holder no longer serves: none, not renewed for STALE_S, or a process of this machine that is gone."""
    if row.holder is None or now - row.renewed_at > STALE_S:
        return True
    if row.host != this_machine():
        return False  # another machine's: only its silence tells
    if row.pid == os.getpid():
        return row.holder not in _held_here
    return not same_process(row.pid, row.process_start)


def check_free(make: sessionmaker[Session]) -> None:
    """Raise LadderBusy if a live ladder holds the database, without taking it (a command's first check)."""
    with make() as db:
        now = database_time(db)
        row = db.get(LadderHold, ROW)
        if row is not None and not abandoned(row, now):
            raise LadderBusy(info(row), now)


def check_unleased(make: sessionmaker[Session]) -> None:
    """Raise OlderLadderServes if matches of a database without ``ladder_hold`` are played under live leases.

    A ladder of an Arena older than the hold holds nothing, so ``check_free`` found nothing and `serve` of a newer
    one brought its schema up to date under it, then both played, scheduled and rated on the one database. Its
    leases, renewed while it plays, are what tells it is there. Read in SQL of the oldest schema, not the models."""
    with make() as db:
        now = database_time(db)
        playing, until = db.execute(
            text("SELECT count(*), max(lease_expires) FROM matches WHERE status = 'running' AND lease_expires > :now"), {"now": now}
        ).one()
    if playing:
        raise OlderLadderServes(int(playing), float(until), now)


class Hold:
    """This ladder's claim on its database: ``take`` once, ``renew`` every RENEW_S seconds, ``release`` at the end."""

    def __init__(self, make: sessionmaker[Session], address: str = "") -> None:
        self.make = make
        self.address = address[:255]
        self.me = f"{os.getpid()}-{uuid.uuid4().hex}"
        self.held = False

    def take(self) -> None:
        """Hold the database, or raise LadderBusy naming the ladder that does."""
        for _ in range(3):  # lost a race for the row: look again
            with self.make() as db:
                now = database_time(db)
                row = db.get(LadderHold, ROW)
                if row is None:  # deleted by hand: make it again
                    db.add(LadderHold(id=ROW, holder=None))
                    try:
                        db.commit()
                    except IntegrityError:
                        db.rollback()
                    continue
                if not abandoned(row, now):
                    raise LadderBusy(info(row), now)
                same_holder = LadderHold.holder.is_(None) if row.holder is None else LadderHold.holder == row.holder
                taken = db.execute(
                    update(LadderHold)
                    .where(LadderHold.id == ROW, same_holder, LadderHold.renewed_at == row.renewed_at)
                    .values(
                        holder=self.me, host=this_machine(), pid=os.getpid(), process_start=process_start(os.getpid()) or "",
                        address=self.address, started_at=now, renewed_at=now,
                    )
                )
                db.commit()
                if rows(taken) == 1:
                    self.held = True
                    _held_here.add(self.me)
                    return
        with self.make() as db:
            now = database_time(db)
        raise LadderBusy(self.current() or HolderInfo("?", 0, "", now, now), now)

    def renew(self) -> None:
        """Say this ladder still serves; HoldLost if another ladder took the database meanwhile."""
        with self.make() as db:
            now = database_time(db)
            renewed = db.execute(update(LadderHold).where(LadderHold.id == ROW, LadderHold.holder == self.me).values(renewed_at=now))
            db.commit()
        if rows(renewed) != 1:
            self.held = False
            _held_here.discard(self.me)
            other = self.current()
            by = f" by the ladder on host {other.host_name}, pid {other.pid}" if other is not None else ""
            raise HoldLost(f"this ladder's hold on its database was taken{by}: it went unrenewed for over {STALE_S:.0f} s")

    def release(self) -> None:
        """Let the next ladder start at once (a clean stop)."""
        if not self.held:
            return
        with self.make() as db:
            db.execute(update(LadderHold).where(LadderHold.id == ROW, LadderHold.holder == self.me).values(holder=None))
            db.commit()
        self.held = False
        _held_here.discard(self.me)

    def current(self) -> HolderInfo | None:
        with self.make() as db:
            row = db.scalar(select(LadderHold).where(LadderHold.id == ROW))
            return None if row is None or row.holder is None else info(row)


def info(row: LadderHold) -> HolderInfo:
    return HolderInfo(row.host, row.pid, row.address, row.started_at, row.renewed_at)


def rows(result: Result[Any]) -> int:
    """How many rows an UPDATE changed."""
    return cast(CursorResult[Any], result).rowcount
