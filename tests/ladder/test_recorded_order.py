"""``/api/matches?after=ID`` lists the finished matches in the order the ladder settled them (ladder/recorded.py): a
deal's matches together, once the last of them is over, so that a poller reads each once, complete (a match listed
before its twin ended came without its ranks, and the poller was never told when they came); and by the order of the
commits, not of end time (a result written after one that ended later slipped past a poller that had read that one).
Every way a match finishes numbers its deal if it was the last, concurrent twins on PostgreSQL number their deal once,
and migration 0011 numbers the matches of the deals settled before it in the order they were listed in."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

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
from ladder.recorded import number_settled
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
    return [m["id"] for m in feed(client, after, limit)]


def feed(client: TestClient, after: int, limit: int = 20) -> list[dict[str, Any]]:
    answer = client.get("/api/matches", params={"after": after, "limit": limit})
    assert answer.status_code == 200, answer.text
    return list(answer.json())


class Poller:
    """A script polling ``after``, as docs/web.md tells it: from 0, then from the last match it read, every one kept."""

    def __init__(self, client: TestClient) -> None:
        self.client, self.cursor = client, 0
        self.read: list[dict[str, Any]] = []

    def poll(self) -> list[int]:
        new = feed(self.client, self.cursor)
        self.read += new
        if new:
            self.cursor = new[-1]["id"]
        return [m["id"] for m in new]


def test_a_deal_is_in_the_feed_once_its_last_match_is_over_both_settled_and_each_read_once(
    make: sessionmaker[Session], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first match of a deal recorded is not in the feed, nor a cursor of it; its twin recorded, both are, settled
    with their ranks. A deal settled later is listed after it whatever its matches' end times."""
    first, second, third, fourth = queued_pairs(make, 2)  # deals (first, second) and (third, fourth)
    claim_all(make, [first, second, third, fourth])
    client = TestClient(create_app(LadderState(make, tmp_path, tmp_path)))
    poller = Poller(client)

    def record(match_id: int, ended: float, ranks: list[int]) -> None:
        monkeypatch.setattr(worker, "time", SimpleNamespace(time=lambda: ended))  # the recorder's clock
        assert record_outcome(make, match_id, "w", result(ranks))
        monkeypatch.undo()

    record(second, 2000.0, [1, 2])
    assert poller.poll() == [], "its twin still running: not settled, not in the feed"
    assert [m["id"] for m in client.get("/api/matches").json()] == [second], "the pages list it, unsettled"
    refused = client.get("/api/matches", params={"after": second})
    assert refused.status_code == 422 and f"match {second} is not settled yet" in refused.json()["detail"]
    record(third, 3000.0, [2, 1])
    record(first, 2500.0, [2, 1])
    assert poller.poll() == [first, second], "the deal in id order, as its last match was recorded"
    record(fourth, 1000.0, [1, 2])  # ended before every match read: by end time, the poller missed it
    assert poller.poll() == [third, fourth]
    assert poller.poll() == []
    assert [m["id"] for m in poller.read] == [first, second, third, fourth], "each read once"
    assert all(m["settled"] and m["deal"] and all(s["rank"] for s in m["seats"]) for m in poller.read), poller.read
    assert [s["rank"] for s in poller.read[1]["seats"]] == [1, 2]
    assert polled(client, second) == [third, fourth], "a match the feed gave is a cursor now"
    assert [m["id"] for m in client.get("/api/matches", params={"before": first}).json()] == [second, fourth], "the pages stay by end time"


def test_a_full_poll_names_the_next_in_the_settled_order_and_a_game_filter_keeps_it(make: sessionmaker[Session], tmp_path: Path) -> None:
    ids = queued_pairs(make, 3)
    claim_all(make, ids)
    for match_id in reversed(ids):  # recorded last id first: each deal is settled by its first match, in id order
        assert record_outcome(make, match_id, "w", result([1, 2]))
    settled = ids[4:6] + ids[2:4] + ids[0:2]
    client = TestClient(create_app(LadderState(make, tmp_path, tmp_path)))
    page = client.get("/api/matches", params={"after": 0, "limit": 4, "game": GAME})
    assert [m["id"] for m in page.json()] == settled[:4]
    assert page.headers["link"] == f'</api/matches?game={GAME}&limit=4&after={settled[3]}>; rel="next"'
    assert polled(client, settled[3], limit=4) == settled[4:]
    assert client.get("/api/matches", params={"after": 0, "game": "glory"}).json() == []


def test_every_way_the_last_match_of_a_deal_finishes_numbers_the_deal(make: sessionmaker[Session]) -> None:
    """Each deal's first match recorded (or failed) leaves it unnumbered; its last, recorded, failed by its job, given
    up after its last attempt, abandoned past its lease or cancelled while held, numbers both, in id order. A match
    given back to the queue does not."""
    ids = queued_pairs(make, 5)
    claim_all(make, ids)
    with make() as db:
        db.execute(update(Match).where(Match.id == ids[5]).values(attempts=worker.MAX_ATTEMPTS - 1))
        db.execute(update(Match).where(Match.id == ids[7]).values(attempts=worker.MAX_ATTEMPTS - 1, lease_expires=0.0))
        db.commit()
    fail_match(make, ids[0], "w", "broke")
    for match_id in ids[2::2]:
        assert record_outcome(make, match_id, "w", result([1, 2]))
    assert recorded_at(make, ids) == [None] * 10, "no deal settled yet"
    assert record_outcome(make, ids[1], "w", result([2, 1]))
    fail_match(make, ids[3], "w", "broke")
    assert release(make, ids[5], "w", count_attempt=True)
    assert reap(make) == 1
    assert release(make, ids[9], "w")
    assert recorded_at(make, ids) == [1, 2, 3, 4, 5, 6, 7, 8, None, None], "queued again: its deal not settled"
    with make() as db:
        version = db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == ids[9])).first()
        assert version is not None
        assert cancel_held(db, version, "gone", time.time()) == 1
        db.commit()
    assert recorded_at(make, ids) == list(range(1, 11))
    with make() as db:
        statuses = db.scalars(select(Match.status).where(Match.id.in_(ids)).order_by(Match.id)).all()
    assert statuses == ["failed", "done", "done", "failed", "done", "failed", "done", "failed", "done", "cancelled"]


def test_concurrent_twins_on_postgresql_number_their_deal_once_in_the_order_they_commit(pg_url: str) -> None:
    """Twins finished at once: the first, its match finished, holds the numbering lock and sees its twin running; the
    second recorder waits for the lock before it looks at the deal, so it sees the first's commit and numbers both.
    Had it looked before the lock, it saw the first still running, and the deal was never numbered."""
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

        with make() as db:  # the first twin's transaction, finished and looked at its deal, not yet committed
            db.execute(update(Match).where(Match.id == first).values(status="failed", finished_at=time.time()))
            assert number_settled(db.connection(), [first]) == [], "its twin is running"
            other = threading.Thread(target=record_second)
            other.start()
            waiting = text("SELECT count(*) FROM pg_locks WHERE NOT granted")  # the numbering lock
            with engine.connect() as look:
                wait_for("the second recorder to wait for the first", lambda: look.execute(waiting).scalar_one() > 0, timeout=60)
            db.commit()
        other.join(60)
        assert outcome == [True], outcome
        assert recorded_at(make, [first, second]) == [1, 2]
    finally:
        engine.dispose()


def test_unrated_twins_recorded_at_once_on_postgresql_leave_no_deal_unnumbered(pg_url: str) -> None:
    """Challenge twins take no rating lock, so nothing but the numbering lock orders their recorders: each pair of
    twins is recorded by two threads started together, and every deal ends numbered, once, its matches side by side."""
    migrate(pg_url)
    engine = make_engine(pg_url)
    make = sessions(engine)
    try:
        a, b = add_bots(make, [GAME], 2)
        with make() as db:
            deals = [queue_duplicate_set(db.connection(), GAME, [a, b], seed, "challenge") for seed in range(8)]
            db.commit()
        claim_all(make, [m for deal in deals for m in deal])
        for twins in deals:
            start = threading.Barrier(2)
            outcome: list[object] = []

            def record(match_id: int, start: threading.Barrier = start, outcome: list[object] = outcome) -> None:
                start.wait(30)
                try:
                    outcome.append(record_outcome(make, match_id, "w", result([1, 2])))
                except BaseException as exc:
                    outcome.append(exc)

            threads = [threading.Thread(target=record, args=(m,)) for m in twins]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(60)
            assert outcome == [True, True], outcome
        numbers = [recorded_at(make, twins) for twins in deals]
        assert numbers == [[2 * k + 1, 2 * k + 2] for k in range(len(deals))], numbers
    finally:
        engine.dispose()


def test_migration_0011_numbers_the_settled_deals_matches_in_their_old_order_and_goes_down_again(any_url: str) -> None:
    """Finished before it, the matches of a settled deal are numbered by end time, then id; those whose deal has a
    match still to play are not, until it finishes."""
    config = alembic_config(any_url)
    command.upgrade(config, "0010")
    engine = make_engine(any_url)
    row = ("INSERT INTO matches (game, seed, num_players, options, kind, status, priority, deal, attempts, created_at, finished_at, error)"
           " VALUES ('generals-war', 1, 2, '{}', 'rated', :status, 0, :deal, 0, 1.0, :at, '')")
    # id: 1 ended at 30 (a deal of its own), 2 at 10 and 4 at 20 (one deal), 3 queued, 5 at 10 and 7 at 40 with 6
    # running (one deal), 8 at 10 (with 2 and 5: the lower id first)
    rows = [("done", "a", 30.0), ("failed", "b", 10.0), ("queued", "c", None), ("cancelled", "b", 20.0),
            ("done", "e", 10.0), ("running", "e", None), ("done", "e", 40.0), ("done", "h", 10.0)]  # fmt: skip
    try:
        with engine.begin() as conn:
            for status, deal, at in rows:
                conn.execute(text(row), {"status": status, "deal": deal, "at": at})
        migrate(any_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT id, recorded FROM matches ORDER BY id")).all() == [
                (1, 4), (2, 1), (3, None), (4, 3), (5, None), (6, None), (7, None), (8, 2)
            ]
        make = sessions(engine)
        with make() as db:
            db.execute(update(Match).where(Match.id == 6).values(status="failed", finished_at=5.0))
            assert number_settled(db.connection(), [6]) == [5, 6, 7]
            db.commit()
        assert recorded_at(make, [5, 6, 7]) == [5, 6, 7], "the deal's matches next, in id order, whatever their end times"
        command.downgrade(config, "0010")
        with engine.connect() as conn:
            assert "recorded" not in {c["name"] for c in inspect(conn).get_columns("matches")}
    finally:
        engine.dispose()
