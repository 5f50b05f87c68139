"""The gRPC face of the referee: one bidirectional stream per seat, bound to a session by its token."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc
from referee.protocol.codec import foreign_fields
from referee.server.session import AttachError, MatchSession

HELLO_TIMEOUT_S = 10.0
HANG_UP_WAIT_S = 2.0  # how long a finished stream waits for the bot to hang up
#: Largest message a bot may send: a bigger one is refused with a MALFORMED verdict (the session checks it).
MAX_BOT_MESSAGE = 64 * 1024
#: Beyond this gRPC itself refuses the message and ends that stream only.
MAX_WIRE_MESSAGE = 1024 * 1024
MAX_REFEREE_MESSAGE = 4 * 1024 * 1024
#: HTTP/2 keepalive: the referee pings each connection that has a stream open after this long without traffic,
#: and drops it if the ping is not answered in KEEPALIVE_TIMEOUT_MS, so a bot whose connection died without a
#: word (a half-open TCP connection) is seen as disconnected, not as thinking, and its stream let go.
KEEPALIVE_TIME_MS = 20_000
KEEPALIVE_TIMEOUT_MS = 10_000
#: How often a bot may ping the referee while nothing else is sent (the SDKs ping every 30 s): gRPC's default, five
#: minutes, answers a bot that pings more often with GOAWAY (too_many_pings), which ends its stream.
BOT_PING_INTERVAL_MS = 20_000
#: Connections a server keeps open at once (a seat's socket; ``arena referee serve`` allows this many per seat): more are
#: closed as they come. A bot that opened 20,000 connections to its socket held as many of the referee's file
#: descriptors, all it had, for every match the process ran.
MAX_CONNECTIONS = 16
#: Streams open at once on one connection; more are refused (5,000 streams without a hello took 80 MB).
MAX_STREAMS = 16
#: A connection that has not finished its HTTP/2 handshake by then is closed (gRPC's default: 120 s).
HANDSHAKE_TIMEOUT_MS = 10_000


#: Errors are not queued for a stream with this many messages unread: they only say what was wrong, and a bot that sends
#: stale or malformed messages without reading the answers made the referee keep an error for each (200 MB in 20 s).
MAX_UNREAD = 256
#: Once a seat has had this many messages refused (stale, unexpected, malformed or rejected answers), its stream is read
#: one message per FLOOD_PAUSE_S: a bot flooding bad answers and reading the errors kept a core busy for its whole match
#: (benchmarks/flood.py); gRPC's flow control now holds the rest back on the bot's side. A bot that plays gets a stale
#: answer refused per timeout at most, and is forfeited for timeouts long before.
FLOOD_AFTER = 500
FLOOD_PAUSE_S = 0.005


class StreamLink:
    """A seat's live stream: the session writes messages, the handler yields them."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[pb.RefereeMessage | None] = asyncio.Queue()
        #: Why the referee ended this stream early (the stream then ends with ABORTED); empty otherwise.
        self.ended_because = ""

    def send(self, msg: pb.RefereeMessage) -> None:
        if self.queue.qsize() >= MAX_UNREAD and msg.WhichOneof("msg") == "error":
            return
        self.queue.put_nowait(msg)

    def close(self, reason: str = "") -> None:
        self.ended_because = self.ended_because or reason
        self.queue.put_nowait(None)


#: ``only_seat`` for a socket that serves no seat now (a pooled bot's between two matches).
NO_SEAT = -1


def no_match(hello: pb.Hello) -> str:
    """Why a hello names no match served here (NOT_FOUND).

    An empty match_id most often comes from a library that names fields in camelCase: it drops the snake_case ones a
    bot wrote (@grpc/proto-loader's default), and the bot's hello arrives without it, whatever the bot set.
    """
    if not hello.match_id:
        return (
            "the hello has no match_id: send ARENA_MATCH_ID (a library that names fields in camelCase, as "
            "@grpc/proto-loader does unless loaded with keepCase: true, drops a field set as match_id)"
        )
    # The id cut short: a status's details travel as metadata, and a long id made it RESOURCE_EXHAUSTED.
    shown = hello.match_id if len(hello.match_id) <= 80 else hello.match_id[:80] + "..."
    return f"no match {shown!r} here"


def not_this_seat(hello: pb.Hello, seat: int) -> str:
    """Why a seat's own socket refuses a hello's token (PERMISSION_DENIED)."""
    if seat == NO_SEAT:
        return "this socket serves no seat now"
    if not hello.token:
        return f"the hello has no token: send ARENA_TOKEN (this socket serves seat {seat} only)"
    return f"wrong token: this socket serves seat {seat} only"


class RefereeService(referee_pb2_grpc.RefereeServicer):
    """Routes each stream to its match by ``Hello.match_id`` and to its seat by token."""

    def __init__(self, only_seat: int | None = None) -> None:
        self.sessions: dict[str, MatchSession] = {}
        #: When set, this service (listening on one seat's socket) serves that seat alone.
        self.only_seat = only_seat
        self._open: dict[str, int] = {}  # streams attached to each match and not yet ended
        self._ended: dict[str, asyncio.Event] = {}

    def add(self, session: MatchSession) -> None:
        self.sessions[session.match_id] = session

    def remove(self, match_id: str) -> None:
        self.sessions.pop(match_id, None)

    async def streams_ended(self, match_id: str, timeout: float) -> bool:
        """Wait until every stream attached to ``match_id`` has ended (the bot read its result and hung up); False on timeout."""
        if not self._open.get(match_id):
            return True
        ended = self._ended.setdefault(match_id, asyncio.Event())
        try:
            await asyncio.wait_for(ended.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def _opened(self, match_id: str) -> None:
        self._open[match_id] = self._open.get(match_id, 0) + 1

    def _closed(self, match_id: str) -> None:
        left = self._open[match_id] = self._open[match_id] - 1
        if left == 0:
            del self._open[match_id]
            ended = self._ended.pop(match_id, None)
            if ended is not None:
                ended.set()

    async def Play(  # noqa: N802 (gRPC method name)
        self, request_iterator: AsyncIterator[pb.BotMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.RefereeMessage]:
        incoming = request_iterator.__aiter__()
        try:
            first = await asyncio.wait_for(incoming.__anext__(), HELLO_TIMEOUT_S)
        except StopAsyncIteration:
            await self._refuse(context, grpc.StatusCode.INVALID_ARGUMENT, "send hello first: the stream was closed before any message")
            return
        except TimeoutError:
            await self._refuse(context, grpc.StatusCode.INVALID_ARGUMENT, f"send hello first: none came within {HELLO_TIMEOUT_S:g} s of opening the stream")
            return
        except DecodeError:
            await self._refuse(context, grpc.StatusCode.INVALID_ARGUMENT, "the first message is not a BotMessage")
            return
        if (which := first.WhichOneof("msg")) != "hello":
            got = f"{'an' if which == 'action' else 'a'} {which}" if which else f"an empty message{foreign_fields(first)}"
            await self._refuse(context, grpc.StatusCode.INVALID_ARGUMENT, f"send hello first: the first message was {got}")
            return
        hello = first.hello
        if hello.protocol_version not in (0, 1):
            await self._refuse(context, grpc.StatusCode.FAILED_PRECONDITION, f"protocol version {hello.protocol_version} is not spoken here (1 is)")
            return
        session = self.sessions.get(hello.match_id)
        if session is None:
            await self._refuse(context, grpc.StatusCode.NOT_FOUND, no_match(hello))
            return
        if self.only_seat is not None and session.seat_of(hello.token) != self.only_seat:
            await self._refuse(context, grpc.StatusCode.PERMISSION_DENIED, not_this_seat(hello, self.only_seat))
            return
        link = StreamLink()
        try:
            seat = session.attach(hello.token, link)
        except AttachError as exc:
            await self._refuse(context, getattr(grpc.StatusCode, exc.code), str(exc))
            return
        self._opened(session.match_id)
        reader = asyncio.create_task(self._read(incoming, session, seat, link))
        # When gRPC ends the call itself (a refused oversized message, a dropped peer), let go of the seat.
        # Called once per call, whichever way it ends: the stream is counted as ended here.
        def release(_: object) -> None:
            session.detach(seat, link)
            link.close()
            self._closed(session.match_id)

        context.add_done_callback(release)
        try:
            while True:
                msg = await link.queue.get()
                if msg is None:
                    break
                yield msg
            if link.ended_because:  # replaced by a newer stream of the seat: end at once, saying so
                await context.abort(grpc.StatusCode.ABORTED, link.ended_because)
                return
            # Hold the stream until the bot hangs up (the SDKs do on the result), for a moment at most: ending it
            # first let a server stopped right after the match cut off the result before the bot had read it.
            await asyncio.wait({reader}, timeout=HANG_UP_WAIT_S)
        finally:
            reader.cancel()
            session.detach(seat, link)

    async def _refuse(self, context: grpc.aio.ServicerContext, code: grpc.StatusCode, why: str) -> None:
        """End a stream the referee will not serve with ``code`` and ``why``. On a seat's own socket the seat's session
        keeps it too: a bot that gives up after its hellos were refused then crashes (or is a no-show) "before it
        connected", and its verdict says what the referee answered, which its log may not."""
        if self.only_seat is not None and self.only_seat != NO_SEAT:
            for session in self.sessions.values():
                session.hello_refused(self.only_seat, f"{code.name}: {why}")
        await context.abort(code, why)

    @staticmethod
    async def _read(incoming: AsyncIterator[pb.BotMessage], session: MatchSession, seat: int, link: StreamLink) -> None:
        state = session.seats[seat]
        try:
            async for msg in incoming:
                if state.refused >= FLOOD_AFTER:
                    await asyncio.sleep(FLOOD_PAUSE_S)
                size = msg.ByteSize()
                if size > MAX_BOT_MESSAGE:
                    session.malformed(seat, link, f"a message of {size} bytes; the limit is {MAX_BOT_MESSAGE}", pb.MESSAGE_TOO_LARGE)
                    continue
                session.post(seat, link, msg)
        except (grpc.RpcError, asyncio.CancelledError):
            pass
        except DecodeError as exc:  # bytes that are no BotMessage: the stream is dead, and the seat is told why
            # gRPC reads nothing more from this stream, which ends with OK: the bot is told to open another.
            session.malformed(seat, link, f"undecodable message ({exc}): this stream ends here; open a new one and send the hello again")
        finally:
            session.detach(seat, link)
            link.close()


def make_server(service: RefereeService, max_connections: int = MAX_CONNECTIONS, max_streams: int = MAX_STREAMS) -> grpc.aio.Server:
    """A gRPC server with the referee, standard health checking and server reflection.

    The limits suit a seat's socket (or `arena referee serve`'s one match); a server that hosts many matches
    at once on one address must raise them."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_allowed_incoming_connections", max_connections),
            ("grpc.max_concurrent_streams", max_streams),
            ("grpc.server_handshake_timeout_ms", HANDSHAKE_TIMEOUT_MS),
            # No window growth by BDP probing: a bot's messages are small, and a growing window let a flood pile up in
            # the referee's memory (benchmarks/flood.py) instead of waiting on the bot's side.
            ("grpc.http2.bdp_probe", 0),
            ("grpc.max_receive_message_length", MAX_WIRE_MESSAGE),
            ("grpc.max_send_message_length", MAX_REFEREE_MESSAGE),
            ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
            ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
            # Keep pinging while a bot thinks and nothing is sent: by default gRPC sends two pings without data, then
            # waits five minutes between pings, and waits a minute for an answer whatever keepalive_timeout says.
            ("grpc.http2.max_pings_without_data", 0),
            ("grpc.http2.min_time_between_pings_ms", KEEPALIVE_TIME_MS),
            ("grpc.http2.ping_timeout_ms", KEEPALIVE_TIMEOUT_MS),
            ("grpc.http2.min_ping_interval_without_data_ms", BOT_PING_INTERVAL_MS),
        ]
    )
    referee_pb2_grpc.add_RefereeServicer_to_server(service, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = (
        pb.DESCRIPTOR.services_by_name["Referee"].full_name,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    reflection.enable_server_reflection(names, server)
    return server
