"""``/api/matches?after=ID`` lists the finished matches in the order the ladder recorded them (ladder/recorded.py), so
that a poller reads each once: by end time, a result written after one that ended later slipped past a poller that had
read that one. Every way a match finishes numbers it, concurrent recorders on PostgreSQL number in the order they
commit, and migration 0011 numbers the matches finished before it in the order they were listed in."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import inspect, select, text, update
from sqlalchemy.orm import Session, sessionmaker

from ladder import worker
from ladder.api import LadderState, create_app
from ladder.db import alembic_config, make_engine, migrate, sessions
from ladder.grounds import cancel_held
from ladder.models import Match, MatchSeat
from ladder.recorded import number_recorded
from ladder.scheduler import queue_duplicate_set
from ladder.worker import fail_match, reap, record_outcome, release
from tests.ladder.test_bookkeeping import add_bots, claim_all, result
from tests.waiting import wait_for

GAME = "land-and-castle"


@pytest.fixture
def make(any_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(any_url)
    engine = make_engine(any_url)
    yield sessions(engine)
    engine.dispose()


def queued_pairs(make: sessionmaker[Session], sets: int) -> list[int]:
    """``sets`` duplicate sets of two bots, queued; their matches' ids."""
    a, b = add_bots(make, [GAME], 2)
    with make() as db:
        ids = [m for seed in range(sets) for m in queue_duplicate_set(db.connection(), GAME, [a, b], seed, "rated")]
        db.commit()
    return ids


def recorded_at(make: sessionmaker[Session], ids: list[int]) -> list[int | None]:
    with make() as db:
        found = dict(db.execute(select(Match.id, Match.recorded).where(Match.id.in_(ids))).all())
    return [found[i] for i in ids]


def polled(client: TestClient, after: int, limit: int = 20) -> list[int]:
    answer = client.get("/api/matches", params={"after": after, "limit": limit})
    assert answer.status_code == 200, answer.text
    return [m["id"] for m in answer.json()]


def test_a_match_recorded_late_is_still_given_to_a_poller_that_read_one_that_ended_after_it(
    make: sessionmaker[Session], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two workers: the first match ends at 2000 and is recorded; the second ended at 1000 by its worker's clock and is
    recorded after. A poller that had read the first was asked for what ended after 2000, and never saw the second."""
    first, second = queued_pairs(make, 1)
    claim_all(make, [first, second])
    client = TestClient(create_app(LadderState(make, tmp_path, tmp_path)))
    for match_id, ended in ((first, 2000.0), (second, 1000.0)):
        monkeypatch.setattr(worker, "time", SimpleNamespace(time=lambda ended=ended: ended))  # the recorder's clock
        assert record_outcome(make, match_id, "w", result([1, 2]))
        if match_id == first:
            assert polled(client, 0) == [first]
    monkeypatch.undo()
    assert polled(client, first) == [second], "the match recorded later is the poller's next, whatever its end time"
    assert polled(client, second) == []
    assert polled(client, 0) == [first, second]
    listed = client.get("/api/matches").json()
    assert [(m["id"], m["finished_at"]) for m in listed] == [(first, 2000.0), (second, 1000.0)], "the pages stay by end time"
    assert [m["id"] for m in client.get("/api/matches", params={"before": first}).json()] == [second]


def test_a_full_poll_names_the_next_in_the_recorded_order_and_a_game_filter_keeps_it(make: sessionmaker[Session], tmp_path: Path) -> None:
    ids = queued_pairs(make, 3)
    claim_all(make, ids)
    for match_id in reversed(ids):  # recorded last id first; their end times rise as they are recorded
        assert record_outcome(make, match_id, "w", result([1, 2]))
    client = TestClient(create_app(LadderState(make, tmp_path, tmp_path)))
    page = client.get("/api/matches", params={"after": 0, "limit": 4, "game": GAME})
    assert [m["id"] for m in page.json()] == list(reversed(ids))[:4]
    assert page.headers["link"] == f'</api/matches?game={GAME}&limit=4&after={ids[2]}>; rel="next"'
    assert polled(client, ids[2], limit=4) == [ids[1], ids[0]]
    assert client.get("/api/matches", params={"after": 0, "game": "glory"}).json() == []


def test_every_way_a_match_finishes_gives_it_the_next_place(make: sessionmaker[Session]) -> None:
    """Recorded, failed by its job, given up after its last attempt, abandoned past its lease, cancelled while held:
    each numbered as it finishes, and a match given back to the queue is not."""
    ids = queued_pairs(make, 4)
    recorded, failed, released, requeued, abandoned, cancelled = ids[:6]
    claim_all(make, ids[:5])
    with make() as db:
        db.execute(update(Match).where(Match.id == released).values(attempts=worker.MAX_ATTEMPTS - 1))
        db.execute(update(Match).where(Match.id == abandoned).values(attempts=worker.MAX_ATTEMPTS - 1, lease_expires=0.0))
        db.commit()
    assert record_outcome(make, recorded, "w", result([1, 2]))
    fail_match(make, failed, "w", "broke")
    assert release(make, released, "w", count_attempt=True)
    assert release(make, requeued, "w")
    assert reap(make) == 1
    assert recorded_at(make, [requeued]) == [None], "queued again: not finished"
    with make() as db:
        version = db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == cancelled)).first()
        assert version is not None
        assert cancel_held(db, version, "gone", time.time()) == 4  # every match still queued: the three left, and the one given back
        db.commit()
    numbers = recorded_at(make, [recorded, failed, released, abandoned, requeued, cancelled, *ids[6:]])
    assert numbers == [1, 2, 3, 4, 5, 6, 7, 8], numbers


def test_concurrent_recorders_on_postgresql_are_numbered_in_the_order_they_commit(pg_url: str) -> None:
    """A number taken in one transaction while another holding a lower one has not committed would be seen before it:
    the second recorder waits for the first's commit, then takes the next number (without the lock both took the
    same one, and the second's commit was refused by the unique index)."""
    migrate(pg_url)
    engine = make_engine(pg_url)
    make = sessions(engine)
    try:
        first, second = queued_pairs(make, 1)
        claim_all(make, [first, second])
        outcome: list[BaseException | bool] = []

        def record_second() -> None:
            try:
                outcome.append(record_outcome(make, second, "w", result([2, 1])))
            except BaseException as exc:
                outcome.append(exc)

        with make() as db:  # the first recorder, numbered and not yet committed
            db.execute(update(Match).where(Match.id == first).values(status="done", finished_at=time.time()))
            number_recorded(db.connection(), [first])
            other = threading.Thread(target=record_second)
            other.start()
            waiting = text("SELECT count(*) FROM pg_locks WHERE NOT granted")  # the numbering lock; without it, the unique index's
            with engine.connect() as look:
                wait_for("the second recorder to wait for the first", lambda: look.execute(waiting).scalar_one() > 0, timeout=60)
            db.commit()
        other.join(60)
        assert outcome == [True], outcome
        assert recorded_at(make, [first, second]) == [1, 2]
    finally:
        engine.dispose()


def test_migration_0011_numbers_the_finished_matches_in_their_old_order_and_goes_down_again(any_url: str) -> None:
    config = alembic_config(any_url)
    command.upgrade(config, "0010")
    engine = make_engine(any_url)
    row = ("INSERT INTO matches (game, seed, num_players, options, kind, status, priority, deal, attempts, created_at, finished_at, error)"
           " VALUES ('generals-war', 1, 2, '{}', 'rated', :status, 0, :deal, 0, 1.0, :at, '')")
    # id: 1 ended at 30, 2 at 10, 3 queued, 4 at 20, 5 at 10 (with 2: the lower id first), 6 running
    rows = [("done", 30.0), ("failed", 10.0), ("queued", None), ("cancelled", 20.0), ("done", 10.0), ("running", None)]
    try:
        with engine.begin() as conn:
            for i, (status, at) in enumerate(rows):
                conn.execute(text(row), {"status": status, "deal": f"d{i}", "at": at})
        migrate(any_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT id, recorded FROM matches ORDER BY id")).all() == [
                (1, 4), (2, 1), (3, None), (4, 3), (5, 2), (6, None)
            ]
        make = sessions(engine)
        with make() as db:
            db.execute(update(Match).where(Match.id == 6).values(status="failed", finished_at=5.0))
            number_recorded(db.connection(), [6])
            db.commit()
        assert recorded_at(make, [6]) == [5], "the next after those the migration numbered, whatever its end time"
        command.downgrade(config, "0010")
        with engine.connect() as conn:
            assert "recorded" not in {c["name"] for c in inspect(conn).get_columns("matches")}
    finally:
        engine.dispose()
