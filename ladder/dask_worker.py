"""The Dask worker's side of the ladder: a loop for matches, and the task that plays one job.

Nothing here is run by the ladder itself: Dask ships ``run_dask_job`` (by
reference: the worker needs arena installed, at the ladder's version) with a
:class:`~ladder.jobs.MatchJob`, and the worker plays it and records it in
the database named by the job.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
from collections.abc import Coroutine
from typing import Any

from distributed import get_worker
from distributed.diagnostics.plugin import WorkerPlugin

from ladder.db import shared_sessions
from ladder.jobs import PIN_CPUS, JobOutcome, MatchJob, play_job
from ladder.release import code_release
from ladder.worker import WorkerUnfit
from referee.server.runner import BotPool

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()
_playing: set[asyncio.Task[JobOutcome]] = set()  # matches on the loop now (touched on the loop's thread only)
_pool: BotPool | None = None  # bot processes kept between this worker's matches (matches_per_process)
#: How long a worker that is closing waits for its matches to stop their bots and hand their leases back.
STOP_SECONDS = 3.0
#: A worker's own URL of the ladder's database, used instead of the one in the jobs.
DB_URL_ENV = "ARENA_DB_URL"


def match_loop() -> asyncio.AbstractEventLoop:
    """The asyncio loop this worker process plays its matches on, in a daemon thread of its own.

    The referee is asyncio and gRPC; Dask runs tasks in threads, so each task
    hands its match to this loop and waits, as the ladder's own pool does on
    the ladder's loop.
    """
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="arena-matches", daemon=True).start()
            _loop = loop
        return _loop


class ArenaWorkerPlugin(WorkerPlugin):
    """Registered by the ladder on every worker, present and future: loads the referee before the first match comes.

    ``own_cluster``: the workers are the LocalCluster's the ladder started itself. Ctrl-C in the ladder's terminal
    reaches their processes too (one process group), and each died of it with a KeyboardInterrupt traceback while
    the ladder was closing them; they ignore SIGINT and leave their end to the ladder, as its books process does.
    A `dask worker` started on its own still stops at its Ctrl-C.
    """

    name = "arena"

    def __init__(self, own_cluster: bool = False) -> None:
        self.own_cluster = own_cluster

    def setup(self, worker: Any) -> None:
        import referee.games.registry  # noqa: F401  (the games)
        import referee.server.runner  # noqa: F401

        if self.own_cluster and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        match_loop()

    def teardown(self, worker: Any) -> None:
        """A worker that closes (`dask worker` stopped, a LocalCluster closed) stops its matches and hands them back.

        Each match is cancelled: its bots are stopped and its lease released, so
        the ladder queues it again at once rather than when the lease runs out.
        """
        loop = _loop
        if loop is None or loop.is_closed():
            return

        async def stop_all() -> None:
            for task in list(_playing):
                task.cancel()
            if _playing:
                await asyncio.wait(list(_playing), timeout=STOP_SECONDS)
            if _pool is not None:
                await asyncio.wait_for(_pool.close(), STOP_SECONDS)

        try:
            asyncio.run_coroutine_threadsafe(stop_all(), loop).result(timeout=STOP_SECONDS + 1)
        except Exception:  # closing anyway
            pass


def worker_name() -> str:
    try:
        worker = get_worker()
    except ValueError:
        return f"{socket.gethostname()}/dask"
    return f"{socket.gethostname()}/{worker.name}"[:128]


def run_dask_job(job: MatchJob) -> JobOutcome:
    """The Dask task: play the job on this worker's match loop; the worker writes the result to the database itself.

    The database is the one named in the job, unless the worker's environment
    names its own way to it in ARENA_DB_URL (another host name, its own role). A job
    of a ladder that runs another Arena than this worker's is refused (ladder/release.py).
    """
    global _pool
    if job.release and job.release != code_release():
        raise WorkerUnfit(f"worker {worker_name()} runs another Arena than the ladder (its code {code_release()}, the ladder's"
                          f" {job.release}): install the ladder's version there and start the worker again")
    url = os.environ.get(DB_URL_ENV) or job.db_url
    if not url:  # the ladder runs with --no-db-url-in-jobs
        # Named: of many workers, the ladder's log said only "this worker".
        raise WorkerUnfit(f"worker {worker_name()} has no {DB_URL_ENV} and the ladder sends no database URL: set {DB_URL_ENV} in its environment")
    make = shared_sessions(url)
    loop = match_loop()
    with _loop_lock:
        if _pool is None:
            _pool = BotPool(pin_cpus=PIN_CPUS)
    running = asyncio.run_coroutine_threadsafe(_tracked(play_job(make, job, worker_name(), _pool)), loop)
    return running.result()


async def _tracked(playing: Coroutine[Any, Any, JobOutcome]) -> JobOutcome:
    task = asyncio.ensure_future(playing)
    _playing.add(task)
    try:
        return await task
    finally:
        _playing.discard(task)
