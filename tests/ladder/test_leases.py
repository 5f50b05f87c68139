"""A queued match's lease (ladder/worker.py): claimed in the queue's order, renewed, reaped, released and failed only
by its owner, and tried MAX_ATTEMPTS times; on a database of bot rows (no bot plays)."""

from __future__ import annotations

import time

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.v1 import referee_pb2 as pb
from ladder import worker
from ladder.models import Match
from ladder.scheduler import queue_duplicate_set
from ladder.worker import MAX_ATTEMPTS, claim, fail_match, reap, release, renew, renew_all
from tests.ladder.test_bookkeeping import add_bots, make  # noqa: F401  (the fixture)

GAME = "generals-war"


def queue(make: sessionmaker[Session], versions: list[int], kind: str = "rated") -> list[int]:
    with make() as db:
        ids = queue_duplicate_set(db.connection(), GAME, versions, 7, kind)
        db.commit()
    return ids


def lease(make: sessionmaker[Session], match_id: int) -> tuple[str, str | None, float | None, int]:
    with make() as db:
        m = db.get_one(Match, match_id)
        return m.status, m.lease_owner, m.lease_expires, m.attempts


def expire(make: sessionmaker[Session], match_id: int) -> None:
    """The lease of ``match_id`` ran out a while ago (its worker died)."""
    with make() as db:
        db.execute(update(Match).where(Match.id == match_id).values(lease_expires=time.time() - 5))
        db.commit()


def test_matches_are_claimed_by_priority_then_in_the_order_they_were_queued(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    first = queue(make, [a, b])
    placement = queue(make, [a, b], "placement")
    later = queue(make, [a, b])
    order = [claim(make, f"w{i}", 60) for i in range(7)]
    assert order == [*placement, *first, *later, None]


def test_only_the_owner_renews_a_lease_and_only_while_it_runs(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    one, two = queue(make, [a, b])
    assert claim(make, "mine", 10) == one and claim(make, "theirs", 10) == two
    before = lease(make, one)[2]
    assert before is not None
    assert not renew(make, one, "theirs", 600) and lease(make, one)[2] == before, "another worker renewed my lease"
    assert renew(make, one, "mine", 600)
    after = lease(make, one)[2]
    assert after is not None and after > before + 500
    # Several at once: the leases still held count, another's is left alone.
    assert renew_all(make, {one: "mine", two: "mine"}, 1200) == 1
    assert lease(make, two)[2] is not None and (lease(make, two)[2] or 0) < time.time() + 600, "renewed a lease held by another"


def test_a_lease_that_ran_out_is_queued_again_and_a_live_one_is_left(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    dead, live = queue(make, [a, b])
    assert claim(make, "dead", 60) == dead and claim(make, "live", 60) == live
    expire(make, dead)
    assert reap(make) == 1
    assert lease(make, dead) == ("queued", None, None, 1)
    assert lease(make, live)[:2] == ("running", "live")
    assert not renew(make, dead, "dead", 60), "the dead worker's lease came back"
    assert not worker.record_outcome(make, dead, "dead", pb.MatchResult()), "the dead worker recorded a result"


def test_a_match_abandoned_max_attempts_times_fails(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert claim(make, f"w{attempt}", 60) == match_id
        expire(make, match_id)
        assert reap(make) == 1
        state = lease(make, match_id)
        if attempt < MAX_ATTEMPTS:
            assert state == ("queued", None, None, attempt), (attempt, state)
    assert MAX_ATTEMPTS == 3, "the docs and the operators' guide say three tries"
    with make() as db:
        m = db.get_one(Match, match_id)
        assert (m.status, m.lease_owner) == ("failed", None) and "abandoned" in m.error and m.finished_at is not None
        # The match's page tells its tries: all of them, as for a match released for the last time (below).
        assert (m.attempts, m.lease_expires) == (MAX_ATTEMPTS, None)


def test_only_the_owner_releases_or_fails_a_match(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    assert claim(make, "mine", 60) == match_id
    assert not release(make, match_id, "theirs", count_attempt=True, error="not yours")
    fail_match(make, match_id, "theirs", "not yours either")
    with make() as db:
        m = db.get_one(Match, match_id)
        assert (m.status, m.lease_owner, m.attempts, m.error) == ("running", "mine", 0, "")


def test_a_release_costs_an_attempt_only_when_told_and_the_last_one_fails_the_match(make: sessionmaker[Session]) -> None:
    a, b = add_bots(make, [GAME], 2)
    match_id = queue(make, [a, b])[0]
    assert claim(make, "w", 60) == match_id and release(make, match_id, "w")
    with make() as db:
        m = db.get_one(Match, match_id)
        assert (m.status, m.attempts, m.finished_at) == ("queued", 0, None)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert claim(make, "w", 60) == match_id
        assert release(make, match_id, "w", count_attempt=True, error="x" * 5000)
        with make() as db:
            m = db.get_one(Match, match_id)
            if attempt < MAX_ATTEMPTS:
                assert (m.status, m.attempts, m.finished_at) == ("queued", attempt, None), attempt
    assert (m.status, m.attempts) == ("failed", MAX_ATTEMPTS) and m.finished_at is not None
    assert len(m.error) == 2000, "a traceback's length is capped where the match page shows it"
    with make() as db:
        assert db.scalar(select(Match.status).where(Match.id == match_id)) == "failed"
