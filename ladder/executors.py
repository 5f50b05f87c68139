"""Where matches are played: a pool of asyncio tasks in the ladder's process, or a Dask cluster.

The ladder's dispatcher (ladder/service.py) claims a match with a lease and
hands the executor a :class:`~ladder.jobs.MatchJob`; the executor plays it
with :func:`~ladder.jobs.play_job`, which renews the lease while it plays and
records the result with the conditional update. The database stays the
source of truth: an executor that loses a job (a Dask worker killed
mid-match, the ladder killed) loses only that match, whose lease runs out
and which the ladder's reaper queues again; a job played twice (Dask
re-running a task whose worker died) records once, since only one update
finds the match still running under that lease.

Dask: every job is a task that asks for one unit of the worker resource
``matches`` (``dask worker --resources "matches=2"`` plays two at once), so
workers without it never play. On the worker, matches run on one asyncio
loop in a thread of their own (the referee is asyncio and gRPC), and the
worker records the result itself, through the database URL shipped in the
job, with the replay and bot logs as MatchFile rows: no folder is shared
with the ladder. The bots travel in the job as the zips of their versions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Awaitable
from dataclasses import replace
from typing import Any, Protocol

from sqlalchemy.orm import Session, sessionmaker

from ladder.books import Books, BooksGone
from ladder.jobs import PIN_CPUS, JobOutcome, MatchJob, play_job, record_elsewhere, record_head
from ladder.release import code_release
from referee.server.replay import ReplayHead
from referee.server.runner import BotPool, LocalMatch

log = logging.getLogger("arena.ladder.executors")

RESOURCE = "matches"
BOOKS_RETRY_S = 30.0  # after a books process failed to start, the next try waits this long
RECONNECT_S = 5.0  # how often a ladder without a Dask client (its scheduler lost, or not up yet) tries a new one
REMIND_S = 300.0  # a Dask scheduler still out of reach is said again this often, not at every try
#: How long the dispatcher waits for a connected scheduler to tell its workers (``capacity``). Dask bounds no call: a
#: scheduler frozen (SIGSTOP, swapping, its machine suspended) keeps the connection open and never answers, and the
#: dispatcher waited with it, settling and renewing nothing and logging nothing.
ANSWER_S = 10.0


class Executor(Protocol):
    name: str
    #: Jobs for this executor must carry their bots as zips, and keep replays and logs in the database.
    remote: bool

    async def start(self) -> None: ...

    async def capacity(self) -> int:
        """How many matches it can play at once now."""
        ...

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]: ...

    def room(self) -> asyncio.Future[None] | None:
        """A future that resolves when capacity grows before any job finishes (None: only when one finishes)."""
        ...

    async def close(self) -> None: ...

    def describe(self) -> str: ...

    def trouble(self) -> str | None:
        """Why it plays no match now though it should (its cluster out of reach, no worker), as /api/health tells it; None."""
        ...


class LocalExecutor:
    """``workers`` matches at once, as asyncio tasks of the ladder's own process.

    Bots whose manifest sets ``matches_per_process`` above 1 are played by processes kept in a ``BotPool``
    (their logs under ``log_dir``) when given one.

    With ``recorder``, results are recorded (the replay written, the ratings updated) by a process of their
    own (ladder/books.py): the referee's loop and that work then do not share one interpreter lock. Only the
    replay's head (seed, seats, actions, result) crosses over. Should that process die, the result is
    recorded here, on a thread, and another process is started for the next.
    """

    name = "local"
    remote = False

    def __init__(self, make: sessionmaker[Session], workers: int, pooled: bool = False, recorder: bool = False) -> None:
        self.make = make
        self.workers = workers
        self.worker_name = f"{socket.gethostname()}/local"
        self.pooled = pooled  # bots that allow it are played by processes kept between matches (BotPool)
        self.pool: BotPool | None = None
        self.seats: asyncio.Semaphore | None = None
        self.recording = 0  # jobs whose match is over and whose result is being recorded
        self._room: asyncio.Future[None] | None = None
        self.use_recorder = recorder
        self.books: Books | None = None
        self._books_lock = asyncio.Lock()
        self._books_failed = -BOOKS_RETRY_S

    async def start(self) -> None:
        if self.pooled:
            self.pool = BotPool(pin_cpus=PIN_CPUS)  # the processes' logs in its own folder: each match's part is that seat's log
        self.seats = asyncio.Semaphore(self.workers)
        self.recording, self._room = 0, None  # a ladder run again starts afresh, on its own event loop
        self._books_lock = asyncio.Lock()  # of this run's event loop
        if self.books is not None and self.books.proc is not None:  # left by a run that did not close: of another loop
            with contextlib.suppress(ProcessLookupError):  # already ended
                self.books.proc.kill()
        self.books = None
        if self.use_recorder:
            await self.live_books()

    async def _start_books(self) -> None:
        books = Books()
        try:
            await books.start()
        except OSError:
            log.exception("the books process did not start; results are recorded in the ladder's process")
            self._books_failed = time.monotonic()
            return
        self.books = books

    async def live_books(self) -> Books | None:
        """The books process, another one started if it has ended; None without one (or while one fails to start)."""
        if not self.use_recorder:
            return None
        async with self._books_lock:
            books = self.books
            if books is not None and not books.alive:
                log.warning("the books process has ended; starting another")
                self.books = None
                await books.close()
            if self.books is None and time.monotonic() - self._books_failed > BOOKS_RETRY_S:
                await self._start_books()
            return self.books

    async def _record(self, job: MatchJob, played: LocalMatch, worker: str) -> bool:
        """Record in the books process; here, on a thread, if there is none or it dies meanwhile."""
        head, logs = ReplayHead.of(played.record), [str(p) for p in played.logs]
        books = await self.live_books()
        if books is not None:
            try:
                return await books.call(record_elsewhere, job, head, logs, worker)
            except BooksGone as exc:
                log.warning("%s; recording match %s here", exc, job.match_id)
        return await asyncio.to_thread(record_head, self.make, job, head, logs, worker)

    async def capacity(self) -> int:
        # One job more than the matches played at once: it is claimed, built and its bots copied while the others
        # play, and starts the moment one ends. Jobs recording a result hold no seat and do not count: counting
        # them left a seat idle whenever a second match ended before the first one's result was recorded.
        return self.workers + 1 + self.recording

    def room(self) -> asyncio.Future[None]:
        """Resolves when a match ends: its job goes on recording, but a seat is free for the next one."""
        loop = asyncio.get_running_loop()
        if self._room is None or self._room.done() or self._room.get_loop() is not loop:
            self._room = loop.create_future()
        return self._room

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        over = False

        def played() -> None:
            nonlocal over
            over = True
            self.recording += 1
            if self._room is not None and not self._room.done():
                self._room.set_result(None)

        def finished(_: object) -> None:
            if over:
                self.recording -= 1

        future = asyncio.ensure_future(
            play_job(
                self.make, job, self.worker_name, self.pool, self.seats, just_claimed=True, on_played=played,
                recorder=self._record if self.use_recorder else None, own_disk=True,
            )
        )
        future.add_done_callback(finished)
        return future

    async def close(self) -> None:
        if self.pool is not None:
            await self.pool.close()
        if self.books is not None:
            books, self.books = self.books, None
            await books.close()

    def describe(self) -> str:
        return f"local pool of {self.workers}" + (", results recorded by a process of their own" if self.use_recorder else "")

    def trouble(self) -> None:
        return None  # its matches are played in this process: what stops them is the ladder's (its data folder, its disk)


class DaskExecutor:
    """Jobs as tasks of a Dask cluster: the scheduler at ``address``, or a LocalCluster of ``n_workers`` processes."""

    name = "dask"
    remote = True

    def __init__(
        self, address: str | None = None, n_workers: int = 2, matches_per_worker: int = 1, capacity_ttl: float = 1.0, db_url_in_jobs: bool = True
    ) -> None:
        self.address = address
        #: Off: jobs go without the database URL, so no password crosses the scheduler; each worker has ARENA_DB_URL.
        self.db_url_in_jobs = db_url_in_jobs
        self.n_workers = n_workers
        self.matches_per_worker = matches_per_worker
        self.capacity_ttl = capacity_ttl
        self.cluster: Any = None
        self.client: Any = None
        self._capacity = (0.0, 0)
        self._futures: set[Any] = set()
        self._lost_since: float | None = None  # since when the scheduler is out of reach (told once, then every REMIND_S)
        self._lost_told = 0.0
        self._connected = False  # reached once: what is said when it is reached again
        self._reconnect_tried = -RECONNECT_S
        self._idle: list[str] = []  # workers without the matches resource, as last told
        self._none = False  # no worker could play (told once, until one can again)

    async def start(self) -> None:
        """Connect to the scheduler at ``address``, or start a LocalCluster.

        A scheduler not up yet (started with the ladder, in any order) is no error: it is told, and tried again as one
        that was lost (``_reconnect``) while the ladder serves and queues. A malformed address is a ValueError at once.
        """
        from distributed import Client, LocalCluster

        if self.address is not None:
            if (problem := address_problem(self.address)) is not None:
                raise ValueError(f"{self.address!r} is not a Dask scheduler's address: {problem} (e.g. tcp://HOST:8786)")
            self._reconnect_tried = -RECONNECT_S  # a ladder run again tries at once
            await self._reconnect()
            return
        # The scheduler runs in this process: its INFO lines (state start, workers registered, clients connected)
        # are Dask's bookkeeping, not the ladder's, in the ladder's log; its warnings still show.
        logging.getLogger("distributed").setLevel(logging.WARNING)
        self.cluster = await LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=self.n_workers,
            threads_per_worker=self.matches_per_worker + 1,
            resources={RESOURCE: self.matches_per_worker},
            processes=True,
            asynchronous=True,
            # Dask's scheduler serves its health and metrics routes on HTTP even without a dashboard: on a free port
            # of this host only, not 8787, which a second ladder (or a real scheduler) holds, with a warning each start.
            dashboard_address="127.0.0.1:0",
            scheduler_kwargs={"dashboard": False},
            host="127.0.0.1",
            silence_logs=logging.WARNING,
        )
        self.client = await Client(self.cluster, asynchronous=True, name="arena-ladder")  # type: ignore[no-untyped-call]
        await self._register_plugin(self.client)

    async def _register_plugin(self, client: Any) -> None:
        from ladder.dask_worker import ArenaWorkerPlugin

        await client.register_plugin(ArenaWorkerPlugin(own_cluster=self.cluster is not None), name="arena")

    async def _connect(self, timeout: float) -> None:
        """A client of the scheduler at ``address``, its workers' plugin registered; one that fails (or is cancelled)
        half-way is closed."""
        from distributed import Client

        client: Any = Client(self.address, asynchronous=True, name="arena-ladder", timeout=timeout)  # type: ignore[no-untyped-call]
        # Dask's timeout bounds the connection, not its handshake: at an address where something else listens (or a
        # scheduler frozen), the try never ended. Twice Dask's, so that a refused connection is told in Dask's words.
        limit = asyncio.timeout(2 * timeout)
        try:
            async with limit:
                await client
                await self._register_plugin(client)
        except BaseException as exc:  # a try cut short by the ladder's stop too: dropped unclosed, Dask warned of it at exit
            with contextlib.suppress(Exception):
                await client.close()
            if limit.expired():
                raise OSError(f"{self.address} takes connections but does not answer as a Dask scheduler (no handshake in {2 * timeout:g} s)") from None
            if isinstance(exc, MemoryError):  # the first bytes of another protocol read as a message's length
                raise OSError(f"{self.address} does not answer as a Dask scheduler (what it sent is no Dask message)") from None
            raise
        self.client = client

    async def _reconnect(self) -> bool:
        """A new client, at most every ``RECONNECT_S`` seconds: at the start, and once the old one gave up on a lost
        scheduler (Dask's client closes itself when the scheduler stays away longer than its connect timeout, and
        never comes back)."""
        if time.monotonic() - self._reconnect_tried < RECONNECT_S:
            return False
        self._reconnect_tried = time.monotonic()
        old, self.client = self.client, None
        if old is not None:
            with contextlib.suppress(Exception):  # it is closed already, or half so: a new one is what matters
                await old.close()
        try:
            await self._connect(RECONNECT_S)  # not Dask's 30 s: the dispatcher (or the ladder's start) waits on it
        except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError, CommClosedError...: the scheduler is still away
            self._out_of_reach(exc)
            return False
        self._reached()
        return True

    def _scheduler(self) -> str:
        return f"the Dask scheduler at {self.address}" if self.address else "the Dask scheduler of the ladder's LocalCluster"

    def _out_of_reach(self, exc: BaseException) -> None:
        """Said at the first failed try, then every ``REMIND_S`` while it lasts: not at every try."""
        now = time.monotonic()
        line = (str(exc).strip().splitlines() or [""])[0]
        if self._lost_since is None:
            self._lost_since = self._lost_told = now
            log.warning("%s cannot be reached (%s: %s); the ladder keeps trying every %g s, and its matches wait in the queue",
                        self._scheduler(), type(exc).__name__, line, RECONNECT_S)
        elif now - self._lost_told >= REMIND_S:
            self._lost_told = now
            log.warning("%s is still out of reach after %.0f s (%s: %s); still trying every %g s",
                        self._scheduler(), now - self._lost_since, type(exc).__name__, line, RECONNECT_S)

    def _reached(self) -> None:
        """The scheduler answered: said when that ends a time it was out of reach."""
        if self._lost_since is not None:
            log.info("connected to %s%s, after %.0f s out of reach", self._scheduler(),
                     " again" if self._connected else "", time.monotonic() - self._lost_since)
        self._connected, self._lost_since = True, None

    async def capacity(self) -> int:
        """The sum of the workers' ``matches`` resources (refreshed at most every ``capacity_ttl`` seconds)."""
        at, known = self._capacity
        if time.monotonic() - at < self.capacity_ttl:
            return known
        self._capacity = (time.monotonic(), 0)
        lost = self.client is None or self.client.status not in ("running", "connecting")
        if self.address and lost and not await self._reconnect():
            return 0
        try:
            async with asyncio.timeout(ANSWER_S):
                identity = await self.client.scheduler.identity(n_workers=-1)
        except TimeoutError:  # connected, but it says nothing: told as out of reach, and asked again at the next look
            self._out_of_reach(TimeoutError(f"connected, but it did not tell its workers in {ANSWER_S:g} s: frozen, or swapping?"))
            return 0
        except Exception as exc:  # the scheduler is out of reach for a moment: said once, not at every look
            self._out_of_reach(exc)
            return 0
        self._reached()
        workers = identity.get("workers", {}).values()
        total = sum(int(w.get("resources", {}).get(RESOURCE, 0)) for w in workers)
        idle = sorted(str(w.get("name") or w.get("id")) for w in workers if not w.get("resources", {}).get(RESOURCE))
        if idle and idle != self._idle:  # said when it changes, not every second
            log.warning("Dask workers without the %r resource play nothing: %s; start them with --resources \"%s=2\"",
                        RESOURCE, ", ".join(idle), RESOURCE)
        self._idle = idle
        # Every worker of the operator's scheduler gone: the queue stands still, and /api/health still answers ok. Not of
        # the ladder's own LocalCluster, whose nannies restart its workers (signalled with the ladder by a service manager).
        if self.address and not total and not self._none:
            log.warning("no Dask worker can play matches (none with the %r resource at %s): the queue waits until one joins",
                        RESOURCE, self.address)
        elif total and self._none:
            log.info("Dask workers can play %d match%s at once again", total, "" if total == 1 else "es")
        self._none = bool(self.address) and not total
        self._capacity = (time.monotonic(), total)
        return total

    def room(self) -> None:
        return None  # the cluster's capacity is its workers' resources, refreshed when the dispatcher asks

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        from ladder.dask_worker import run_dask_job

        job = replace(job, release=code_release())  # a worker on another Arena than the ladder's plays none of it
        if not self.db_url_in_jobs:
            job = replace(job, db_url="")
        future = self.client.submit(
            run_dask_job, job, key=f"arena-match-{job.match_id}-{job.owner}", resources={RESOURCE: 1}, pure=False, retries=0
        )
        self._futures.add(future)

        async def outcome() -> JobOutcome:
            try:
                result: JobOutcome = await future
                return result
            finally:
                self._futures.discard(future)

        return asyncio.ensure_future(outcome())

    async def close(self) -> None:
        if self.client is not None:
            if self._futures:
                try:
                    await self.client.cancel(list(self._futures))
                except Exception:
                    pass
            await self.client.close()
            self.client = None
        if self.cluster is not None:
            await self.cluster.close()
            self.cluster = None

    def describe(self) -> str:
        return f"Dask scheduler {self.address}" if self.address else f"Dask LocalCluster of {self.n_workers} x {self.matches_per_worker}"

    def trouble(self) -> str | None:
        """The scheduler out of reach, or no worker of it able to play: what the log says once, as /api/health tells it
        at every probe (it answered only "ok", while the queue stood still)."""
        if self._lost_since is not None:
            return f"{self._scheduler()} cannot be reached (for {time.monotonic() - self._lost_since:.0f} s): matches wait in the queue"
        if self._none:
            return f"no Dask worker can play matches (none with the {RESOURCE!r} resource at {self.address}): the queue waits until one joins"
        return None


def address_problem(address: str) -> str | None:
    """What is wrong with the form of a Dask scheduler's ``address`` (not whether one answers there), or None.

    Dask's client raised ValueError for these from inside the ladder's loop, a traceback once the samples were validated.
    """
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import backends

    if not address.strip():
        return "it is empty"
    try:
        scheme, location = parse_address(address, strict=False)
        if scheme not in backends:
            return f"unknown scheme {scheme!r} (one of {', '.join(sorted(backends))})"
        if scheme in ("tcp", "tls", "ws", "wss"):
            _, port = parse_host_port(location)
            if not 0 < int(port) < 65536:
                return f"port {port} is out of range"
    except ValueError as exc:
        return str(exc)
    return None


def make_executor(kind: str, make: sessionmaker[Session], workers: int, dask_address: str | None = None, dask_workers: int = 2,
                  matches_per_worker: int = 1, pooled: bool = False, recorder: bool = False, db_url_in_jobs: bool = True) -> Executor:
    if kind == "local":
        return LocalExecutor(make, workers, pooled, recorder)
    if kind == "dask":
        return DaskExecutor(dask_address, dask_workers, matches_per_worker, db_url_in_jobs=db_url_in_jobs)
    raise ValueError(f"unknown executor {kind!r} (local or dask)")
