"""A ladder on a temporary SQLite database, with helpers to submit bots and play queued matches."""

from __future__ import annotations

import asyncio
import random
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from ladder.accounts import add_user
from ladder.api import LadderState, create_app
from ladder.models import BotVersion
from ladder.service import Ladder, LadderConfig
from referee.server.session import TimeControl
from tests.support import ROOT, SAMPLE_BOTS

NOISY = ROOT / "tests" / "bots" / "gw_noisy"


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

    def play(self, matches: int, timeout: float = 240) -> None:
        """Run the scheduler and workers until ``matches`` more matches are done."""
        from ladder.service import count_done

        target = count_done(self.make) + matches

        async def go() -> None:
            runner = asyncio.create_task(self.ladder.run(serve_http=False))
            try:
                async with asyncio.timeout(timeout):
                    while count_done(self.make) < target:
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
