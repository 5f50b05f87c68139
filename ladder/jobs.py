"""A claimed match as a self-contained job: all a worker on any machine needs to play it and record it once.

The ladder's dispatcher claims a match (the conditional update of
ladder/worker.py) and builds a :class:`MatchJob`: the match id and the lease
owner, the game, seed and options, each seat's bot (a folder of the bot store
for the in-process pool, the version's zip for a remote worker), the time
control, the sandbox, and where the replay and logs go. :func:`play_job` plays
it in fresh copies of the bots while renewing the lease, and records the
result with the conditional update (running, this owner -> done) in the same
transaction as the ratings and, for remote workers, the replay and logs
(MatchFile rows). A second player of the same job (a task retried by Dask, a
worker that lost its lease) records nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import logging
import os
import secrets
import shutil
import socket
import tempfile
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder.datafiles import located, stored_name
from ladder.db import shared_sessions, unreachable
from ladder.grounds import files_gone, ladder_folders, store_gone, unwritable
from ladder.models import Match, MatchSeat
from ladder.suspension import SUSPEND_AFTER
from ladder.upload import Limits, unpack, zip_directory
from ladder.worker import Claimed, claim_next, fail_match, public_error, record_outcome, release, renew, seats_of
from referee.core.game import OptionError
from referee.server.manifest import load_manifest
from referee.server.replay import ReplayHead, compact_replay_json
from referee.server import cpus
from referee.server.launchers import Launcher
from referee.server.runner import BotPool, LocalMatch, MatchSetup, launcher_for, run_local_match
from referee.server.session import TimeControl

log = logging.getLogger("arena.ladder.jobs")

FILES = "files"  # replays and logs as files under the ladder's data folder (one machine)
DATABASE = "database"  # replays and logs as MatchFile rows (workers on any machine)
REPLAY_FILE = "replay.json"
#: Each process bot held to one CPU, as a container is (docs/ladder.md, "Is it fair?"), unless ARENA_PIN_CPUS=0; skipped,
#: said once, where the platform cannot pin. Containers are held to one by Docker.
PIN_CPUS = cpus.ladder_setting(os.environ)
#: Unpacking shipped bots: generous, since the archive was checked when it was submitted.
SHIPPED = Limits(archive_bytes=64 * 1024 * 1024, unpacked_bytes=256 * 1024 * 1024, files=10000, ratio=100000)


def seat_log_name(seat: int) -> str:
    return f"seat{seat}.log"


@dataclass(frozen=True)
class BotSource:
    """One seat's bot: a folder on the worker's machine, or the version's zip shipped with the job."""

    version_id: int
    folder: str | None = None
    archive: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class MatchJob:
    match_id: int
    owner: str  # the lease owner: only this job may renew the lease and record the result
    game: str
    seed: int
    options: dict[str, str]
    bots: tuple[BotSource, ...]
    time_control: TimeControl
    lease_seconds: float
    sandbox: str = "process"
    keep: str = DATABASE  # FILES or DATABASE
    data_dir: str = ""  # with FILES: where replays/ and logs/ are
    db_url: str = field(default="", repr=False)  # for workers in other processes (it may hold a password)
    suspend_after: int = SUSPEND_AFTER  # forfeits in a row that suspend a version (ladder/suspension.py; 0: never)
    release: str = ""  # the ladder's code (ladder/release.py), for Dask workers to compare with theirs; "": not compared


@dataclass(frozen=True)
class JobOutcome:
    match_id: int
    owner: str
    #: recorded, lost (the lease was gone: someone else plays or played it), failed, unfit, database_unreachable,
    #: bot_files_gone, disk_unwritable (ladder/metrics.py, OUTCOMES)
    status: str
    worker: str
    seconds: float
    detail: str = ""


class ArchiveCache:
    """Zips of bot versions for remote workers; a version never changes, so each is zipped once (the last few kept)."""

    def __init__(self, store: Path, size: int = 64) -> None:
        self.store = store
        self.size = size
        self._items: OrderedDict[int, bytes] = OrderedDict()

    def get(self, version_id: int, rel: str) -> bytes:
        if version_id in self._items:
            self._items.move_to_end(version_id)
            return self._items[version_id]
        folder = self.store / rel
        if not folder.is_dir():  # zipped anyway, it was an empty archive, and the worker failed the match for its bot.toml
            raise FileNotFoundError(f"version {version_id}: its folder {folder} is gone from the bot store")
        data = zip_directory(folder)
        self._items[version_id] = data
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return data


@dataclass(frozen=True)
class JobSettings:
    """What the ladder puts in every job besides the match itself."""

    store: Path
    time_control: TimeControl
    lease_seconds: float
    sandbox: str = "process"
    keep: str = FILES
    data_dir: Path = Path(".")
    db_url: str = ""
    ship_bots: bool = False  # zips in the job (remote workers) rather than store folders
    suspend_after: int = SUSPEND_AFTER


def build_job(make: sessionmaker[Session], match_id: int, owner: str, settings: JobSettings, archives: ArchiveCache | None = None) -> MatchJob:
    """The job of a match this ladder has claimed (by its id; the dispatcher has it from ``claim_next`` already)."""
    with make() as db:
        match = db.get_one(Match, match_id)
        claimed = Claimed(match_id, match.game, match.seed, dict(match.options), seats_of(db.connection(), match_id))
    return job_for(claimed, owner, settings, archives)


def job_for(claimed: Claimed, owner: str, settings: JobSettings, archives: ArchiveCache | None = None) -> MatchJob:
    """The job of a claimed match: its bots as store folders, or as zips for a worker on another machine."""
    bots = []
    for version_id, rel in claimed.seats:
        if settings.ship_bots:
            cache = archives or ArchiveCache(settings.store)
            bots.append(BotSource(version_id, archive=cache.get(version_id, rel)))
        else:
            bots.append(BotSource(version_id, folder=str(settings.store / rel)))
    return MatchJob(
        match_id=claimed.match_id, owner=owner, game=claimed.game, seed=claimed.seed, options=dict(claimed.options), bots=tuple(bots),
        time_control=settings.time_control, lease_seconds=settings.lease_seconds, sandbox=settings.sandbox,
        keep=settings.keep, data_dir=str(settings.data_dir), db_url=settings.db_url, suspend_after=settings.suspend_after,
    )


def hand_out(
    make: sessionmaker[Session], owner: str, settings: JobSettings, archives: ArchiveCache | None = None, held: frozenset[int] = frozenset()
) -> tuple[int, MatchJob | None] | None:
    """Claim the next match (none seating a version ``held``: its folder is gone from the store) and build its job: None
    when nothing is queued, no job when it cannot be handed out."""
    claimed = claim_next(make, owner, settings.lease_seconds, held)
    if claimed is None:
        return None
    try:
        return claimed.match_id, job_for(claimed, owner, settings, archives)
    except Exception as exc:
        if any(files_gone(settings.store, rel) for _, rel in claimed.seats):
            # A version's folder removed from the store since the ladder last looked (ladder/grounds.py, MissingVersions):
            # not the match's fault, and failing it failed its opponents' matches too. Back, no attempt counted, to wait.
            log.warning("match %s: a bot version's folder is gone from the bot store; it goes back to the queue", claimed.match_id)
            release(make, claimed.match_id, owner)
        else:
            log.exception("match %s cannot be handed out", claimed.match_id)
            fail_match(make, claimed.match_id, owner, public_error(exc))
        return claimed.match_id, None


def hand_out_elsewhere(settings: JobSettings, owner: str, held: frozenset[int] = frozenset()) -> tuple[int, MatchJob | None] | None:
    """``hand_out`` in the books process, through the settings' database URL (local jobs: no archives)."""
    return hand_out(shared_sessions(settings.db_url), owner, settings, held=held)


def materialize(bots: tuple[BotSource, ...], into: Path | None, pooled: bool = False) -> list[Path]:
    """Fresh copies of the bots, one folder per seat: a bot never finds what it wrote in another match.

    With ``pooled`` (the match's bots may be played by a BotPool), a bot in the store whose manifest lets a process
    play several matches is not copied (``in_place``): the pool copies it into a folder of the process's own when
    it starts one, and a process it already keeps needs no folder at all. Copying and removing it anyway took a few
    milliseconds of the ladder's process per match. ``into`` may be None when no seat needs a copy.
    """
    copies = []
    for seat, bot in enumerate(bots):
        if in_place(bot, pooled):
            assert bot.folder is not None
            copies.append(Path(bot.folder))
            continue
        if into is None:
            raise ValueError(f"seat {seat}: the bot needs a copy and there is no folder for it")
        copy = into / f"seat{seat}"
        if bot.archive is not None:
            unpack(bot.archive, copy, SHIPPED)
        elif bot.folder is not None:
            shutil.copytree(bot.folder, copy, symlinks=False)
        else:
            raise ValueError(f"seat {seat}: the job carries no bot")
        copies.append(copy)
    return copies


def in_place(bot: BotSource, pooled: bool) -> bool:
    """Whether the seat plays the store's folder itself (a pooled bot): see ``materialize``."""
    return pooled and bot.folder is not None and _pools(bot.folder)


@lru_cache(maxsize=4096)
def _pools(folder: str) -> bool:
    """A store folder's manifest allows pooling; read once, since a bot version's folder never changes."""
    return BotPool.pools(load_manifest(Path(folder)))


def default_worker_name() -> str:
    return f"{socket.gethostname()}/local"


def not_started(make: sessionmaker[Session], match_id: int) -> str:
    """Why a task found its lease gone before it began, as the match's row tells: a worker killed after it recorded
    the match, before Dask had its answer, has its task run again elsewhere, and the log said the match was "queued
    or played under a new lease" of a match that was done."""
    with contextlib.suppress(Exception):  # the row unread: the general reason
        with make() as db:
            row = db.execute(select(Match.status, Match.played_by).where(Match.id == match_id)).one_or_none()
        if row is not None and row.status == "done":
            return (f"not started: the match was recorded already, by {row.played_by}; Dask ran its task again, the"
                    " worker that played it having left before Dask had its answer")
    return "not started: the match had been handed back or reaped before this task began (it is queued or played under a new lease)"


async def play_job(
    make: sessionmaker[Session],
    job: MatchJob,
    worker: str | None = None,
    pool: BotPool | None = None,
    seats: asyncio.Semaphore | None = None,
    just_claimed: bool = False,
    on_played: Callable[[], None] | None = None,
    recorder: Callable[[MatchJob, LocalMatch, str], Awaitable[bool]] | None = None,
    own_disk: bool = False,
) -> JobOutcome:
    """Play a claimed match and record it once; a lease lost on the way stops the match and records nothing.

    With ``pool``, bots whose manifest allows it (``matches_per_process``) are played by processes kept between
    matches, named by their version id; the pool never hands a process a deal it has played, so the matches
    of a duplicate set always meet different processes. With ``seats``, the match itself waits for one of them
    (the setup before and the recording after do not hold it).

    A job first checks that its lease is still held (one that waited in Dask's queue, or a task Dask ran
    again, may have lost it), unless ``just_claimed``: the local pool plays a job the moment its dispatcher
    claimed it, and the check was a database write per match. ``on_played`` is called when the match is
    over and its result is about to be recorded.

    ``own_disk``: the worker is the ladder's own process (the local pool), whose full or read-only disk is the ladder's
    trouble, not the match's: such a match goes back with no attempt counted, as "disk_unwritable", and the dispatcher
    claims nothing until the disk can be written again (ladder/grounds.py). A remote worker's counts an attempt.
    """
    worker = worker or default_worker_name()
    began = time.monotonic()

    def outcome(status: str, detail: str = "") -> JobOutcome:
        return JobOutcome(job.match_id, job.owner, status, worker, time.monotonic() - began, detail)

    def seated() -> None:
        """The match starts now: its time (/metrics) leaves out the wait for a seat, a whole match's with the local pool."""
        nonlocal began
        began = time.monotonic()

    if not just_claimed and not renew(make, job.match_id, job.owner, job.lease_seconds):
        # Most often a task Dask ran again after its worker left: that worker handed the match back as it stopped.
        return outcome("lost", not_started(make, job.match_id))
    try:
        launcher = launcher_for(job.sandbox, PIN_CPUS)
    except OptionError as exc:  # this worker cannot run the sandbox (no Docker, no image): not the match's fault
        release(make, job.match_id, job.owner, count_attempt=True, error=f"worker {worker}: {exc}")
        return outcome("unfit", str(exc))
    # This try's name begins its logs' names: a try that stops before the match is over removes them (below).
    try_id = secrets.token_hex(8)
    try:
        pooled = pool is not None and job.sandbox == "process"
        # A folder for copies of the bots and, when the logs go to the database, for the logs; pooled bots kept as
        # files need none, and making and removing it was a millisecond of the ladder's process per match.
        scratch = job.keep != FILES or not all(in_place(bot, pooled) for bot in job.bots)
        with tempfile.TemporaryDirectory(prefix=f"arena-m{job.match_id}-") if scratch else nullcontext(None) as tmp:
            copies = materialize(job.bots, Path(tmp) if tmp is not None else None, pooled=pooled)
            if job.keep == FILES:
                log_dir = Path(job.data_dir) / "logs" / str(job.match_id)
                log_dir.parent.mkdir(exist_ok=True)  # not the data folder: one gone is told (ladder/grounds.py), not made again
            else:
                assert tmp is not None
                log_dir = Path(tmp) / "logs"
            setup = MatchSetup(job.game, copies, job.seed, dict(job.options), job.time_control, log_dir, job.sandbox, try_id)
            keys = [bot.version_id for bot in job.bots]
            playing = asyncio.create_task(_play_seated(seats, lambda: _begin(job, setup, launcher, pool, keys), seated))
            lost = asyncio.Event()
            keeper = asyncio.create_task(_keep_lease(make, job, playing, lost))
            try:
                played = await playing
            except asyncio.CancelledError:
                if job.keep == FILES:  # the match has stopped (a task cancelled is awaited through its clean-up)
                    discard_try_logs(Path(job.data_dir) / "logs" / str(job.match_id), try_id)
                if lost.is_set() and not _being_cancelled():
                    return outcome("lost", "the lease was lost during the match")
                raise
            finally:
                keeper.cancel()
            if nobody_played(played.record.result) and (gone := _files_gone(job)) is not None:
                # No bot could start because the ladder's folders went as the match began (their logs' folder with
                # them): as for one gone under a match in play, queued again with no attempt counted.
                log.error("match %s: %s; it goes back to the queue", job.match_id, gone)
                await asyncio.to_thread(release, make, job.match_id, job.owner)
                return outcome("unfit", gone)
            if nobody_played(played.record.result):
                # Not recorded: a draw of a match nobody played moved both bots' ratings. Most often the worker started
                # no bot (a sandbox broken since it was checked, an interpreter gone): played again, elsewhere perhaps.
                detail = "every seat forfeited at once, each ranked alike: no bot could be started?"
                await asyncio.to_thread(release, make, job.match_id, job.owner, True, f"worker {worker}: {detail}")
                return outcome("unfit", detail)
            if played.engine_failures:
                # A seat the sandbox's engine did not start (dockerd restarting): its CRASH, and its forfeit rated, are
                # the worker's doing. Played again, an attempt counted: an engine down for good fails the match in time.
                seat, why = min(played.engine_failures.items())
                detail = f"seat {seat}'s bot was not started: {why}"
                log.warning("match %s: %s; it goes back to the queue", job.match_id, detail)
                if job.keep == FILES:
                    discard_try_logs(Path(job.data_dir) / "logs" / str(job.match_id), try_id)
                await asyncio.to_thread(release, make, job.match_id, job.owner, True, f"worker {worker}: {detail}")
                return outcome("unfit", detail)
            if on_played is not None:
                on_played()
            if recorder is not None:
                recorded = await recorder(job, played, worker)
            else:  # on a thread: the other matches this loop referees keep their clocks and bots moving meanwhile
                recorded = await asyncio.to_thread(record_played, make, job, played, worker)
    except asyncio.CancelledError:
        release(make, job.match_id, job.owner)  # a clean shutdown: straight back to the queue
        raise
    except Exception as exc:
        if unreachable(exc):
            # The database dropped the connection mid-record, say: not the match's fault, and failing it threw a
            # played match away for good. Back to the queue with no attempt counted (if the database answers now;
            # if not, the error goes to the dispatcher, which does the same).
            log.warning("match %s: the database is out of reach (%s); it goes back to the queue", job.match_id, type(exc).__name__)
            release(make, job.match_id, job.owner)
            # Not "unfit": the worker is fine, and /metrics told a database that came back in time as a broken worker.
            return outcome("database_unreachable", f"the database is out of reach from {worker}")
        if isinstance(exc, OSError) and exc.errno in _WORKER_FULL:
            if own_disk and (full := unwritable(ladder_folders(Path(job.data_dir)))) is not None:
                # The ladder's own disk, as a probe confirms (not a file of this match's): each match failed at its third
                # try while it lasted, one a minute, played and thrown away. Back with no attempt counted; the dispatcher
                # claims and the scheduler queues nothing until the probe writes again (ladder/grounds.py).
                log.error("match %s: %s (%s); it goes back to the queue", job.match_id, full, exc)
                with contextlib.suppress(Exception):  # an SQLite database on that disk may refuse it too: the dispatcher
                    release(make, job.match_id, job.owner)  # gives it back once the disk writes (Ladder._settle)
                return outcome("disk_unwritable", full)
            # A worker's disk is full or read-only: any match would fail there, so it goes back, an attempt counted (a
            # remote worker with a bad disk must not hold a match for ever while others could play it), and the
            # dispatcher slows down.
            log.error("match %s: worker %s: %s", job.match_id, worker, exc)
            release(make, job.match_id, job.owner, count_attempt=True, error=f"worker {worker}: {exc.strerror or exc}")
            return outcome("unfit", str(exc))
        if (gone := _files_gone(job)) is not None:
            # The ladder's data folder (or its store) went away under the match: not the match's fault, and failing it
            # threw a played match away. Queued again, no attempt counted: the ladder plays nothing until it is back.
            log.error("match %s: %s; it goes back to the queue", job.match_id, gone)
            release(make, job.match_id, job.owner)
            return outcome("unfit", gone)
        if missing := [bot.folder for bot in job.bots if bot.folder is not None and not Path(bot.folder).is_dir()]:
            # A version's folder removed from the store by hand: the ladder's files, not the match. Failed at once, every
            # match it was drawn for went, a hundred a second; then each went back at the cost of an attempt, and failed
            # at its third. Now it goes back with none counted, and the dispatcher, told so, looks at the store at once
            # and claims none of that version's matches until its folder is back (ladder/grounds.py, MissingVersions).
            log.warning("match %s: %s is gone from the bot store; it goes back to the queue", job.match_id, missing[0])
            release(make, job.match_id, job.owner)
            return outcome("bot_files_gone", f"{missing[0]} is gone from the bot store")
        log.exception("match %s failed", job.match_id)  # a broken match must not stop the worker
        fail_match(make, job.match_id, job.owner, public_error(exc))
        return outcome("failed", f"{type(exc).__name__}: {exc}")
    return outcome("recorded" if recorded else "lost")


def _files_gone(job: MatchJob) -> str | None:
    """Whether the ladder's data folder (when the match keeps its files there) or its bot store is gone, as a sentence."""
    return store_gone([bot.folder for bot in job.bots], job.data_dir if job.keep == FILES else "")


async def _begin(job: MatchJob, setup: MatchSetup, launcher: Launcher, pool: BotPool | None, keys: list[int]) -> LocalMatch:
    """The match, once its seat is free: not if the ladder's data folder went meanwhile (the match would make its logs'
    folder, and the data folder with it, again: a folder moved back then went inside it)."""
    if (gone := _files_gone(job)) is not None:
        raise FileNotFoundError(gone)
    return await run_local_match(setup, launcher, pool, keys)


def nobody_played(result: pb.MatchResult) -> bool:
    """Whether every seat forfeited and all rank alike: the match tells nothing of its bots (ladder/suspension.py holds
    it against none of them), and its worker, which started none of them, is the likelier fault."""
    return bool(result.seats) and all(seat.forfeited for seat in result.seats) and len({seat.rank for seat in result.seats}) == 1


#: A worker out of room (no disk, no quota) or whose folders cannot be written (a disk remounted read-only, a folder
#: chmod'ed): its matches are given back, not failed; played, a match failed so was thrown away, every one in turn.
#: The ladder's own (the local pool's, ``own_disk``) costs no attempt: it pauses until it can write (ladder/grounds.py).
_WORKER_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES})


async def _play_seated(
    seats: asyncio.Semaphore | None, start: Callable[[], Coroutine[Any, Any, LocalMatch]], seated: Callable[[], None] | None = None
) -> LocalMatch:
    """The match ``start()`` makes, once a seat is free (``seated`` is called then). Made here, not by the caller: a task
    cancelled before its first step (the ladder stopped at that moment) never runs its coroutine, so one handed in was
    never awaited."""
    async with seats if seats is not None else contextlib.nullcontext():
        if seated is not None:
            seated()
        return await start()


def record_played(make: sessionmaker[Session], job: MatchJob, played: LocalMatch, worker: str) -> bool:
    """Write the replay and record the result (record_outcome); False when the lease was lost.

    The replay is compact (seed and actions, no events): reading it re-plays the match, which costs a spectator
    a few milliseconds when a replay is opened instead of the ladder's process as much for every match.
    """
    return record_head(make, job, ReplayHead.of(played.record), [str(p) for p in played.logs], worker)


def record_head(make: sessionmaker[Session], job: MatchJob, head: ReplayHead, logs: list[str], worker: str) -> bool:
    """``record_played``'s work from the replay's head and the logs' paths, which another process can be sent."""
    replay_json = compact_replay_json(head)
    if job.keep == FILES:
        # Named by the lease too: a job that lost its lease writes before it learns so, and must not overwrite the
        # replay its match's new holder recorded; its own file goes when the record is refused.
        # And by the write: a record tried again after the books' process died may find the match recorded by its
        # first try, and removing its own file then removed the one the record names.
        lease = hashlib.sha256(job.owner.encode()).hexdigest()[:12]
        replay = Path(job.data_dir) / "replays" / f"{job.match_id}-{lease}-{uuid.uuid4().hex[:8]}.json"
        replay.parent.mkdir(exist_ok=True)  # not the data folder: one gone is told (ladder/grounds.py), not made again
        # Written whole under another name, then renamed: a books process killed mid-write (SIGKILL, the OOM killer)
        # with the next record already sent to it left an empty replay in the folder, where a .part is plainly no replay.
        part = replay.with_name(replay.name + ".part")
        try:
            part.write_text(replay_json)
            os.replace(part, replay)
        except BaseException:  # a full disk: an empty or half file, which no record names, was left at every try
            with contextlib.suppress(OSError):
                part.unlink(missing_ok=True)
            raise
        root = Path(job.data_dir)  # named relative to it: a data folder moved keeps its replays and logs (ladder.datafiles)
        names = [stored_name(Path(log), root) for log in logs]
        recorded = False
        try:
            recorded = record_outcome(
                make, job.match_id, job.owner, head.result, replay_path=stored_name(replay, root), log_paths=names, played_by=worker,
                suspend_after=job.suspend_after,
            )
        finally:
            if not recorded:
                discard_unnamed(make, job.match_id, stored_name(replay, root), names, root)
        return recorded
    files = {REPLAY_FILE: replay_json.encode()}
    for seat, path in enumerate(map(Path, logs)):
        if path.exists():
            files[seat_log_name(seat)] = path.read_bytes()
    return record_outcome(make, job.match_id, job.owner, head.result, files=files, played_by=worker, suspend_after=job.suspend_after)


def discard_try_logs(log_dir: Path, try_id: str) -> None:
    """Remove the logs of a try stopped before its match was over (its lease lost, or the ladder stopping: the match is
    played again from the start), which no record will name, and ``log_dir`` when they were all it held. A failed
    match's logs stay: they are what an operator reads to find out why."""
    for path in log_dir.glob(f"{try_id}-seat*.log"):
        with contextlib.suppress(OSError):
            path.unlink()
    with contextlib.suppress(OSError):
        log_dir.rmdir()


def discard_unnamed(make: sessionmaker[Session], match_id: int, replay: str, logs: list[str], root: Path) -> None:
    """Remove the replay and log files of a try whose record was refused or failed (its lease lost: another worker played
    the match), which nothing names, and which piled up under replays/ and logs/<match id>. Not those the match's
    record names: a record tried again after the books' process died is refused (done already) with the very logs its
    first try recorded, and a record whose connection dropped as it committed raised though it was recorded."""
    try:
        with make() as db:
            named = set(db.scalars(select(MatchSeat.log_path).where(MatchSeat.match_id == match_id)))
            named.add(db.scalar(select(Match.replay_path).where(Match.id == match_id)))
    except Exception:  # the database out of reach: the files are left, as they were before
        log.warning("match %s: could not tell whether the files of a refused record are named; left in place", match_id, exc_info=True)
        return
    if replay not in named:
        with contextlib.suppress(OSError):
            located(replay, root).unlink(missing_ok=True)
    for name in logs:
        if name not in named:
            path = located(name, root)
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
                path.parent.rmdir()  # logs/<match id>, when it held only this try's logs


def record_elsewhere(job: MatchJob, head: ReplayHead, logs: list[str], worker: str) -> bool:
    """``record_head`` in the ladder's recorder process, through the job's database URL."""
    return record_head(shared_sessions(job.db_url), job, head, logs, worker)


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _keep_lease(make: sessionmaker[Session], job: MatchJob, playing: asyncio.Task[Any], lost: asyncio.Event) -> None:
    """Renew the lease every third of its length; stop the match if it was lost (reaped, or handed back)."""
    while True:
        await asyncio.sleep(job.lease_seconds / 3)
        try:
            # On a thread: this loop referees matches, and a database slow to answer stopped their clocks' owner.
            held = await asyncio.to_thread(renew, make, job.match_id, job.owner, job.lease_seconds)
        except Exception as exc:  # the database is out of reach for a moment: try again at the next tick
            log.warning("could not renew the lease of match %s (%s)", job.match_id, type(exc).__name__)
            continue
        if not held:
            lost.set()
            playing.cancel()
            return
