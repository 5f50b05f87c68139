"""The ladder's pages and API answer while its executor is still starting (a Dask LocalCluster's start, a first try to
reach a remote scheduler): they read the database alone, and waited for it."""

from __future__ import annotations

import asyncio
import socket
import urllib.error
import urllib.request
from pathlib import Path

from ladder.service import Ladder, LadderConfig
from tests.ladder.conftest import HeldExecutor
from tests.waiting import until


class SlowToStart(HeldExecutor):
    """An executor whose start lasts until the test lets it end (``go``)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()
        self.starting = False
        self.started = False

    async def start(self) -> None:
        self.starting = True
        await self.go.wait()
        self.started = True


def status_of(url: str) -> int | None:
    """The status of a GET of ``url``, or None if nothing answers there (yet)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code
    except OSError:
        return None


async def answered(url: str, timeout: float = 60) -> int:
    """The status of ``url`` once something answers there, asked from a thread: the ladder's loop goes on meanwhile."""
    async with asyncio.timeout(timeout):
        while (status := await asyncio.to_thread(status_of, url)) is None:
            await asyncio.sleep(0.1)
    return status


def test_the_pages_and_the_api_answer_while_the_executor_starts(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    executor = SlowToStart()
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], port=port), executor=executor)
    base = f"http://127.0.0.1:{port}"

    async def go() -> None:
        running = asyncio.create_task(ladder.run(serve_http=True))
        try:
            assert await answered(f"{base}/api/health") == 200
            assert executor.starting and not executor.started, "answered while the executor was starting"
            for path in ("/", "/api/games/generals-war/standings", "/api/matches", "/metrics"):
                assert await answered(base + path) == 200, path
            assert not executor.started
            executor.go.set()
            await until("the executor's start", lambda: executor.started, timeout=60)
            assert await answered(f"{base}/api/health") == 200
            assert not running.done()
        finally:
            executor.go.set()
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)

    asyncio.run(go())

