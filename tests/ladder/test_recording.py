"""Claiming and recording a match (ladder/worker.py, ladder/jobs.py): each seat's bot where the match put it, the
worker named, unrated kinds left out of the ratings, and a lease given back only by its holder; on a database of bot
rows (no bot plays)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.jobs import DATABASE, FILES, JobSettings, MatchJob, build_job, record_head
from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingChange
from ladder.worker import MAX_ATTEMPTS, claim, claim_next, reap, record_outcome, release, release_lease
from referee.server.replay import ReplayHead
from referee.server.session import TimeControl
from tests.ladder.test_bookkeeping import add_bots, make, result  # noqa: F401  (the fixture)
from tests.ladder.test_leases import GAME, expire, lease, queue
from tests.ladder.test_suspension import outcome, status


def test_a_claimed_match_and_its_job_give_each_seat_the_bot_the_match_put_there(make: sessionmaker[Session]) -> None:
    """The second match of a duplicate set seats the bots the other way round: its job must too, or each bot plays
    the other's seat and the result is recorded against the wrong bot."""
    a, b = add_bots(make, [GAME], 2)
    queue(make, [a, b])
    with make() as db:
        paths = {v: p for v, p in db.execute(select(BotVersion.id, BotVersion.path))}
    settings = JobSettings(Path("/store"), TimeControl(), 60)
    seen = []
    for owner in ("w1", "w2"):
        claimed = claim_next(make, owner, 60)
        assert claimed is not None
        with make() as db:
            seated = list(db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == claimed.match_id).order_by(MatchSeat.seat)))
        assert claimed.seats == tuple((v, paths[v]) for v in seated)
        job = build_job(make, claimed.match_id, owner, settings)
        assert [bot.version_id for bot in job.bots] == seated
        assert [bot.folder for bot in job.bots] == [str(Path("/store") / paths[v]) for v in seated]
        seen.append(seated)
    assert seen == [[a, b], [b, a]]


def test_a_recorded_match_names_the_worker_that_played_it(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    assert claim(make, "w", 60) == match_id
    assert record_outcome(make, match_id, "w", result([1, 2]), played_by="box/w1")
    with make() as db:
        assert db.get_one(Match, match_id).played_by == "box/w1"


def test_challenges_and_exhibitions_are_recorded_but_not_rated(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    for kind in ("challenge", "exhibition"):
        with make() as db:
            before = [(r.mu, r.sigma, r.games) for r in db.scalars(select(Rating).order_by(Rating.id))]
        for match_id in queue(make, [a, b], kind):
            assert claim(make, "w", 60) == match_id
            assert record_outcome(make, match_id, "w", result([1, 2]))
        with make() as db:
            assert [(r.mu, r.sigma, r.games) for r in db.scalars(select(Rating).order_by(Rating.id))] == before, kind
            assert not db.scalars(select(RatingChange)).all(), kind


def test_a_release_without_a_reason_keeps_the_last_one(make: sessionmaker[Session]) -> None:
    """A match handed back by a worker that could not run it, then by a ladder that stopped: its page still says why
    the earlier try failed."""
    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    assert claim(make, "w1", 60) == match_id and release(make, match_id, "w1", count_attempt=True, error="worker w1: no docker")
    assert claim(make, "w2", 60) == match_id and release(make, match_id, "w2")
    with make() as db:
        m = db.get_one(Match, match_id)
        assert (m.status, m.attempts, m.error) == ("queued", 1, "worker w1: no docker")


def test_a_lost_claims_lease_gives_back_only_its_own_match(make: sessionmaker[Session]) -> None:
    """``release_lease`` after a books process died mid-claim: another worker's match in play stays its own."""
    a, b = add_bots(make, [GAME], 2)
    mine, theirs = queue(make, [a, b])
    assert claim(make, "lost-claim", 60) == mine and claim(make, "other", 60) == theirs
    assert release_lease(make, "lost-claim") == 1
    assert lease(make, mine) == ("queued", None, None, 0)
    assert lease(make, theirs)[:2] == ("running", "other")


@pytest.mark.parametrize("keep", [FILES, DATABASE])
def test_a_job_records_with_the_ladders_suspension_setting(make: sessionmaker[Session], tmp_path: Path, keep: str) -> None:
    """`--suspend-after` reaches the record whichever way the replay is kept: with 1, one forfeit suspends."""
    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    assert claim(make, "w", 60) == match_id
    job = MatchJob(match_id, "w", GAME, 7, {}, (), TimeControl(), 60, keep=keep, data_dir=str(tmp_path), suspend_after=1)
    head = ReplayHead(str(match_id), GAME, 2, 7, {}, 0.0, 1.0, ["bot0", "bot1"], outcome(2, {0}), [], [2, 1], [0.0, 0.0])
    assert record_head(make, job, head, [], "box/w1")
    assert [status(make, a)[0], status(make, b)[0]] == ["suspended", "active"]


def test_the_reaper_leaves_a_live_lease_on_a_matchs_last_try(make: sessionmaker[Session]) -> None:
    """A match played for the last time (two tries abandoned before) is not failed as abandoned while its worker still
    holds the lease; one whose lease ran out is."""
    a, b = add_bots(make, [GAME], 2)
    live, dead = queue(make, [a, b])
    with make() as db:
        db.execute(update(Match).values(attempts=MAX_ATTEMPTS - 1))
        db.commit()
    assert claim(make, "live", 60) == live and claim(make, "dead", 60) == dead
    expire(make, dead)
    assert reap(make) == 1
    assert lease(make, live)[:2] == ("running", "live")
    assert lease(make, dead)[0] == "failed"


def test_a_record_whose_commit_landed_before_the_connection_dropped_keeps_its_replay(make: sessionmaker[Session], tmp_path: Path) -> None:
    """A connection dropped as the record committed (a PostgreSQL server restarting) raises, though the match is
    recorded: the record's replay file was removed as a refused record's, and the match, done and rated, answered
    "no replay" for good. Its logs were already kept so; the replay now is too."""
    from sqlalchemy.exc import OperationalError

    import ladder.jobs as jobs

    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    assert claim(make, "w", 60) == match_id
    log = tmp_path / "logs" / str(match_id) / "try-seat0.log"
    log.parent.mkdir(parents=True)
    log.write_text("thinking\n")
    job = MatchJob(match_id, "w", GAME, 7, {}, (), TimeControl(), 60, keep=FILES, data_dir=str(tmp_path))
    head = ReplayHead(str(match_id), GAME, 2, 7, {}, 0.0, 1.0, ["bot0", "bot1"], result([1, 2]), [], [1, 2], [0.0, 0.0])

    def committed_then_dropped(*args: object, **kwargs: object) -> bool:
        assert record_outcome(*args, **kwargs)  # type: ignore[arg-type]
        raise OperationalError("COMMIT", {}, Exception("server closed the connection unexpectedly"))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "record_outcome", committed_then_dropped)
        with pytest.raises(OperationalError):
            record_head(make, job, head, [str(log)], "box/w1")
    with make() as db:
        match = db.get_one(Match, match_id)
    assert match.status == "done" and match.replay_path is not None
    assert (tmp_path / match.replay_path).is_file() and log.is_file()
