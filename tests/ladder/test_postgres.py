"""The ladder on a real PostgreSQL server: the same migrations as SQLite, submissions, matches recorded once, ratings rebuilt.

The server's URL comes from ARENA_TEST_PG_URL (tests/ladder/conftest.py ``pg_url``);
every test gets a database of its own, dropped after.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from sqlalchemy import func, inspect, select

from ladder.accounts import add_user
from ladder.backup import back_up
from ladder.api import LadderState, create_app
from ladder.db import alembic_config, make_engine, migrate, sessions
from ladder.jobs import REPLAY_FILE
from ladder.models import Base, BotVersion, Match, MatchFile, MatchSeat, Rating, RatingChange
from ladder.rebuild import mismatches
from ladder.scheduler import add_duplicate_set
from ladder.service import Ladder, LadderConfig
from ladder.upload import zip_directory
from ladder.worker import Claimed, anything_queued, claim, claim_next, record_outcome
from referee.server.runner import MatchSetup, run_local_match
from referee.server.session import TimeControl
from tests.ladder.conftest import check_rated_once, enter
from tests.support import SAMPLE_BOTS

GAME = "generals-war"


def test_the_migrations_build_the_models_schema_and_go_down_and_up_again(any_url: str) -> None:
    migrate(any_url)
    engine = make_engine(any_url)
    try:
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
            assert "match_files" in inspect(conn).get_table_names()
        command.downgrade(alembic_config(any_url), "0001")
        with engine.connect() as conn:
            assert "match_files" not in inspect(conn).get_table_names()
            assert "played_by" not in {c["name"] for c in inspect(conn).get_columns("matches")}
        migrate(any_url)
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    finally:
        engine.dispose()


@pytest.mark.parametrize("keep", ["files", "database"])
def test_the_ladder_on_postgresql_records_every_match_once(pg_url: str, tmp_path: Path, keep: str) -> None:
    config = LadderConfig(tmp_path / "data", url=pg_url, workers=2, samples=False, games=[GAME], time_control=TimeControl(move_time_ms=2000), seed=3, keep=keep)
    ladder = Ladder(config)
    app = create_app(LadderState(ladder.make, ladder.store, config.data_dir))
    with TestClient(app) as client:
        with ladder.make() as db:
            alice, bob = add_user(db, "alice"), add_user(db, "bob")
        for token, bot in ((alice, SAMPLE_BOTS / "generals_war_greedy"), (bob, SAMPLE_BOTS / "random")):
            reply = client.post("/api/bots", content=zip_directory(bot), headers={"Authorization": f"Bearer {token}"})
            assert reply.status_code == 201 and reply.json()["accepted"], reply.text
        refused = client.post("/api/bots", content=zip_directory(SAMPLE_BOTS / "random"), headers={"Authorization": f"Bearer {alice}"})
        assert refused.status_code == 403

        async def play(n: int) -> None:
            runner = asyncio.create_task(ladder.run(serve_http=False))
            try:
                async with asyncio.timeout(240):
                    while ladder.matches_played < n:
                        await asyncio.sleep(0.2)
            finally:
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)

        asyncio.run(play(10))
        with ladder.make() as db:
            assert mismatches(db) == []
            done = db.scalars(select(Match).where(Match.status == "done")).all()
            assert len(done) >= 10
            assert check_rated_once(db) >= 8
            assert not db.scalars(select(Match.id).where(Match.status == "running")).all()
            stored = db.scalar(select(func.count()).select_from(MatchFile).where(MatchFile.name == REPLAY_FILE))
            assert stored == (len(done) if keep == "database" else 0)
        standings = client.get(f"/api/games/{GAME}/standings").json()
        assert sorted(r["bot"] for r in standings) == ["gw-greedy", "random"] and all(r["games"] >= 10 for r in standings)
        # The latest match whose deal is over: a match's replay and logs are held back while its twin is still to play.
        last = next(m for m in client.get("/api/matches", params={"limit": 20}).json() if m["settled"])
        replay = client.get(f"/api/matches/{last['id']}/replay").json()
        assert replay["format"] == "arena-replay" and replay["seed"] == last["seed"]
        frames = client.get(f"/api/matches/{last['id']}/frames", params={"seat": "0"}).json()
        assert len(frames["frames"]) == len(replay["actions"]) + 1
        greedy_seat = next(s["seat"] for s in last["seats"] if s["bot"] == "gw-greedy")
        log = client.get(f"/api/matches/{last['id']}/logs/{greedy_seat}", headers={"Authorization": f"Bearer {alice}"})
        assert log.status_code == 200 and isinstance(log.json()["log"], str)
    # A backup of a PostgreSQL ladder copies its files and leaves the database to pg_dump.
    copy = back_up(pg_url, config.data_dir, tmp_path / "backup")
    assert not copy.database and (copy.folder / "bots" / "gw-greedy" / "1" / "bot.toml").is_file()
    if keep == "files":
        with ladder.make() as db:
            kept = db.scalar(select(Match.replay_path).where(Match.id == last["id"]))
        assert kept and not Path(kept).is_absolute() and (copy.folder / kept).is_file()  # named within the data folder
        assert client.get(f"/api/matches/{last['id']}/logs/{greedy_seat}", headers={"Authorization": f"Bearer {bob}"}).status_code == 403


def test_two_recorders_of_one_match_at_once_count_it_once(pg_url: str, tmp_path: Path) -> None:
    """A retried task and the original, both holding the lease, record at the same moment: one wins, on row locks."""
    config = LadderConfig(tmp_path / "data", url=pg_url, samples=False, games=[GAME])
    ladder = Ladder(config)
    versions = enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    assert len(versions) == 2
    with ladder.make() as db:
        pair = [m.id for m in add_duplicate_set(db, GAME, versions, 7, "rated")]
        db.commit()
    played = asyncio.run(run_local_match(MatchSetup(GAME, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], 7, {}, TimeControl(), tmp_path / "logs")))
    owners = {}
    for _ in pair:
        owner = f"test-{uuid.uuid4().hex[:6]}"
        owners[claim(ladder.make, owner, 60)] = owner
    assert set(owners) == set(pair)
    # Four recorders at once: two per match of the duplicate pair (whose seats lock the same ratings crosswise).
    results: dict[tuple[int, int], bool] = {}
    barrier = threading.Barrier(4)

    def record(match_id: int, copy: int) -> None:
        engine = make_engine(pg_url)
        barrier.wait(timeout=30)
        results[(match_id, copy)] = record_outcome(sessions(engine), match_id, owners[match_id], played.record.result, files={REPLAY_FILE: b"{}"}, played_by=f"copy{copy}")
        engine.dispose()

    threads = [threading.Thread(target=record, args=(m, c), daemon=True) for m in pair for c in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    for match_id in pair:
        assert sorted(results[(match_id, c)] for c in (0, 1)) == [False, True]
    with ladder.make() as db:
        assert mismatches(db) == []
        assert db.scalar(select(func.count()).select_from(RatingChange).where(RatingChange.match_id.in_(pair))) == 2, "the pair is rated once"
        assert check_rated_once(db) == 2
        for match_id in pair:
            assert db.scalar(select(func.count()).select_from(MatchFile).where(MatchFile.match_id == match_id)) == 1
        assert [r.games for r in db.scalars(select(Rating).where(Rating.game == GAME))] == [2, 2]


def test_dask_workers_record_into_postgresql(pg_url: str, tmp_path: Path) -> None:
    """A LocalCluster of two workers writing results, replays and logs into PostgreSQL; ratings rebuild equal."""
    from tests.ladder.conftest import wait_for
    from tests.ladder.test_dask import check_recorded_once, done_count, make_ladder, running

    ladder = make_ladder(tmp_path, url=pg_url, dask_workers=2)
    enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"])
    with running(ladder):
        wait_for("matches played by the workers", lambda: done_count(ladder.make) >= 12, timeout=240)
    done = check_recorded_once(ladder.make)
    assert len({m.played_by for m in done}) == 2


def test_the_backup_command_of_a_postgresql_ladder_says_the_copy_needs_its_database(pg_url: str, tmp_path: Path) -> None:
    """`serve --data COPY` alone, as it advised, started an empty ladder in a new SQLite file beside the copied bots."""
    from typer.testing import CliRunner

    from arena.cli.main import app

    data = tmp_path / "data"
    (data / "bots").mkdir(parents=True)
    migrate(pg_url)
    result = CliRunner().invoke(app, ["ladder", "backup", str(tmp_path / "copy"), "--data", str(data), "--db", pg_url])
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    assert f"`arena ladder serve --data {tmp_path / 'copy'} --db URL` serves the copy" in said and "pg_dump" in said, said


def test_claimers_racing_take_every_queued_match_exactly_once(any_url: str, tmp_path: Path) -> None:
    """Six claimers at once, each on its own engine, until the queue is empty: no match twice, none left (both databases).

    Under READ COMMITTED two claimers pick the same first queued match; the one that waited on the row lock sees the
    other's commit, its status check fails, and it tries the next. A claim that skipped the status re-check, or
    picked without ordering, would hand a match to two workers (played twice) or leave one queued.
    """
    config = LadderConfig(tmp_path / "data", url=any_url, samples=False, games=[GAME])
    ladder = Ladder(config)
    versions = enter(ladder, [SAMPLE_BOTS / "generals_war_greedy", SAMPLE_BOTS / "random"], validate=False)
    with ladder.make() as db:
        queued = [m.id for seed in range(15) for m in add_duplicate_set(db, GAME, versions, seed, "rated")]
        seats: dict[int, list[tuple[int, str]]] = {}
        rows = db.execute(select(MatchSeat.match_id, MatchSeat.bot_version_id, BotVersion.path).join(BotVersion).order_by(MatchSeat.match_id, MatchSeat.seat))
        for match_id, version_id, path in rows:
            seats.setdefault(match_id, []).append((version_id, path))
        db.commit()
    taken: dict[str, list[Claimed]] = {}
    barrier = threading.Barrier(6)

    def take(owner: str) -> None:
        engine = make_engine(any_url)
        make = sessions(engine)
        mine: list[Claimed] = []
        barrier.wait(timeout=30)
        while True:
            got = claim_next(make, owner, 60)
            if got is not None:
                mine.append(got)
                continue
            with make() as db:  # five lost races in a row give None with matches still queued: go on
                if not anything_queued(db.connection()):
                    break
        taken[owner] = mine
        engine.dispose()

    threads = [threading.Thread(target=take, args=(f"claimer{i}",), daemon=True) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(taken) == 6, "a claimer did not finish"
    got = [c.match_id for mine in taken.values() for c in mine]
    assert sorted(got) == sorted(queued), "a match claimed twice, or one left"
    with ladder.make() as db:
        for owner, mine in taken.items():
            for c in mine:
                m = db.get_one(Match, c.match_id)
                assert (m.status, m.lease_owner) == ("running", owner), "the row's lease is not the claimer's"
                assert list(c.seats) == seats[c.match_id] and c.game == GAME and c.seed == m.seed


def test_a_name_no_database_holds_is_no_bot_s_not_a_500(any_url: str, tmp_path: Path) -> None:
    """PostgreSQL's text cannot hold NUL, and psycopg refused to send one: every lookup by a name from the address or a
    challenge's body was a 500 there (SQLite compared it, and found nothing); a lone surrogate from a challenge's JSON
    was a 500 on both. Found by tests/ladder/test_api_fuzz.py."""
    ladder = Ladder(LadderConfig(tmp_path / "data", url=any_url, samples=False, games=[GAME]))
    with ladder.make() as db:
        token = add_user(db, "olga")
    owner = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(LadderState(ladder.make, ladder.store, ladder.config.data_dir, validate=False))) as client:
        for path in ("/api/bots/a%00", "/api/bots/a%00/history?game=" + GAME, "/api/bots/a%00/crosstable", "/api/matches?bot=a%00"):
            reply = client.get(path)
            assert reply.status_code == 404 and reply.json()["detail"] == "no bot 'a\\x00'", (path, reply.text)
        page = client.get("/bots/a%00")
        assert page.status_code == 404 and "There is no bot" in page.text
        withdrawn = client.post("/api/bots/a%00/withdraw", headers=owner)
        assert withdrawn.status_code == 404 and withdrawn.json()["detail"] == "no bot 'a\\x00'", withdrawn.text
        for name in ("a\x00", "\ud800"):  # a lone surrogate, which JSON may send ("\ud800"), is not UTF-8 for either driver
            body = json.dumps({"bot": name, "opponent": "b", "game": GAME})
            challenged = client.post("/api/challenges", content=body, headers={**owner, "Content-Type": "application/json"})
            assert challenged.status_code == 422 and challenged.json()["detail"] == f"no active bot named {name!r}", challenged.text


#: Run in a process of its own: bring_up, its migrations paused once Alembic has read the schema's revision, until the
#: test lets them go on (or 4 s pass).
SLOW_BRING_UP = """
import pathlib, sys, time
from alembic.runtime.migration import MigrationContext
import ladder.db as db
url, looked, go_on = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
read_heads, migrate, migrating = MigrationContext.get_current_heads, db.migrate, []
def heads(self):
    found = read_heads(self)
    if migrating and not looked.exists():
        looked.touch()
        deadline = time.monotonic() + 4
        while not go_on.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return found
def marked(u):
    migrating.append(u)
    migrate(u)
MigrationContext.get_current_heads, db.migrate = heads, marked
db.bring_up(url, True)
"""


def test_two_starts_at_once_on_a_new_database_make_its_schema_once_and_both_go_on(pg_url: str, tmp_path: Path) -> None:
    """The second waits for the first's migrations, then finds the schema made: it failed with the server's
    'duplicate key value violates unique constraint "pg_type_typname_nsp_index"' as both made the same tables."""
    import subprocess
    import sys
    import time

    looked, go_on = tmp_path / "looked", tmp_path / "go-on"
    first = subprocess.Popen([sys.executable, "-c", SLOW_BRING_UP, pg_url, str(looked), str(go_on)], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not looked.exists():
            assert first.poll() is None and time.monotonic() < deadline, first.stderr.read() if first.stderr else ""
            time.sleep(0.05)
        second = subprocess.run([sys.executable, "-c", "import sys, ladder.db as db; db.bring_up(sys.argv[1], True)", pg_url],
                                capture_output=True, text=True, timeout=60)
        go_on.touch()
        _, first_err = first.communicate(timeout=60)
    finally:
        first.kill()
    assert first.returncode == 0, first_err
    assert second.returncode == 0, second.stderr
    assert "waiting for it" in second.stderr  # said, not a silent wait
    engine = make_engine(pg_url)
    try:
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    finally:
        engine.dispose()
