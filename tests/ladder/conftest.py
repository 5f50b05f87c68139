"""A ladder on a temporary SQLite database, with helpers to submit bots and play queued matches."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import socket
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.db import default_url
from ladder.jobs import JobOutcome, MatchJob
from ladder.models import BotVersion, Match, MatchSeat, Rating, RatingChange
from ladder.service import Ladder, LadderConfig
from referee.server.session import TimeControl
from tests.support import ROOT, SAMPLE_BOTS
from tests.waiting import until as until
from tests.waiting import wait_for as wait_for

NOISY = ROOT / "tests" / "bots" / "gw_noisy"


#: The PostgreSQL server's URL (.ci/run starts a throwaway cluster and sets it); without it, the tests that need
#: one skip, except under CI (the CI variable set), where they fail.
PG_ENV = "ARENA_TEST_PG_URL"


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the PostgreSQL tests cannot run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def pg_url() -> Iterator[str]:
    """The URL of a new, empty database on the test server, dropped after."""
    base = os.environ.get(PG_ENV)
    if not base:
        unavailable(f"{PG_ENV} is not set (e.g. postgresql+psycopg://postgres@127.0.0.1:5432/postgres)")
        return
    url = make_url(base)
    name = f"arena_t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    except OperationalError as exc:
        admin.dispose()
        unavailable(f"no PostgreSQL at {url.render_as_string(hide_password=True)}: {exc}")
        return
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def any_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: an SQLite file, then one on the PostgreSQL server."""
    if request.param == "sqlite":
        return default_url(tmp_path)
    return str(request.getfixturevalue("pg_url"))


def check_rated_once(db: Session) -> int:
    """Every done match rated exactly once, alone or with its duplicate set, and each bot's games counting the
    matches rated; a done match not rated yet must have a set not finished. Challenges are never rated
    (ladder/scheduler.py ``UNRATED``). Returns how many matches were rated."""
    from ladder.scheduler import UNRATED

    games: Counter[tuple[int, str]] = Counter()
    rated = 0
    for m in db.scalars(select(Match).where(Match.status == "done")).all():
        if m.kind in UNRATED:
            assert m.rated_with is None and not db.scalar(select(func.count()).select_from(RatingChange).where(RatingChange.match_id == m.id))
            continue
        changes = db.scalar(select(func.count()).select_from(RatingChange).where(RatingChange.match_id == m.id))
        if m.rated_with is None:
            assert changes == 0, f"match {m.id} has rating changes but is not marked rated"
            others = db.scalars(select(Match.status).where(Match.deal == m.deal, Match.id != m.id)).all()
            assert any(status in ("queued", "running", "failed") for status in others), f"match {m.id}: its set is over, it was never rated"
            continue
        rater = db.get_one(Match, m.rated_with)
        assert rater.deal == m.deal and rater.rated_with == rater.id
        rater_changes = db.scalar(select(func.count()).select_from(RatingChange).where(RatingChange.match_id == rater.id))
        assert rater_changes == rater.num_players, f"match {rater.id} rated {rater_changes} times for {rater.num_players} seats"
        assert changes == (m.num_players if m.id == rater.id else 0)
        for version_id in db.scalars(select(MatchSeat.bot_version_id).where(MatchSeat.match_id == m.id)):
            games[(version_id, m.game)] += 1
        rated += 1
    for rating in db.scalars(select(Rating)).all():
        assert rating.games == games[(rating.bot_version_id, rating.game)], f"version {rating.bot_version_id}: games {rating.games}"
    return rated


class HeldExecutor:
    """An executor of the tests: it keeps the jobs handed to it, and each comes back as ``outcome`` says, at once
    (None: never, as a job in other hands, at Dask, until they report)."""

    name = "held"
    remote = False

    def __init__(self, outcome: Callable[[MatchJob], JobOutcome | None] = lambda job: None) -> None:
        self.outcome = outcome
        self.jobs: list[MatchJob] = []

    async def start(self) -> None:
        pass

    async def capacity(self) -> int:
        return 1

    def submit(self, job: MatchJob) -> asyncio.Future[JobOutcome]:
        self.jobs.append(job)
        future: asyncio.Future[JobOutcome] = asyncio.get_running_loop().create_future()
        if (outcome := self.outcome(job)) is not None:
            future.set_result(outcome)
        return future

    def room(self) -> None:
        return None

    def trouble(self) -> None:
        return None

    async def close(self) -> None:
        pass

    def describe(self) -> str:
        return self.name


def named_copy(into: Path, name: str, bot: Path = SAMPLE_BOTS / "generals_war_greedy") -> Path:
    """A copy of a sample bot under a name of its own (a sample's name belongs to the house user), in ``into``/``name``."""
    folder = into / name
    shutil.copytree(bot, folder)
    manifest = folder / "bot.toml"
    manifest.write_text("\n".join(f'name = "{name}"' if line.startswith("name") else line for line in manifest.read_text().splitlines()) + "\n")
    return folder


def enter(ladder: Ladder, bots: list[Path], validate: bool = True) -> list[int]:
    """Submit ``bots`` through the API as a new owner (validated in this process unless told not to); returns the active version ids."""
    from ladder.upload import zip_directory

    app = create_app(LadderState(ladder.make, ladder.store, ladder.config.data_dir, validate=validate))
    with TestClient(app) as client:
        with ladder.make() as db:
            token = add_user(db, f"owner-{random.randrange(10**9)}")
        for bot in bots:
            reply = client.post("/api/bots", content=zip_directory(bot), headers={"Authorization": f"Bearer {token}"})
            assert reply.status_code == 201 and reply.json()["accepted"], reply.text
    with ladder.make() as db:
        return list(db.scalars(select(BotVersion.id).where(BotVersion.status == "active").order_by(BotVersion.id)))


@dataclass
class LadderFixture:
    ladder: Ladder
    client: TestClient
    tmp: Path

    @property
    def make(self) -> sessionmaker[Session]:
        return self.ladder.make

    def user(self, name: str) -> dict[str, str]:
        with self.make() as db:
            return {"Authorization": f"Bearer {add_user(db, name)}"}

    def submit(self, headers: dict[str, str], bot_dir: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
        from ladder.upload import zip_directory

        response = self.client.post("/api/bots", content=zip_directory(bot_dir), headers=headers)
        return response.status_code, response.json()

    def play(self, matches: int, timeout: float = 240, until: Callable[[], bool] = lambda: True) -> None:
        """Run the scheduler and workers until ``matches`` more matches are done (and ``until()`` holds).

        ``until`` lets a test wait for its own notes of the ladder's work: a match is done in the database
        a moment before the ladder's code that recorded it has returned, and stopping the ladder in between
        would cancel that code.
        """
        from ladder.service import count_done

        target = count_done(self.make) + matches

        async def go() -> None:
            runner = asyncio.create_task(self.ladder.run(serve_http=False))
            try:
                async with asyncio.timeout(timeout):
                    while count_done(self.make) < target or not until():
                        if runner.done():  # the ladder stopped: its error, not a wait for the timeout
                            runner.result()
                            raise AssertionError("the ladder stopped before the matches were played")
                        await asyncio.sleep(0.2)
            finally:
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)

        asyncio.run(go())

    def noisy_bot(self, name: str, noise: float) -> Path:
        path = self.tmp / "bots" / name
        shutil.copytree(NOISY, path)
        greedy = SAMPLE_BOTS / "generals_war_greedy" / "bot.py"
        (path / "bot.toml").write_text(
            f'name = "{name}"\nversion = "1"\nlanguage = "python"\ngames = ["generals-war"]\n'
            f'command = ["python", "bot.py", "{noise}", "{greedy}"]\n'
        )
        return path


@pytest.fixture
def ladder(tmp_path: Path) -> Iterator[LadderFixture]:
    config = LadderConfig(tmp_path / "data", workers=2, samples=False, games=["generals-war"], time_control=TimeControl(move_time_ms=2000), seed=1)
    instance = Ladder(config)
    app = create_app(LadderState(instance.make, instance.store, config.data_dir))
    with TestClient(app) as client:
        yield LadderFixture(instance, client, tmp_path)


@pytest.fixture
def server(ladder: LadderFixture) -> Iterator[str]:
    """The ladder's HTTP API served on a free port of localhost, for the terminal commands; its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    state = LadderState(ladder.make, ladder.ladder.store, ladder.ladder.config.data_dir)
    uv = uvicorn.Server(uvicorn.Config(create_app(state), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    while not uv.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    uv.should_exit = True
    thread.join(10)
