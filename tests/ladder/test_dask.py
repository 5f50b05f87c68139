"""The ladder on a real Dask cluster: `dask scheduler` and `dask worker` processes on this machine, or a LocalCluster.

A worker killed mid-match costs that match only, which is played again and
recorded once; two workers play at once where one plays in turn; the ladder keeps
scheduling and recording while workers come and go.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.executors import DaskExecutor
from ladder.jobs import MatchJob
from ladder.models import BotVersion, Match, MatchFile, MatchSeat, RatingChange
from ladder.rebuild import mismatches
from ladder.scheduler import add_duplicate_set
from ladder.service import Ladder, LadderConfig
from ladder.upload import zip_directory
from referee.server.session import TimeControl
from tests.ladder.conftest import check_rated_once, enter, wait_for
from tests.support import SAMPLE_BOTS

DASK = str(Path(sys.executable).parent / "dask")
GAME = "generals-war"

SLOW_BOT = '''"""Random legal play after a pause: a bot whose matches last long enough to be interrupted."""
import os
import random
import sys
import time

from arena_sdk import Bot, random_action, run


class Slow(Bot):
    name = "slow"

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.rng = random.Random(os.environ.get("ARENA_BOT_SEED"))

    def act(self, request):
        time.sleep(self.delay)
        return random_action(request, self.rng)


if __name__ == "__main__":
    run(Slow(float(sys.argv[1])))
'''


def slow_bot(tmp: Path, name: str, delay: float) -> Path:
    path = tmp / "bots" / name
    path.mkdir(parents=True)
    (path / "bot.py").write_text(SLOW_BOT)
    (path / "bot.toml").write_text(
        f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["{GAME}"]\ncommand = ["python", "bot.py", "{delay}"]\n'
    )
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A `dask scheduler` and `dask worker` processes (no nanny: a killed worker stays dead), all on 127.0.0.1."""

    def __init__(self, tmp: Path, start: bool = True) -> None:
        """``start``: the scheduler now, else at ``start_scheduler`` (its address is known from the first)."""
        self.tmp = tmp
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.client: Any = None
        if start:
            self.start_scheduler()

    def start_scheduler(self) -> None:
        self._spawn("scheduler", ["scheduler", "--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1], "--no-dashboard"])
        from distributed import Client

        self.client = Client(self.address, timeout=60)  # type: ignore[no-untyped-call]

    def _spawn(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = (self.tmp / f"dask-{name}.log").open("wb")
        proc = subprocess.Popen([DASK, *args], stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def start_worker(self, name: str, matches: int = 1) -> subprocess.Popen[bytes]:
        proc = self._spawn(name, [
            "worker", self.address, "--name", name, "--nthreads", str(matches + 1), "--resources", f"matches={matches}",
            "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
        ])
        self.workers[name] = proc
        wait_for(f"worker {name} to join", lambda: name in self.names(), timeout=60)
        return proc

    def names(self) -> dict[str, str]:
        """Worker name -> address."""
        info = self.client.scheduler_info(n_workers=-1)
        return {str(w["name"]): addr for addr, w in info["workers"].items()}

    def playing(self, name: str) -> list[int]:
        """Ids of the matches worker ``name`` is playing now (not those queued at it)."""
        address = self.names().get(name)
        if address is None:
            return []
        try:
            found = self.client.run(lambda dask_worker: [str(ts.key) for ts in dask_worker.state.executing], workers=[address])
        except Exception:  # the worker is going
            return []
        keys = found.get(address, [])
        return [int(k.split("-")[2]) for k in keys if k.startswith("arena-match-")]

    def bot_processes(self, name: str) -> list[psutil.Process]:
        try:
            return psutil.Process(self.workers[name].pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    found = Cluster(tmp_path)
    try:
        yield found
    finally:
        found.close()


class Running:
    """A ladder's scheduler and dispatcher running in a thread of their own (its own asyncio loop)."""

    def __init__(self, ladder: Ladder) -> None:
        self.ladder = ladder
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task[None] | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.task = self.loop.create_task(self.ladder.run(serve_http=False))
        try:
            self.loop.run_until_complete(self.task)
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # surfaced by stop()
            self.error = exc
        finally:
            self.loop.close()

    def start(self) -> Running:
        self.thread.start()
        return self

    def stop(self) -> None:
        wait_for("the ladder's loop", lambda: self.task is not None, timeout=10, every=0.05)
        assert self.task is not None
        self.loop.call_soon_threadsafe(self.task.cancel)
        self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "the ladder did not stop"
        if self.error is not None:
            raise self.error


@contextmanager
def running(ladder: Ladder) -> Iterator[Running]:
    run = Running(ladder).start()
    try:
        yield run
    finally:
        run.stop()


def make_ladder(tmp: Path, url: str | None = None, **options: Any) -> Ladder:
    config = LadderConfig(
        tmp / "data", url=url, samples=False, games=[GAME], time_control=TimeControl(move_time_ms=2000), seed=5, lease_seconds=6.0,
        executor="dask", **options,
    )
    return Ladder(config)


def done_count(make: sessionmaker[Session]) -> int:
    with make() as db:
        return int(db.scalar(select(func.count()).select_from(Match).where(Match.status == "done")) or 0)


def check_recorded_once(make: sessionmaker[Session]) -> list[Match]:
    """Every done match rated once (alone or with its set) with its replay and logs stored; ratings equal the ones rebuilt from the log."""
    with make() as db:
        assert mismatches(db) == []
        done = db.scalars(select(Match).where(Match.status == "done")).all()
        check_rated_once(db)
        for match in done:
            names = set(db.scalars(select(MatchFile.name).where(MatchFile.match_id == match.id)))
            assert "replay.json" in names and match.replay_path is None
            assert {f"seat{s}.log" for s in range(match.num_players)} <= names
            ranks = db.scalars(select(MatchSeat.rank).where(MatchSeat.match_id == match.id)).all()
            assert None not in ranks
        assert not db.scalars(select(Match.id).where(Match.status == "running")).all(), "a match was left claimed"
        return list(done)


def test_a_worker_killed_mid_match_costs_that_match_only(cluster: Cluster, tmp_path: Path) -> None:
    cluster.start_worker("w1")
    cluster.start_worker("w2")
    ladder = make_ladder(tmp_path, dask_address=cluster.address)
    enter(ladder, [slow_bot(tmp_path, "slow-a", 0.12), slow_bot(tmp_path, "slow-b", 0.12)])
    with running(ladder):
        # Both workers busy, w1 in the middle of a match: its bots are running.
        wait_for("w1 to be mid-match", lambda: bool(cluster.playing("w1")) and len(cluster.bot_processes("w1")) >= 2, timeout=120, every=0.1)
        [victim] = cluster.playing("w1")
        with ladder.make() as db:
            assert db.get_one(Match, victim).status == "running"
        bots = cluster.bot_processes("w1")
        killed_at = time.time()
        cluster.workers["w1"].send_signal(signal.SIGKILL)
        cluster.workers["w1"].wait()
        for bot in bots:  # orphans give up on the referee within seconds; don't wait for them
            try:
                bot.kill()
            except psutil.NoSuchProcess:
                pass

        def victim_done() -> bool:
            with ladder.make() as db:
                return db.get_one(Match, victim).status == "done"

        wait_for(f"match {victim} to be played again", victim_done, timeout=180)
        before = done_count(ladder.make)
        wait_for("more matches on the surviving worker", lambda: done_count(ladder.make) >= before + 2, timeout=120)
    done = check_recorded_once(ladder.make)
    with ladder.make() as db:
        match = db.get_one(Match, victim)
        assert match.finished_at is not None and match.finished_at > killed_at
        assert match.played_by is not None and match.played_by.endswith("/w2"), match.played_by
        print(f"match {match.id}: attempts {match.attempts} (0: Dask ran the task again under the same lease; 1: the lease ran out and was reaped)")
    assert sum(1 for m in done if m.id == victim) == 1


Played = list[tuple[str, float, float]]  # (worker, claimed at, finished at) of each match of a batch


def overlapping(played: Played) -> list[tuple[str, str]]:
    """The pairs of workers whose matches were in play at the same moment (claimed before the other finished)."""
    return [(a[0], b[0]) for i, a in enumerate(played) for b in played[i + 1:] if a[1] < b[2] and b[1] < a[2]]


def test_two_workers_play_at_once_where_one_plays_in_turn(tmp_path: Path) -> None:
    """The same batch (same bots, deals and seats: the same matches) on a LocalCluster of one worker, then of two.

    What is checked is order, not speed (the speed-up is benchmarks/dask_throughput.py's figure): one worker's
    matches never overlap, and two workers' do, each playing one of a pair at the same time.
    """
    first = make_ladder(tmp_path, dask_workers=1, schedule=False)
    versions = enter(first, [slow_bot(tmp_path, "slow-a", 0.08), slow_bot(tmp_path, "slow-b", 0.08)])
    seeds = [11, 12, 13]

    def play_batch(ladder: Ladder, workers: int) -> Played:
        with running(ladder) as run:
            wait_for(f"{workers} workers", lambda: run.ladder.capacity == workers, timeout=120)
            with ladder.make() as db:
                batch = [m.id for seed in seeds for m in add_duplicate_set(db, GAME, versions, seed, "rated")]
                db.commit()

            def finished() -> bool:
                with ladder.make() as db:
                    return all(db.get_one(Match, m).status in ("done", "failed") for m in batch)

            wait_for("the batch", finished, timeout=300, every=0.05)
        with ladder.make() as db:
            matches = [db.get_one(Match, m) for m in batch]
            assert {m.status for m in matches} == {"done"}
            played = [(m.played_by or "", m.started_at or 0.0, m.finished_at or 0.0) for m in matches]
        assert len({worker for worker, _, _ in played}) == workers, played
        return played

    one = play_batch(first, 1)
    assert overlapping(one) == [], f"one worker played two matches at once: {one}"
    two = play_batch(make_ladder(tmp_path, dask_workers=2, schedule=False), 2)
    at_once = overlapping(two)
    assert at_once and all(a != b for a, b in at_once), f"two workers did not play at the same time: {two}"
    check_recorded_once(first.make)


def test_the_ladder_keeps_going_while_workers_come_and_go(cluster: Cluster, tmp_path: Path) -> None:
    ladder = make_ladder(tmp_path, dask_address=cluster.address)
    enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"])
    began = time.monotonic()
    with running(ladder) as run:
        def queued() -> int:
            with ladder.make() as db:
                return db.scalar(select(func.count()).select_from(Match).where(Match.status == "queued")) or 0

        wait_for("the queue to be filled with no worker", lambda: queued() >= 4)  # no worker yet: the queue is kept full ...
        assert done_count(ladder.make) == 0 and run.ladder.capacity == 0  # ... but nothing is played

        def more(n: int, what: str) -> None:
            target = done_count(ladder.make) + n
            wait_for(what, lambda: done_count(ladder.make) >= target, timeout=120)
            print(f"{time.monotonic() - began:.1f} s: {what}")

        cluster.start_worker("w1")
        print(f"{time.monotonic() - began:.1f} s: w1 joined")
        more(3, "matches on w1")
        cluster.start_worker("w2", matches=2)
        more(3, "matches on w1 and w2")
        cluster.workers["w1"].send_signal(signal.SIGKILL)  # lost without a word
        cluster.workers["w1"].wait()
        more(3, "matches on w2 alone")
        cluster.start_worker("w3")
        cluster.workers["w2"].send_signal(signal.SIGTERM)  # leaves cleanly
        cluster.workers["w2"].wait(timeout=60)
        more(3, "matches on w3")
    done = check_recorded_once(ladder.make)
    players = {m.played_by.rsplit("/", 1)[1] for m in done if m.played_by}
    assert {"w1", "w2", "w3"} <= players, players
    with ladder.make() as db:
        assert not db.scalars(select(Match.id).where(Match.status == "failed")).all()


def test_a_ladder_started_before_its_dask_scheduler_serves_and_plays_once_it_answers(tmp_path: Path) -> None:
    """`arena ladder serve --dask-address` started before its scheduler (docker compose, systemd: in any order) failed
    after Dask's connect timeout (30 s). It comes up: its pages answer, a submission is accepted and its matches wait
    in the queue, its log says once that the scheduler cannot be reached; once a scheduler answers there, it plays."""
    import httpx

    from ladder.db import default_url, make_engine, sessions
    from tests.ladder.test_durability import ARENA

    cluster = Cluster(tmp_path, start=False)  # its address only: nothing listens there yet
    data, port, err = tmp_path / "data", free_port(), tmp_path / "ladder.err"
    url = f"http://127.0.0.1:{port}"
    args = ["ladder", "serve", "--data", str(data), "--port", str(port), "--no-samples", "--game", GAME, "--executor", "dask",
            "--dask-address", cluster.address, "--seed", "5"]
    with err.open("wb") as out:
        proc = subprocess.Popen([*ARENA, *args], stdout=subprocess.DEVNULL, stderr=out)

    def answers() -> bool:
        try:
            return httpx.get(f"{url}/api/health", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def said() -> str:
        return err.read_text(errors="replace")

    def counted(status: str) -> int:
        with make() as db:
            return db.scalar(select(func.count()).select_from(Match).where(Match.status == status)) or 0

    try:
        wait_for("the ladder's pages", lambda: answers() or proc.poll() is not None)
        assert proc.poll() is None, f"the ladder ended with {proc.returncode}:\n{said()[-3000:]}"
        make = sessions(make_engine(default_url(data)))
        with make() as db:
            token = add_user(db, "owner")
        for bot in (SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"):
            reply = httpx.post(f"{url}/api/bots", content=zip_directory(bot), headers={"Authorization": f"Bearer {token}"}, timeout=120)
            assert reply.status_code == 201 and reply.json()["accepted"], reply.text
        wait_for("matches in the queue", lambda: counted("queued") >= 2)
        wait_for("the log to say the scheduler cannot be reached", lambda: "cannot be reached" in said())
        assert counted("running") == counted("done") == 0
        cluster.start_scheduler()
        cluster.start_worker("w1")
        wait_for("a match played", lambda: counted("done") >= 1, timeout=180)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        cluster.close()
    log = said()
    assert log.count(f"the Dask scheduler at {cluster.address} cannot be reached") == 1, log[-3000:]
    assert f"connected to the Dask scheduler at {cluster.address}" in log, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


def test_the_cli_refuses_inconsistent_executor_options(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from arena.cli.main import app

    runner = CliRunner()
    data = str(tmp_path / "data")
    result = runner.invoke(app, ["ladder", "serve", "--data", data, "--executor", "ray"])
    assert result.exit_code == 2 and "unknown executor" in result.output
    result = runner.invoke(app, ["ladder", "serve", "--data", data, "--dask-address", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2 and "--executor dask" in result.output
    result = runner.invoke(app, ["ladder", "serve", "--data", data, "--executor", "dask", "--dask-address", "tcp://127.0.0.1:1", "--keep", "files"])
    assert result.exit_code == 2 and "--keep database" in result.output
    result = runner.invoke(app, ["ladder", "serve", "--data", data, "--no-db-url-in-jobs"])
    assert result.exit_code == 2 and "--no-db-url-in-jobs needs --executor dask" in result.output


def workers_ignoring_ctrl_c(pid: int) -> list[bool]:
    """For each LocalCluster worker process under process ``pid`` (started by multiprocessing's spawn), whether it ignores
    SIGINT, as read from its signal mask in /proc (Linux)."""
    found = []
    for child in psutil.Process(pid).children(recursive=True):
        try:
            if "spawn_main" not in " ".join(child.cmdline()):
                continue
            status = Path(f"/proc/{child.pid}/status").read_text()
        except (psutil.NoSuchProcess, OSError):  # gone meanwhile
            continue
        ignored = next((int(line.split()[1], 16) for line in status.splitlines() if line.startswith("SigIgn:")), 0)
        found.append(bool(ignored >> (signal.SIGINT - 1) & 1))
    return found


def test_ctrl_c_stops_a_ladder_and_its_localcluster_without_a_traceback(tmp_path: Path) -> None:
    """Ctrl-C in a terminal reaches the whole process group: the LocalCluster's worker processes died of it with a
    KeyboardInterrupt traceback while the ladder was closing them (docs/deploy.md: a ladder stops cleanly)."""
    from tests.ladder.test_durability import ARENA

    err = tmp_path / "ladder.err"
    args = ["ladder", "serve", "--data", str(tmp_path / "data"), "--port", "0", "--no-samples", "--executor", "dask", "--dask-workers", "1"]
    with err.open("wb") as out:
        proc = subprocess.Popen([*ARENA, *args], stdout=subprocess.DEVNULL, stderr=out, start_new_session=True)
    try:
        wait_for("the LocalCluster", lambda: "matches are played by Dask LocalCluster" in err.read_text(errors="replace"), timeout=120)
        # The plugin's setup on the worker (ladder/dask_worker.py) makes it ignore Ctrl-C: the signal comes after that.
        wait_for("the worker to ignore Ctrl-C", lambda: workers_ignoring_ctrl_c(proc.pid) == [True], timeout=120)
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    said = err.read_text(errors="replace")
    assert proc.returncode in (0, 130), f"the ladder ended with {proc.returncode}:\n{said[-3000:]}"
    assert "Traceback" not in said and "KeyboardInterrupt" not in said, said[-3000:]
    assert "Scheduler at:" not in said and "Register worker" not in said, "the in-process scheduler's INFO lines are Dask's"


def claimed_match(tmp_path: Path) -> tuple[Ladder, int]:
    """A ladder of General's War's greedy and random bots with a duplicate set queued, and a match of it claimed by w-test."""
    from ladder.worker import claim

    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=[GAME]))
    versions = enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    with ladder.make() as db:
        add_duplicate_set(db, GAME, versions, 3, "rated")
        db.commit()
    match_id = claim(ladder.make, "w-test", 30)
    assert match_id is not None
    return ladder, match_id


def test_a_worker_that_cannot_run_the_sandbox_hands_the_match_back(tmp_path: Path) -> None:
    """No Docker engine or image on a worker: the match goes back to the queue (an attempt counted), not to 'failed'."""
    from ladder.jobs import JobSettings, build_job, play_job

    ladder, match_id = claimed_match(tmp_path)
    settings = JobSettings(ladder.store, TimeControl(), 30, sandbox="no-such-sandbox", keep="database", db_url=ladder.config.db_url, ship_bots=True)
    job = build_job(ladder.make, match_id, "w-test", settings)
    assert all(b.archive and b.folder is None for b in job.bots)
    outcome = asyncio.run(play_job(ladder.make, job, "box/w9"))
    assert outcome.status == "unfit" and "no-such-sandbox" in outcome.detail
    with ladder.make() as db:
        match = db.get_one(Match, match_id)
        assert (match.status, match.attempts, match.lease_owner) == ("queued", 1, None)
        assert "box/w9" in match.error
    # The same job again (a retry of the task): its lease is gone, so it plays nothing.
    assert asyncio.run(play_job(ladder.make, job, "box/w9")).status == "lost"


def test_a_task_run_again_for_a_match_already_recorded_says_so(tmp_path: Path) -> None:
    """A worker killed after it recorded its match, before Dask had the answer (an operator's walk): Dask ran the task
    again on another worker, whose log line said the match had been "handed back or reaped ... queued or played under
    a new lease", of a match that was done. It says the match was recorded already, and by whom."""
    from sqlalchemy import update

    from ladder.jobs import JobSettings, build_job, play_job

    ladder, match_id = claimed_match(tmp_path)
    job = build_job(ladder.make, match_id, "w-test", JobSettings(ladder.store, TimeControl(), 30, keep="database", ship_bots=True))
    with ladder.make() as db:  # recorded by the first worker, as its conditional update leaves the row
        db.execute(update(Match).where(Match.id == match_id).values(status="done", lease_owner=None, played_by="box/w1"))
        db.commit()
    outcome = asyncio.run(play_job(ladder.make, job, "box/w2"))
    assert outcome.status == "lost"
    assert outcome.detail.startswith("not started: the match was recorded already, by box/w1"), outcome.detail


def sent_to_dask(job: MatchJob, executor: DaskExecutor) -> MatchJob:
    """The job as the ladder's Dask executor hands it to Dask's client."""
    sent: list[MatchJob] = []

    class Client:
        def submit(self, fn: object, job: MatchJob, **kwargs: object) -> asyncio.Future[None]:
            sent.append(job)
            done = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done

    async def submit() -> None:
        executor.client = Client()
        await executor.submit(job)

    asyncio.run(submit())
    return sent[0]


def test_with_no_db_url_in_jobs_no_password_crosses_the_scheduler(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/deploy.md: the ladder's URL, password included, went in every job even with ARENA_DB_URL on the workers."""
    from dataclasses import replace

    from ladder.dask_worker import DB_URL_ENV, run_dask_job
    from referee.server.session import TimeControl

    job = MatchJob(1, "o", "generals-war", 1, {}, (), TimeControl(), 30, db_url="postgresql+psycopg://arena:SECRET@db/arena")
    assert [sent_to_dask(job, DaskExecutor(db_url_in_jobs=in_jobs)).db_url for in_jobs in (True, False)] == [job.db_url, ""]
    monkeypatch.delenv(DB_URL_ENV, raising=False)
    # A worker without its own URL says so, and which worker it is (of many, the ladder's log named none), and plays nothing.
    with pytest.raises(RuntimeError, match=f"^worker {re.escape(socket.gethostname())}/dask has no {DB_URL_ENV}"):
        run_dask_job(replace(job, db_url=""))


def test_a_worker_on_another_arena_than_the_ladders_plays_none_of_its_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker left on an older Arena after an upgrade (docs/deploy.md asks for the ladder's version) played and
    recorded the ladder's matches all the same, by its own rules and code, and nothing said so."""
    from dataclasses import replace

    import ladder.dask_worker
    from ladder.dask_worker import run_dask_job
    from ladder.release import code_release
    from ladder.worker import WorkerUnfit
    from referee.server.session import TimeControl

    job = MatchJob(1, "o", "generals-war", 1, {}, (), TimeControl(), 30, db_url="sqlite://")
    assert sent_to_dask(job, DaskExecutor()).release == code_release(), "each job says which Arena the ladder runs"
    monkeypatch.setattr(ladder.dask_worker, "shared_sessions", lambda url: pytest.fail("a worker of another Arena opened the database"))
    with pytest.raises(WorkerUnfit, match=f"^worker {re.escape(socket.gethostname())}/dask runs another Arena than the ladder"):
        run_dask_job(replace(job, release="0123456789ab"))


def test_a_workers_own_database_url_is_used_rather_than_the_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/deploy.md: ARENA_DB_URL names the worker's own way to the database (another host name, its own role)."""
    import ladder.dask_worker
    from ladder.dask_worker import DB_URL_ENV, run_dask_job
    from ladder.jobs import MatchJob
    from referee.server.session import TimeControl

    used: list[str] = []

    def sessions(url: str) -> None:
        used.append(url)
        raise RuntimeError("enough")

    monkeypatch.setattr(ladder.dask_worker, "shared_sessions", sessions)
    monkeypatch.setenv(DB_URL_ENV, "postgresql+psycopg://worker@db-internal/arena")
    with pytest.raises(RuntimeError, match="enough"):
        run_dask_job(MatchJob(1, "o", "generals-war", 1, {}, (), TimeControl(), 30, db_url="postgresql+psycopg://arena@db/arena"))
    assert used == ["postgresql+psycopg://worker@db-internal/arena"]


def test_a_match_handed_out_again_is_a_new_task_at_dask() -> None:
    """Dask takes a task of a key it still holds for the same task: a match reaped or handed back and claimed again
    (another lease) must not be given the key of its earlier job, whose lease can record nothing."""
    from dataclasses import replace

    from ladder.executors import DaskExecutor
    from ladder.jobs import MatchJob
    from referee.server.session import TimeControl

    keys: list[object] = []

    class Client:
        def submit(self, fn: object, job: MatchJob, **kwargs: object) -> asyncio.Future[None]:
            keys.append(kwargs.get("key"))
            done = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done

    job = MatchJob(7, "first-lease", "generals-war", 1, {}, (), TimeControl(), 30)

    async def submit_both() -> None:
        executor = DaskExecutor()
        executor.client = Client()
        await executor.submit(job)
        await executor.submit(replace(job, owner="second-lease"))

    asyncio.run(submit_both())
    assert len(set(keys)) == 2 and None not in keys


def test_the_ladders_own_cluster_serves_http_on_a_free_local_port() -> None:
    """Dask's scheduler serves health and metrics over HTTP even without a dashboard. The ladder's own LocalCluster
    took 8787 on every start, and with 8787 held (a second ladder, a real scheduler) warned and took another."""
    from ladder.executors import DaskExecutor

    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        held.bind(("127.0.0.1", 8787))
        held.listen()
    except OSError:
        pass  # 8787 is someone else's already: the same case

    async def main() -> list[tuple[str, int]]:
        executor = DaskExecutor(n_workers=1)
        await executor.start()
        try:
            return [s.getsockname()[:2] for s in executor.cluster.scheduler.http_server._sockets.values()]
        finally:
            await executor.close()

    try:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            bound = asyncio.run(main())
    finally:
        held.close()
    assert bound and all(host == "127.0.0.1" and port != 8787 for host, port in bound), bound
    assert not [w for w in warned if "8787" in str(w.message)], [str(w.message) for w in warned]
