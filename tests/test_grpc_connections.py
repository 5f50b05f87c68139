"""The referee's connections over real gRPC: streams replaced, dropped and half-open, reconnects, caps on
connections and streams, slow reads of a flooding seat, and `arena referee serve` over TCP."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.v1 import referee_pb2 as pb
from arena_sdk.client import play
from referee.games.generals_war import GeneralsWar
from referee.server import service as service_module
from referee.server.service import RefereeService, StreamLink, make_server
from referee.server.session import MatchSession, TimeControl
from tests.grpc_support import HeldBot, RandomBot, Referee, bot_thread, hold_stream
from tests.support import HalfOpenProxy
from tests.waiting import wait_for




def test_a_new_stream_of_a_seat_replaces_a_live_one() -> None:
    """The seat's token wins the seat: the older stream ends with ABORTED, and the match goes on without a verdict."""
    ref = Referee(tc=TimeControl(move_time_ms=3000, time_bank_ms=0, connect_timeout_ms=20_000))
    hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=ref.session.tokens()[0], protocol_version=1))
    hang_up = threading.Event()
    old: dict[str, Any] = {}
    holder = hold_stream(ref.address, hello, hang_up, old)
    wait_for("the held stream to take seat 0", lambda: ref.session.seats[0].link is not None, every=0.02)
    results: dict[int, Any] = {}
    threads = [bot_thread(ref, s, results) for s in (0, 1)]
    holder.join(30)
    hang_up.set()
    for t in threads:
        t.join(60)
    record = ref.join()
    assert old.get("code") == grpc.StatusCode.ABORTED and "replaced" in old["details"], old
    assert record.game.is_over() and results[0] is not None and results[1] is not None
    assert not any(s.verdicts for s in record.result.seats)


def test_the_sdk_reconnects_over_a_half_open_connection() -> None:
    """Seat 0's connection is cut on its side only, the referee's side left open and silent (no FIN, no RST):
    the SDK connects again and its new stream takes the seat over, though the old one still looks alive."""
    ref = Referee(tc=TimeControl(move_time_ms=5000, time_bank_ms=0, connect_timeout_ms=20_000))
    proxy = HalfOpenProxy(ref.address, Path(ref.tmp.name) / "p.sock")
    held = HeldBot(1)  # the match is still on when seat 0's connection is cut
    results: dict[int, Any] = {}
    errors: list[BaseException] = []

    def seat0() -> None:
        try:
            results[0] = play(RandomBot(0), proxy.address, ref.session.match_id, ref.session.tokens()[0])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def seat1() -> None:
        results[1] = play(held, ref.address, ref.session.match_id, ref.session.tokens()[1])

    threads = [threading.Thread(target=f, daemon=True) for f in (seat0, seat1)]
    for t in threads:
        t.start()
    try:
        assert held.holding.wait(60), "seat 1 never came to its second decision"
        assert proxy.cut() == 1
        held.release.set()
        for t in threads:
            t.join(60)
        record = ref.join()
    finally:
        held.release.set()
        proxy.close()
    assert not errors, errors
    assert proxy.connections == 2
    assert record.game.is_over() and results[0] is not None
    assert not record.result.seats[0].verdicts, "a quick reconnection costs nothing"


def test_the_referee_lets_go_of_a_half_open_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keepalive pings notice a peer that went silent without a word: the seat is seen as disconnected, not thinking."""
    monkeypatch.setattr(service_module, "KEEPALIVE_TIME_MS", 300)
    monkeypatch.setattr(service_module, "KEEPALIVE_TIMEOUT_MS", 300)
    ref = Referee(tc=TimeControl(move_time_ms=10_000, time_bank_ms=0, connect_timeout_ms=20_000))
    proxy = HalfOpenProxy(ref.address, Path(ref.tmp.name) / "p.sock")
    hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=ref.session.tokens()[0], protocol_version=1))
    hang_up = threading.Event()
    try:
        hold_stream(proxy.address, hello, hang_up, {})
        wait_for("the held stream to take seat 0", lambda: ref.session.seats[0].link is not None, every=0.02)
        assert proxy.cut() == 1
        wait_for("the referee to let go of the half-open stream", lambda: ref.session.seats[0].link is None, every=0.02)
    finally:
        hang_up.set()
        proxy.close()
        for seat in (0, 1):
            ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
        ref.join()


def test_the_sdk_reconnects_after_its_stream_drops() -> None:
    """The referee drops seat 0's stream after its first decision; the SDK connects again and the match goes on."""
    ref = Referee(tc=TimeControl(move_time_ms=5000, time_bank_ms=0, connect_timeout_ms=20_000))
    dropped = ref.drop_first_stream(0)
    results: dict[int, Any] = {}
    threads = [bot_thread(ref, s, results) for s in (0, 1)]
    for t in threads:
        t.join(60)
    record = ref.join()
    assert dropped.is_set()
    assert record.game.is_over() and results[0] is not None
    assert not record.result.seats[0].verdicts, "a quick reconnection costs nothing"


def test_arena_referee_serve_hosts_remote_bots_over_tcp(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "referee", "serve", "generals-war", "--players", "2", "--port", "0",
         "--seed", "4", "--replay", str(tmp_path / "r.json"), "--name", "north", "--name", "south"],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    while len([line for line in lines if "ARENA_TOKEN=" in line]) < 2:
        line = proc.stdout.readline()
        assert line, "the referee exited early"
        lines.append(line)
    text = "".join(lines)
    port = re.search(r"listening on 127\.0\.0\.1:(\d+)", text)
    match_id = re.search(r"ARENA_MATCH_ID=(\w+)", text)
    tokens = re.findall(r"ARENA_TOKEN=(\w+)", text)
    assert port and match_id and len(tokens) == 2
    outcomes: dict[int, Any] = {}

    def go(seat: int) -> None:
        outcomes[seat] = play(RandomBot(seat), f"127.0.0.1:{port.group(1)}", match_id.group(1), tokens[seat])

    threads = [threading.Thread(target=go, args=(s,)) for s in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    rest, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "seat 0: rank" in rest and (tmp_path / "r.json").exists()
    assert sorted(s.rank for s in outcomes[0].seats) in ([1, 2], [1, 1])
    assert [s["name"] for s in json.loads((tmp_path / "r.json").read_text())["seats"]] == ["north", "south"]  # --name


def test_a_bot_whose_referee_is_gone_gives_up_after_its_reconnect_window(tmp_path: Path) -> None:
    """Nobody serves the address (the referee was killed): the SDK stops trying instead of lingering as an orphan."""
    results: dict[str, Any] = {}

    def run() -> None:
        results["result"] = play(RandomBot(0), f"unix:{tmp_path / 'gone.sock'}", "m", "t", reconnect_seconds=0.5)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the bot kept waiting for a referee that is gone"
    assert results == {"result": None}


def test_a_finished_stream_stays_open_until_the_bot_hangs_up(tmp_path: Path) -> None:
    """A server stopped right after the match must not cut off a result the bot has not read yet.

    (Pooled bot processes were left retrying a finished match for their whole reconnect window.)
    """
    from arena.v1 import referee_pb2_grpc
    from arena_sdk.driver import BotDriver

    async def main() -> list[str]:
        address = f"unix:{tmp_path / 'r.sock'}"
        session = MatchSession(GeneralsWar(2, 5), ["a", "b"], TimeControl(connect_timeout_ms=20_000))
        service = RefereeService()
        service.add(session)
        server = make_server(service)
        server.add_insecure_port(address)
        await server.start()
        order: list[str] = []

        async def bot(seat: int) -> None:
            driver = BotDriver(RandomBot(seat))
            async with grpc.aio.insecure_channel(address) as channel:
                call = referee_pb2_grpc.RefereeStub(channel).Play()
                await call.write(driver.hello(session.match_id, session.tokens()[seat]))
                while driver.result is None:
                    msg = await call.read()
                    assert msg is not grpc.aio.EOF, "the stream ended before the result"
                    for reply in driver.handle(msg):
                        await call.write(reply)
                await asyncio.sleep(0.3)  # a bot slow to let go
                order.append(f"seat {seat} hung up")
                call.cancel()

        bots = [asyncio.create_task(bot(s)) for s in (0, 1)]
        await session.run()
        await server.stop(grace=5)
        order.append("server stopped")
        await asyncio.gather(*bots)
        return order

    assert asyncio.run(main())[-1] == "server stopped"


def test_arena_referee_serve_stopped_before_its_bots_come_exits_cleanly() -> None:
    """SIGTERM (or Ctrl-C) while the referee waits for its bots: gRPC's server was left to be stopped by a closed event
    loop, and the operator saw 'RuntimeError: Event loop is closed' with a traceback after 'stopped by SIGTERM'."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli.main", "referee", "serve", "generals-war", "--players", "2", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    while "ARENA_TOKEN=" not in (line := proc.stdout.readline()):
        assert line, "the referee exited early"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and "never awaited" not in err, err


def test_connections_past_the_cap_are_closed_and_silent_ones_time_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot holding 20,000 connections to its socket took as many of the referee's file descriptors, all it had."""
    import select
    import socket

    from referee.server.service import MAX_CONNECTIONS

    monkeypatch.setattr(service_module, "HANDSHAKE_TIMEOUT_MS", 1000)
    path = tmp_path / "r.sock"

    async def main() -> tuple[int, int]:
        server = make_server(RefereeService())
        server.add_insecure_port(f"unix:{path}")
        await server.start()

        def connect_and_watch() -> tuple[int, int]:
            held = [socket.socket(socket.AF_UNIX) for _ in range(3 * MAX_CONNECTIONS)]
            for s in held:
                s.connect(str(path))  # and never a byte of HTTP/2
            closed_at_once = closed = 0
            open_ = list(held)
            deadline = time.monotonic() + 20
            while open_ and time.monotonic() < deadline:
                ready, _, _ = select.select(open_, [], [], 0.2)
                for s in ready:
                    if s.recv(1024) == b"":
                        open_.remove(s)
                        closed += 1
                if not closed_at_once and closed >= len(held) - MAX_CONNECTIONS:
                    closed_at_once = closed
            for s in held:
                s.close()
            return closed_at_once, closed

        try:
            return await asyncio.to_thread(connect_and_watch)
        finally:
            await server.stop(None)

    closed_at_once, closed = asyncio.run(main())
    assert closed_at_once >= 2 * MAX_CONNECTIONS  # past the cap: closed as they came
    assert closed == 3 * MAX_CONNECTIONS  # the others when their handshake timed out


def test_streams_on_one_connection_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 streams without a hello on one connection took the referee 80 MB; past MAX_STREAMS they are refused."""
    from referee.server.service import MAX_STREAMS

    monkeypatch.setattr(service_module, "HELLO_TIMEOUT_S", 0.5)
    live = {"now": 0, "most": 0, "all": 0}
    ended: list[grpc.StatusCode] = []

    class Counting(RefereeService):
        async def Play(self, request_iterator: Any, context: Any) -> Any:  # noqa: N802
            live["now"] += 1
            live["all"] += 1
            live["most"] = max(live["most"], live["now"])
            try:
                async for msg in super().Play(request_iterator, context):
                    yield msg
            finally:
                live["now"] -= 1

    async def main() -> None:
        address = f"unix:{tmp_path / 'r.sock'}"
        server = make_server(Counting())
        server.add_insecure_port(address)
        await server.start()

        async def silent() -> Any:
            await asyncio.sleep(60)
            yield b""

        async def drain(call: Any) -> None:
            try:
                async for _ in call:
                    pass
            except grpc.RpcError as exc:  # a hello that never came, or a stream refused past the cap
                ended.append(exc.code())

        async with grpc.aio.insecure_channel(address) as channel:
            play = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
            await asyncio.gather(*(drain(play(silent())) for _ in range(3 * MAX_STREAMS)))
        await server.stop(None)

    asyncio.run(main())
    assert len(ended) == 3 * MAX_STREAMS and grpc.StatusCode.INVALID_ARGUMENT in ended  # each ended, some at their hello
    assert MAX_STREAMS <= live["all"] and live["most"] <= MAX_STREAMS


def test_a_seat_whose_messages_are_refused_by_the_hundred_is_read_slowly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot flooding stale answers and reading the errors kept a core of the referee busy (benchmarks/flood.py): once
    FLOOD_AFTER of a seat's messages have been refused, its stream is read one message per pause."""
    from types import SimpleNamespace

    from referee.server.service import FLOOD_AFTER, FLOOD_PAUSE_S

    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    class Session:  # what the reader uses of a MatchSession; here every message is refused at once
        def __init__(self) -> None:
            self.seats = [SimpleNamespace(refused=0)]
            self.posted = 0

        def post(self, seat: int, link: Any, msg: pb.BotMessage) -> None:
            self.posted += 1
            self.seats[seat].refused += 1

        def detach(self, seat: int, link: Any) -> None:
            pass

    async def flood() -> Any:
        for _ in range(FLOOD_AFTER + 10):
            yield pb.BotMessage(action=pb.ActionResponse(request_id=999))

    session = Session()
    monkeypatch.setattr(asyncio, "sleep", pause)
    asyncio.run(RefereeService._read(flood(), session, 0, StreamLink()))  # type: ignore[arg-type]
    assert session.posted == FLOOD_AFTER + 10
    assert pauses == [FLOOD_PAUSE_S] * 10, "no pause before the guard, one per message after"


def test_waiting_for_a_matchs_streams_ends_when_its_last_stream_does() -> None:
    """After a match the runner waits for its bots to hang up: it must not sit out the whole timeout every time."""

    async def go() -> None:
        service = RefereeService()
        service._opened("m")
        service._opened("m")
        waiting = asyncio.create_task(service.streams_ended("m", 30))
        await asyncio.sleep(0)
        service._closed("m")
        await asyncio.sleep(0)
        assert not waiting.done(), "one stream is still open"
        service._closed("m")
        assert await asyncio.wait_for(waiting, 5) is True
        assert await service.streams_ended("m", 30) is True  # none open: at once

    asyncio.run(go())


def test_a_matchs_streams_count_as_open_until_the_bot_hangs_up(tmp_path: Path) -> None:
    """What the runner waits on before it stops a match's server: a stream still open is not ended."""

    async def go() -> tuple[bool, bool]:
        session = MatchSession(GeneralsWar(2, 5), ["a", "b"], TimeControl(connect_timeout_ms=20_000))
        service = RefereeService()
        service.add(session)
        server = make_server(service)
        address = f"unix:{tmp_path / 'r.sock'}"
        server.add_insecure_port(address)
        await server.start()
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)()
                hello = pb.BotMessage(hello=pb.Hello(match_id=session.match_id, token=session.tokens()[0], protocol_version=1))
                await call.write(hello.SerializeToString())
                assert pb.RefereeMessage.FromString(await call.read()).WhichOneof("msg") == "start"
                while_open = await service.streams_ended(session.match_id, 0.05)
                call.cancel()
                after = await service.streams_ended(session.match_id, 5)
        finally:
            await server.stop(None)
        return while_open, after

    assert asyncio.run(go()) == (False, True)


