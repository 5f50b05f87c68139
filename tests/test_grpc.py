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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc
from arena_sdk.client import MatchRefused, log_level, play, play_async
from arena_sdk.games import generals_war as gw_actions
from referee.server import service as service_module
from referee.server.service import MAX_BOT_MESSAGE, MAX_WIRE_MESSAGE, RefereeService, StreamLink
from referee.server.session import REPLACED, AttachError, TimeControl
from tests.grpc_support import RandomBot, Referee, bot_thread, play_bots, raw_stream
from tests.support import SAMPLE_BOTS
from tests.waiting import wait_for


@pytest.fixture
def referee() -> Iterator[Referee]:
    ref = Referee()
    yield ref
    ref.stop()


def test_two_sdk_bots_play_a_match_over_grpc(referee: Referee) -> None:
    results: dict[int, Any] = {}
    threads = [bot_thread(referee, s, results) for s in (0, 1)]
    for t in threads:
        t.join(60)
    record = referee.join()
    assert record.game.is_over()
    assert sorted(s.rank for s in results[0].seats) == sorted(s.rank for s in record.result.seats)
    assert not any(s.verdicts for s in record.result.seats)


class HearingBot(RandomBot):  # type: ignore[misc]
    """The random bot, keeping every event it is told, as the SDK decodes them."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.heard: list[Any] = []

    def on_events(self, events: list[Any]) -> None:
        self.heard += events


def test_every_sdk_bot_is_told_how_the_game_ended_before_its_result(referee: Referee) -> None:
    """General's War won by killing the generals said nothing after the battle (GW-21): now every seat's last event,
    as the Python SDK decodes it, is the game's end, naming the seats the result ranks first."""
    bots = {seat: HearingBot(seat) for seat in (0, 1)}
    results = play_bots(referee, bots)
    referee.join()
    first = [s.seat for s in results[0].seats if s.rank == 1]
    for bot in bots.values():
        last = bot.heard[-1]
        assert last.WhichOneof("kind") == "game_ended" and list(last.game_ended.winners) == first
        assert [e.WhichOneof("kind") for e in bot.heard].count("round_ended") == [e.WhichOneof("kind") for e in bot.heard].count("round_started")


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
        wait_for("seat 3's process to be taken as ended", lambda: ref.session.seats[3].gone, every=0.01)
        hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=token, protocol_version=1))
        refused = raw_stream(ref.address, [hello.SerializeToString()])
        assert isinstance(refused, grpc.RpcError) and refused.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert refused.details() == "seat 3 has forfeited (the bot's process ended)"
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
    test_over = threading.Event()

    def silent() -> Iterator[bytes]:  # sends nothing and stays open till the test is over: only the referee can end it
        test_over.wait(60)
        yield from ()

    def go() -> None:
        with grpc.insecure_channel(referee.address) as channel:
            call = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=lambda b: b, response_deserializer=lambda b: b)
            try:
                list(call(silent(), timeout=60))
            except grpc.RpcError as exc:
                out["code"], out["details"] = exc.code(), exc.details()

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    try:
        thread.join(50)  # a hang detector, not a measure: the stream is open for longer
    finally:
        test_over.set()
    assert out.get("code") == grpc.StatusCode.INVALID_ARGUMENT, out
    assert out["details"] == "send hello first: none came within 0.3 s of opening the stream", out


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
    """At DEBUG too, the one line is the SDK's: asyncio's and gRPC's debug lines (the event loop's selector, gRPC's
    poller, once per stream) went to the bot's log under its name."""
    address = f"unix:{tmp_path / 'nobody.sock'}"
    # Both wait out the reconnect window (10 s), side by side rather than one after the other.
    with ThreadPoolExecutor(2) as pool:
        debug = pool.submit(run_sample_bot, address, "m", "t", ARENA_LOG_LEVEL="DEBUG")
        named = pool.submit(run_sample_bot, address, "m", "t", ARENA_BOT_NAME="mine")
        code, _, err = debug.result()
        assert code == 1 and len(err) == 1 and err[0].startswith("[random] ERROR no referee at unix:"), err
        # Its lines carry the name the referee hands on (its bot.toml's), not its class's.
        code, _, err = named.result()
        assert code == 1 and len(err) == 1 and err[0].startswith("[mine] ERROR no referee at unix:"), err


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


def test_health_checking_answers(referee: Referee) -> None:
    with grpc.insecure_channel(referee.address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


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


def test_an_sdk_bot_that_gives_up_over_the_wire_ends_its_decision_at_once() -> None:
    """Every answer of seat 0 is illegal: after its retries the SDK sends give_up, and the referee plays the default
    action then, not at a deadline ten minutes away (the threads' joins would fail first)."""

    class Illegal(RandomBot):  # type: ignore[misc]
        def act(self, request: Any) -> Any:
            return gw_actions.squad([999])

    ref = Referee(tc=TimeControl(move_time_ms=600_000, time_bank_ms=0, strike_limit=2, connect_timeout_ms=20_000))
    results = play_bots(ref, {0: Illegal(0), 1: RandomBot(1)})
    record = ref.join()
    seat = record.result.seats[0]
    gave_up = [v for v in seat.verdicts if v.kind == pb.TIMEOUT]
    assert len(gave_up) == 3 and {v.detail for v in gave_up} == {"the bot gave up on the decision"}
    assert seat.forfeited and record.game.is_over() and results[0] is not None
    rejected = [v.decision_index for v in seat.verdicts if v.kind == pb.ILLEGAL_ACTION]
    assert rejected == sorted(rejected) and len(rejected) == 3 * (Illegal.max_retries + 1)
