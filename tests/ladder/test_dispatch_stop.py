"""The dispatcher stopping (ladder/service.py): every match it holds goes straight back to the queue, whoever plays it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ladder.jobs import MatchJob
from ladder.models import Match
from ladder.scheduler import add_duplicate_set
from ladder.service import Ladder, LadderConfig
from tests.ladder.conftest import HeldExecutor, enter
from tests.support import SAMPLE_BOTS


def ladder_with(tmp_path: Path, executor: HeldExecutor, lease_seconds: float = 60.0) -> Ladder:
    config = LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], lease_seconds=lease_seconds)
    ladder = Ladder(config, executor=executor)
    versions = enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    with ladder.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")
        db.commit()
    return ladder


def all_queued(ladder: Ladder) -> list[tuple[str, str | None, int]]:
    with ladder.make() as db:
        return sorted({(m.status, m.lease_owner, m.attempts) for m in db.query(Match)}, key=str)


def test_a_ladder_that_stops_hands_back_the_matches_in_its_executors_hands(tmp_path: Path) -> None:
    """A job cancelled at Dask may still be running on its worker: the dispatcher gives the match back itself, at once
    and with no attempt counted, rather than leave it to its lease."""
    executor = HeldExecutor()
    ladder = ladder_with(tmp_path, executor)

    async def go() -> None:
        dispatcher = asyncio.ensure_future(ladder.dispatcher())
        while not executor.jobs and not dispatcher.done():
            await asyncio.sleep(0.05)
        dispatcher.cancel()
        await asyncio.gather(dispatcher, return_exceptions=True)

    asyncio.run(asyncio.wait_for(go(), 60))
    assert len(executor.jobs) == 1
    assert all_queued(ladder) == [("queued", None, 0)]


def test_a_match_claimed_as_the_ladder_stops_is_handed_back(tmp_path: Path) -> None:
    """The claim runs off the loop and commits whatever happens to the dispatcher meanwhile: a match it claimed as the
    ladder stopped was in no one's hands, and waited for its lease to run out."""
    executor = HeldExecutor()
    ladder = ladder_with(tmp_path, executor)
    hand_out = ladder._hand_out

    async def go() -> None:
        claimed, finish = asyncio.Event(), asyncio.Event()

        async def claim(owner: str) -> tuple[int, MatchJob | None] | None:
            handed = await asyncio.to_thread(hand_out, owner)
            claimed.set()
            await finish.wait()  # the dispatcher is cancelled meanwhile
            return handed

        ladder._claim = claim  # type: ignore[method-assign]
        dispatcher = asyncio.ensure_future(ladder.dispatcher())
        await claimed.wait()
        dispatcher.cancel()
        asyncio.get_running_loop().call_later(0.1, finish.set)
        await asyncio.gather(dispatcher, return_exceptions=True)

    asyncio.run(asyncio.wait_for(go(), 60))
    assert executor.jobs == []
    assert all_queued(ladder) == [("queued", None, 0)]


def test_a_job_waiting_in_its_executors_hands_keeps_its_lease(tmp_path: Path) -> None:
    """A job queued at Dask behind others renews nothing itself until it plays: the dispatcher renews the leases of
    all it has in flight, or the reaper took each back (an attempt counted) and it was played twice."""
    from ladder.worker import reap

    executor = HeldExecutor()
    ladder = ladder_with(tmp_path, executor, lease_seconds=1.5)

    async def go() -> None:
        dispatcher = asyncio.ensure_future(ladder.dispatcher())
        while not executor.jobs and not dispatcher.done():
            await asyncio.sleep(0.05)
        await asyncio.sleep(2 * ladder.config.lease_seconds)  # on purpose: two leases, one not renewed would have run out
        assert reap(ladder.make) == 0
        assert len(executor.jobs) == 1  # no more at once than it can play: the other match waits for a free worker
        dispatcher.cancel()
        await asyncio.gather(dispatcher, return_exceptions=True)

    asyncio.run(asyncio.wait_for(go(), 60))
    assert all_queued(ladder) == [("queued", None, 0)]


def test_a_match_its_executor_refused_to_take_is_handed_back(tmp_path: Path) -> None:
    """Dask's client closed (its scheduler gone): the job it refused was claimed and in no one's hands, and waited a
    lease to be played."""
    refused: list[MatchJob] = []

    def refuse_the_first(job: MatchJob) -> None:
        if not refused:
            refused.append(job)
            raise RuntimeError("the client is closed")

    executor = HeldExecutor(refuse_the_first)
    ladder = ladder_with(tmp_path, executor)

    async def go() -> None:
        dispatcher = asyncio.ensure_future(ladder.dispatcher())
        while len(executor.jobs) < 2 and not dispatcher.done():  # refused, then one taken after the dispatcher's pause
            await asyncio.sleep(0.05)
        with ladder.make() as db:
            assert db.get_one(Match, refused[0].match_id).lease_owner != refused[0].owner
        dispatcher.cancel()
        await asyncio.gather(dispatcher, return_exceptions=True)

    asyncio.run(asyncio.wait_for(go(), 60))
