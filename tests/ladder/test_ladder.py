"""The ladder: submissions, ownership, validation, scheduling, ratings and the API."""

from __future__ import annotations

import functools
import random
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from ladder.datafiles import located
from ladder.models import BotVersion, Match, MatchSeat, RatingChange
from ladder.rebuild import mismatches
from ladder.scheduler import entrants, fill_queue
from tests.ladder.conftest import LadderFixture, check_rated_once
from tests.support import ROOT, SAMPLE_BOTS

GREEDY = SAMPLE_BOTS / "generals_war_greedy"
RANDOM = SAMPLE_BOTS / "random"


def test_submission_validation_and_ownership(ladder: LadderFixture, tmp_path: Path) -> None:
    alice, bob = ladder.user("alice"), ladder.user("bob")
    status, body = ladder.submit(alice, GREEDY)
    assert status == 201 and body["accepted"] and body["seq"] == 1
    status, body = ladder.submit(bob, GREEDY)
    assert status == 403 and "belongs to another user" in body["detail"]
    status, body = ladder.submit(alice, GREEDY)
    assert status == 201 and body["seq"] == 2
    with ladder.make() as db:
        statuses = [v.status for v in db.scalars(select(BotVersion).order_by(BotVersion.id))]
    assert statuses == ["retired", "active"]
    crash = ROOT / "tests" / "bots" / "crash_at_start"
    status, body = ladder.submit(bob, crash)
    assert status == 422 and not body["accepted"]
    assert "failed: crash at decision 0" in body["reason"] and "crashing on purpose" in body["log"]
    assert not (ladder.ladder.store / "crash-at-start" / "1").exists()
    assert ladder.client.post("/api/bots", content=b"zip?", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert ladder.client.post("/api/bots", content=b"not a zip", headers=alice).status_code == 422
    # An archive whose directory lies about a member's size passes the checks and breaks while unpacking.
    from ladder.upload import zip_directory

    lying = tmp_path / "lying"
    shutil.copytree(GREEDY, lying)
    (lying / "data.bin").write_bytes(bytes(range(256)) * 40)
    forged = zip_directory(lying).replace((10240).to_bytes(4, "little"), (10).to_bytes(4, "little"))
    refused = ladder.client.post("/api/bots", content=forged, headers=alice)
    assert refused.status_code == 422 and "damaged" in refused.json()["detail"]
    assert not any((ladder.ladder.store / ".staging").iterdir()), "no half-unpacked upload is left"
    # Nothing but the store, the database and the validation area was written.
    assert sorted(p.name for p in ladder.ladder.store.iterdir()) == [".staging", ".validation", "gw-greedy"]


def test_a_bot_name_that_differs_from_one_only_in_case_is_refused(ladder: LadderFixture, tmp_path: Path) -> None:
    """"GW-Greedy" beside "gw-greedy" would pass for it on the leaderboard: another owner is refused as for the name
    itself (403), the owner told the name its bot has (409); nothing is added."""
    alice, bob = ladder.user("alice"), ladder.user("bob")
    assert ladder.submit(alice, GREEDY)[0] == 201
    held = tomllib.loads((GREEDY / "bot.toml").read_text())["name"]
    variant = tmp_path / "variant"
    shutil.copytree(GREEDY, variant)
    manifest = variant / "bot.toml"
    manifest.write_text(manifest.read_text().replace(f'name = "{held}"', f'name = "{held.upper()}"'))
    with ladder.make() as db:
        before = db.scalar(select(func.count()).select_from(BotVersion))
    status, body = ladder.submit(bob, variant)
    assert status == 403 and body["detail"] == (
        f"the bot name {held.upper()!r} differs only in case from {held!r}, which belongs to another user: "
        "give your bot a name of its own in its bot.toml"
    )
    status, body = ladder.submit(alice, variant)
    assert status == 409 and f"your bot is named {held!r}" in body["detail"], body
    with ladder.make() as db:
        assert db.scalar(select(func.count()).select_from(BotVersion)) == before
    assert sorted(p.name for p in ladder.ladder.store.iterdir() if not p.name.startswith(".")) == [held]


def test_a_sample_bot_submitted_as_it_is_is_told_to_take_a_name_of_its_own(ladder: LadderFixture) -> None:
    """The sample bots' names are the house user's: an operator trying the ladder with `arena ladder submit
    sample_bots/generals_war_greedy` was told only that the name "belongs to another user", naming neither whose nor
    what to do (docs/ladder.md: give it a name of its own in its bot.toml)."""
    from ladder.accounts import house_user
    from ladder.models import Bot

    with ladder.make() as db:
        db.add(Bot(name="gw-greedy", owner_id=house_user(db).id, created_at=0.0))
        db.commit()
    alice = ladder.user("alice")
    status, body = ladder.submit(alice, GREEDY)
    assert status == 403 and body["detail"] == (
        "the bot name 'gw-greedy' belongs to one of the ladder's sample bots (owned by 'arena'): "
        "to submit a copy of it, give it a name of its own in its bot.toml"
    )


def test_matches_are_duplicate_deals_and_new_bots_place_first(ladder: LadderFixture) -> None:
    owner = ladder.user("carol")
    for bot in (GREEDY, RANDOM):
        assert ladder.submit(owner, bot)[1]["accepted"]
    with ladder.make() as db:
        added = fill_queue(db, random.Random(3), target=6, games=["generals-war"])
        matches = db.scalars(select(Match).order_by(Match.id)).all()
        assert added == len(matches) >= 6
        by_deal: dict[str, list[Match]] = {}
        for m in matches:
            by_deal.setdefault(m.deal, []).append(m)
        for pair in by_deal.values():
            assert len(pair) == 2 and pair[0].seed == pair[1].seed
            seats = [[s.bot_version_id for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat))] for m in pair]
            assert seats[1] == list(reversed(seats[0]))
        # Each new bot's first PLACEMENT_GAMES games (played or queued) are placement matches, then rated ones.
        from ladder.scheduler import PLACEMENT_GAMES

        kinds = [m.kind for m in matches]
        assert kinds[:PLACEMENT_GAMES] == ["placement"] * PLACEMENT_GAMES
        assert set(kinds[PLACEMENT_GAMES:]) == {"rated"}


def test_ratings_update_and_rebuild_from_the_log(ladder: LadderFixture) -> None:
    owner = ladder.user("dave")
    for bot in (GREEDY, RANDOM):
        assert ladder.submit(owner, bot)[1]["accepted"]
    ladder.play(12)
    with ladder.make() as db:
        assert mismatches(db) == []
        done = db.scalars(select(Match).where(Match.status == "done")).all()
        assert len(done) >= 12
        assert check_rated_once(db) >= 10
    standings = ladder.client.get("/api/games/generals-war/standings").json()
    assert [r["bot"] for r in standings] == ["gw-greedy", "random"]
    assert standings[0]["conservative"] == standings[0]["mu"] - 3 * standings[0]["sigma"]
    history = ladder.client.get("/api/bots/gw-greedy/history", params={"game": "generals-war"}).json()
    assert 2 * len(history) == standings[0]["games"], "a point per duplicate set rated, each set two games"
    recent = ladder.client.get("/api/matches", params={"limit": 3}).json()
    assert len(recent) == 3 and all(m["status"] == "done" for m in recent)
    settled = next(m for m in ladder.client.get("/api/matches", params={"limit": 20}).json() if m["settled"])  # a twin may be queued
    replay = ladder.client.get(f"/api/matches/{settled['id']}/replay").json()
    assert replay["format"] == "arena-replay" and replay["game"] == "generals-war"


def test_challenges_jump_the_queue_and_logs_are_for_owners(ladder: LadderFixture) -> None:
    erin, frank = ladder.user("erin"), ladder.user("frank")
    assert ladder.submit(erin, GREEDY)[1]["accepted"]
    assert ladder.submit(frank, RANDOM)[1]["accepted"]
    refused = ladder.client.post("/api/challenges", json={"bot": "random", "opponent": "gw-greedy", "game": "generals-war"}, headers=erin)
    assert refused.status_code == 422 and "do not own" in refused.json()["detail"]
    made = ladder.client.post("/api/challenges", json={"bot": "gw-greedy", "opponent": "random", "game": "generals-war"}, headers=erin)
    assert made.status_code == 201
    ids = made.json()["matches"]
    with ladder.make() as db:
        fill_queue(db, random.Random(1), target=8, games=["generals-war"])
    from ladder.jobs import JobSettings, build_job, job_for
    from ladder.worker import claim_next, release
    from referee.server.session import TimeControl

    claimed = claim_next(ladder.make, "test", 30)
    assert claimed is not None and claimed.match_id == ids[0]
    with ladder.make() as db:
        first = db.get_one(Match, ids[0])
        assert (first.status, first.lease_owner) == ("running", "test")
        seated = db.execute(
            select(MatchSeat.bot_version_id, BotVersion.path)
            .join(BotVersion, BotVersion.id == MatchSeat.bot_version_id)
            .where(MatchSeat.match_id == ids[0])
            .order_by(MatchSeat.seat)
        ).all()
        assert [tuple(row) for row in seated] == list(claimed.seats) and (claimed.game, claimed.seed) == (first.game, first.seed)
    settings = JobSettings(ladder.ladder.store, TimeControl(), 30)
    assert job_for(claimed, "test", settings) == build_job(ladder.make, ids[0], "test", settings)
    assert release(ladder.make, ids[0], "test")  # played by the ladder below: a log is kept back while a match of its deal is not over
    ladder.play(3, until=lambda: all(ladder.client.get(f"/api/matches/{i}").json()["settled"] for i in ids))
    match = ladder.client.get(f"/api/matches/{ids[1]}").json()
    assert match["kind"] == "challenge"
    with ladder.make() as db:  # played, but unrated: the challenger chose the opponent
        assert db.scalars(select(Match.rated_with).where(Match.id.in_(ids))).all() == [None, None]
        assert not db.scalars(select(RatingChange).where(RatingChange.match_id.in_(ids))).all()
        check_rated_once(db)
    greedy_seat = next(s["seat"] for s in match["seats"] if s["bot"] == "gw-greedy")
    assert ladder.client.get(f"/api/matches/{ids[1]}/logs/{greedy_seat}", headers=erin).status_code == 200
    assert ladder.client.get(f"/api/matches/{ids[1]}/logs/{greedy_seat}", headers=frank).status_code == 403


def test_the_ladder_ranks_a_family_of_known_strength_in_order(ladder: LadderFixture) -> None:
    owner = ladder.user("grace")
    # Steps the ladder can resolve in 90 matches: noise 0.5 against pure random wins only about 60%.
    noises = {"noise-0": 0.0, "noise-25": 0.25, "noise-100": 1.0}
    for name, noise in noises.items():
        status, body = ladder.submit(owner, ladder.noisy_bot(name, noise))
        assert status == 201, body
    ladder.play(90)
    standings = ladder.client.get("/api/games/generals-war/standings").json()
    by_mu = [r["bot"] for r in sorted(standings, key=lambda r: -r["mu"])]
    assert by_mu == ["noise-0", "noise-25", "noise-100"], standings
    with ladder.make() as db:
        assert mismatches(db) == []
        assert {e.bot for e in entrants(db, "generals-war")} == set(noises)


def test_pooled_bot_processes_play_several_matches_but_never_both_deals_of_a_pair(ladder: LadderFixture, tmp_path: Path) -> None:
    """Bots with `matches_per_process` keep their processes between ladder matches; a duplicate pair meets two processes per bot."""
    from ladder.executors import LocalExecutor
    from tests.test_persistent_bots import pooled_bot

    owner = ladder.user("pia")
    for name in ("pooled-a", "pooled-b"):
        assert ladder.submit(owner, pooled_bot(tmp_path, name, per_process=20))[1]["accepted"]
    ladder.play(8)
    executor = ladder.ladder.executor
    assert isinstance(executor, LocalExecutor) and executor.pool is not None
    handed = executor.pool.assignments
    assert len(handed) >= 16
    assert len(set((process, deal) for process, _, deal in handed)) == len(handed), "a process was handed a deal twice"
    with ladder.make() as db:
        done = db.scalars(select(Match).where(Match.status == "done")).all()
        deals = {m.deal for m in done}
        assert any(sum(1 for m in done if m.deal == d) == 2 for d in deals), "both matches of some duplicate pair were played"
        for seat in db.scalars(select(MatchSeat).where(MatchSeat.match_id.in_([m.id for m in done]))):
            assert seat.verdicts == [] and seat.log_path is not None
    assert executor.pool.started < len(handed), "processes were reused"


def test_a_duplicate_set_is_rated_once_as_one_comparison_and_a_failed_half_does_not_block_it(ladder: LadderFixture) -> None:
    from sqlalchemy import update
    from sqlalchemy.orm import Session

    from ladder.models import Rating
    from ladder.ratings import INITIAL
    from ladder.ratings import update as rate
    from ladder.scheduler import add_duplicate_set
    from ladder.worker import rate_set, rate_settled_sets

    owner = ladder.user("gail")
    for bot in (GREEDY, RANDOM):
        assert ladder.submit(owner, bot)[1]["accepted"]

    def finish(db: Session, match: Match, ranks: list[int], status: str = "done") -> None:
        db.execute(update(Match).where(Match.id == match.id).values(status=status))
        for seat, rank in zip(db.scalars(select(MatchSeat).where(MatchSeat.match_id == match.id).order_by(MatchSeat.seat)), ranks):
            seat.rank = rank

    with ladder.make() as db:
        a, b = db.scalars(select(BotVersion.id).where(BotVersion.status == "active").order_by(BotVersion.id)).all()
        for r in db.scalars(select(Rating)):
            r.mu, r.sigma, r.games = INITIAL.mu, INITIAL.sigma, 0
        db.execute(update(Match).values(rated_with=None))
        db.query(RatingChange).delete()
        first, second = add_duplicate_set(db, "generals-war", [a, b], 42, "rated")
        finish(db, first, [1, 2])  # a wins with the seats one way...
        assert not rate_set(db, first), "half a set is not rated"
        finish(db, second, [1, 2])  # ...and b, seated first, wins the same deal: the deal decided, not the bots
        assert rate_set(db, second)
        assert not rate_set(db, second), "a set is rated once"
        db.commit()
        ratings = {r.bot_version_id: r for r in db.scalars(select(Rating).where(Rating.game == "generals-war"))}
        draw = rate([INITIAL, INITIAL], [1, 1])
        assert abs(ratings[a].mu - draw[0].mu) < 1e-9 and abs(ratings[b].mu - draw[1].mu) < 1e-9 and ratings[a].sigma < INITIAL.sigma
        assert ratings[a].games == ratings[b].games == 2
        assert db.scalars(select(Match.rated_with).where(Match.id.in_([first.id, second.id]))).all() == [second.id, second.id]
        assert {c.match_id for c in db.scalars(select(RatingChange))} == {second.id}
        assert mismatches(db) == []

        third, fourth = add_duplicate_set(db, "generals-war", [a, b], 43, "rated")
        finish(db, third, [1, 2])
        finish(db, fourth, [0, 0], status="failed")  # played out its attempts without a result
        db.commit()
    assert rate_settled_sets(ladder.make) == 1
    with ladder.make() as db:
        ratings = {r.bot_version_id: r for r in db.scalars(select(Rating).where(Rating.game == "generals-war"))}
        assert ratings[a].games == 3 and ratings[a].mu > ratings[b].mu, "the half that was played counts"
        assert mismatches(db) == [] and check_rated_once(db) == 3
    assert rate_settled_sets(ladder.make) == 0


def test_the_local_pool_keeps_one_match_ready_but_plays_no_more_than_its_workers() -> None:
    """One claimed job waits for a seat while the others play, so no worker idles while a result is recorded."""
    import asyncio
    import warnings

    from ladder.executors import LocalExecutor
    from ladder.jobs import _play_seated

    async def main() -> tuple[int, int, list[int]]:
        executor = LocalExecutor(None, workers=2)  # type: ignore[arg-type]
        await executor.start()
        assert executor.seats is not None
        playing, most, finished = 0, 0, []

        async def match(n: int) -> Any:
            nonlocal playing, most
            playing += 1
            most = max(most, playing)
            await asyncio.sleep(0.01)
            playing -= 1
            finished.append(n)
            return n

        jobs = [asyncio.create_task(_play_seated(executor.seats, functools.partial(match, n))) for n in range(5)]
        waiting = asyncio.create_task(_play_seated(executor.seats, functools.partial(match, 99)))
        await asyncio.sleep(0)
        waiting.cancel()  # a lease lost while waiting for a seat: its match never starts
        await asyncio.gather(*jobs, waiting, return_exceptions=True)
        return await executor.capacity(), most, finished

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine was never awaited" would be a match left half made
        capacity, most, finished = asyncio.run(main())
    assert capacity == 3 and most == 2
    assert sorted(finished) == [0, 1, 2, 3, 4]


def test_a_pooled_bot_is_not_copied_for_each_match_but_every_other_seat_gets_a_fresh_copy(tmp_path: Path) -> None:
    """The pool copies a bot when it starts a process for it; a copy per match on top of that was thrown away."""
    from ladder.jobs import BotSource, materialize
    from ladder.upload import zip_directory
    from tests.test_persistent_bots import pooled_bot

    pooled = pooled_bot(tmp_path, "pooled-c", per_process=5)
    bots = (BotSource(1, folder=str(pooled)), BotSource(2, folder=str(RANDOM)), BotSource(1, archive=zip_directory(pooled)))
    into = tmp_path / "match"
    into.mkdir()
    copies = materialize(bots, into, pooled=True)
    assert copies[0] == pooled, "the store's folder itself: the pool copies it"
    assert copies[1] == into / "seat1" and (copies[1] / "bot.toml").exists()
    assert copies[2] == into / "seat2" and (copies[2] / "bot.py").exists(), "a shipped zip is always unpacked"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert materialize(bots, fresh)[0] == fresh / "seat0", "without a pool every seat gets its copy"
    assert materialize(bots[:1], None, pooled=True) == [pooled], "no folder is needed when every seat plays in place"
    with pytest.raises(ValueError, match="needs a copy"):
        materialize(bots[1:2], None, pooled=True)


def test_a_job_that_skips_the_lease_check_still_records_nothing_once_its_lease_is_gone(tmp_path: Path) -> None:
    """The local pool plays a job without checking its lease first (it claimed it a moment ago); were the lease
    gone after all, the result would still not count: only the lease's owner can record it."""
    import asyncio

    from ladder.jobs import FILES, JobSettings, build_job, play_job
    from ladder.scheduler import add_duplicate_set
    from ladder.service import Ladder, LadderConfig
    from ladder.worker import claim, release
    from referee.server.session import TimeControl
    from tests.ladder.conftest import enter

    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"]))
    versions = enter(ladder, [GREEDY, RANDOM], validate=False)
    with ladder.make() as db:
        add_duplicate_set(db, "generals-war", versions, 5, "rated")
        db.commit()
    match_id = claim(ladder.make, "first", 30)
    assert match_id is not None
    settings = JobSettings(ladder.store, TimeControl(), 30, keep=FILES, data_dir=ladder.config.data_dir.resolve())
    job = build_job(ladder.make, match_id, "first", settings)
    assert release(ladder.make, match_id, "first")  # handed back: "first" no longer holds it
    assert claim(ladder.make, "second", 30) == match_id
    assert asyncio.run(play_job(ladder.make, job, "here", just_claimed=True)).status == "lost"
    with ladder.make() as db:
        match = db.get_one(Match, match_id)
        assert (match.status, match.lease_owner) == ("running", "second")
        assert all(s.rank is None for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == match_id)))
    # The new holder records; a late job of the old lease then finishes: it must not write over that replay.
    assert asyncio.run(play_job(ladder.make, build_job(ladder.make, match_id, "second", settings), "there", just_claimed=True)).status == "recorded"
    with ladder.make() as db:
        replay = located(db.get_one(Match, match_id).replay_path or "", settings.data_dir)
    written = replay.stat().st_mtime_ns
    assert asyncio.run(play_job(ladder.make, job, "here", just_claimed=True)).status == "lost"
    assert replay.stat().st_mtime_ns == written, "the recorded replay was written over"
    assert list(replay.parent.iterdir()) == [replay], "the late job's own replay is removed"


def test_a_job_recording_its_result_frees_its_seat_and_its_place_for_the_next_claim(monkeypatch: Any) -> None:
    """While a finished match's result is recorded, the pool claims another job for the seat it left."""
    import asyncio

    import ladder.executors as executors
    from ladder.executors import LocalExecutor
    from ladder.jobs import MatchJob
    from referee.server.session import TimeControl

    executor_box: list[LocalExecutor] = []

    async def main() -> None:
        recorded = asyncio.Event()

        async def play_job(*args: Any, seats: asyncio.Semaphore, on_played: Any, **kwargs: Any) -> str:
            async with seats:  # the match
                await asyncio.sleep(0)
            on_played()
            await recorded.wait()  # its result, recorded slowly
            return "recorded"

        monkeypatch.setattr(executors, "play_job", lambda make, job, worker, pool, seats, **kw: play_job(seats=seats, **kw))
        executor = LocalExecutor(None, workers=2)  # type: ignore[arg-type]
        executor_box.append(executor)
        await executor.start()
        assert await executor.capacity() == 3
        room = executor.room()
        job = MatchJob(1, "o", "generals-war", 1, {}, (), TimeControl(), 30)
        done = executor.submit(job)
        await asyncio.wait_for(room, 2)  # the match is over: the dispatcher wakes up...
        assert await executor.capacity() == 4  # ...and may claim one more while the result is recorded
        recorded.set()
        assert await done == "recorded"
        assert await executor.capacity() == 3
        executor.room()  # left waiting when the run ends

    asyncio.run(main())

    async def again() -> None:  # the same executor in a second run, on a new event loop
        await executor_box[0].start()
        room = executor_box[0].room()
        assert room.get_loop() is asyncio.get_running_loop()

    asyncio.run(again())


def test_the_scheduler_refills_an_empty_queue_at_once_rather_than_at_its_next_tick(tmp_path: Path) -> None:
    """With fast matches the queue ran dry between two half-second ticks and the workers waited for the next."""
    import asyncio

    from ladder.jobs import JobOutcome
    from ladder.service import Ladder, LadderConfig
    from tests.ladder.conftest import HeldExecutor, enter

    executor = HeldExecutor(lambda job: JobOutcome(job.match_id, job.owner, "recorded", "here", 0.0))  # over at once
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], seed=1), executor=executor)
    enter(ladder, [GREEDY, RANDOM], validate=False)

    async def go() -> None:
        task = asyncio.create_task(ladder.run(serve_http=False))
        await asyncio.sleep(1.2)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())
    # Ticks at 0, 0.5 and 1.0 s queue at most 8 matches each (the queue's target for one match at a time): 24.
    assert len(executor.jobs) > 40, len(executor.jobs)
    first = len(executor.jobs)
    asyncio.run(go())  # run again, on another event loop, as the web tests and `arena ladder` restarts do
    assert len(executor.jobs) - first > 40, len(executor.jobs) - first


def test_a_four_seat_set_plays_the_deal_from_every_seat_and_is_rated_once(ladder: LadderFixture) -> None:
    """The reverse alone swaps cards only between mirrored seats; the rotations give every bot every seat's cards."""
    from sqlalchemy import update

    from ladder.models import Rating
    from ladder.ratings import INITIAL
    from ladder.ratings import update as rate
    from ladder.scheduler import add_duplicate_set
    from ladder.worker import rate_set

    owner = ladder.user("hana")
    for i, noise in enumerate((0.0, 0.3, 0.6, 1.0)):
        assert ladder.submit(owner, ladder.noisy_bot(f"rot{i}", noise))[1]["accepted"]
    with ladder.make() as db:
        bots = list(db.scalars(select(BotVersion.id).where(BotVersion.status == "active").order_by(BotVersion.id)))[-4:]
        for r in db.scalars(select(Rating).where(Rating.bot_version_id.in_(bots))):
            r.mu, r.sigma, r.games = INITIAL.mu, INITIAL.sigma, 0
        matches = add_duplicate_set(db, "generals-war", bots, 11, "rated")
        assert len(matches) == 4 and len({m.deal for m in matches}) == 1 and {m.seed for m in matches} == {11}
        seats = [list(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == m.id).order_by(MatchSeat.seat))) for m in matches]
        for seat in range(4):
            assert sorted(order[seat] for order in seats) == sorted(bots), "each bot plays each seat's cards once"
        # Seat 0's cards win every time: each bot wins once, so the deal decided and the set is a four-way draw.
        for match, order in zip(matches, seats):
            db.execute(update(Match).where(Match.id == match.id).values(status="done"))
            for s in db.scalars(select(MatchSeat).where(MatchSeat.match_id == match.id)):
                s.rank = 1 if s.seat == 0 else 2 + s.seat // 2
            assert rate_set(db, match) == (match is matches[-1]), "rated once, when its last match is in"
        db.commit()
        ratings = {r.bot_version_id: r for r in db.scalars(select(Rating).where(Rating.game == "generals-war", Rating.bot_version_id.in_(bots)))}
        level = rate([INITIAL] * 4, [1, 1, 1, 1])
        assert all(abs(ratings[b].mu - level[0].mu) < 1e-9 and ratings[b].games == 4 for b in bots)
