"""`arena ladder serve`: the HTTP API, the scheduler and the match workers in one process."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import house_user
from ladder.api import LadderState, create_app
from ladder.db import default_url, make_engine, migrate, sessions
from ladder.models import Bot, BotVersion, Match
from ladder.scheduler import fill_queue
from ladder.submissions import SAMPLE_BOTS, submit
from ladder.upload import zip_directory
from ladder.worker import WorkerConfig, claim, fail_match, play_match, reap
from referee.server.manifest import load_manifest
from referee.server.session import TimeControl

log = logging.getLogger("arena.ladder")


@dataclass
class LadderConfig:
    data_dir: Path
    url: str | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    workers: int = 2
    samples: bool = True
    games: list[str] | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    lease_seconds: float = 60.0
    seed: int | None = None
    sandbox: str = "process"

    @property
    def db_url(self) -> str:
        return self.url or default_url(self.data_dir)


def open_db(config: LadderConfig) -> sessionmaker[Session]:
    config.data_dir.mkdir(parents=True, exist_ok=True)
    migrate(config.db_url)
    return sessions(make_engine(config.db_url))


async def register_samples(make: sessionmaker[Session], store: Path, games: list[str] | None, sandbox: str = "process") -> None:
    """Submit every sample bot as the house user, once per version."""
    with make() as db:
        house = house_user(db)
    for path in sorted(p for p in SAMPLE_BOTS.iterdir() if (p / "bot.toml").exists()):
        manifest = load_manifest(path)
        if games and not set(manifest.games) & set(games):
            continue
        if manifest.language != "python":
            continue
        with make() as db:
            known = db.scalar(
                select(BotVersion.id).join(Bot, Bot.id == BotVersion.bot_id).where(
                    Bot.name == manifest.name, BotVersion.version == manifest.version, BotVersion.status == "active"
                )
            )
        if known is None:
            outcome = await submit(make, store, house, zip_directory(path), sandbox=sandbox)
            log.info("sample bot %s %s: %s", manifest.name, manifest.version, "active" if outcome.accepted else outcome.reason)


class Ladder:
    def __init__(self, config: LadderConfig) -> None:
        self.config = config
        self.make = open_db(config)
        self.store = config.data_dir / "bots"
        self.store.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(config.seed)
        self.worker_config = WorkerConfig(self.store, config.data_dir, config.time_control, config.lease_seconds, config.sandbox)
        self.owner_prefix = f"{socket.gethostname()}-{os.getpid()}"
        self.matches_played = 0

    async def worker(self, index: int) -> None:
        owner = f"{self.owner_prefix}-{index}"
        while True:
            match_id = claim(self.make, owner, self.config.lease_seconds)
            if match_id is None:
                await asyncio.sleep(0.2)
                continue
            try:
                if await play_match(self.make, match_id, owner, self.worker_config):
                    self.matches_played += 1
            except asyncio.CancelledError:
                self._release(owner)
                raise
            except Exception as exc:  # a broken match must not stop the ladder
                log.exception("match %s failed", match_id)
                fail_match(self.make, match_id, owner, f"{type(exc).__name__}: {exc}")

    def _release(self, owner: str) -> None:
        """On a clean shutdown, hand running matches straight back to the queue."""
        with self.make() as db:
            db.execute(update(Match).where(Match.status == "running", Match.lease_owner == owner).values(status="queued", lease_owner=None, lease_expires=None))
            db.commit()

    async def scheduler(self) -> None:
        while True:
            reap(self.make)
            with self.make() as db:
                fill_queue(db, self.rng, target=max(4, 2 * self.config.workers), games=self.config.games)
            await asyncio.sleep(0.5)

    def _clear_interrupted_validations(self) -> None:
        """Versions left validating by a ladder that died long ago will never finish: reject them."""
        stale = time.time() - 15 * 60
        with self.make() as db:
            db.execute(
                update(BotVersion)
                .where(BotVersion.status == "validating", BotVersion.created_at < stale)
                .values(status="rejected", reason="validation was interrupted; submit again")
            )
            db.commit()

    async def run(self, serve_http: bool = True) -> None:
        self._clear_interrupted_validations()
        if self.config.samples:
            await register_samples(self.make, self.store, self.config.games, self.config.sandbox)
        tasks = [asyncio.create_task(self.scheduler())]
        tasks += [asyncio.create_task(self.worker(i)) for i in range(self.config.workers)]
        try:
            if serve_http:
                app = create_app(LadderState(self.make, self.store, self.config.data_dir, sandbox=self.config.sandbox))
                server = uvicorn.Server(uvicorn.Config(app, host=self.config.host, port=self.config.port, log_level="warning"))
                await server.serve()
            else:
                await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def count_done(make: sessionmaker[Session]) -> int:
    with make() as db:
        return len(db.scalars(select(Match.id).where(Match.status == "done")).all())
