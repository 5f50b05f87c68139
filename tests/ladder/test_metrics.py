"""GET /metrics: the ladder's Prometheus metrics, against a ladder that played real matches."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.api import LadderState, create_app
from ladder.db import make_engine
from ladder.metrics import OUTCOMES, LadderMetrics
from ladder.models import VERSION_STATUSES, BotVersion, Match
from tests.ladder.conftest import LadderFixture, enter
from tests.support import SAMPLE_BOTS


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: TestClient) -> Samples:
    reply = client.get("/metrics")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
    return samples(reply.text)


def samples(text: str) -> Samples:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def no_database(tmp_path: Path) -> sessionmaker[Session]:
    """A database out of reach: SQLite cannot create a file in a folder that is not there."""
    return sessionmaker(make_engine(f"sqlite:///{tmp_path / 'no-such-folder' / 'ladder.db'}"))


def test_the_metrics_count_what_the_ladder_played_and_what_its_database_holds(ladder: LadderFixture) -> None:
    enter(ladder.ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    registry = ladder.ladder.metrics.registry
    ladder.play(4, until=lambda: (registry.get_sample_value("arena_match_outcomes_total", {"outcome": "recorded"}) or 0) >= 4)
    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir, metrics=ladder.ladder.metrics))
    with TestClient(app) as client:
        got = scrape(client)
    with ladder.make() as db:
        done = db.scalar(select(func.count()).where(Match.status == "done"))
        queued = db.scalar(select(func.count()).where(Match.status == "queued"))
        active = db.scalar(select(func.count()).where(BotVersion.status == "active"))
    recorded = got[("arena_match_outcomes_total", (("outcome", "recorded"),))]
    assert recorded >= 4 and recorded == ladder.ladder.matches_played
    assert got[("arena_match_duration_seconds_count", ())] == recorded
    assert got[("arena_match_outcomes_total", (("outcome", "no_result"),))] == 0  # every series is there from the start
    assert got[("arena_matches", (("status", "done"),))] == done and done >= 4
    assert got[("arena_matches", (("status", "queued"),))] == queued
    assert got[("arena_matches", (("status", "failed"),))] == 0
    assert got[("arena_bot_versions", (("status", "active"),))] == active == 2
    assert got[("arena_database_up", ())] == 1 and got[("arena_submissions_in_progress", ())] == 0
    assert got[("arena_matches_expired_leases", ())] == 0


def test_every_status_is_there_from_the_start_at_0(ladder: LadderFixture) -> None:
    """A suspended version's series was missing until the first suspension: a graph of it showed no data, not 0."""
    got = scrape(ladder.client)
    for status in ("queued", "running", "done", "failed"):
        assert got[("arena_matches", (("status", status),))] == 0, status
    for status in VERSION_STATUSES:
        assert got[("arena_bot_versions", (("status", status),))] == 0, status


def test_a_lease_past_its_time_shows(ladder: LadderFixture) -> None:
    enter(ladder.ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    ladder.play(1)
    with ladder.make() as db:
        first = db.scalar(select(Match.id).where(Match.status == "done").order_by(Match.id).limit(1))
        db.execute(update(Match).where(Match.id == first).values(status="running", lease_owner="gone", lease_expires=1.0))
        db.commit()
    got = scrape(ladder.client)
    assert got[("arena_matches_expired_leases", ())] == 1 and got[("arena_matches", (("status", "running"),))] >= 1


def test_a_database_out_of_reach_is_told_not_a_failed_scrape(tmp_path: Path) -> None:
    with TestClient(create_app(LadderState(no_database(tmp_path), tmp_path / "bots", tmp_path))) as client:
        got = scrape(client)
    assert got[("arena_database_up", ())] == 0
    assert not any(name == "arena_matches" for name, _ in got)


def test_a_database_server_that_never_answers_fails_the_scrape_s_query_in_seconds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PostgreSQL server out of reach held the connection attempt (and the scrape) for TCP's own minutes."""
    import socket
    import threading
    import time

    import ladder.db

    monkeypatch.setattr(ladder.db, "CONNECT_TIMEOUT_S", 1)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections are taken in, and nothing is ever said on them
    try:
        make = sessionmaker(make_engine(f"postgresql+psycopg://u@127.0.0.1:{silent.getsockname()[1]}/x"))
        got: Samples = {}

        def scrape_it() -> None:
            with TestClient(create_app(LadderState(make, tmp_path / "bots", tmp_path))) as client:
                got.update(scrape(client))

        started = time.monotonic()
        worker = threading.Thread(target=scrape_it, daemon=True)
        worker.start()
        worker.join(timeout=30)
        assert not worker.is_alive(), "the scrape still waited for the database after 30 s"
        assert got[("arena_database_up", ())] == 0 and time.monotonic() - started < 30
    finally:
        silent.close()


def test_each_outcome_is_counted_under_its_own_name_and_only_a_recorded_match_s_time_is_timed(tmp_path: Path) -> None:
    """A match lost or failed is not one the ladder played to its end: its seconds are not a played match's."""
    metrics = LadderMetrics(no_database(tmp_path))
    metrics.count("recorded", 3.0)
    metrics.count("lost", 40.0)
    metrics.count("failed", 7.0)
    metrics.count("failed")
    metrics.count("recorded")  # recorded, its time unknown
    got = metrics.registry.get_sample_value
    assert {o: got("arena_match_outcomes_total", {"outcome": o}) for o in OUTCOMES} == {o: {"recorded": 2, "lost": 1, "failed": 2}.get(o, 0) for o in OUTCOMES}
    assert got("arena_match_duration_seconds_count") == 1 and got("arena_match_duration_seconds_sum") == 3.0


def test_submissions_in_progress_counts_each_upload_and_an_app_made_again_reads_its_own(ladder: LadderFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two uploads of one owner being validated are 2 (not the 1 owner who sent them). A second app on the ladder's
    metrics (a ladder run again serves a new one) counts its own uploads: it had to, not fail as a series registered twice."""
    import asyncio

    import httpx

    import ladder.submissions as submissions
    from tests.ladder.test_submissions import BOT_PY, archive, manifest

    metrics = LadderMetrics(ladder.make)
    create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir, metrics=metrics))
    app = create_app(LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir, metrics=metrics))
    alice = ladder.user("alice")

    async def scenario() -> tuple[Samples, Samples]:
        started: list[str] = []
        release = asyncio.Event()

        async def validation(bot_dir: Path, *args: object, **kwargs: object) -> tuple[str, str]:
            started.append(bot_dir.parent.name)
            await release.wait()
            return "", ""

        monkeypatch.setattr(submissions, "validation_matches", validation)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://ladder") as client:
            held = [
                asyncio.ensure_future(client.post("/api/bots", content=archive(("bot.toml", manifest(f"held-{i}")), ("bot.py", BOT_PY)), headers=alice))
                for i in range(2)
            ]
            async with asyncio.timeout(30):
                while len(started) < 2:
                    await asyncio.sleep(0.01)
            during = samples((await client.get("/metrics")).text)
            release.set()
            assert [reply.status_code for reply in await asyncio.gather(*held)] == [201, 201]
            after = samples((await client.get("/metrics")).text)
        return during, after

    during, after = asyncio.run(scenario())
    assert during[("arena_submissions_in_progress", ())] == 2 and after[("arena_submissions_in_progress", ())] == 0
