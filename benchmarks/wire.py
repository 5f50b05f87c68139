"""The round trip of one decision through referee and SDK, beside a bare gRPC ping-pong.

Both are measured on the serving side over a unix socket, with the client in
a separate process: from handing a message to gRPC to having the answer back.
The bare ping-pong sends messages of the same size as the referee's decision
requests and answers.
"""

from __future__ import annotations

import asyncio
import json
import statistics
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
RANDOM_BOT = ROOT / "sample_bots" / "random" / "bot.py"


async def referee_round_trips(
    matches: int = 20, event_sizes: list[int] | None = None, bot: Path = RANDOM_BOT, env: dict[str, str] | None = None,
    pooled: bool = False,
) -> tuple[list[float], int, int]:
    """Play General's War matches between two SDK random bots (``bot``, a script) in their own processes.

    Returns the round trips in ms and the mean sizes of decision requests and answers in bytes;
    the sizes of the event batches sent go to ``event_sizes``. ``pooled``: the two bot processes are started
    once and handed every match on stdin (``ARENA_CONTROL=stdin``, docs/protocol.md), as the tournament
    runner and the ladder do for bots whose manifest allows it; otherwise each match starts its own.
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
            kept = [
                await asyncio.create_subprocess_exec(
                    sys.executable, str(bot), env={**(env or {}), "ARENA_CONTROL": "stdin", "ARENA_LOG_LEVEL": "WARNING"}, stdin=asyncio.subprocess.PIPE
                )
                for _ in range(2 if pooled else 0)
            ]
            for seed in range(matches):
                session = MatchSession(GeneralsWar(2, seed), ["a", "b"], TimeControl(move_time_ms=5000))
                service.add(session)
                if pooled:
                    for proc, token in zip(kept, session.tokens()):
                        line = {"address": address, "match_id": session.match_id, "token": token, "seed": str(seed)}
                        assert proc.stdin is not None
                        proc.stdin.write(json.dumps(line).encode() + b"\n")
                        await proc.stdin.drain()
                    procs = []
                else:
                    seat_env = {
                        **(env or {}), "ARENA_ADDRESS": address, "ARENA_MATCH_ID": session.match_id, "ARENA_BOT_SEED": str(seed), "ARENA_LOG_LEVEL": "WARNING"
                    }
                    procs = [
                        await asyncio.create_subprocess_exec(sys.executable, str(bot), env={**seat_env, "ARENA_TOKEN": token})
                        for token in session.tokens()
                    ]
                record = await session.run()
                for p in procs:
                    await p.wait()
                service.remove(session.match_id)
                for s in record.seats:
                    samples.extend(s.think_ms)
            for proc in kept:
                assert proc.stdin is not None
                proc.stdin.close()
                await proc.wait()
            await server.stop(grace=0.2)
    finally:
        service_module.StreamLink.send = original_send  # type: ignore[method-assign]
        MatchSession.post = original_post  # type: ignore[method-assign]
    return samples, int(statistics.mean(request_sizes)), int(statistics.mean(answer_sizes))


REFEREE_PARTS = ("session to stream task", "to the bot", "SDK and bot", "back to the referee", "answer checked")
BARE_PARTS = ("to the client", "client", "back to the server")


async def round_trip_parts(matches: int = 8) -> dict[str, list[float]]:
    """Where a referee round trip goes, in ms per decision (REFEREE_PARTS).

    The session's hand-off of the request to the stream's task; from there until the bot's SDK has the
    request (gRPC out: serialising, the socket, the bot's process waking, parsing); the SDK and the bot's
    move (benchmarks/marked_bot.py notes both ends); until the stream's reader has the answer (gRPC back);
    and until the session has decoded and checked it. The bot's marks and the referee's come from one
    clock, ``time.perf_counter``, system-wide on Linux.
    """
    from arena.v1 import referee_pb2 as pb
    from referee.server import service as service_module

    marks: dict[tuple[str, int], dict[str, float]] = {}
    match_of: dict[int, str] = {}  # id(link) -> match id

    class MarkedQueue(asyncio.Queue[pb.RefereeMessage | None]):
        link_id = 0

        async def get(self) -> pb.RefereeMessage | None:
            msg = await super().get()
            if msg is not None and msg.WhichOneof("msg") == "decision":
                marks.setdefault((match_of.get(self.link_id, ""), msg.decision.request_id), {})["taken"] = time.perf_counter()
            return msg

    original_init, original_send = service_module.StreamLink.__init__, service_module.StreamLink.send
    original_attach, original_post, original_charge = MatchSession.attach, MatchSession.post, MatchSession._charge

    def init(self: service_module.StreamLink) -> None:
        original_init(self)
        self.queue = MarkedQueue()
        self.queue.link_id = id(self)

    def attach(self: MatchSession, token: str, link: Any) -> int:
        match_of[id(link)] = self.match_id
        return original_attach(self, token, link)

    def send(self: service_module.StreamLink, msg: pb.RefereeMessage) -> None:
        if msg.WhichOneof("msg") == "decision":
            marks.setdefault((match_of.get(id(self), ""), msg.decision.request_id), {})["sent"] = time.perf_counter()
        original_send(self, msg)

    def post(self: MatchSession, seat: int, link: Any, msg: pb.BotMessage) -> None:
        if msg.WhichOneof("msg") == "action":
            marks.setdefault((self.match_id, msg.action.request_id), {})["read"] = time.perf_counter()
        original_post(self, seat, link, msg)

    def charge(self: MatchSession, s: Any, elapsed: float | None = None) -> None:
        if s.pending is not None:
            marks.setdefault((self.match_id, s.pending.request_id), {})["checked"] = time.perf_counter()
        original_charge(self, s, elapsed)

    service_module.StreamLink.__init__ = init  # type: ignore[method-assign]
    service_module.StreamLink.send = send  # type: ignore[method-assign]
    MatchSession.attach = attach  # type: ignore[method-assign]
    MatchSession.post = post  # type: ignore[method-assign]
    MatchSession._charge = charge  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory(prefix="arena-marks-") as folder:
            await referee_round_trips(matches, bot=ROOT / "benchmarks" / "marked_bot.py", env={"ARENA_BENCH_MARKS": folder})
            for path in Path(folder).glob("*.json"):
                for match_id, request_id, reached, answered in json.loads(path.read_text()):
                    found = marks.get((match_id, request_id))
                    if found is not None:
                        found.update(reached=reached, answered=answered)
    finally:
        service_module.StreamLink.__init__ = original_init  # type: ignore[method-assign]
        service_module.StreamLink.send = original_send  # type: ignore[method-assign]
        MatchSession.attach = original_attach  # type: ignore[method-assign]
        MatchSession.post = original_post  # type: ignore[method-assign]
        MatchSession._charge = original_charge  # type: ignore[method-assign]
    order = ("sent", "taken", "reached", "answered", "read", "checked")
    parts: dict[str, list[float]] = {name: [] for name in REFEREE_PARTS}
    for found in marks.values():
        if all(k in found for k in order) and all(found[a] <= found[b] for a, b in zip(order, order[1:])):
            for name, a, b in zip(REFEREE_PARTS, order, order[1:]):
                parts[name].append((found[b] - found[a]) * 1000)
    return parts


def _echo_client(address: str, rounds: int, marks_file: str = "") -> None:
    """Run in a child process: answer every ping with a reply of the given size.

    Driven as the SDK drives its stream (grpc's asyncio API, one thread), so
    that the ratio measures what the referee and the SDK add, not the client's style.
    With ``marks_file``, the moments each ping arrived and its reply went out are written there.
    """
    marks: list[tuple[float, float]] = []

    async def main() -> None:
        async with grpc.aio.insecure_channel(address) as channel:
            call = channel.stream_stream(PING_METHOD, request_serializer=lambda b: b, response_deserializer=lambda b: b)()
            await call.write(b"hello")
            while (msg := await call.read()) is not grpc.aio.EOF:
                reached = time.perf_counter()
                reply = b"r" * int.from_bytes(msg[:4], "big")
                marks.append((reached, time.perf_counter()))
                await call.write(reply)
            await call.done_writing()

    asyncio.run(main())
    if marks_file:
        Path(marks_file).write_text(json.dumps(marks))


async def bare_round_trips(
    request_size: int, reply_size: int, rounds: int = 2000, clients: int = 1, parts: dict[str, list[float]] | None = None
) -> list[float]:
    """Round trips in ms of a ping-pong; with two ``clients`` (each in its own process) the server pings them in turn.

    Taking turns is the referee's pattern in a two-seat game: the answer on one stream is followed by the
    request on the other, so each client sleeps through the other's round trip before its own. The turn
    passes between the streams' handlers through an asyncio event, outside the timed span.
    With ``parts`` (one client), the round trips are split as BARE_PARTS, from marks the client keeps.
    """
    spans: list[tuple[float, float]] = []
    samples: list[float] = []
    turns = [asyncio.Event() for _ in range(clients)]
    joined: list[int] = []
    done = asyncio.Event()

    async def ping_pong(requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
        incoming = requests.__aiter__()
        await incoming.__anext__()  # hello
        me = len(joined)
        joined.append(me)
        if len(joined) == clients:
            turns[0].set()
        payload = reply_size.to_bytes(4, "big") + b"p" * max(0, request_size - 4)
        for _ in range(rounds):
            await turns[me].wait()
            turns[me].clear()
            start = time.perf_counter()
            yield payload
            await incoming.__anext__()
            end = time.perf_counter()
            samples.append((end - start) * 1000)
            spans.append((start, end))
            turns[(me + 1) % clients].set()
        if len(samples) == rounds * clients:
            done.set()

    handler = grpc.stream_stream_rpc_method_handler(ping_pong, request_deserializer=lambda b: b, response_serializer=lambda b: b)
    with tempfile.TemporaryDirectory(prefix="arena-b-") as tmp:
        address = f"unix:{Path(tmp) / 'p.sock'}"
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"PingPong": handler}),))
        server.add_insecure_port(address)
        await server.start()
        marks_file = str(Path(tmp) / "marks.json") if parts is not None and clients == 1 else ""
        procs = [
            await asyncio.create_subprocess_exec(
                sys.executable, "-c",
                f"import sys; sys.path.insert(0, {str(ROOT)!r}); from benchmarks.wire import _echo_client; _echo_client({address!r}, {rounds}, {marks_file!r})",
            )
            for _ in range(clients)
        ]
        await done.wait()
        for proc in procs:
            await proc.wait()
        await server.stop(grace=0.2)
        if marks_file and parts is not None:
            for (start, end), (reached, answered) in zip(spans, json.loads(Path(marks_file).read_text())):
                if start <= reached <= answered <= end:
                    for name, a, b in zip(BARE_PARTS, (start, reached, answered), (reached, answered, end)):
                        parts.setdefault(name, []).append((b - a) * 1000)
    return samples


def summary(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def seat_messages() -> list[Any]:
    """Every message one seat of a General's War match between two SDK random bots was sent (start, decisions, result)."""
    from referee.server import service as service_module

    sent: dict[int, list[Any]] = {}
    original_send = service_module.StreamLink.send

    def send(self: service_module.StreamLink, msg: Any) -> None:
        sent.setdefault(id(self), []).append(msg)
        original_send(self, msg)

    service_module.StreamLink.send = send  # type: ignore[method-assign]
    try:
        await referee_round_trips(1)
    finally:
        service_module.StreamLink.send = original_send  # type: ignore[method-assign]
    return max(sent.values(), key=len)


async def replayed_round_trips(messages: list[Any], rounds: int, work_ms: float = 0.0, clients: int = 2) -> list[float]:
    """Round trips in ms of a referee's real messages replayed to SDK random bots by a server that does nothing else.

    The server (the referee's own gRPC settings, ``make_server``) sends each client its start, then its
    decision requests in turn, as the referee does with two seats, and ends with the result. Between an answer
    and the next request it spins for ``work_ms``, outside the timed span: the work the referee's rules do there.
    """
    from arena.v1 import referee_pb2_grpc

    by_kind: dict[str, list[Any]] = {}
    for msg in messages:
        by_kind.setdefault(msg.WhichOneof("msg"), []).append(msg)
    samples: list[float] = []
    turns = [asyncio.Event() for _ in range(clients)]
    joined: list[int] = []
    finished = asyncio.Event()

    class Replay(referee_pb2_grpc.RefereeServicer):
        async def Play(self, request_iterator: AsyncIterator[Any], context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:  # noqa: N802
            incoming = request_iterator.__aiter__()
            await incoming.__anext__()  # hello
            me = len(joined)
            joined.append(me)
            yield by_kind["start"][0]
            if len(joined) == clients:
                turns[0].set()
            for i in range(rounds):
                await turns[me].wait()
                turns[me].clear()
                until = time.perf_counter() + work_ms / 1000
                while time.perf_counter() < until:
                    pass
                start = time.perf_counter()
                yield by_kind["decision"][i % len(by_kind["decision"])]
                await incoming.__anext__()
                samples.append((time.perf_counter() - start) * 1000)
                turns[(me + 1) % clients].set()
            yield by_kind["result"][0]
            if len(samples) == rounds * clients:
                finished.set()

    with tempfile.TemporaryDirectory(prefix="arena-b-") as tmp:
        address = f"unix:{Path(tmp) / 'r.sock'}"
        server = make_server(Replay())  # type: ignore[arg-type]
        server.add_insecure_port(address)
        await server.start()
        env = {"ARENA_ADDRESS": address, "ARENA_MATCH_ID": "replay", "ARENA_TOKEN": "-", "ARENA_LOG_LEVEL": "ERROR"}
        procs = [await asyncio.create_subprocess_exec(sys.executable, str(RANDOM_BOT), env=env) for _ in range(clients)]
        await finished.wait()
        for proc in procs:
            await proc.wait()
        await server.stop(grace=0.2)
    return samples
