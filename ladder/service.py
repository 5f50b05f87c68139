"""`arena ladder serve`: the HTTP API, the scheduler and the dispatcher of matches in one process.

The dispatcher claims matches and hands them to an executor (ladder/executors.py):
asyncio tasks of this process, or the workers of a Dask cluster.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import random
import socket
import time
import uuid
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import uvicorn
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import house_user
from ladder.api import LadderState, create_app
from ladder.db import bring_up, default_url, make_engine, refresh_statistics, sessions, unreachable
from ladder.models import UNPLAYED, Bot, BotVersion, Match
from ladder.scheduler import fill_queue
from ladder.submissions import INTERRUPTED, JOINED, ON_LADDER, SAMPLE_BOTS, SUBMISSIONS_PER_DAY, SubmissionRefused, clear_stale_uploads, discard, submit
from ladder.suspension import SUSPEND_AFTER, Suspended, announce
from ladder.upload import zip_directory
from ladder.books import BooksGone
from ladder.executors import Executor, LocalExecutor, make_executor
from ladder.grounds import HOLD_MISSING_S, DatabaseReplaced, Grounds, MissingVersions
from ladder.hold import RENEW_S, Hold, HoldLost
from ladder.jobs import ArchiveCache, JobOutcome, JobSettings, MatchJob, hand_out, hand_out_elsewhere
from ladder.metrics import LadderMetrics
from ladder.retention import KEEP_RETIRED, prune_retired
from ladder.worker import SWEEP_LIMIT, WorkerUnfit, anything_queued, public_error, rate_settled_sets, reap, release, release_lease, renew_all
from referee.server.cancelling import outlast
from referee.server.manifest import load_manifest
from referee.server.session import TimeControl

log = logging.getLogger("arena.ladder")
#: Matches given back unplayed in a row before the dispatcher claims one at a time, at most MAX_PAUSE_S apart.
FAILING_RUN, MAX_PAUSE_S = 3, 60.0
#: Why a Dask worker found a match's lease gone that the ladder's database holds still.
WRONG_DATABASE = "its database is not the ladder's (ARENA_DB_URL in its environment names another)"
#: How often the scheduler refreshes the database's statistics for its planner (SQLite only; the first tick does it too).
STATISTICS_EVERY_S = 600.0
#: How often the scheduler removes the folders of retired versions past --keep-retired (ladder/retention.py; the first tick too).
PRUNE_EVERY_S = 600.0
#: The machine's clock set forward or back by more than this (seconds) between two ticks: a jump (``_clock_jumped``).
CLOCK_JUMP_S = 2.0
#: With no new failure (or cancellation), how often the sets of failed matches are swept for one left unrated (``_sweep_failed_sets``).
FAILED_SWEEP_S = 60.0


class Trouble:
    """What one of the ladder's loops, which go on after an error, says of a run of them: the first, and its end.

    The database out of reach is one line; anything else (a bug, the cluster gone) its traceback, once.
    Each loop said every error again: while PostgreSQL restarted, a traceback a second.
    """

    #: A run of failures is said again this often (seconds), so that a loop stuck for good is not silent for good.
    REMIND_S = 300.0

    def __init__(self, what: str) -> None:
        self.what = what
        self.failures = 0
        self._said: tuple[str, str] | None = None  # the kind and first line of the error last said
        self._said_at = 0.0

    def failed(self, exc: BaseException) -> None:
        self.failures += 1
        line = (str(exc).strip().splitlines() or [""])[0]
        out_of_reach = unreachable(exc)
        # One outage, whatever its errors say on the way: a PostgreSQL restart is "shutting down", then "Connection
        # refused", then "starting up", and each was said as news, three lines for each loop.
        said = ("unreachable", "") if out_of_reach else (type(exc).__name__, line)
        if said == self._said:
            if time.monotonic() - self._said_at < self.REMIND_S:
                return
            log.warning("%s: still failing after %d tries (%s: %s)", self.what, self.failures, type(exc).__name__, line)
        elif out_of_reach:
            log.warning("%s: the database is out of reach (%s: %s); trying again", self.what, type(exc).__name__, line)
        else:  # another error than the last: said whole, even in the middle of a run
            log.error("%s failed; trying again", self.what, exc_info=exc)
        self._said, self._said_at = said, time.monotonic()

    def over(self) -> bool:
        """The loop went round without an error; whether that ends a run of failures."""
        ended = self.failures > 0
        if ended:
            log.info("%s: going again, after %d failed tries", self.what, self.failures)
        self.failures, self._said = 0, None
        return ended


@dataclass
class LadderConfig:
    data_dir: Path
    url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = 2
    samples: bool = True
    games: list[str] | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    lease_seconds: float = 60.0
    seed: int | None = None
    sandbox: str = "process"
    executor: str = "local"  # or "dask"
    dask_address: str | None = None  # a `dask scheduler`; None with the dask executor: a LocalCluster on this machine
    dask_workers: int = 2  # workers of that LocalCluster
    matches_per_worker: int = 1  # the LocalCluster workers' `matches` resource
    keep: str | None = None  # replays and logs: "files" or "database" (default: files for local, database for dask)
    schedule: bool = True  # queue new matches (off: play only what is queued)
    recorder: bool = True  # local executor: record results in a process of their own (ladder/books.py)
    db_url_in_jobs: bool = True  # dask executor: jobs carry the database URL (off: each worker has ARENA_DB_URL)
    suspend_after: int = SUSPEND_AFTER  # forfeits in a row that suspend a bot version (ladder/suspension.py; 0: never)
    submissions_per_day: int = SUBMISSIONS_PER_DAY  # versions an owner may submit in 24 hours (ladder/submissions.py; 0: no limit)
    keep_retired: int = KEEP_RETIRED  # retired versions of each bot whose folders the store keeps (ladder/retention.py)
    hold_missing_seconds: float = HOLD_MISSING_S  # how long a match waits for a version whose folder is gone (ladder/grounds.py; 0: for ever)

    @property
    def db_url(self) -> str:
        return self.url or default_url(self.data_dir)

    @property
    def keep_in(self) -> str:
        return self.keep or ("database" if self.executor == "dask" else "files")


def open_db(config: LadderConfig, upgrade: bool = True) -> sessionmaker[Session]:
    """The ladder's database, its schema made or brought up to date (an older one only with ``upgrade``: SchemaBehind)."""
    if config.url is None:  # SQLite in the data folder; a database named by URL needs no folder (`user list --db URL` made one)
        config.data_dir.mkdir(parents=True, exist_ok=True)
    bring_up(config.db_url, upgrade)
    return sessions(make_engine(config.db_url))


async def register_samples(make: sessionmaker[Session], store: Path, games: list[str] | None, sandbox: str = "process") -> None:
    """Submit every sample bot as the house user, once per version."""
    with make() as db:
        house = house_user(db)
    for path in sorted(p for p in SAMPLE_BOTS.iterdir() if (p / "bot.toml").exists()):
        manifest = load_manifest(path)
        if games and not set(manifest.games) & set(games):
            continue
        if manifest.language != "python":
            continue
        with make() as db:
            versions = db.execute(
                select(BotVersion.version, BotVersion.status).join(Bot, Bot.id == BotVersion.bot_id).where(Bot.name == manifest.name)
            ).all()
        # This version retired too: an operator who withdrew a sample did not want it back at the next start. Suspended
        # too: entered again, it would forfeit as many matches again; the operator reinstates it.
        known = any(version == manifest.version and status in JOINED for version, status in versions)
        # Nor another version, once an upgrade of Arena ships one: a sample with none on the ladder and one retired was
        # withdrawn (a version is otherwise retired only by a newer one, on the ladder), and came back with the upgrade.
        withdrawn = any(status == "retired" for _, status in versions) and not any(status in ON_LADDER for _, status in versions)
        if not known and not withdrawn:
            try:
                outcome = await submit(make, store, house, zip_directory(path), sandbox=sandbox)
            except SubmissionRefused as exc:  # one sample the ladder cannot take must not stop it starting with the rest
                log.error("sample bot %s %s was not entered: %s", manifest.name, manifest.version, exc)
                continue
            log.info("sample bot %s %s: %s", manifest.name, manifest.version, "active" if outcome.accepted else outcome.reason)


def scheduler_rng(make: sessionmaker[Session], seed: int | None) -> random.Random:
    """The scheduler's generator: ``seed`` (``--seed``) with the last match's id, so that a new ladder with a seed
    schedules alike every time, and one started again deals none of its earlier deals.

    Seeded with ``seed`` alone, a ladder started again dealt the very seeds of its earlier sets (past their placements,
    the bots' tables draw the generator alike), whose replays, every hand in them, are public once played.

    Without ``seed`` it draws from the system's source: a Mersenne Twister's state follows from its outputs, and the
    seeds of settled deals are published, so whoever gathered them could work out the seeds of deals to come.
    """
    if seed is None:
        return random.SystemRandom()
    with make() as db:
        last = db.scalar(select(func.max(Match.id)))
    return random.Random(seed if last is None else f"{seed}/{last}")


class Ladder:
    def __init__(self, config: LadderConfig, executor: Executor | None = None) -> None:
        self.config = config
        self.make = open_db(config)
        self.store = config.data_dir / "bots"
        self.store.mkdir(parents=True, exist_ok=True)
        #: The data folder, its store and database file, looked at before each claim and tick (ladder/grounds.py).
        self.grounds = Grounds.of(config.data_dir, config.db_url)
        self._away: str | None = None  # what of them is gone (or cannot be written), while it is
        self._until = ""  # what ends it: "it is back", "it can be written again"
        self._back = ""  # what to say when it is over
        self._away_said = 0.0  # when that was last said
        #: Bot versions whose folder is gone from the store: drawn for nothing, their matches not claimed (ladder/grounds.py).
        #: Their held matches are cancelled after --hold-missing-seconds, or once they are withdrawn (counted on /metrics).
        self.missing = MissingVersions(
            self.store, hold_for=config.hold_missing_seconds, cancelled=lambda n: self.metrics.count("bot_files_cancelled", times=n)
        )
        self.rng = scheduler_rng(self.make, config.seed)
        self.owner_prefix = f"{socket.gethostname()[:32]}-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.matches_played = 0
        self.outcomes: list[JobOutcome] = []
        self.metrics = LadderMetrics(self.make)  # GET /metrics (ladder/metrics.py)
        self.executor = executor or make_executor(
            config.executor, self.make, config.workers, config.dask_address, config.dask_workers, config.matches_per_worker,
            pooled=True, recorder=config.recorder, db_url_in_jobs=config.db_url_in_jobs,
        )
        self.settings = JobSettings(
            self.store, config.time_control, config.lease_seconds, config.sandbox, config.keep_in, config.data_dir.resolve(),
            config.db_url, ship_bots=self.executor.remote, suspend_after=config.suspend_after,
        )
        self.archives = ArchiveCache(self.store)
        #: One ladder per database (ladder/hold.py): taken by ``run`` (or earlier by the command, to refuse in one line).
        self.hold = Hold(self.make, f"http://{config.host}:{config.port}")
        self.capacity = config.workers if config.executor == "local" else 0
        self._started = False  # the executor has started (``playing``): /api/health tells a ladder still starting it
        self._claims = 0
        self._swept = -1e9  # when the scheduler last reaped lost leases
        self._analyzed = -1e9  # when the database's statistics were last refreshed (refresh_statistics)
        self._pruned = -1e9  # when the folders of retired versions were last pruned (prune_retired)
        self._failures_swept, self._failed_swept_at = -1, -1e9  # failed matches at the last sweep of their sets, and when
        self._reap_after = 0.0  # no reaping before (monotonic): the database came back from an outage (``scheduler``)
        self._wall_offset: float | None = None  # the wall clock less the monotonic one, at the last tick (``_clock_jumped``)
        self._suspended: set[int] | None = None  # the versions suspended at the last look (``_tell_suspensions``)
        self._unratable: set[int] = set()  # matches whose set could not be rated: not tried again (rate_settled_sets)
        self._failing, self._pause_until = 0, 0.0  # matches given back unplayed in a row (``_worker_trouble``)
        self._cancel_told = False  # Dask cancelled tasks in flight (its scheduler was lost): said once until a match is recorded
        self._elsewhere_told: set[str] = set()  # workers found reading another database (their ARENA_DB_URL): said once each
        #: The dispatcher found the queue empty: the scheduler fills it now rather than at its next tick...
        self._hungry = asyncio.Event()
        #: ...and resolves this when it has, to wake the dispatcher.
        self._fed: asyncio.Future[None] | None = None

    async def dispatcher(self) -> None:
        """Claim as many matches as the executor can play at once, hand each over as a job, and keep their leases.

        A job waiting in Dask's queue is not playing yet: the dispatcher renews
        the leases of every job it has in flight, and the job renews its own
        while it plays (so a job orphaned by a ladder that died still finishes
        and records). A job that comes back with an error (its worker lost more
        often than Dask retries, a task cancelled) is handed back to the queue.
        """
        in_flight: dict[asyncio.Future[JobOutcome], tuple[int, str]] = {}
        handing: asyncio.Future[tuple[int, MatchJob | None] | None] | None = None
        renewed = time.monotonic()
        trouble = Trouble("the dispatcher")
        try:
            while True:
                try:
                    for future in [f for f in in_flight if f.done()]:
                        # Settled, then forgotten: a settling the database refused is tried again at the next turn.
                        await asyncio.to_thread(self._settle, future, *in_flight[future])
                        del in_flight[future]
                    self.capacity = await self.executor.capacity()
                    # No more than that: a match queued behind another at one worker could wait while another worker is idle.
                    # Workers that failed the last matches (``_worker_trouble``): one at a time, after a pause.
                    paused = self._failing >= FAILING_RUN and (bool(in_flight) or time.monotonic() < self._pause_until)
                    paused = paused or self._gone() is not None  # the data folder gone: nothing to play the matches with
                    while len(in_flight) < self.capacity and not paused:
                        paused = self._failing >= FAILING_RUN
                        self._claims += 1
                        owner = f"{self.owner_prefix}-{self._claims}"
                        # Off the loop, as the scheduler's tick; a claim under way when the ladder stops is given back below.
                        handing = asyncio.ensure_future(self._claim(owner))
                        handed = await asyncio.shield(handing)
                        handing = None
                        if handed is None:  # nothing queued: ask the scheduler, and wake when it has filled the queue
                            if self._fed is None or self._fed.done():
                                self._fed = asyncio.get_running_loop().create_future()
                            self._hungry.set()
                            break
                        claimed, job = handed
                        if job is None:  # failed, or given back for a version's folder gone: not claimed again meanwhile
                            await asyncio.to_thread(self.missing.look, self.make, True)
                        else:
                            try:
                                submitted = asyncio.ensure_future(self.executor.submit(job))
                            except Exception:  # Dask's client closed, say: claimed and in no one's hands, it waited for its lease
                                await asyncio.to_thread(release, self.make, claimed, owner)
                                raise
                            in_flight[submitted] = (claimed, owner)
                    if in_flight and time.monotonic() - renewed > self.config.lease_seconds / 3:
                        # On threads, as every database call of this loop: it referees the local pool's matches.
                        await asyncio.to_thread(renew_all, self.make, dict(in_flight.values()), self.config.lease_seconds)
                        renewed = time.monotonic()
                    trouble.over()
                except Exception as exc:  # the database or the cluster out of reach for a moment: the leases say what was lost
                    trouble.failed(exc)
                    await asyncio.sleep(1.0)
                # Wake up as soon as a job ends, or a match (the executor's room), or the scheduler has queued more.
                room = self.executor.room() if in_flight else None
                fed = self._fed if self._fed is not None and not self._fed.done() else None
                waits: list[asyncio.Future[Any]] = [*in_flight, *(f for f in (room, fed) if f is not None)]
                if waits:
                    await asyncio.wait(waits, timeout=0.2, return_when=asyncio.FIRST_COMPLETED)
                else:
                    await asyncio.sleep(0.2)
        finally:
            for future in in_flight:
                future.cancel()
            if handing is not None:
                await outlast(handing)
                handed = None if handing.cancelled() or handing.exception() is not None else handing.result()
                if handed is not None and handed[1] is not None:  # claimed and built: give it back under its job's lease
                    release(self.make, handed[0], handed[1].owner)
            for match_id, owner in in_flight.values():
                release(self.make, match_id, owner)  # a clean shutdown: straight back to the queue
            if in_flight:  # let the local pool's matches stop their bots and servers
                await outlast(asyncio.ensure_future(asyncio.wait(list(in_flight), timeout=10)))

    def _hand_out(self, owner: str) -> tuple[int, MatchJob | None] | None:
        """Claim the next match and build its job, in this process (see ``hand_out``)."""
        return hand_out(self.make, owner, self.settings, self.archives, self.missing.held)

    async def _claim(self, owner: str) -> tuple[int, MatchJob | None] | None:
        """``_hand_out`` in the local executor's books process when it has one (off this loop's lock), else on a thread.

        A books process that dies during the claim may have committed it: that match is given back before claiming
        here (waiting for its lease to run out delayed it by a lease and cost it an attempt).
        """
        books = await self.executor.live_books() if isinstance(self.executor, LocalExecutor) else None
        if books is not None:
            try:
                return await books.call(hand_out_elsewhere, self.settings, owner, self.missing.held)
            except BooksGone:
                if await asyncio.to_thread(release_lease, self.make, owner):
                    log.warning("the books process died while claiming a match; it is queued again")
        return await asyncio.to_thread(self._hand_out, owner)

    def _settle(self, future: asyncio.Future[JobOutcome], match_id: int, owner: str) -> None:
        if future.cancelled():
            release(self.make, match_id, owner)
            return
        error = future.exception()
        if isinstance(error, concurrent.futures.CancelledError):
            # Dask cancelled the task (its scheduler was lost): neither the match's fault nor a worker's, so no attempt
            # is counted and the dispatcher does not slow down; every match in flight comes back so, said once.
            release(self.make, match_id, owner)
            self.metrics.count("cancelled")
            if not self._cancel_told:
                log.warning("Dask cancelled the matches in flight (%s); they are queued again", str(error).splitlines()[0])
            self._cancel_told = True
            return
        if error is not None and unreachable(error):
            # The worker could not reach the database: not the match's fault, so no attempt is counted (three short
            # outages during one match failed it); the dispatcher still slows down, in case that worker never can. Told
            # once it is given back: a giving back the database refused is tried again at each turn of the dispatcher.
            release(self.make, match_id, owner)
            # Its words too: a worker whose ARENA_DB_URL names no database, or a wrong password, was told as an outage.
            reason = str(getattr(error, "orig", None) or error).splitlines()[0]
            log.warning("match %s: its worker could not reach the database (%s: %s); queued again", match_id, type(error).__name__, reason)
            self.metrics.count("database_unreachable")
            self._worker_trouble()
            return
        if error is not None:
            # The job never reported: its worker died more often than Dask retries, or the task was lost; or the worker
            # cannot play any match (WorkerUnfit: no database URL), which /metrics counts as such, not as a lost task.
            # WorkerUnfit is raised before the match is touched, for what is the worker's alone (no database URL, another
            # Arena): no attempt is counted, or the matches handed to a worker an upgrade left behind failed, three tries
            # each, within seconds; the dispatcher's slowing down keeps it from churning the queue.
            unfit = isinstance(error, WorkerUnfit)
            release(self.make, match_id, owner, count_attempt=not unfit, error=public_error(error))
            log.warning("match %s came back without a result (%s: %s); queued again", match_id, type(error).__name__, error)
            self.metrics.count("unfit" if unfit else "no_result")
            self._worker_trouble()
            return
        outcome = future.result()
        if outcome.status == "disk_unwritable":  # the ladder's own disk: nothing is claimed until it can be written
            self.grounds.cannot_write(outcome.detail)
            # The job gave the match back, unless the database, an SQLite file on that full disk, refused that too: then
            # it stayed running until its lease ran out and the reaper took it back at the cost of an attempt. Given back
            # here (changing nothing if it was), a refusal tried again at each turn of the dispatcher until the disk writes.
            release(self.make, match_id, owner)
        self.metrics.count(outcome.status, outcome.seconds)
        self.outcomes.append(outcome)
        del self.outcomes[:-1000]
        if outcome.status == "recorded":
            self.matches_played += 1
            self._failing, self._pause_until, self._cancel_told = 0, 0.0, False
        elif outcome.status == "unfit":
            log.error("worker %s cannot play match %s: %s", outcome.worker, match_id, outcome.detail)
            self._worker_trouble()
        elif outcome.status == "database_unreachable":  # handed back by the worker itself, as the error above
            log.warning("match %s: its worker could not reach the database (%s); queued again", match_id, outcome.worker)
            self._worker_trouble()
        elif outcome.status == "bot_files_gone":  # given back by the job: its version's matches wait from now on
            self.missing.look(self.make, now=True)
        elif outcome.status == "lost":
            if release(self.make, match_id, owner, error=f"a worker could not play this match: worker {outcome.worker}: {WRONG_DATABASE}"):
                # Lost there, held here: the worker reads another database (its ARENA_DB_URL). Each match stayed running
                # until its lease ran out and was reaped at the cost of an attempt, and the dispatcher, its room free
                # again at once, claimed thousands in a minute; it slows down now as for any worker that plays nothing.
                if outcome.worker not in self._elsewhere_told:  # beside workers that play, it bounced nine matches a second
                    log.error("match %s: worker %s found no lease of it, which the ladder's database holds: %s; its matches"
                              " are queued again (said once for this worker)", match_id, outcome.worker, WRONG_DATABASE)
                    self._elsewhere_told.add(outcome.worker)
                self._worker_trouble()
            else:
                log.info("match %s: %s (%s)", match_id, outcome.detail or "the lease was lost", outcome.worker)

    def _worker_trouble(self) -> None:
        """Another match the workers gave back unplayed. After a few in a row (a worker that cannot run the sandbox
        or has no database URL fails every job at once), claim one at a time, waiting longer each time, until one is
        recorded: each costs its match an attempt, and the queue was failed by the hundred in seconds."""
        self._failing += 1
        if self._failing < FAILING_RUN:
            return
        if self._failing == FAILING_RUN:
            log.error("the last %d matches came back from the workers unplayed (above: why): one match at a time, up to"
                      " %.0f s apart, until one is recorded", FAILING_RUN, MAX_PAUSE_S)
        self._pause_until = time.monotonic() + min(MAX_PAUSE_S, 2.0 ** (self._failing - FAILING_RUN))

    async def scheduler(self) -> None:
        """Tick every half second, and at once when the dispatcher finds the queue empty.

        With fast matches the queue (four matches per match the executor plays at once) can run dry
        between two ticks, and the seats then waited for the next one. A tick that queued nothing (too few
        bots) and left the queue empty is not repeated early: the dispatcher would find it empty again at once.
        """
        trouble = Trouble("the scheduler")
        while True:
            # On a thread: a tick is several queries, and the matches this loop referees must not wait for them.
            try:
                queued = await asyncio.to_thread(self._tick)
                trouble.over()
            except Exception as exc:  # one error ended the scheduler for good: no more queueing, no lost lease reaped
                trouble.failed(exc)
                queued = False
                # The database may be out of reach for longer than a lease: once it is back, the workers get a lease's
                # time to renew theirs before the reaper takes every match in play back, each at the cost of an attempt.
                self._reap_after = time.monotonic() + self.config.lease_seconds
            if self._fed is not None and not self._fed.done():
                self._fed.set_result(None)
            self._hungry.clear()
            if queued:
                try:
                    await asyncio.wait_for(self._hungry.wait(), 0.5)
                except TimeoutError:
                    pass
            else:
                await asyncio.sleep(0.5)

    def _tick(self) -> bool:
        """Reap lost leases and rate what failed (every few seconds), then fill the queue; False if it is left empty."""
        self._clock_jumped()
        if self._gone() is not None:  # said by _gone; reaping too waits, since the matches cannot be played again
            return False
        # Leases run out and matches fail rarely: looking for them every few seconds is enough.
        if time.monotonic() - self._swept >= min(5.0, self.config.lease_seconds / 4) and time.monotonic() >= self._reap_after:
            self._swept = time.monotonic()
            reap(self.make)
            self._sweep_failed_sets()
            if self.executor.remote:
                self._tell_suspensions()
        if time.monotonic() - self._analyzed >= STATISTICS_EVERY_S:
            self._analyzed = time.monotonic()
            refresh_statistics(self.make)
        if time.monotonic() - self._pruned >= PRUNE_EVERY_S:
            self._pruned = time.monotonic()
            if removed := prune_retired(self.make, self.store, self.config.keep_retired):
                log.info("removed the folders of %d retired versions from the bot store: %s", len(removed), ", ".join(removed))
        held = self.missing.look(self.make)  # every few seconds: one stat per version
        with self.make() as db:
            if self.config.schedule and fill_queue(db, self.rng, target=max(8, 4 * self.capacity), games=self.config.games, held=held):
                return True
            return anything_queued(db.connection(), held)

    def _clock_jumped(self) -> None:
        """The machine's clock set since the last tick (by hand, or NTP stepping it): on SQLite the leases are times of
        that clock (``database_time``), so set forward past a lease every match in play looked lost, and the reaper took
        each back at the cost of an attempt (the third failing it) while its worker played on, to record nothing. The
        reaper now waits a lease, long enough for every live lease to be renewed in the new time."""
        offset = time.time() - time.monotonic()
        jump, self._wall_offset = offset - (offset if self._wall_offset is None else self._wall_offset), offset
        if abs(jump) <= CLOCK_JUMP_S or not self.config.db_url.startswith("sqlite"):  # PostgreSQL's leases: its server's clock
            return
        self._reap_after = max(self._reap_after, time.monotonic() + self.config.lease_seconds)
        log.warning("the machine's clock was set %s by %.0f s: lost leases are looked for again in %g s, once the matches"
                    " in play have renewed theirs", "forward" if jump > 0 else "back", abs(jump), self.config.lease_seconds)

    def _tell_suspensions(self) -> None:
        """Log the versions suspended since the last look (ladder/suspension.py). A suspension is logged where its
        match is recorded: with remote workers, in that worker's log on its machine, and the ladder's said nothing."""
        with self.make() as db:
            rows = db.execute(
                select(BotVersion.id, Bot.name, BotVersion.seq, BotVersion.reason).join(Bot, Bot.id == BotVersion.bot_id).where(BotVersion.status == "suspended")
            ).all()
        if self._suspended is not None:  # the first look only learns which were suspended before this ladder started
            announce([Suspended(v, name, seq, reason) for v, name, seq, reason in rows if v not in self._suspended])
        self._suspended = {v for v, _, _, _ in rows}

    def _sweep_failed_sets(self) -> None:
        """Rate the sets a failure or a cancellation completed (rate_settled_sets) when there are new ones, and once a
        minute for what a sweep left: its query walks every unrated finished match (25,000 never-rated exhibitions and
        challenges at 200,000 matches: 56 ms), and it ran every five seconds."""
        failures = count_unplayed(self.make)
        if failures == self._failures_swept and time.monotonic() - self._failed_swept_at < FAILED_SWEEP_S:
            return
        try:
            rated = rate_settled_sets(self.make, skip=self._unratable)
        except Exception:  # the database busy for a moment: the next sweep tries again
            log.warning("could not rate the sets whose last match failed", exc_info=True)
            return
        if rated >= SWEEP_LIMIT:  # a full sweep may have left more (a burst of failures): the next one goes on
            return
        self._failures_swept, self._failed_swept_at = failures, time.monotonic()

    def _clear_interrupted_validations(self) -> None:
        """Versions left validating by a ladder that died (killed mid-upload) will never finish: reject them.

        Only the ladder that serves a database validates its submissions, and this one holds it now
        (``self.hold``), so every version still validating was left by one that is gone.
        """
        with self.make() as db:
            stuck = db.scalars(
                update(BotVersion)
                .where(BotVersion.status == "validating")
                .values(status="rejected", reason=INTERRUPTED)
                .returning(BotVersion.path)
            ).all()
            db.commit()
            # Their folders go too, as a failed submission's do: rejected, nothing would ever remove them. Not a folder
            # another version names (a store kept while its database was replaced).
            named = set(db.scalars(select(BotVersion.path).where(BotVersion.status != "rejected")))
        root = self.store.resolve()
        for path in stuck:
            folder = self.store / path
            bot_folder = folder.resolve().parent  # NAME of NAME/SEQ, which discard removes once empty: never the store
            if path not in named and bot_folder.is_relative_to(root) and bot_folder != root and not folder.is_symlink():
                discard(folder)
        if stuck:
            log.info("rejected %d versions left validating by a ladder that stopped mid-upload", len(stuck))

    def _gone(self) -> str | None:
        """What of the data folder is gone, or cannot be written since a match of the local pool found its disk full or
        read-only (ladder/grounds.py), said when it goes, every REMIND_S while it is, and when it is back. A database
        file replaced is DatabaseReplaced, raised by ``watching``."""
        try:
            gone = self.grounds.missing()
        except DatabaseReplaced:  # ``watching`` stops the ladder and says why
            return f"the database file {self.grounds.database} (replaced)"
        if gone is not None:
            said, until, back = f"{gone} is gone", "it is back", f"{gone} is back"
        elif (full := self.grounds.unwritable()) is not None:  # "FOLDER cannot be written (why)"
            gone, said, until, back = full, full, "it can be written again", full.split(" cannot be written")[0] + " can be written again"
        else:
            if self._away is not None:
                log.warning("%s: matches are claimed and scheduled again", self._back)
                self._failing, self._pause_until = 0, 0.0  # its matches given back meanwhile were no worker's fault
                # An SQLite file on a full disk renewed no lease meanwhile: the matches in play renew theirs first.
                self._reap_after = max(self._reap_after, time.monotonic() + self.config.lease_seconds)
            self._away = None
            return None
        self._until = until
        if said != self._away or time.monotonic() - self._away_said >= Trouble.REMIND_S:
            log.error("%s: this ladder claims and schedules no match until %s (its pages still answer; a match in play that"
                      " cannot be recorded is queued again, no attempt counted)", said, until)
            self._away, self._back, self._away_said = said, back, time.monotonic()
        return gone

    def playing_now(self) -> tuple[int, str | None]:
        """How many matches the executor can play at once, and why the ladder plays none now, if so (``/api/health``):
        what its log says once (no Dask worker, its scheduler out of reach, the data folder gone or full), told at
        every probe. /api/health answered "ok" alone while the queue stood still."""
        # The local pool claims a match more than it plays (and one per result being recorded): what it plays is --workers.
        at_once = self.config.workers if isinstance(self.executor, LocalExecutor) else self.capacity
        if not self._started:
            return 0, f"the ladder is starting its executor ({self.executor.describe()}): no match is played yet"
        if self._away is not None:
            return at_once, f"{self._away}: the ladder claims no match until {self._until}"
        if (trouble := self.executor.trouble()) is not None:
            return at_once, trouble
        if self._failing >= FAILING_RUN:
            return at_once, (f"the last {self._failing} matches came back from the workers unplayed (the ladder's log"
                                   " says why): one match at a time, until one is recorded")
        if at_once <= 0:
            return 0, "no worker can play matches now: the queue waits until one can"
        return at_once, None

    async def watching(self) -> None:
        """Look at the data folder every second (``_gone``); DatabaseReplaced, which ends ``run``, if its database file was replaced."""
        while True:
            await asyncio.sleep(1.0)
            self.grounds.missing()
            self._gone()

    async def holding(self) -> None:
        """Renew the hold on the database every few seconds; HoldLost (which ends ``run``) if another ladder took it."""
        trouble = Trouble("renewing the ladder's hold on its database")
        while True:
            await asyncio.sleep(RENEW_S)
            try:
                await asyncio.to_thread(self.hold.renew)
                trouble.over()
            except HoldLost:
                raise
            except Exception as exc:  # the database out of reach for a moment: the next renewal tries again
                trouble.failed(exc)

    async def run(self, serve_http: bool = True, listening: socket.socket | None = None) -> None:
        """Serve, schedule and play until cancelled (or the hold is lost); the HTTP server on ``listening`` when given
        (a socket bound and listening already: `serve` takes its port before opening the database), else on the
        config's host and port."""
        # Bound to this run's event loop: a ladder may be run again, on another one.
        self._hungry, self._fed = asyncio.Event(), None
        if not self.hold.held:
            self.hold.take()  # LadderBusy: another ladder serves this database
        holding = asyncio.create_task(self.holding())  # from now: entering the sample bots can outlast STALE_S
        try:
            await self._run(serve_http, holding, listening)
        finally:
            holding.cancel()
            await asyncio.gather(holding, return_exceptions=True)
            with contextlib.suppress(Exception):  # the database gone: the hold goes stale and is taken over
                await asyncio.to_thread(self.hold.release)

    async def _run(self, serve_http: bool, holding: asyncio.Task[None], listening: socket.socket | None) -> None:
        self._clear_interrupted_validations()
        if removed := clear_stale_uploads(self.store):
            log.info("removed %d folders left by interrupted submissions", removed)
        # The pages and the API first: they read the database alone, nothing of the executor, whose start may take a while
        # (a Dask LocalCluster's, or a first try to reach a remote scheduler), and /api/health did not answer meanwhile.
        tasks = [holding, asyncio.create_task(self.watching()), asyncio.create_task(self.playing())]
        try:
            if serve_http:
                app = create_app(LadderState(
                    self.make, self.store, self.config.data_dir, sandbox=self.config.sandbox, metrics=self.metrics,
                    per_day=self.config.submissions_per_day, games=self.config.games, playing=self.playing_now,
                ))
                server = _Server(uvicorn.Config(app, host=self.config.host, port=self.config.port, log_level="warning"))
                serving = asyncio.create_task(server.serve(sockets=None if listening is None else [listening]))
                try:
                    # The scheduler and the dispatcher go on after errors; one that ends anyway is a bug, and a ladder
                    # that went on serving pages without it would schedule or play nothing, silently.
                    await asyncio.wait([serving, *tasks], return_when=asyncio.FIRST_COMPLETED)
                finally:  # Ctrl-C or SIGTERM (arena/cli/running.py), or the hold lost: the HTTP server shuts down cleanly first
                    server.should_exit = True
                    await outlast(serving)
                for task in tasks:
                    if task.done():
                        task.result()  # HoldLost, DatabaseReplaced, the executor's failed start, or a loop's own error
                serving.result()  # the server's own error, if it stopped by itself
            else:
                await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.executor.close()

    async def playing(self) -> None:
        """Start the executor, then schedule and dispatch matches (and enter the samples) until one of those loops ends."""
        await self.executor.start()
        self._started = True
        log.info("matches are played by %s", self.executor.describe())
        # Beside the rest, not before it: a first start validates every sample (10 s on an idle machine, over a minute on a busy one),
        # and the pages were out of reach and nothing was played until the last one was in.
        entering = [asyncio.create_task(self.enter_samples())] if self.config.samples else []
        loops = [asyncio.create_task(self.scheduler()), asyncio.create_task(self.dispatcher())]
        try:
            done, _ = await asyncio.wait(loops, return_when=asyncio.FIRST_COMPLETED)
            for loop in done:
                loop.result()
        finally:
            self._started = False
            for task in [*loops, *entering]:
                task.cancel()
            await asyncio.gather(*loops, *entering, return_exceptions=True)

    async def enter_samples(self) -> None:
        """Enter the sample bots (register_samples); an error leaves the rest out until the next start, logged."""
        try:
            await register_samples(self.make, self.store, self.config.games, self.config.sandbox)
        except Exception:
            log.exception("the sample bots could not all be entered; the ladder goes on with those it has")


class _Server(uvicorn.Server):
    """uvicorn's server without its own signal handlers.

    Those stop the HTTP server on Ctrl-C or SIGTERM and then raise the signal again, which ended the
    process before the ladder's own clean-up (its matches' bots, the books' process) could run. The
    command cancels the ladder instead (arena/cli/running.py), and ``Ladder.run`` stops this server.
    """

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


def count_done(make: sessionmaker[Session]) -> int:
    return _count_status(make, "done")


def count_unplayed(make: sessionmaker[Session]) -> int:
    """The matches over with no result, failed or cancelled: a new one may have completed a set to rate."""
    return _count_status(make, *UNPLAYED)


def _count_status(make: sessionmaker[Session], *statuses: str) -> int:
    with make() as db:
        return db.scalar(select(func.count()).select_from(Match).where(Match.status.in_(statuses))) or 0
