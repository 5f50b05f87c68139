"""Handing matches out and recording them (ladder/jobs.py, ladder/executors.py): what a job does with a lease it no
longer holds, and what it records where."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from ladder.jobs import FILES, JobOutcome, JobSettings, MatchJob, build_job, play_job
from ladder.models import Match, MatchSeat
from ladder.scheduler import add_duplicate_set
from ladder.service import Ladder, LadderConfig
from ladder.worker import claim, release
from referee.server.runner import LocalMatch
from referee.server.session import TimeControl
from tests.ladder.conftest import enter
from tests.support import SAMPLE_BOTS, TEST_BOTS

GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"


def queued_ladder(tmp_path: Path) -> Ladder:
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    versions = enter(ladder, [GREEDY, RANDOM], validate=False)
    with ladder.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")
        db.commit()
    return ladder


def claimed_job(tmp_path: Path, owner: str, lease: float = 30) -> tuple[Ladder, MatchJob]:
    """A ladder with a match claimed by ``owner``, and its job (replays and logs kept as files)."""
    ladder = queued_ladder(tmp_path)
    match_id = claim(ladder.make, owner, lease)
    assert match_id is not None
    settings = JobSettings(ladder.store, TimeControl(), lease, keep=FILES, data_dir=ladder.config.data_dir.resolve())
    return ladder, build_job(ladder.make, match_id, owner, settings)


def test_a_job_whose_lease_was_handed_back_before_it_began_plays_nothing(tmp_path: Path) -> None:
    """A Dask task run again after its worker left (which handed the match back): its match is queued, or played by
    another worker. The job must not start the bots at all, not only fail to record at the end."""
    ladder, job = claimed_job(tmp_path, "first")
    match_id, data = job.match_id, Path(job.data_dir)
    assert release(ladder.make, match_id, "first")
    outcome = asyncio.run(play_job(ladder.make, job, "late"))
    assert outcome.status == "lost"
    assert not (data / "logs" / str(match_id)).exists(), "the bots were started"
    with ladder.make() as db:
        assert db.get_one(Match, match_id).status == "queued"
        assert all(s.rank is None for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)))


@pytest.mark.parametrize("keep", ["files", "database"])
def test_each_seats_log_is_that_seats(tmp_path: Path, keep: str) -> None:
    """The logs are kept as files of the data folder (the local pool) or as MatchFile rows (a remote worker), one a
    seat: each must be served as its own seat's."""
    from ladder.jobs import record_played
    from ladder.queries import seat_log

    ladder = queued_ladder(tmp_path)
    match_id = claim(ladder.make, "w", 30)
    assert match_id is not None
    data = ladder.config.data_dir.resolve()
    settings = JobSettings(ladder.store, TimeControl(), 30, keep=keep, data_dir=data, db_url=ladder.config.db_url, ship_bots=keep != FILES)
    written: list[str] = []

    async def record(job: MatchJob, played: LocalMatch, worker: str) -> bool:
        for seat, log in enumerate(played.logs):  # told apart, whatever the bots wrote
            with log.open("a") as out:
                out.write(f"-- the log of seat {seat}\n")
            written.append(log.read_text())
        return await asyncio.to_thread(record_played, ladder.make, job, played, worker)

    job = build_job(ladder.make, match_id, "w", settings)
    assert asyncio.run(play_job(ladder.make, job, "box/w1", recorder=record)).status == "recorded"
    with ladder.make() as db:
        seats = db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.seat)).all()
        assert [seat_log(db, s, data) for s in seats] == written and len(written) == 2


def test_a_match_whose_bot_is_gone_from_the_store_goes_back_to_wait_not_failed_nor_left_claimed(tmp_path: Path) -> None:
    """A version's folder removed from the store (by hand, or a store restored without it): its match cannot be
    shipped to a remote worker. It was failed, its opponent's match with it; now it goes back to the queue, no attempt
    counted, not held under a lease nobody plays (the dispatcher then claims none of that version's matches)."""
    from ladder.jobs import hand_out

    ladder = queued_ladder(tmp_path)
    for folder in ladder.store.iterdir():
        shutil.rmtree(folder)
    settings = JobSettings(ladder.store, TimeControl(), 30, keep="database", db_url=ladder.config.db_url, ship_bots=True)
    handed = hand_out(ladder.make, "w", settings)
    assert handed is not None and handed[1] is None
    with ladder.make() as db:
        match = db.get_one(Match, handed[0])
        assert (match.status, match.lease_owner, match.attempts, match.error) == ("queued", None, 0, "")


def hanging_match(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Matches that never end (bots that think forever, each move inside its time); set once one has begun."""
    import ladder.jobs

    begun = asyncio.Event()

    async def never_ends(*_: object) -> LocalMatch:
        begun.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    monkeypatch.setattr(ladder.jobs, "run_local_match", never_ends)
    return begun


def test_a_match_whose_lease_is_taken_while_it_plays_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reaped while it played (its lease ran out: the ladder's loop stalled): another worker plays it now, and this
    one must stop it and free its seat rather than play on to a result nobody can record."""
    hanging_match(monkeypatch)
    ladder, job = claimed_job(tmp_path, "first", 0.3)
    match_id = job.match_id
    assert release(ladder.make, match_id, "first") and claim(ladder.make, "second", 30) == match_id

    async def play() -> JobOutcome:
        return await asyncio.wait_for(play_job(ladder.make, job, "here", just_claimed=True), 60)  # the failure is a hang

    assert asyncio.run(play()).status == "lost"
    with ladder.make() as db:
        assert db.get_one(Match, match_id).lease_owner == "second"


def test_a_job_cancelled_while_it_plays_hands_its_match_straight_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ladder stopped (or a Dask worker closed): the match is queued again at once, with no attempt counted,
    rather than held until its lease runs out."""
    begun = hanging_match(monkeypatch)
    ladder, job = claimed_job(tmp_path, "first")
    match_id = job.match_id

    async def stopped() -> None:
        playing = asyncio.ensure_future(play_job(ladder.make, job, "here", just_claimed=True))
        await begun.wait()
        playing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await playing

    asyncio.run(stopped())
    with ladder.make() as db:
        match = db.get_one(Match, match_id)
        assert (match.status, match.lease_owner, match.attempts) == ("queued", None, 0)


def test_a_result_whose_books_process_dies_as_it_is_sent_is_recorded_here(tmp_path: Path) -> None:
    """The books process gone between the match's end and its record: the result is recorded in the ladder's
    process, not thrown away with the match failed."""
    from ladder.executors import LocalExecutor

    ladder, job = claimed_job(tmp_path, "w")
    match_id = job.match_id
    executor = LocalExecutor(ladder.make, 1, recorder=True)

    async def go() -> JobOutcome:
        await executor.start()
        books = executor.books
        assert books is not None and books.proc is not None
        proc, call = books.proc, books.call

        async def dies_first(*args: object) -> object:
            proc.kill()
            await proc.wait()
            return await call(*args)  # type: ignore[arg-type]

        books.call = dies_first  # type: ignore[assignment,method-assign]
        try:
            return await executor.submit(job)
        finally:
            await executor.close()

    assert asyncio.run(go()).status == "recorded"
    with ladder.make() as db:
        assert db.get_one(Match, match_id).status == "done"
        assert all(s.rank is not None for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)))


def test_jobs_that_fail_before_their_match_is_played_leave_the_local_pools_capacity_whole(tmp_path: Path) -> None:
    """Only a job whose match was played counts as recording (a seat it no longer holds); one that failed before
    took a seat back it never gave, and a run of them brought the capacity to nothing: the ladder stopped claiming."""
    from ladder.executors import LocalExecutor
    from ladder.jobs import BotSource

    ladder = queued_ladder(tmp_path)
    gone = MatchJob(1, "nobody", "generals-war", 1, {}, (BotSource(1, folder=str(tmp_path / "gone")),), TimeControl(), 30,
                    keep=FILES, data_dir=str(tmp_path))
    executor = LocalExecutor(ladder.make, 2)

    async def go() -> tuple[int, list[str], int]:
        await executor.start()
        before = await executor.capacity()
        statuses = [(await executor.submit(gone)).status for _ in range(4)]
        await asyncio.sleep(0)  # the done callbacks
        after = await executor.capacity()
        await executor.close()
        return before, statuses, after

    before, statuses, after = asyncio.run(go())
    assert statuses == ["bot_files_gone"] * 4 and after == before == 3


def test_a_dask_worker_that_closes_hands_its_matches_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`dask worker` stopped: its matches are stopped and queued again at once, not held until their leases run out."""
    import concurrent.futures
    import time

    import ladder.dask_worker as worker

    begun = hanging_match(monkeypatch)
    ladder, job = claimed_job(tmp_path, "w")
    match_id = job.match_id
    playing = asyncio.run_coroutine_threadsafe(worker._tracked(play_job(ladder.make, job, "box/w1")), worker.match_loop())
    for _ in range(600):  # until the match has begun on the worker's loop
        if begun.is_set() or playing.done():
            break
        time.sleep(0.05)
    worker.ArenaWorkerPlugin().teardown(None)
    with pytest.raises(concurrent.futures.CancelledError):
        playing.result(30)
    with ladder.make() as db:
        match = db.get_one(Match, match_id)
        assert (match.status, match.lease_owner, match.attempts) == ("queued", None, 0)


def sleepy_job(tmp_path: Path, lease: float) -> tuple[Ladder, MatchJob, Path]:
    """A claimed match whose first seat never answers (it plays until its move clock runs out), and its logs' folder."""
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], time_control=TimeControl(move_time_ms=60_000)))
    versions = enter(ladder, [TEST_BOTS / "sleepy", RANDOM], validate=False)
    with ladder.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")
        db.commit()
    match_id = claim(ladder.make, "first", lease)
    assert match_id is not None
    data = ladder.config.data_dir.resolve()
    settings = JobSettings(ladder.store, TimeControl(move_time_ms=60_000), lease, keep=FILES, data_dir=data)
    return ladder, build_job(ladder.make, match_id, "first", settings), data / "logs" / str(match_id)


async def logs_written(log_dir: Path, count: int = 2) -> None:
    while len(list(log_dir.glob("*.log"))) < count:
        await asyncio.sleep(0.02)


def test_a_try_whose_lease_is_taken_while_it_plays_leaves_no_logs(tmp_path: Path) -> None:
    """The match is played again from the start by the lease's new holder: the stopped try's logs, which no record
    will name, piled up under logs/<match id>."""
    ladder, job, log_dir = sleepy_job(tmp_path, 0.6)

    async def go() -> JobOutcome:
        playing = asyncio.ensure_future(play_job(ladder.make, job, "here", just_claimed=True))
        await asyncio.wait_for(logs_written(log_dir), 30)
        assert release(ladder.make, job.match_id, "first") and claim(ladder.make, "second", 30) == job.match_id
        return await asyncio.wait_for(playing, 60)

    assert asyncio.run(go()).status == "lost"
    assert not log_dir.exists(), "the stopped try's logs are gone, and their folder"


def test_a_try_cancelled_while_it_plays_leaves_no_logs_but_another_tries_stay(tmp_path: Path) -> None:
    """The ladder stopping hands the match back; its logs go once the match has stopped (its bots may still write
    as the cancel arrives). Logs another try left there (a failed match's, say) are not this try's to remove."""
    ladder, job, log_dir = sleepy_job(tmp_path, 30)
    log_dir.mkdir(parents=True)
    (log_dir / "0123456789abcdef-seat0-sleepy.log").write_text("another try's\n")

    async def go() -> None:
        playing = asyncio.ensure_future(play_job(ladder.make, job, "here", just_claimed=True))
        await asyncio.wait_for(logs_written(log_dir, 3), 30)
        playing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await playing

    asyncio.run(go())
    assert [p.name for p in log_dir.iterdir()] == ["0123456789abcdef-seat0-sleepy.log"]
    with ladder.make() as db:
        assert db.get_one(Match, job.match_id).status == "queued"
