"""The ladder's Dask client across a scheduler that goes away and comes back, and what it logs meanwhile."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import warnings
from collections.abc import Callable, Coroutine
from typing import Any

import dask
import pytest
from distributed import Scheduler, Worker

from ladder import executors
from ladder.executors import RESOURCE, DaskExecutor


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on_a_free_port() -> tuple[int, str, DaskExecutor]:
    """A port for a scheduler, its address, and the ladder's executor for it (asking its capacity at every call)."""
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    return port, address, DaskExecutor(address, capacity_ttl=0.0)


def scheduler_on(port: int) -> Scheduler:
    return Scheduler(host="127.0.0.1", port=port, dashboard_address=None)


async def capacity_becomes(executor: DaskExecutor, wanted: int, timeout: float) -> int:
    """Ask as the dispatcher does, until the capacity is ``wanted`` or ``timeout`` is over; the last answer."""
    deadline = asyncio.get_running_loop().time() + timeout
    while (found := await executor.capacity()) != wanted and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.2)
    return found


async def plays_once_a_scheduler_answers(executor: DaskExecutor, port: int) -> None:
    """A scheduler on ``port`` and a worker with one seat: the executor finds that seat (capacity 1); then it is closed."""
    async with scheduler_on(port):
        async with Worker(f"tcp://127.0.0.1:{port}", nthreads=2, resources={RESOURCE: 1}):
            assert await capacity_becomes(executor, 1, 30.0) == 1
        await executor.close()


def with_short_connects(go: Callable[[], Coroutine[Any, Any, None]], caplog: pytest.LogCaptureFixture) -> None:
    """Run ``go`` with Dask's connect timeout at 1 s (not 30), capturing the executor's log."""
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), caplog.at_level(logging.INFO, "arena.ladder.executors"):
        asyncio.run(go())


def test_the_ladder_connects_again_to_a_scheduler_that_was_away(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Dask's client closes itself for good when its scheduler stays away longer than its connect timeout: the
    ladder then logged 'the Dask scheduler did not answer' with an AttributeError traceback five times a second,
    and never played again once the scheduler was back."""
    monkeypatch.setattr(executors, "RECONNECT_S", 0.5)
    port, address, executor = on_a_free_port()

    async def go() -> None:
        async with scheduler_on(port):
            await executor.start()
            async with Worker(address, nthreads=1, name="no-resources"):
                assert await capacity_becomes(executor, -1, 2.0) == 0  # -1: ask for the whole two seconds
        # The scheduler is gone: the client tries for its connect timeout (1 s here), then closes itself.
        for _ in range(50):
            if executor.client.status == "closed":
                break
            await asyncio.sleep(0.2)
        assert executor.client.status == "closed"
        assert await capacity_becomes(executor, -1, 2.0) == 0
        await plays_once_a_scheduler_answers(executor, port)

    with_short_connects(go, caplog)
    said = [r.getMessage() for r in caplog.records if r.name == "arena.ladder.executors"]
    assert not any(r.exc_info for r in caplog.records if r.name == "arena.ladder.executors"), "no traceback in the ladder's log"
    assert sum("without the 'matches' resource" in m and "no-resources" in m for m in said) == 1, said
    assert sum("cannot be reached" in m for m in said) == 1, said
    assert any("again" in m for m in said), said


def told(caplog: pytest.LogCaptureFixture, words: str) -> int:
    """How many of the executor's log lines say ``words``."""
    return sum(words in r.getMessage() for r in caplog.records if r.name == "arena.ladder.executors")


def test_a_ladder_started_before_its_scheduler_waits_for_it(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A ladder and its scheduler started together (docker compose, systemd) in the wrong order: the ladder failed
    after Dask's connect timeout. It waits, says so once and then every REMIND_S rather than at every try, and plays
    once the scheduler answers."""
    monkeypatch.setattr(executors, "RECONNECT_S", 0.3)
    monkeypatch.setattr(executors, "REMIND_S", 3600.0)
    port, address, executor = on_a_free_port()
    tries = 0
    connect = executor._connect

    async def counted(timeout: float) -> None:
        nonlocal tries
        tries += 1
        await connect(timeout)

    monkeypatch.setattr(executor, "_connect", counted)

    async def capacity_while(going: Callable[[], bool], timeout: float = 60.0) -> None:
        """Ask as the dispatcher does while ``going()``, each answer 0: no scheduler, nothing to play on."""
        deadline = asyncio.get_running_loop().time() + timeout
        while going():
            assert asyncio.get_running_loop().time() < deadline, f"still {going.__doc__} after {timeout} s ({tries} tries)"
            assert await executor.capacity() == 0
            await asyncio.sleep(0.05)

    def fewer_than_three_tries() -> bool:
        """fewer than three tries"""
        return tries < 3

    def not_reminded() -> bool:
        """no reminder"""
        return told(caplog, "still out of reach") == 0

    async def go() -> None:
        await executor.start()  # no scheduler: not an error
        await capacity_while(fewer_than_three_tries)
        assert told(caplog, f"the Dask scheduler at {address} cannot be reached") == 1
        monkeypatch.setattr(executors, "REMIND_S", 0.0)
        await capacity_while(not_reminded)
        await plays_once_a_scheduler_answers(executor, port)

    with_short_connects(go, caplog)
    assert told(caplog, f"the Dask scheduler at {address} cannot be reached") == 1
    assert told(caplog, f"connected to the Dask scheduler at {address}") == 1
    assert not any(r.exc_info for r in caplog.records if r.name == "arena.ladder.executors"), "no traceback in the ladder's log"


@pytest.mark.parametrize("address", ["udp://127.0.0.1:8786", "tcp://127.0.0.1:99999", "tcp://127.0.0.1"])
def test_a_malformed_address_is_an_error_at_once_not_retried(address: str) -> None:
    with pytest.raises(ValueError, match="not a Dask scheduler's address"):
        asyncio.run(DaskExecutor(address).start())


def test_the_ladder_says_when_no_worker_can_play_and_when_one_can_again(caplog: pytest.LogCaptureFixture) -> None:
    """Every worker gone (stopped, or ended after its scheduler was away a while), the ladder said nothing: its
    queue stood still, its health answered ok, and its log had no line."""
    port, address, executor = on_a_free_port()

    async def go() -> None:
        async with scheduler_on(port):
            await executor.start()
            async with Worker(address, nthreads=2, resources={RESOURCE: 2}):
                assert await capacity_becomes(executor, 2, 20.0) == 2
            assert await capacity_becomes(executor, -1, 1.0) == 0  # -1: ask again and again, for a whole second
            async with Worker(address, nthreads=2, resources={RESOURCE: 1}):
                assert await capacity_becomes(executor, 1, 20.0) == 1
            await executor.close()

    with caplog.at_level(logging.INFO, "arena.ladder.executors"):
        asyncio.run(go())
    said = [r.getMessage() for r in caplog.records if r.name == "arena.ladder.executors"]
    assert sum("no Dask worker can play" in m and address in m for m in said) == 1, said
    assert sum("can play 1 match at once again" in m for m in said) == 1, said


def test_the_ladders_own_cluster_between_workers_is_not_told_as_having_none(caplog: pytest.LogCaptureFixture) -> None:
    """A ladder stopped with SIGTERM by a service manager (or `timeout`) has its LocalCluster's workers signalled too, and
    their nannies restart them: "no Dask worker can play matches ... until one joins" came last in its log, wrongly."""

    class Scheduler:
        async def identity(self, n_workers: int) -> dict[str, object]:
            return {"workers": {}}

    class Client:
        status = "running"
        scheduler = Scheduler()

    async def ask() -> int:
        executor = DaskExecutor(None, capacity_ttl=0.0)
        executor.client = Client()
        return await executor.capacity()

    with caplog.at_level(logging.INFO, "arena.ladder.executors"):
        assert asyncio.run(ask()) == 0
    assert not [r.getMessage() for r in caplog.records if r.name == "arena.ladder.executors"]


def test_a_try_cut_short_by_the_ladders_stop_leaves_no_client_open() -> None:
    """A try to reach a lost scheduler lasts up to RECONNECT_S and one starts every RECONNECT_S, so a ladder stopped
    meanwhile nearly always cut one short: its Client was dropped unclosed, and the ladder's last words after a clean
    stop were Dask's RuntimeWarnings ("coroutine 'Client._close' was never awaited"), its timer left behind too."""
    from distributed import Client

    port, address, executor = on_a_free_port()  # nothing listens there

    async def go() -> None:
        trying = asyncio.ensure_future(executor.start())
        while not trial():
            await asyncio.sleep(0.01)  # until the try's Client is made
        trying.cancel()
        with pytest.raises(asyncio.CancelledError):
            await trying
        assert not [c.status for c in trial() if c.status != "closed"], "the try's client was left open"

    def trial() -> list[Client]:
        """The clients this process made for ``address`` (Dask's own list of them)."""
        return [c for c in list(Client._instances) if c._start_arg == address]

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        asyncio.run(go())
        gc.collect()
    assert not [str(w.message) for w in said if "never awaited" in str(w.message)]


@pytest.mark.parametrize("answer", [None, b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"], ids=["silent", "http"])
def test_an_address_where_something_else_listens_is_told_and_tried_again(
    answer: bytes | None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """--dask-address at a port that takes the connection but is no Dask scheduler (another service, a scheduler
    frozen by SIGSTOP or swapping): Dask bounds the connection by its timeout, not the handshake after it. Silent, the
    try never ended: the ladder logged nothing and never tried again, its queue still for good. Answering in another
    protocol, the log said "MemoryError: " (Dask read the first bytes as a message's length)."""
    monkeypatch.setattr(executors, "RECONNECT_S", 0.5)
    port, address, executor = on_a_free_port()

    async def other_service(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if answer is not None:
            writer.write(answer)
            await writer.drain()
        await reader.read()  # until the ladder hangs up

    async def go() -> None:
        async with await asyncio.start_server(other_service, "127.0.0.1", port):
            await asyncio.wait_for(executor.start(), 120)  # a try that never ends fails here, not the ladder's queue
            assert await executor.capacity() == 0
            await executor.close()

    with_short_connects(go, caplog)
    assert told(caplog, f"the Dask scheduler at {address} cannot be reached") == 1
    assert told(caplog, "does not answer as a Dask scheduler") == 1, [r.getMessage() for r in caplog.records]


def test_a_scheduler_that_stops_answering_once_connected_is_told_and_asked_again(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A scheduler frozen after the ladder connected (SIGSTOP, swapping, its machine suspended) keeps the connection
    open and answers nothing, and Dask bounds no call: the dispatcher waited on its question for as long as the freeze
    lasted, logging nothing, renewing no lease and settling no match (an operator's walk: a minute of silence). The
    question gives up after ANSWER_S, the log says so once, and the capacity is found again once it answers."""
    monkeypatch.setattr(executors, "ANSWER_S", 0.2)
    address = "tcp://127.0.0.1:8786"
    thawed = asyncio.Event()

    class Scheduler:
        async def identity(self, n_workers: int) -> dict[str, object]:
            await thawed.wait()
            return {"workers": {"w1": {"name": "w1", "resources": {RESOURCE: 2}}}}

    class Client:
        status = "running"
        scheduler = Scheduler()

    executor = DaskExecutor(address, capacity_ttl=0.0)
    executor.client = Client()

    async def go() -> None:
        for _ in range(3):  # a freeze that never ends fails here, not the ladder's dispatcher
            assert await asyncio.wait_for(executor.capacity(), 30) == 0
        thawed.set()
        assert await asyncio.wait_for(executor.capacity(), 30) == 2

    with caplog.at_level(logging.INFO, "arena.ladder.executors"):
        asyncio.run(go())
    assert told(caplog, f"the Dask scheduler at {address} cannot be reached") == 1, [r.getMessage() for r in caplog.records]
    assert told(caplog, "did not tell its workers in 0.2 s") == 1
    assert told(caplog, f"connected to the Dask scheduler at {address}") == 1
