"""The referee over real gRPC on a unix socket, with the Python SDK as the client."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc
from arena_sdk.client import MatchRefused, log_level, play, play_async
from arena_sdk.games import generals_war as gw_actions
from referee.games.generals_war import GeneralsWar
from referee.server import service as service_module
from referee.server.service import MAX_BOT_MESSAGE, MAX_WIRE_MESSAGE, RefereeService, StreamLink, make_server
from referee.server.session import REPLACED, AttachError, MatchSession, TimeControl
from tests.support import SAMPLE_BOTS, HalfOpenProxy, load_bot_class

RandomBot = load_bot_class("random", "RandomBot")


class Referee:
    """A referee serving one match from a thread of its own."""

    def __init__(self, n: int = 2, tc: TimeControl | None = None, only_seat: int | None = None) -> None:
        self.only_seat = only_seat
        self.tmp = tempfile.TemporaryDirectory(prefix="arena-t-")
        self.address = f"unix:{Path(self.tmp.name) / 'r.sock'}"
        self.loop = asyncio.new_event_loop()
        self.session = MatchSession(GeneralsWar(n, 5), [f"b{i}" for i in range(n)], tc or TimeControl(connect_timeout_ms=20_000))
        self.ready = threading.Event()
        self.record: Any = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            service = RefereeService(self.only_seat)
            service.add(self.session)
            server = make_server(service)
            server.add_insecure_port(self.address)
            await server.start()
            self.ready.set()
            self.record = await self.session.run()
            await asyncio.sleep(0.2)
            await server.stop(grace=0.5)

        self.loop.run_until_complete(main())

    def join(self) -> Any:
        self.thread.join(60)
        assert not self.thread.is_alive()
        self.tmp.cleanup()
        return self.record


def bot_thread(ref: Referee, seat: int, out: dict[int, Any]) -> threading.Thread:
    def go() -> None:
        out[seat] = play(RandomBot(seat), ref.address, ref.session.match_id, ref.session.tokens()[seat])

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


def raw_stream(address: str, messages: list[bytes]) -> grpc.RpcError | list[bytes]:
    """Send raw bytes as BotMessages; returns what came back or the error."""
    with grpc.insecure_channel(address) as channel:
        call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
        try:
            return list(call(iter(messages), timeout=5))
        except grpc.RpcError as exc:
            return exc


def hold_stream(address: str, hello: pb.BotMessage, hang_up: threading.Event, out: dict[str, Any]) -> threading.Thread:
    """A stream that sends ``hello`` and then nothing, its sending side open until ``hang_up``; from a thread.

    ``out`` gets the kinds of the messages received (``got``) or the status it ended with (``code``, ``details``).
    """

    def requests() -> Iterator[bytes]:
        yield hello.SerializeToString()
        hang_up.wait(30)

    def go() -> None:
        with grpc.insecure_channel(address) as channel:
            call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
            try:
                out["got"] = [pb.RefereeMessage.FromString(m).WhichOneof("msg") for m in call(requests(), timeout=30)]
            except grpc.RpcError as exc:
                out["code"], out["details"] = exc.code(), exc.details()

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def referee() -> Iterator[Referee]:
    ref = Referee()
    yield ref
    if ref.thread.is_alive():
        for seat in (0, 1):
            ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
        ref.thread.join(30)


def test_two_sdk_bots_play_a_match_over_grpc(referee: Referee) -> None:
    results: dict[int, Any] = {}
    threads = [bot_thread(referee, s, results) for s in (0, 1)]
    for t in threads:
        t.join(60)
    record = referee.join()
    assert record.game.is_over()
    assert sorted(s.rank for s in results[0].seats) == sorted(s.rank for s in record.result.seats)
    assert not any(s.verdicts for s in record.result.seats)


def test_a_wrong_token_is_refused(referee: Referee) -> None:
    with pytest.raises(MatchRefused, match="UNAUTHENTICATED"):
        play(RandomBot(0), referee.address, referee.session.match_id, "wrong", reconnect_seconds=1)
    with pytest.raises(MatchRefused, match="NOT_FOUND"):
        play(RandomBot(0), referee.address, "no-such-match", referee.session.tokens()[0], reconnect_seconds=1)
    # An id of half a megabyte, repeated whole in the status's details, overflowed gRPC's metadata: RESOURCE_EXHAUSTED.
    hello = pb.BotMessage(hello=pb.Hello(match_id="x" * 500_000, token="t", protocol_version=1))
    refused = raw_stream(referee.address, [hello.SerializeToString()])
    assert isinstance(refused, grpc.RpcError) and refused.code() == grpc.StatusCode.NOT_FOUND, refused
    assert refused.details() == f"no match {'x' * 80 + '...'!r} here"


def test_refusals_say_why_with_their_status() -> None:
    """docs/protocol.md lists a status per refusal; both SDKs take FAILED_PRECONDITION as final, so it must be what comes."""
    ref = Referee(n=4)  # a forfeited seat leaves three playing: the match goes on
    try:
        token = ref.session.tokens()[3]
        future = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=token, protocol_version=2))
        refused = raw_stream(ref.address, [future.SerializeToString()])
        assert isinstance(refused, grpc.RpcError) and refused.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "protocol version 2" in (refused.details() or "")
        ref.loop.call_soon_threadsafe(ref.session.process_ended, 3, "gone")
        for _ in range(100):
            if ref.session.seats[3].gone:
                break
            time.sleep(0.01)
        hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=token, protocol_version=1))
        refused = raw_stream(ref.address, [hello.SerializeToString()])
        assert isinstance(refused, grpc.RpcError) and refused.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.details() == "seat 3 has forfeited"
    finally:
        for seat in range(4):
            ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
        ref.join()
    with pytest.raises(AttachError) as over:  # the match is over: the session refuses any seat
        ref.session.attach(ref.session.tokens()[0], StreamLink())
    assert (over.value.code, str(over.value)) == ("FAILED_PRECONDITION", "the match is over")


def test_a_stream_without_a_hello_is_ended(referee: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection that never says hello must not hold a handler for ever (HELLO_TIMEOUT_S, 10 s; 0.3 s here)."""
    monkeypatch.setattr(service_module, "HELLO_TIMEOUT_S", 0.3)
    out: dict[str, Any] = {}

    def silent() -> Iterator[bytes]:
        time.sleep(5)
        yield from ()

    def go() -> None:
        with grpc.insecure_channel(referee.address) as channel:
            call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
            started = time.monotonic()
            try:
                list(call(silent(), timeout=10))
            except grpc.RpcError as exc:
                out["code"], out["details"], out["after"] = exc.code(), exc.details(), time.monotonic() - started

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(10)
    assert out.get("code") == grpc.StatusCode.INVALID_ARGUMENT and out["details"] == "send hello first", out
    assert out["after"] < 4, "ended by the referee's wait, not by the client's stream running dry"


def run_sample_bot(address: str, match_id: str, token: str, **more: str) -> tuple[int, float, list[str]]:
    """The random sample bot as its own process, as the referee starts it: exit code, seconds taken, stderr lines."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.pathsep.join(sys.path), "ARENA_ADDRESS": address, "ARENA_MATCH_ID": match_id, "ARENA_TOKEN": token}
    env = {k: v for k, v in {**env, **more}.items() if v}
    began = time.monotonic()
    proc = subprocess.run([sys.executable, "bot.py"], cwd=SAMPLE_BOTS / "random", env=env, capture_output=True, text=True, timeout=60)
    return proc.returncode, time.monotonic() - began, proc.stderr.strip().splitlines()


def test_a_token_refused_on_a_seats_own_socket_ends_the_bot_at_once_with_an_error() -> None:
    """As under arena match: each seat's socket answers any other token with PERMISSION_DENIED, a refusal for good."""
    ref = Referee(only_seat=0)
    try:
        for token in ("wrong", ref.session.tokens()[1]):
            code, seconds, err = run_sample_bot(ref.address, ref.session.match_id, token)
            assert code == 1 and seconds < 8, (code, seconds, err)
            assert len(err) == 1 and "refused by the referee: PERMISSION_DENIED" in err[0], err
    finally:
        for seat in (0, 1):
            ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
        ref.join()


def test_log_levels_are_read_in_any_case_and_an_unknown_one_is_warned_about() -> None:
    levels = [log_level(x) for x in (None, "debug", "Info", "warn", "WARNING", " error ")]
    assert levels == [logging.INFO, logging.DEBUG, logging.INFO, logging.WARNING, logging.WARNING, logging.ERROR]
    assert log_level("loud") is None
    # A whole bot: a lower-case level was a ValueError traceback before it even looked at its variables.
    for level, warned in (("debug", False), ("loud", True)):
        code, _, err = run_sample_bot("", "", "", ARENA_LOG_LEVEL=level)
        assert code == 1 and "ARENA_ADDRESS is not set" in err[-1], err
        assert ("ARENA_LOG_LEVEL=loud is not a level" in "\n".join(err)) == warned and len(err) == 1 + warned, err


def test_an_empty_variable_is_unset_as_in_the_typescript_sdk() -> None:
    for unset in ("ARENA_ADDRESS", "ARENA_MATCH_ID", "ARENA_TOKEN"):
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.pathsep.join(sys.path), "ARENA_ADDRESS": "unix:/nowhere.sock", "ARENA_MATCH_ID": "m", "ARENA_TOKEN": "t"}
        proc = subprocess.run([sys.executable, "bot.py"], cwd=SAMPLE_BOTS / "random", env={**env, unset: ""}, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and proc.stderr.strip().splitlines()[-1].endswith(f"{unset} is not set; bots are started by the referee (arena match)"), proc.stderr


def test_a_bot_without_a_referee_exits_with_an_error(tmp_path: Path) -> None:
    code, _, err = run_sample_bot(f"unix:{tmp_path / 'nobody.sock'}", "m", "t")
    assert code == 1 and "no referee" in err[-1], err


def test_a_referee_that_keeps_failing_is_logged_once_per_broken_stream(caplog: pytest.LogCaptureFixture) -> None:
    """Every try to reconnect failing (UNAVAILABLE): one warning, not one per try, then the bot gives up."""

    class Failing(referee_pb2_grpc.RefereeServicer):
        async def Play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
            await context.abort(grpc.StatusCode.UNAVAILABLE, "not now")

    tries: list[int] = []

    async def main(address: str) -> Any:
        server = grpc.aio.server()
        failing = Failing()
        original = failing.Play

        async def counted(request_iterator: Any, context: grpc.aio.ServicerContext) -> Any:
            tries.append(1)
            return await original(request_iterator, context)

        failing.Play = counted  # type: ignore[method-assign]
        referee_pb2_grpc.add_RefereeServicer_to_server(failing, server)
        server.add_insecure_port(address)
        await server.start()
        try:
            return await play_async(RandomBot(0), address, "m", "t", reconnect_seconds=1)
        finally:
            await server.stop(None)

    with caplog.at_level(logging.DEBUG, logger="arena_sdk"):
        result = asyncio.run(main(f"unix:{tempfile.mkdtemp(prefix='arena-t-')}/f.sock"))
    assert result is None and len(tries) > 5
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and "reconnecting" in r.getMessage()]
    assert len(warnings) == 1, [r.getMessage() for r in caplog.records]
    assert sum("reconnecting" in r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG) == len(tries) - 1


def test_garbage_and_oversized_messages_are_refused_and_the_match_goes_on(referee: Referee) -> None:
    garbage = raw_stream(referee.address, [b"\xff\xfe\x00garbage\x07\x07"])
    assert isinstance(garbage, grpc.RpcError)
    assert garbage.code() == grpc.StatusCode.INVALID_ARGUMENT
    hello = pb.BotMessage(hello=pb.Hello(match_id=referee.session.match_id, token=referee.session.tokens()[0], protocol_version=1))
    huge = pb.BotMessage(hello=pb.Hello(match_id="x", bot_name="x" * (MAX_WIRE_MESSAGE + 10)))
    oversized = raw_stream(referee.address, [huge.SerializeToString()])
    assert isinstance(oversized, grpc.RpcError) and oversized.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # A connected seat that sends a message over the protocol's limit is told so; the message is ignored.
    big = pb.BotMessage(hello=pb.Hello(bot_name="x" * (MAX_BOT_MESSAGE + 10)))
    replies = raw_stream(referee.address, [hello.SerializeToString(), big.SerializeToString()])
    assert not isinstance(replies, grpc.RpcError)
    errors = [m.error for m in map(pb.RefereeMessage.FromString, replies) if m.WhichOneof("msg") == "error"]
    assert [e.code for e in errors] == [pb.MESSAGE_TOO_LARGE]
    results: dict[int, Any] = {}
    threads = [bot_thread(referee, s, results) for s in (0, 1)]
    for t in threads:
        t.join(60)
    record = referee.join()
    assert record.game.is_over() and results[0] is not None and results[1] is not None
    assert not any(s.forfeited for s in record.result.seats)
    assert [v.kind for v in record.result.seats[0].verdicts] == [pb.MALFORMED]


def test_a_bot_that_reads_nothing_is_not_sent_errors_without_end() -> None:
    """A bot flooding stale answers without reading the replies made the referee keep an error for each (200 MB in 20 s).

    What a seat must get (requests, the result) is always queued; errors stop once MAX_UNREAD messages wait.
    """
    from referee.server.service import MAX_UNREAD

    link = StreamLink()
    error = pb.RefereeMessage(error=pb.ProtocolError(code=pb.STALE_REQUEST, message="request 9 is not pending"))
    for _ in range(10 * MAX_UNREAD):
        link.send(error)
    assert link.queue.qsize() == MAX_UNREAD
    link.send(pb.RefereeMessage(decision=pb.DecisionRequest(request_id=1)))
    link.send(pb.RefereeMessage(result=pb.MatchResult()))
    assert link.queue.qsize() == MAX_UNREAD + 2
    for _ in range(3):  # the bot reads: errors have room again
        link.queue.get_nowait()
    link.send(error)
    link.send(error)
    assert link.queue.qsize() == MAX_UNREAD


def test_a_new_stream_of_a_seat_replaces_a_live_one() -> None:
    """The seat's token wins the seat: the older stream ends with ABORTED, and the match goes on without a verdict."""
    ref = Referee(tc=TimeControl(move_time_ms=3000, time_bank_ms=0, connect_timeout_ms=20_000))
    hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=ref.session.tokens()[0], protocol_version=1))
    hang_up = threading.Event()
    old: dict[str, Any] = {}
    holder = hold_stream(ref.address, hello, hang_up, old)
    for _ in range(200):
        if ref.session.seats[0].link is not None:
            break
        time.sleep(0.02)
    assert ref.session.seats[0].link is not None
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

    class SlowBot(RandomBot):  # type: ignore[misc, valid-type]
        def act(self, request: Any) -> Any:
            time.sleep(0.05)  # so that the match is still on when seat 0's connection is cut
            return super().act(request)

    results: dict[int, Any] = {}
    errors: list[BaseException] = []

    def seat0() -> None:
        try:
            results[0] = play(RandomBot(0), proxy.address, ref.session.match_id, ref.session.tokens()[0])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def seat1() -> None:
        results[1] = play(SlowBot(1), ref.address, ref.session.match_id, ref.session.tokens()[1])

    threads = [threading.Thread(target=f, daemon=True) for f in (seat0, seat1)]
    for t in threads:
        t.start()
    try:
        for _ in range(500):
            if ref.session.decisions >= 4:
                break
            time.sleep(0.01)
        assert proxy.cut() == 1
        for t in threads:
            t.join(60)
        record = ref.join()
    finally:
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
        for _ in range(200):
            if ref.session.seats[0].link is not None:
                break
            time.sleep(0.02)
        assert ref.session.seats[0].link is not None
        assert proxy.cut() == 1
        for _ in range(300):
            if ref.session.seats[0].link is None:
                break
            time.sleep(0.02)
        assert ref.session.seats[0].link is None, "the half-open stream still holds the seat"
    finally:
        hang_up.set()
        proxy.close()
        for seat in (0, 1):
            ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
        ref.join()


def test_health_checking_answers(referee: Referee) -> None:
    with grpc.insecure_channel(referee.address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_the_sdk_reconnects_after_its_stream_drops() -> None:
    """The referee drops seat 0's stream after its first decision; the SDK connects again and the match goes on."""
    ref = Referee(tc=TimeControl(move_time_ms=5000, time_bank_ms=0, connect_timeout_ms=20_000))
    dropped = threading.Event()
    original = ref.session._on_message

    def on_message(s: Any, msg: Any) -> None:
        original(s, msg)
        if s.seat == 0 and not dropped.is_set() and s.link is not None:
            dropped.set()
            s.link.close()  # ends the stream from the referee's side, as a network failure would

    ref.session._on_message = on_message  # type: ignore[method-assign]
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
         "--seed", "4", "--replay", str(tmp_path / "r.json")],
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


def test_a_hello_without_a_protocol_version_is_taken_as_version_1(referee: Referee) -> None:
    """docs/protocol.md: 0 (unset) is taken as 1, so a hand-written client that leaves it out is not refused."""
    hello = pb.BotMessage(hello=pb.Hello(match_id=referee.session.match_id, token=referee.session.tokens()[0]))
    replies = raw_stream(referee.address, [hello.SerializeToString()])
    assert not isinstance(replies, grpc.RpcError), replies
    start = pb.RefereeMessage.FromString(replies[0])
    assert start.WhichOneof("msg") == "start" and start.start.seat == 0


def test_a_message_of_exactly_the_limit_is_read_and_one_byte_more_is_refused() -> None:
    class Session:  # what the reader uses of a MatchSession
        def __init__(self) -> None:
            self.seats = [type("Seat", (), {"refused": 0})()]
            self.posted: list[int] = []
            self.refused: list[int] = []

        def post(self, seat: int, link: Any, msg: pb.BotMessage) -> None:
            self.posted.append(msg.ByteSize())

        def malformed(self, seat: int, link: Any, detail: str, code: int = 0) -> None:
            self.refused.append(code)

        def detach(self, seat: int, link: Any) -> None:
            pass

    def of_size(size: int) -> pb.BotMessage:
        msg = pb.BotMessage(hello=pb.Hello(bot_name="x" * size))
        msg.hello.bot_name = "x" * (size - (msg.ByteSize() - size))
        assert msg.ByteSize() == size
        return msg

    async def messages() -> Any:
        yield of_size(MAX_BOT_MESSAGE)
        yield of_size(MAX_BOT_MESSAGE + 1)

    session = Session()
    asyncio.run(RefereeService._read(messages(), session, 0, StreamLink()))  # type: ignore[arg-type]
    assert session.posted == [MAX_BOT_MESSAGE] and session.refused == [pb.MESSAGE_TOO_LARGE]


def test_a_stream_link_keeps_the_first_reason_it_was_ended_for() -> None:
    """A replaced stream must end with ABORTED and say why even if it is closed again (its reader ending) first."""
    link = StreamLink()
    link.close(REPLACED)
    link.close()
    assert link.ended_because == REPLACED


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


def test_an_sdk_bot_that_gives_up_over_the_wire_ends_its_decision_at_once() -> None:
    """Every answer of seat 0 is illegal: after its retries the SDK sends give_up, and the referee plays the default
    action then, not at a deadline ten minutes away (the threads' joins would fail first)."""

    class Illegal(RandomBot):  # type: ignore[misc, valid-type]
        def act(self, request: Any) -> Any:
            return gw_actions.squad([999])

    ref = Referee(tc=TimeControl(move_time_ms=600_000, time_bank_ms=0, strike_limit=2, connect_timeout_ms=20_000))
    results: dict[int, Any] = {}
    bots = {0: Illegal(0), 1: RandomBot(1)}

    def go(seat: int) -> None:
        results[seat] = play(bots[seat], ref.address, ref.session.match_id, ref.session.tokens()[seat])

    threads = [threading.Thread(target=go, args=(seat,), daemon=True) for seat in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    record = ref.join()
    seat = record.result.seats[0]
    gave_up = [v for v in seat.verdicts if v.kind == pb.TIMEOUT]
    assert len(gave_up) == 3 and {v.detail for v in gave_up} == {"the bot gave up on the decision"}
    assert seat.forfeited and record.game.is_over() and results[0] is not None
    rejected = [v.decision_index for v in seat.verdicts if v.kind == pb.ILLEGAL_ACTION]
    assert rejected == sorted(rejected) and len(rejected) == 3 * (Illegal.max_retries + 1)
