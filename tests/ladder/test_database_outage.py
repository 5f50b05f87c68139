"""The database out of reach for a while (PostgreSQL restarted): the ladder's loops go on, and no match pays for it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

import ladder.service
from arena.cli.main import app
from ladder.datafiles import located
from ladder.db import migrate
from ladder.hold import Hold, HoldLost
from ladder.jobs import JobOutcome, MatchJob
from ladder.models import BotVersion, Match
from ladder.scheduler import add_duplicate_set, fill_queue
from ladder.service import FAILING_RUN, Ladder, LadderConfig
from ladder.worker import claim, reap, release, renew
from referee.server.session import TimeControl
from tests.ladder.conftest import enter
from tests.ladder.test_failing_workers import FailingWorkers, run_ladder
from tests.support import SAMPLE_BOTS


def gone() -> OperationalError:
    """What psycopg's driver raises through SQLAlchemy while the server restarts."""
    return OperationalError("UPDATE matches SET ...", {}, Exception("server closed the connection unexpectedly"))


def failing_first(real: Callable[..., Any], times: int, calls: list[float]) -> Callable[..., Any]:
    """``real``, raising the database's error on its first ``times`` calls; each call's time goes to ``calls``."""

    def call(*args: Any, **kwargs: Any) -> Any:
        calls.append(time.monotonic())
        if len(calls) <= times:
            raise gone()
        return real(*args, **kwargs)

    return call


class NoRoom(FailingWorkers):
    """An executor that plays nothing: the queue is the scheduler's alone to fill."""

    async def capacity(self) -> int:
        return 0


def ladder_of_two(tmp_path: Path, executor: Any, lease_seconds: float = 60.0) -> Ladder:
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], time_control=TimeControl(move_time_ms=500),
                          seed=1, lease_seconds=lease_seconds)
    lad = Ladder(config, executor=executor)
    enter(lad, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    return lad


def run_until(lad: Ladder, done: Callable[[], bool], timeout: float = 20.0) -> None:
    async def go() -> None:
        runner = asyncio.create_task(lad.run(serve_http=False))
        try:
            async with asyncio.timeout(timeout):
                while not done():
                    assert not runner.done(), f"the ladder stopped: {runner.exception()!r}"
                    await asyncio.sleep(0.1)
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(go())


def versions_of(lad: Ladder) -> list[int]:
    with lad.make() as db:
        return list(db.scalars(select(BotVersion.id).where(BotVersion.status == "active").order_by(BotVersion.id)))


def count(make: sessionmaker[Session], *where: Any) -> int:
    with make() as db:
        return int(db.scalar(select(func.count()).select_from(Match).where(*where)) or 0)


class Outage:
    """The database out of reach for ``seconds`` from the first call of any function wrapped (``down``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.calls: list[float] = []

    def down(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(time.monotonic())
            if self.calls[-1] - self.calls[0] < self.seconds:
                raise gone()
            return real(*args, **kwargs)

        return call


def test_the_scheduler_goes_on_reaping_and_queueing_after_the_database_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """One error of the database ended the scheduler's task for good: after a PostgreSQL restart the ladder went on
    serving its pages while it queued no match and reaped no lost lease, and said nothing."""
    lad = ladder_of_two(tmp_path, NoRoom(), lease_seconds=1.0)  # a sweep for lost leases every quarter of a second
    versions = versions_of(lad)
    with lad.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")  # one match taken by a worker that is gone
        db.commit()
        lost = db.scalars(select(Match.id)).first()
    assert lost is not None and claim(lad.make, "a worker now gone", 60.0) == lost
    with lad.make() as db:
        db.execute(update(Match).where(Match.id == lost).values(lease_expires=time.time() - 1))
        db.commit()
    outage = Outage(1.5)
    monkeypatch.setattr(ladder.service, "reap", outage.down(reap))  # the scheduler's database calls
    monkeypatch.setattr(ladder.service, "fill_queue", outage.down(fill_queue))
    with caplog.at_level(logging.INFO, "arena.ladder"):
        run_until(lad, lambda: count(lad.make, Match.status == "queued") > 2 and count(lad.make, Match.status == "running") == 0)
    with lad.make() as db:
        again = db.get_one(Match, lost)
    assert (again.status, again.attempts) == ("queued", 1), "reaped once the database answered again"
    said = [r.getMessage() for r in caplog.records if r.name == "arena.ladder"]
    out = [s for s in said if "out of reach" in s]
    assert out == [out[0]] and out[0].startswith("the scheduler: the database is out of reach (OperationalError"), said
    assert "\n" not in out[0] and len([s for s in said if s.startswith("the scheduler: going again, after")]) == 1, said
    assert not any(r.exc_info for r in caplog.records if r.name == "arena.ladder"), "no traceback for the database restarting"


class DatabaseGone(FailingWorkers):
    """Workers whose jobs cannot reach the database (to renew or record): they give every match back with its error."""

    def submit(self, job: MatchJob) -> Awaitable[JobOutcome]:
        self.handed()

        async def fail() -> JobOutcome:
            raise gone()

        return asyncio.ensure_future(fail())


def test_a_match_given_back_for_want_of_the_database_costs_no_attempt(tmp_path: Path) -> None:
    """Each match in flight during an outage lost an attempt: three short outages during one match failed it."""
    workers = DatabaseGone()
    lad = run_ladder(tmp_path, workers, 3.0)
    assert workers.submitted > FAILING_RUN, "the dispatcher went on"
    assert workers.submitted <= 10, "and slowed down, in case its workers never reach the database"
    assert count(lad.make, (Match.attempts > 0) | (Match.status == "failed") | (Match.error != "")) == 0


def test_a_settling_the_database_refused_is_done_at_the_next_turn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match whose giving back failed (the database down) was dropped from the matches in flight: only its lease,
    a minute later, and a live reaper could bring it back."""
    workers = DatabaseGone()
    releases: list[float] = []
    monkeypatch.setattr(ladder.service, "release", failing_first(release, 2, releases))
    lad = run_ladder(tmp_path, workers, 2.5)
    assert len(releases) > 2
    assert count(lad.make, Match.status == "running") == 0, "every match given back, none left to its lease"


@pytest.mark.parametrize("broken", [(Ladder, "scheduler"), (NoRoom, "start")], ids=["scheduler", "executor_start"])
def test_a_ladder_whose_scheduler_ends_stops_rather_than_serve_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: tuple[type, str]) -> None:
    """So does one whose executor fails to start: started beside the pages (not before them), its failure still ends the ladder."""
    async def failing(self: object) -> None:
        raise RuntimeError("its own bug")

    monkeypatch.setattr(*broken, failing)
    lad = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], port=0), executor=NoRoom())

    async def go() -> None:
        async with asyncio.timeout(20):
            await lad.run(serve_http=True)

    with pytest.raises(RuntimeError, match="its own bug"):
        asyncio.run(go())


def test_a_lost_hold_ends_the_command_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def taken(self: Ladder, serve_http: bool = True, listening: object = None) -> None:
        raise HoldLost("this ladder's hold on its database was taken by the ladder on host h, pid 7")

    monkeypatch.setattr(Ladder, "run", taken)
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path / "d"), "--port", "0", "--no-samples"])
    assert result.exit_code == 1, result.output
    assert "error: the ladder stopped: this ladder's hold on its database was taken by the ladder on host h, pid 7" in result.output
    assert "Traceback" not in result.output


def test_a_second_ladder_from_another_folder_is_told_of_the_first(tmp_path: Path) -> None:
    """Started from another folder, it was told its bot store held none of the database's bots, not of the ladder
    that serves the database."""
    first = ladder_of_two(tmp_path / "first", NoRoom())
    Hold(first.make, "http://127.0.0.1:9999").take()
    url = f"sqlite:///{first.config.data_dir / 'ladder.db'}"
    result = CliRunner().invoke(app, ["ladder", "serve", "--data", str(tmp_path / "elsewhere"), "--db", url, "--port", "0", "--no-samples"])
    assert result.exit_code == 2, result.output
    assert "another ladder serves this database at http://127.0.0.1:9999" in result.output, result.output
    assert not (tmp_path / "elsewhere").exists(), "the folder it made is gone again"


def test_on_postgresql_leases_are_timed_by_the_servers_clock(tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker whose clock ran behind the ladder's by more than a lease had its live matches reaped under it;
    a ladder whose clock ran ahead did the same."""
    lad = Ladder(LadderConfig(tmp_path / "data", url=pg_url, samples=False, games=["generals-war"]), executor=NoRoom())
    enter(lad, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    with lad.make() as db:
        add_duplicate_set(db, "generals-war", versions_of(lad), 5, "rated")
        db.commit()
    real = time.time
    monkeypatch.setattr("ladder.db.time.time", lambda: real() - 600)  # the worker's clock, ten minutes behind
    match = claim(lad.make, "worker", 60.0)
    assert match is not None and renew(lad.make, match, "worker", 60.0)
    monkeypatch.setattr("ladder.db.time.time", lambda: real() + 600)  # the ladder's, ten minutes ahead
    assert reap(lad.make) == 0, "a lease renewed a moment ago is live"
    assert count(lad.make, Match.status == "running") == 1


def claimed_job(lad: Ladder, owner: str = "w") -> Any:
    from ladder.jobs import JobSettings, build_job

    with lad.make() as db:
        add_duplicate_set(db, "generals-war", versions_of(lad), 3, "rated")
        db.commit()
    match_id = claim(lad.make, owner, 30)
    assert match_id is not None
    return build_job(lad.make, match_id, owner, JobSettings(lad.store, TimeControl(), 30, data_dir=lad.config.data_dir.resolve()))


@pytest.mark.parametrize(
    "error,attempts,status",
    [
        (gone(), 0, "database_unreachable"), (OSError(28, "No space left on device"), 1, "unfit"),
        (OSError(30, "Read-only file system"), 1, "unfit"), (PermissionError(13, "Permission denied"), 1, "unfit"),
    ],
    ids=["database gone", "disk full", "read-only disk", "folder not writable"],
)
def test_a_match_that_could_not_be_recorded_for_the_workers_want_goes_back_to_the_queue(
    tmp_path: Path, error: Exception, attempts: int, status: str
) -> None:
    """Played, then failed for good when the database dropped the connection mid-record or the worker's disk was full:
    the result was thrown away, the match never tried again, and a full worker failed the queue at full speed."""
    from ladder.jobs import play_job

    lad = ladder_of_two(tmp_path, NoRoom())
    job = claimed_job(lad)

    async def broken(*args: object) -> bool:
        raise error

    assert asyncio.run(play_job(lad.make, job, "w", recorder=broken)).status == status
    with lad.make() as db:
        match = db.get_one(Match, job.match_id)
    assert (match.status, match.attempts) == ("queued", attempts)


def test_a_match_its_worker_gave_back_for_want_of_the_database_counts_as_such_in_the_metrics(tmp_path: Path) -> None:
    """The worker handed the match back itself (the database answered again by then) and reported it "unfit": /metrics
    counted a database that blinked as a worker that cannot play (docs/deploy.md: alert on a rising unfit), and the
    ladder's log said "worker w cannot play match N" as an error. It is `database_unreachable`, and still slows down."""
    from ladder.jobs import play_job

    lad = ladder_of_two(tmp_path, NoRoom())
    job = claimed_job(lad)

    async def broken(*args: object) -> bool:
        raise gone()

    async def settle() -> None:
        future = asyncio.ensure_future(play_job(lad.make, job, "w", recorder=broken))
        await asyncio.wait([future])
        lad._settle(future, job.match_id, job.owner)

    asyncio.run(settle())
    counted = {o: lad.metrics.registry.get_sample_value("arena_match_outcomes_total", {"outcome": o}) for o in ("unfit", "database_unreachable")}
    assert counted == {"unfit": 0.0, "database_unreachable": 1.0}
    assert lad._failing == 1, "the dispatcher counts it towards slowing down, in case that worker never reaches the database"


# The server's words too: a worker whose ARENA_DB_URL names no database ("database nodb does not exist") said only OperationalError.
@pytest.mark.parametrize("error,said", [
    (gone(), "could not reach the database (OperationalError: server closed the connection unexpectedly)"),
    (RuntimeError("its worker died"), "came back without a result"),
])
def test_a_match_settled_across_an_outage_is_told_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, error: Exception, said: str
) -> None:
    """The dispatcher settles a job again at each turn until the database takes it back: a PostgreSQL restarted for
    twelve seconds put "match 1058: its worker could not reach the database" in the ladder's log twelve times."""
    lad = ladder_of_two(tmp_path, NoRoom())
    job = claimed_job(lad)
    monkeypatch.setattr(ladder.service, "release", failing_first(release, 2, []))

    async def settle() -> None:
        future: asyncio.Future[JobOutcome] = asyncio.get_running_loop().create_future()
        future.set_exception(error)
        for _ in range(3):  # as the dispatcher's turns: the first two refused
            try:
                lad._settle(future, job.match_id, job.owner)
            except OperationalError:
                pass

    with caplog.at_level(logging.INFO, "arena.ladder"):
        asyncio.run(settle())
    assert sum(said in r.getMessage() for r in caplog.records) == 1, [r.getMessage() for r in caplog.records]
    with lad.make() as db:
        assert db.get_one(Match, job.match_id).status == "queued"


def test_failed_matches_keep_their_place_among_the_recent_ones(tmp_path: Path) -> None:
    """A failed match had no end time: PostgreSQL sorts NULLs first, and its recent matches showed only failures.
    Failures now get one, and migration 0006 gives one to those an older ladder left without."""
    from alembic import command

    from ladder.db import alembic_config
    from ladder.queries import recent_matches
    from ladder.worker import fail_match

    lad = ladder_of_two(tmp_path, NoRoom())
    job = claimed_job(lad)
    fail_match(lad.make, job.match_id, job.owner, "broken")
    command.downgrade(alembic_config(lad.config.db_url), "0005")
    with lad.make() as db:  # the columns 0005 has: the model's whole row names later ones
        assert db.scalar(select(Match.finished_at).where(Match.id == job.match_id)) is not None
        db.execute(update(Match).where(Match.id == job.match_id).values(finished_at=None))  # as an older ladder left them
        other = db.scalars(select(Match.id).where(Match.id != job.match_id)).first()
        db.execute(update(Match).where(Match.id == other).values(status="done", finished_at=time.time() + 60))
        db.commit()
    migrate(lad.config.db_url)
    with lad.make() as db:
        assert db.get_one(Match, job.match_id).finished_at is not None
        assert [m["id"] for m in recent_matches(db)] == [other, job.match_id]


def test_the_sets_of_failed_matches_are_swept_on_a_new_failure_a_failed_sweep_and_once_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep's query walks every unrated finished match (56 ms at 200,000 matches) and ran every five seconds."""
    from ladder.worker import fail_match

    clock = [1000.0]
    monkeypatch.setattr("ladder.service.time.monotonic", lambda: clock[0])
    sweeps: list[float] = []
    broken = [False]

    def sweep(make: Any, skip: Any = None) -> int:
        sweeps.append(clock[0])
        if broken[0]:
            raise OperationalError("SELECT", {}, Exception("database is locked"))
        return 0

    monkeypatch.setattr("ladder.service.rate_settled_sets", sweep)
    lad = ladder_of_two(tmp_path, NoRoom())
    lad._sweep_failed_sets()
    lad._sweep_failed_sets()
    assert len(sweeps) == 1, "nothing new: no second sweep"
    job = claimed_job(lad)
    fail_match(lad.make, job.match_id, job.owner, "broken")
    broken[0] = True
    lad._sweep_failed_sets()
    broken[0] = False
    lad._sweep_failed_sets()
    lad._sweep_failed_sets()
    assert len(sweeps) == 3, "a new failure, and once more after the sweep the database refused"
    clock[0] += ladder.service.FAILED_SWEEP_S
    lad._sweep_failed_sets()
    assert len(sweeps) == 4, "once a minute all the same"


def test_a_loop_stuck_on_another_error_says_so_and_reminds(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Only the first error of a run was said: after an outage's warning, another error that stuck for good was silent."""
    clock = [1000.0]
    monkeypatch.setattr("ladder.service.time.monotonic", lambda: clock[0])
    trouble = ladder.service.Trouble("the scheduler")
    with caplog.at_level(logging.INFO, "arena.ladder"):
        trouble.failed(gone())
        trouble.failed(gone())
        trouble.failed(RuntimeError("a bug"))
        trouble.failed(RuntimeError("a bug"))
        clock[0] += trouble.REMIND_S
        trouble.failed(RuntimeError("a bug"))
        assert trouble.over()
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["WARNING", "ERROR", "WARNING", "INFO"], said
    assert said[1][1] == "the scheduler failed; trying again" and caplog.records[1].exc_info
    assert said[2][1] == "the scheduler: still failing after 5 tries (RuntimeError: a bug)"


def test_a_database_restarted_is_told_once_whatever_its_errors_say_on_the_way(caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL stopped and started again (an operator's walk): each loop logged the outage three times, as the server
    answered "shutting down", then refused connections, then answered "starting up". One outage, one line."""
    trouble = ladder.service.Trouble("the scheduler")
    with caplog.at_level(logging.INFO, "arena.ladder"):
        for words in ("FATAL:  the database system is shutting down", "Connection refused", "Connection refused",
                      "FATAL:  the database system is starting up"):
            trouble.failed(OperationalError("SELECT 1", {}, Exception(f'connection to server at "db", port 5432 failed: {words}')))
        assert trouble.over()
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [level for level, _ in said] == ["WARNING", "INFO"], said
    assert "shutting down" in said[0][1] and said[1][1] == "the scheduler: going again, after 4 failed tries"


def test_the_api_answers_503_while_the_database_is_out_of_reach(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """PostgreSQL stopped (an operator's walk): every request that read the database was answered 500, "an internal
    error", and logged a traceback of 180 lines, every 2 s for each `standings --watch`. It is 503, saying to try
    again shortly (Retry-After), and the log says so in one line."""
    import socket

    from fastapi.testclient import TestClient
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    from ladder.api import LadderState, create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there: the server is down
    make = sessionmaker(create_engine(f"postgresql+psycopg://arena@127.0.0.1:{port}/arena"))
    app = create_app(LadderState(make, tmp_path / "bots", tmp_path))
    with caplog.at_level(logging.INFO), TestClient(app, raise_server_exceptions=False) as client:
        answers = [client.get(path) for path in ("/api/games/generals-war/standings", "/api/matches", "/api/bots/random")]
    assert [a.status_code for a in answers] == [503, 503, 503], [a.text for a in answers]
    assert answers[0].headers["Retry-After"] == "5"
    assert answers[0].json() == {"detail": "the ladder's database is out of reach for a moment: try again shortly"}
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "out of reach" in said[0] and "Connection refused" in said[0], said
    assert not [r for r in caplog.records if r.exc_info], "no traceback"


def test_health_says_the_database_is_down_and_ok_again_once_it_is_back(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """/api/health answered 200 "ok" while the database was out of reach and every page that read it was a 503: a load
    balancer or an operator's probe was told all was well. It is 503 "database_down" then (the log says why, once),
    and "ok" again as soon as the database answers, with no restart."""
    import socket

    from fastapi.testclient import TestClient
    from sqlalchemy import create_engine

    from ladder.api import LadderState, create_app
    from ladder.db import make_engine

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there: the server is down
    state = LadderState(sessionmaker(create_engine(f"postgresql+psycopg://arena@127.0.0.1:{port}/arena")), tmp_path / "bots", tmp_path)
    with caplog.at_level(logging.INFO), TestClient(create_app(state), raise_server_exceptions=False) as client:
        down = [client.get("/api/health") for _ in range(2)]
        assert [a.status_code for a in down] == [503, 503] and down[0].headers["Retry-After"] == "5"
        assert down[0].json()["status"] == "database_down" and "out of reach" in down[0].json()["detail"]
        assert str(port) not in down[0].text, "the database's address is the operator's, not the public's"
        state.make = sessionmaker(make_engine(f"sqlite:///{tmp_path / 'ladder.db'}"))  # the database is back
        back = client.get("/api/health")
        assert (back.status_code, back.json()["status"]) == (200, "ok")
        documented = client.get("/openapi.json").json()["paths"]["/api/health"]["get"]["responses"]
    assert "503" in documented and "200" in documented
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "out of reach" in said[0] and "Connection refused" in said[0], said


def test_after_an_outage_the_workers_get_a_lease_to_renew_before_the_reaper_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An outage longer than a lease cost every match in play an attempt: the reaper ran at the first sweep after it,
    before the workers' renewals, due every third of a lease, had come."""
    lad = ladder_of_two(tmp_path, NoRoom(), lease_seconds=3.0)
    reaps: list[float] = []
    failed_until: list[float] = []
    fills: list[float] = []
    real_fill = fill_queue

    def fill(*args: Any, **kwargs: Any) -> Any:
        fills.append(time.monotonic())
        if len(fills) <= 2:
            failed_until.append(time.monotonic())
            raise gone()
        return real_fill(*args, **kwargs)

    monkeypatch.setattr(ladder.service, "reap", failing_first(reap, 0, reaps))
    monkeypatch.setattr(ladder.service, "fill_queue", fill)
    run_until(lad, lambda: len(fills) > 2 and bool(reaps) and reaps[-1] > failed_until[-1])
    after = [t for t in reaps if t > failed_until[-1]]
    assert after[0] - failed_until[-1] >= 3.0, "no reaping within a lease of the last failure"


def test_a_record_tried_again_keeps_the_replay_the_first_try_recorded(tmp_path: Path) -> None:
    """The books' process died after recording a match, so the ladder recorded it again itself: refused (done
    already), that second try removed its replay file, which was the very file the first try's record named."""
    from ladder.jobs import FILES, record_head
    from referee.server.replay import ReplayHead
    from referee.server.runner import MatchSetup, run_local_match

    lad = ladder_of_two(tmp_path, NoRoom())
    job = claimed_job(lad)
    assert job.keep == FILES
    played = asyncio.run(run_local_match(MatchSetup("generals-war", [SAMPLE_BOTS / "random"] * 2, job.seed, {}, TimeControl(), tmp_path / "logs")))
    head = ReplayHead.of(played.record)
    logs = [str(p) for p in played.logs]
    assert record_head(lad.make, job, head, logs, "w")
    assert not record_head(lad.make, job, head, logs, "w"), "recorded once"
    assert all(p.is_file() for p in played.logs), "the logs the record names are kept"
    with lad.make() as db:
        stored = db.get_one(Match, job.match_id).replay_path
    assert stored is not None
    replay = located(stored, Path(job.data_dir))
    assert replay.is_file()
    assert [p.name for p in replay.parent.iterdir()] == [replay.name], "the refused try's file is gone"


def test_a_try_whose_lease_was_lost_leaves_neither_its_replay_nor_its_logs(tmp_path: Path) -> None:
    """Its record is refused (another worker holds the match now); its logs, which nothing names, piled up under
    logs/<match id> beside those of the try that was recorded."""
    from ladder.jobs import FILES, record_played
    from referee.server.runner import MatchSetup, run_local_match

    lad = ladder_of_two(tmp_path, NoRoom())
    job = claimed_job(lad)
    assert job.keep == FILES
    log_dir = Path(job.data_dir) / "logs" / str(job.match_id)
    played = asyncio.run(run_local_match(MatchSetup("generals-war", [SAMPLE_BOTS / "random"] * 2, job.seed, {}, TimeControl(), log_dir)))
    assert played.logs and all(p.is_file() for p in played.logs)
    with lad.make() as db:  # reaped and claimed by another worker meanwhile
        db.execute(update(Match).where(Match.id == job.match_id).values(lease_owner="another"))
        db.commit()
    assert not record_played(lad.make, job, played, "w")
    assert not log_dir.exists(), "the refused try's logs (and their folder) are gone"
    assert not any((Path(job.data_dir) / "replays").glob(f"{job.match_id}-*")), "and its replay"


def test_sets_a_burst_of_failures_settled_are_all_rated_at_the_next_sweeps_not_fifty_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep rates at most 50 sets: after a burst of failures (a cluster lost, say) the rest waited a minute for each
    next 50, with no new failure to call the sweep again."""
    from ladder.models import MatchSeat

    clock = [1000.0]
    monkeypatch.setattr("ladder.service.time.monotonic", lambda: clock[0])
    lad = ladder_of_two(tmp_path, NoRoom())
    versions = versions_of(lad)
    with lad.make() as db:
        for seed in range(60):  # each set: one match played, its twin failed
            done, failed = add_duplicate_set(db, "generals-war", versions, seed, "rated")
            done.status, done.finished_at = "done", time.time()
            failed.status, failed.finished_at = "failed", time.time()
            for seat in db.scalars(select(MatchSeat).where(MatchSeat.match_id == done.id)):
                seat.rank = seat.seat + 1
        db.commit()
    lad._sweep_failed_sets()
    clock[0] += 5.0  # the scheduler's next sweep, no new failure since
    lad._sweep_failed_sets()
    assert count(lad.make, Match.status == "done", Match.rated_with.is_(None)) == 0


@pytest.mark.parametrize(
    "error,out_of_reach",
    [
        (gone(), True),
        (InterfaceError("SELECT 1", {}, Exception("connection already closed")), True),
        # A driver error SQLAlchemy took for a disconnect (it invalidated the connection): psycopg's "SSL SYSCALL error".
        (DBAPIError("SELECT 1", {}, Exception("SSL SYSCALL error: EOF detected"), connection_invalidated=True), True),
        (DBAPIError("SELECT 1", {}, Exception("division by zero")), False),
        (IntegrityError("INSERT INTO matches ...", {}, Exception("UNIQUE constraint failed")), False),
        (ValueError("a bug of ours"), False),
    ],
    ids=["operational", "interface", "invalidated", "other driver error", "integrity", "bug"],
)
def test_the_database_out_of_reach_is_told_apart_from_an_error_of_the_ladders(error: Exception, out_of_reach: bool) -> None:
    """Out of reach, a match goes back to the queue at no cost; any other error is the match's (or a bug) and counts."""
    from ladder.db import unreachable

    assert unreachable(error) is out_of_reach


def test_a_page_asked_while_the_database_is_out_of_reach_is_a_page_saying_so(tmp_path: Path) -> None:
    """A leaderboard opened in a browser during the outage read one line of plain text; it is the ladder's page with
    its heading, 503 and Retry-After, as the API's answer is JSON."""
    import socket

    from fastapi.testclient import TestClient
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    from ladder.api import LadderState, create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there: the server is down
    app = create_app(LadderState(sessionmaker(create_engine(f"postgresql+psycopg://arena@127.0.0.1:{port}/arena")), tmp_path / "bots", tmp_path))
    with TestClient(app, raise_server_exceptions=False) as client:
        page = client.get("/games/generals-war")
    assert page.status_code == 503 and page.headers["Retry-After"] == "5"
    assert page.headers["content-type"].startswith("text/html")
    assert "Try again shortly" in page.text and "out of reach for a moment" in page.text
