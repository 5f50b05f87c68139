"""Stopping many Docker bots at once, with a stand-in for the Docker client's container (no engine needed)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from referee.server.sandbox import DockerHandle

#: More containers than asyncio's default executor has threads on any machine (it has at most 32).
BOTS = 40


class Container:
    """A bot that plays on until it is killed, as one mid-match does."""

    def __init__(self, released: threading.Event) -> None:
        self.killed, self.removed, self.released = threading.Event(), False, released

    def wait(self) -> dict[str, Any]:
        while not self.killed.wait(0.05) and not self.released.is_set():
            pass
        return {"StatusCode": 137}

    def kill(self) -> None:
        self.killed.set()

    def remove(self, force: bool = False) -> None:
        self.removed = True

    def logs(self, **kwargs: Any) -> list[bytes]:
        return []


def test_a_stop_kills_every_container_however_many_are_waited_on(tmp_path: Path) -> None:
    """Each bot's watcher waits for its container's end. On the default executor those waits took every thread
    (6 on two cores: two four-seat matches), and the kills of a stop queued behind them for ever: SIGTERM left
    `arena ladder serve --sandbox docker` hanging, its containers playing on."""
    released = threading.Event()  # ends the waits if the stop hangs, so that the test fails rather than hangs
    containers = [Container(released) for _ in range(BOTS)]

    async def play_then_stop() -> list[int]:
        handles = [DockerHandle(c, tmp_path / f"seat{i}.log") for i, c in enumerate(containers)]
        watchers = [asyncio.create_task(h.wait()) for h in handles]
        await asyncio.sleep(0)  # every watcher is waiting
        try:
            await asyncio.wait_for(asyncio.gather(*(h.stop(grace=0.1) for h in handles)), 60)
        finally:
            released.set()
        return await asyncio.gather(*watchers)

    assert asyncio.run(play_then_stop()) == [137] * BOTS
    assert all(c.killed.is_set() and c.removed for c in containers)


class LastWords(Container):
    """A bot whose last output comes as it is killed, a moment after."""

    def logs(self, **kwargs: Any) -> Any:
        yield b"playing\n"
        self.killed.wait(60)
        time.sleep(0.2)  # the pump is still writing when the stop goes on
        yield b"killed\n"


def test_a_stop_finishes_the_log_before_it_returns(tmp_path: Path) -> None:
    """The match reads the log, and notes a crash at its end, once the stop returns: what the bot said last is there."""

    async def play_then_stop() -> None:
        handle = DockerHandle(LastWords(threading.Event()), tmp_path / "seat0.log")
        await handle.stop(grace=0)

    asyncio.run(play_then_stop())
    assert (tmp_path / "seat0.log").read_bytes() == b"playing\nkilled\n"


class EndsOnItsOwn(Container):
    """A bot that ends by itself a moment after its match, as one that read its result does."""

    def __init__(self) -> None:
        super().__init__(threading.Event())
        self.ended, self.killed_while_running = threading.Event(), False
        threading.Timer(0.2, self.ended.set).start()

    def wait(self) -> dict[str, Any]:
        self.ended.wait(60)
        return {"StatusCode": 0}

    def kill(self) -> None:
        self.killed_while_running = not self.ended.is_set()
        super().kill()


def test_a_stop_lets_the_bot_end_within_its_grace(tmp_path: Path) -> None:
    """Killed at once, a bot lost what it had still to write (its result, its notes) and read as killed (code 137)."""
    container = EndsOnItsOwn()

    async def stop() -> int:
        handle = DockerHandle(container, tmp_path / "seat0.log")
        await handle.stop(grace=60)
        return await handle.wait()

    assert asyncio.run(stop()) == 0
    assert not container.killed_while_running and container.removed


class EngineRestarts(Container):
    """A bot that plays on while the Docker engine does not answer (dockerd restarted or killed), then ends."""

    def __init__(self, failures: int) -> None:
        super().__init__(threading.Event())
        self.failures = failures

    def wait(self) -> dict[str, Any]:
        import requests

        if self.failures:
            self.failures -= 1
            raise requests.exceptions.ConnectionError("('Connection aborted.', ConnectionRefusedError(111, 'Connection refused'))")
        return {"StatusCode": 0}


def test_an_engine_that_stops_answering_is_not_the_bots_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dockerd killed mid-match: the wait for each container's end broke, and every bot was told as a CRASH ("exited
    with code -1") while it played on, on the referee's socket. Its end is asked for again until the engine answers."""
    from referee.server import sandbox

    monkeypatch.setattr(sandbox, "ENGINE_RETRY_S", 0.01, raising=False)

    async def play() -> int:
        handle = DockerHandle(EngineRestarts(failures=5), tmp_path / "seat0.log")
        return await asyncio.wait_for(handle.wait(), 30)

    assert asyncio.run(play()) == 0


def test_an_engine_gone_for_good_does_not_hold_up_the_matchs_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.server import sandbox

    monkeypatch.setattr(sandbox, "ENGINE_RETRY_S", 0.01, raising=False)

    async def play_then_stop() -> int:
        handle = DockerHandle(EngineRestarts(failures=10**9), tmp_path / "seat0.log")
        await asyncio.sleep(0.1)
        assert not handle._exit.done(), "told as ended while the engine does not answer"
        await asyncio.wait_for(handle.stop(grace=0), 30)
        return await asyncio.wait_for(handle.wait(), 30)

    assert asyncio.run(play_then_stop()) == -1


class LogsAcrossARestart(EngineRestarts):
    """Its output's stream ends quietly when dockerd dies; the engine, back (live-restore), has all of it."""

    def __init__(self) -> None:
        super().__init__(failures=0)
        self.streams, self.reloads, self.attrs = 0, 0, {"State": {"Running": True}}
        self.ended = threading.Event()

    def logs(self, **kwargs: Any) -> Any:
        self.streams += 1
        yield b"before\n"
        if self.streams > 1:
            yield b"after\n"
            self.attrs = {"State": {"Running": False}}
            self.ended.set()

    def reload(self) -> None:
        import requests

        self.reloads += 1
        if self.reloads == 1:
            raise requests.exceptions.ConnectionError("Connection refused")  # the engine is still down

    def wait(self) -> dict[str, Any]:
        self.ended.wait(30)
        return {"StatusCode": 0}


def test_a_log_goes_on_after_the_engine_came_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """dockerd killed mid-match, its containers kept (live-restore): the log's stream ended quietly with the engine,
    and all the bot wrote after it was lost. It is read again once the engine answers, from where the log stopped."""
    from referee.server import sandbox

    monkeypatch.setattr(sandbox, "ENGINE_RETRY_S", 0.01, raising=False)

    async def play() -> None:
        handle = DockerHandle(LogsAcrossARestart(), tmp_path / "seat0.log")
        assert await asyncio.wait_for(handle.wait(), 30) == 0
        await handle.stop(grace=0)

    asyncio.run(play())
    assert (tmp_path / "seat0.log").read_bytes() == b"before\nafter\n"
