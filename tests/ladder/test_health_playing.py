"""/api/health says how many matches the ladder can play and why it plays none, and /api/health/matches fails then.

It answered 200 "ok" and nothing more while the ladder played nothing (every Dask worker gone, its data folder
gone): a probe was told all was well, and only the log, said once, told otherwise.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from distributed import Scheduler, Worker

from ladder.executors import RESOURCE, DaskExecutor
from ladder.service import Ladder, LadderConfig


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, dict[str, Any]]:
    """The status and JSON body of a GET of ``url``."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status), json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


async def answer_of(url: str) -> tuple[int, dict[str, Any]] | None:
    """``get`` from a thread (the ladder's loop goes on meanwhile); None while nothing listens there yet."""
    try:
        return await asyncio.to_thread(get, url)
    except OSError:
        return None


async def health_becomes(base: str, check: Any, what: str, timeout: float = 60) -> dict[str, Any]:
    """The body of /api/health once ``check(body)`` holds (its status 200 all along)."""
    last: dict[str, Any] = {}

    async def look() -> bool:
        nonlocal last
        answered = await answer_of(f"{base}/api/health")
        if answered is None:
            return False
        status, last = answered
        assert status == 200, last
        return bool(check(last))

    deadline = asyncio.get_running_loop().time() + timeout
    while not await look():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}; last answer {last}"
        await asyncio.sleep(0.2)
    return last


def test_a_ladder_whose_dask_scheduler_has_no_worker_says_so_at_its_health(tmp_path: Path) -> None:
    scheduler_port, http_port = free_port(), free_port()
    address = f"tcp://127.0.0.1:{scheduler_port}"
    executor = DaskExecutor(address, capacity_ttl=0.0)
    ladder = Ladder(LadderConfig(tmp_path / "data", samples=False, games=["generals-war"], port=http_port, executor="dask",
                                 dask_address=address), executor=executor)
    base = f"http://127.0.0.1:{http_port}"

    async def go() -> None:
        async with Scheduler(host="127.0.0.1", port=scheduler_port, dashboard_address=None):
            running = asyncio.create_task(ladder.run(serve_http=True))
            try:
                idle = await health_becomes(base, lambda body: "no Dask worker" in (body.get("warning") or ""), "the warning")
                assert idle["status"] == "ok" and idle["matches_at_once"] == 0 and address in idle["warning"]
                status, body = await asyncio.to_thread(get, f"{base}/api/health/matches")
                assert status == 503 and body == {"status": "not_playing", "detail": idle["warning"]}
                async with Worker(address, nthreads=2, resources={RESOURCE: 2}):
                    playing = await health_becomes(base, lambda body: body.get("matches_at_once") == 2, "the worker")
                    assert playing == {"status": "ok", "matches_at_once": 2, "warning": None}
                    status, body = await asyncio.to_thread(get, f"{base}/api/health/matches")
                    assert status == 200 and body == {"status": "playing", "matches_at_once": 2}
                assert not running.done()
            finally:
                running.cancel()
                await asyncio.gather(running, return_exceptions=True)

    asyncio.run(go())


def test_a_ladder_whose_bot_store_is_gone_says_so_at_its_health(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    # The local pool, which claims a match more than it plays: /api/health names what it plays, --workers.
    ladder = Ladder(LadderConfig(data, samples=False, games=["generals-war"], port=port, workers=2, recorder=False))
    base = f"http://127.0.0.1:{port}"

    async def go() -> None:
        running = asyncio.create_task(ladder.run(serve_http=True))
        try:
            assert await health_becomes(base, lambda body: body.get("warning") is None, "the executor's start") == {
                "status": "ok", "matches_at_once": 2, "warning": None,
            }
            shutil.move(data / "bots", tmp_path / "bots-away")
            gone = await health_becomes(base, lambda body: body.get("warning"), "the warning")
            assert f"{data / 'bots'} is gone" in gone["warning"] and "claims no match until it is back" in gone["warning"]
            status, body = await asyncio.to_thread(get, f"{base}/api/health/matches")
            assert status == 503 and body["detail"] == gone["warning"]
            shutil.move(tmp_path / "bots-away", data / "bots")
            await health_becomes(base, lambda body: body.get("warning") is None, "the store back")
            assert not running.done()
        finally:
            running.cancel()
            await asyncio.gather(running, return_exceptions=True)

    asyncio.run(go())
