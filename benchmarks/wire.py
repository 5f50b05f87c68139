"""The round trip of one decision through referee and SDK, beside a bare gRPC ping-pong.

Both are measured on the serving side over a unix socket, with the client in
a separate process: from handing a message to gRPC to having the answer back.
The bare ping-pong sends messages of the same size as the referee's decision
requests and answers.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc

from referee.games.generals_war import GeneralsWar
from referee.server.service import RefereeService, make_server
from referee.server.session import MatchSession, TimeControl

ROOT = Path(__file__).resolve().parent.parent
PING_METHOD = "/bench.Echo/PingPong"


async def referee_round_trips(matches: int = 20, event_sizes: list[int] | None = None) -> tuple[list[float], int, int]:
    """Play General's War matches between two SDK random bots in their own processes.

    Returns the round trips in ms and the mean sizes of decision requests and answers in bytes;
    the sizes of the event batches sent go to ``event_sizes``.
    """
    from arena.v1 import referee_pb2 as pb
    from referee.server import service as service_module

    samples: list[float] = []
    request_sizes: list[int] = []
    answer_sizes: list[int] = []
    original_send = service_module.StreamLink.send
    original_post = MatchSession.post

    def send(self: service_module.StreamLink, msg: pb.RefereeMessage) -> None:
        which = msg.WhichOneof("msg")
        if which == "decision":
            request_sizes.append(msg.ByteSize())
        elif which == "events" and event_sizes is not None:
            event_sizes.append(msg.ByteSize())
        original_send(self, msg)

    def post(self: MatchSession, seat: int, link: object, msg: pb.BotMessage) -> None:
        if msg.WhichOneof("msg") == "action":
            answer_sizes.append(msg.ByteSize())
        original_post(self, seat, link, msg)  # type: ignore[arg-type]

    service_module.StreamLink.send = send  # type: ignore[method-assign]
    MatchSession.post = post  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory(prefix="arena-b-") as tmp:
            address = f"unix:{Path(tmp) / 'r.sock'}"
            service = RefereeService()
            server = make_server(service)
            server.add_insecure_port(address)
            await server.start()
            for seed in range(matches):
                session = MatchSession(GeneralsWar(2, seed), ["a", "b"], TimeControl(move_time_ms=5000))
                service.add(session)
                env = {"ARENA_ADDRESS": address, "ARENA_MATCH_ID": session.match_id, "ARENA_BOT_SEED": str(seed), "ARENA_LOG_LEVEL": "WARNING"}
                procs = [
                    await asyncio.create_subprocess_exec(
                        sys.executable, os.environ.get("BENCH_BOT", str(ROOT / "sample_bots" / "random" / "bot.py")), env={**env, "ARENA_TOKEN": token}
                    )
                    for token in session.tokens()
                ]
                record = await session.run()
                for p in procs:
                    await p.wait()
                service.remove(session.match_id)
                for s in record.seats:
                    samples.extend(s.think_ms)
            await server.stop(grace=0.2)
    finally:
        service_module.StreamLink.send = original_send  # type: ignore[method-assign]
        MatchSession.post = original_post  # type: ignore[method-assign]
    return samples, int(statistics.mean(request_sizes)), int(statistics.mean(answer_sizes))


async def round_trip_parts(matches: int = 8) -> dict[str, list[float]]:
    """Where a referee round trip goes, in ms per decision: the session's hand-off of the request to the
    stream's task, the stream (gRPC both ways, the SDK and the bot), and the hand-off of the answer from the
    stream's reader back to the session, until the session has it checked."""
    from arena.v1 import referee_pb2 as pb
    from referee.server import service as service_module

    marks: dict[str, float] = {}
    parts: dict[str, list[float]] = {"session to stream": [], "stream, SDK and bot": [], "stream to session": []}

    class MarkedQueue(asyncio.Queue[pb.RefereeMessage | None]):
        async def get(self) -> pb.RefereeMessage | None:
            msg = await super().get()
            if msg is not None and msg.WhichOneof("msg") == "decision":
                marks["taken"] = time.perf_counter()
            return msg

    original_init, original_send = service_module.StreamLink.__init__, service_module.StreamLink.send
    original_post, original_charge = MatchSession.post, MatchSession._charge

    def init(self: service_module.StreamLink) -> None:
        original_init(self)
        self.queue = MarkedQueue()

    def send(self: service_module.StreamLink, msg: pb.RefereeMessage) -> None:
        if msg.WhichOneof("msg") == "decision":
            marks["sent"] = time.perf_counter()
        original_send(self, msg)

    def post(self: MatchSession, seat: int, link: object, msg: pb.BotMessage) -> None:
        if msg.WhichOneof("msg") == "action":
            marks["read"] = time.perf_counter()
        original_post(self, seat, link, msg)  # type: ignore[arg-type]

    def charge(self: MatchSession, s: Any) -> None:
        if len(marks) == 3:
            parts["session to stream"].append((marks["taken"] - marks["sent"]) * 1000)
            parts["stream, SDK and bot"].append((marks["read"] - marks["taken"]) * 1000)
            parts["stream to session"].append((time.perf_counter() - marks["read"]) * 1000)
        marks.clear()
        original_charge(self, s)

    service_module.StreamLink.__init__ = init  # type: ignore[method-assign]
    service_module.StreamLink.send = send  # type: ignore[method-assign]
    MatchSession.post = post  # type: ignore[method-assign]
    MatchSession._charge = charge  # type: ignore[method-assign]
    try:
        await referee_round_trips(matches)
    finally:
        service_module.StreamLink.__init__ = original_init  # type: ignore[method-assign]
        service_module.StreamLink.send = original_send  # type: ignore[method-assign]
        MatchSession.post = original_post  # type: ignore[method-assign]
        MatchSession._charge = original_charge  # type: ignore[method-assign]
    return parts


def _echo_client(address: str, rounds: int) -> None:
    """Run in a child process: answer every ping with a reply of the given size.

    Driven as the SDK drives its stream (grpc's asyncio API, one thread), so
    that the ratio measures what the referee and the SDK add, not the client's style.
    """

    async def main() -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.stream_stream(PING_METHOD, request_serializer=lambda b: b, response_deserializer=lambda b: b)()
            await call.write(b"hello")
            while (msg := await call.read()) is not grpc.aio.EOF:
                await call.write(b"r" * int.from_bytes(msg[:4], "big"))
            await call.done_writing()

    asyncio.run(main())


async def bare_round_trips(request_size: int, reply_size: int, rounds: int = 2000) -> list[float]:
    """Round trips in ms of a ping-pong."""
    samples: list[float] = []
    done = asyncio.Event()

    async def ping_pong(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        incoming = requests.__aiter__()
        await incoming.__anext__()  # hello
        payload = reply_size.to_bytes(4, "big") + b"p" * max(0, request_size - 4)
        for _ in range(rounds):
            start = time.perf_counter()
            yield payload
            await incoming.__anext__()
            samples.append((time.perf_counter() - start) * 1000)
        done.set()

    handler = grpc.stream_stream_rpc_method_handler(ping_pong, request_deserializer=lambda b: b, response_serializer=lambda b: b)
    with tempfile.TemporaryDirectory(prefix="arena-b-") as tmp:
        address = f"unix:{Path(tmp) / 'p.sock'}"
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"PingPong": handler}),))
        server.add_insecure_port(address)
        await server.start()
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); from benchmarks.wire import _echo_client; _echo_client({address!r}, {rounds})"
        )
        await done.wait()
        await proc.wait()
        await server.stop(grace=0.2)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
