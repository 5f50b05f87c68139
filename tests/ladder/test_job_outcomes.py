"""What a job tells its dispatcher and leaves in the database when it does not record a result (ladder/jobs.py): a
match the ladder failed to run is failed at once, one the worker could not start goes back with an attempt counted,
and one whose record was refused is reported lost, not recorded."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

import ladder.jobs
from arena.v1 import referee_pb2 as pb
from ladder.jobs import DATABASE, REPLAY_FILE, BotSource, JobOutcome, MatchJob, play_job
from ladder.models import Match, MatchFile, RatingChange
from ladder.db import database_time
from ladder.worker import MAX_ATTEMPTS, public_error, release
from ladder.worker import renew as real_renew
from referee.server.runner import BotPool, LocalMatch
from tests.ladder.test_handing_out import claimed_job, hanging_match
from tests.test_persistent_bots import pooled_bot


def state(make: sessionmaker[Session], match_id: int) -> tuple[str, str | None, int, str]:
    with make() as db:
        m = db.get_one(Match, match_id)
        return m.status, m.lease_owner, m.attempts, m.error


def test_a_job_whose_lease_was_handed_back_starts_no_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked before anything is played: its replay and logs would be discarded at the refused record anyway, but
    the bots' processes (or containers) ran a whole match for nothing, beside the match's new holder."""
    started: list[object] = []

    async def run(*args: object) -> LocalMatch:
        started.append(args)
        raise AssertionError("the match was started")

    monkeypatch.setattr(ladder.jobs, "run_local_match", run)
    lad, job = claimed_job(tmp_path, "first")
    assert release(lad.make, job.match_id, "first")
    assert asyncio.run(play_job(lad.make, job, "late")).status == "lost"
    assert started == []
    assert state(lad.make, job.match_id) == ("queued", None, 0, "")


def test_a_worker_that_cannot_run_the_sandbox_gives_the_match_back_at_the_cost_of_an_attempt(tmp_path: Path) -> None:
    """Not the match's fault, so it is not failed; but it costs an attempt, or a worker without Docker took the same
    match back and forth for ever."""
    lad, job = claimed_job(tmp_path, "w")
    outcome = asyncio.run(play_job(lad.make, dataclasses.replace(job, sandbox="nosuch"), "box/w1"))
    assert outcome.status == "unfit" and "nosuch" in outcome.detail
    status, owner, attempts, error = state(lad.make, job.match_id)
    assert (status, owner, attempts) == ("queued", None, 1) and error.startswith("worker box/w1: ") and MAX_ATTEMPTS > 1


def test_a_match_whose_bot_the_engine_did_not_start_goes_back_unrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One seat's container not started because dockerd was restarting: its CRASH and forfeit were rated against the
    bot. The match goes back to the queue (an attempt counted: an engine down for good fails it in time), nothing
    rated, its try's logs gone."""
    from referee.server.launchers import EngineUnavailable, ProcessLauncher

    class EngineDownForSeat0(ProcessLauncher):
        async def launch(self, spec: Any) -> Any:
            if spec.seat == 0:
                raise EngineUnavailable("could not start the container: the Docker engine did not answer (ConnectionError)")
            return await super().launch(spec)

    monkeypatch.setattr(ladder.jobs, "launcher_for", lambda *_: EngineDownForSeat0())
    lad, job = claimed_job(tmp_path, "w")
    outcome = asyncio.run(play_job(lad.make, job, "box/w1", just_claimed=True))
    assert outcome.status == "unfit" and outcome.detail.startswith("seat 0's bot was not started: could not start the container"), outcome
    status, owner, attempts, error = state(lad.make, job.match_id)
    assert (status, owner, attempts) == ("queued", None, 1) and "the Docker engine did not answer" in error
    with lad.make() as db:
        assert db.scalar(select(func.count()).select_from(RatingChange)) == 0
    assert not list((Path(job.data_dir) / "logs").glob(f"{job.match_id}/*.log"))


def test_a_match_the_ladder_failed_to_play_is_failed_at_once_with_its_error_kept_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not left running under a lease nobody renews (reaped later, and played again up to MAX_ATTEMPTS times)."""

    async def broken(*_: object) -> LocalMatch:
        raise RuntimeError("/srv/arena/secret path")

    monkeypatch.setattr(ladder.jobs, "run_local_match", broken)
    lad, job = claimed_job(tmp_path, "w")
    outcome = asyncio.run(play_job(lad.make, job, "box/w1", just_claimed=True))
    assert outcome.status == "failed"
    assert state(lad.make, job.match_id) == ("failed", None, 0, public_error(RuntimeError("/srv/arena/secret path")))


def test_a_played_match_whose_record_was_refused_is_reported_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted as recorded, it ended a run of worker failures (the dispatcher's slow pace) and showed in /metrics."""

    async def played(*_: object) -> LocalMatch:
        return LocalMatch(record=SimpleNamespace(result=pb.MatchResult()), manifests=[], logs=[])  # type: ignore[arg-type]

    async def refused(job: MatchJob, played: LocalMatch, worker: str) -> bool:
        return False

    monkeypatch.setattr(ladder.jobs, "run_local_match", played)
    lad, job = claimed_job(tmp_path, "w")
    outcome: JobOutcome = asyncio.run(play_job(lad.make, job, "box/w1", just_claimed=True, recorder=refused))
    assert outcome.status == "lost"


def test_a_lease_renewal_that_fails_once_does_not_stop_the_renewals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database out of reach at one renewal: the next ones go on, or the lease ran out mid-match and the reaper
    gave the match to another worker, which played it again."""
    begun = hanging_match(monkeypatch)
    renewals: list[bool] = []

    def flaky_renew(make: sessionmaker[Session], match_id: int, owner: str, lease_seconds: float) -> bool:
        if not renewals:
            renewals.append(False)
            raise ConnectionError("the database is out of reach")
        renewals.append(real_renew(make, match_id, owner, lease_seconds))
        return renewals[-1]

    monkeypatch.setattr(ladder.jobs, "renew", flaky_renew)
    lad, job = claimed_job(tmp_path, "w", 0.3)

    async def play() -> None:
        playing = asyncio.ensure_future(play_job(lad.make, job, "here", just_claimed=True))
        await begun.wait()
        async with asyncio.timeout(30):  # the failure is a hang: no renewal after the first
            while len(renewals) < 3:
                await asyncio.sleep(0.05)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)

    asyncio.run(play())
    assert renewals[:3] == [False, True, True]


def test_pooled_bots_whose_logs_go_to_the_database_are_played_and_recorded(tmp_path: Path) -> None:
    """`--keep database` on the local pool: bots kept in processes need no copy, but the logs still need a folder to be
    written in before they go to the database; without one every such match failed."""
    lad, job = claimed_job(tmp_path, "w")
    bots = tuple(BotSource(bot.version_id, folder=str(pooled_bot(tmp_path, f"pooled{seat}"))) for seat, bot in enumerate(job.bots))
    job = dataclasses.replace(job, keep=DATABASE, bots=bots)

    async def play() -> JobOutcome:
        pool = BotPool()
        try:
            return await play_job(lad.make, job, "here", pool=pool, just_claimed=True)
        finally:
            await pool.close()

    assert asyncio.run(play()).status == "recorded"
    with lad.make() as db:
        assert REPLAY_FILE in db.scalars(select(MatchFile.name).where(MatchFile.match_id == job.match_id)).all()


def test_each_lease_renewal_comes_before_the_lease_runs_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match may play for longer than its lease, as long as it is renewed in time: a renewal after the lease ran
    out left a window in which the reaper gave the match to another worker, which played it again."""
    begun = hanging_match(monkeypatch)
    late: list[float] = []  # at each renewal, how long before the lease would run out

    def timed_renew(make: sessionmaker[Session], match_id: int, owner: str, lease_seconds: float) -> bool:
        with make() as db:
            expires = db.get_one(Match, match_id).lease_expires
            assert expires is not None
            late.append(expires - database_time(db))
        return real_renew(make, match_id, owner, lease_seconds)

    monkeypatch.setattr(ladder.jobs, "renew", timed_renew)
    lad, job = claimed_job(tmp_path, "w", 3.0)

    async def play() -> None:
        playing = asyncio.ensure_future(play_job(lad.make, job, "here", just_claimed=True))
        await begun.wait()
        async with asyncio.timeout(30):
            while len(late) < 2:
                await asyncio.sleep(0.05)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)

    asyncio.run(play())
    assert all(left > 0 for left in late[:2]), late


def test_a_match_whose_every_seat_forfeited_at_once_goes_back_unrated_at_the_cost_of_an_attempt(tmp_path: Path) -> None:
    """A worker that could start no bot (its sandbox broken, its interpreter gone) forfeits every seat at once: each
    bot ranked first, the match was recorded as a draw and its set rated, moving both bots' ratings and shrinking
    their sigmas on a match nobody played. The suspensions already held such a match against no bot."""
    from ladder.models import RatingChange

    dead = tmp_path / "dead"
    dead.mkdir()
    (dead / "bot.toml").write_text('name = "dead"\nversion = "1"\nlanguage = "other"\ngames = ["generals-war"]\ncommand = ["/bin/false"]\n')
    lad, job = claimed_job(tmp_path, "w")
    job = dataclasses.replace(job, bots=tuple(BotSource(bot.version_id, folder=str(dead)) for bot in job.bots))
    outcome = asyncio.run(play_job(lad.make, job, "box/w1"))
    assert outcome.status == "unfit" and "every seat" in outcome.detail
    status, owner, attempts, error = state(lad.make, job.match_id)
    assert (status, owner, attempts) == ("queued", None, 1) and error.startswith("worker box/w1: ")
    with lad.make() as db:
        assert db.scalars(select(RatingChange)).all() == []
