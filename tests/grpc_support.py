"""A referee serving one match over real gRPC from a thread, and raw streams to it: for the gRPC tests."""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc

from arena.v1 import referee_pb2 as pb
from arena_sdk.client import play
from referee.games.generals_war import GeneralsWar
from referee.server.service import HANG_UP_WAIT_S, RefereeService, make_server
from referee.server.session import MatchSession, TimeControl
from tests.support import load_bot_class


RandomBot = load_bot_class("random", "RandomBot")


class HeldBot(RandomBot):  # type: ignore[misc, valid-type]
    """The random bot, that holds its second decision until ``release`` is set (``holding`` says it is there). In a
    match of two, the first decision is both seats' at once: while it holds, the other seat has answered once, and
    the match is still on."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.decided = 0
        self.holding, self.release = threading.Event(), threading.Event()

    def act(self, request: Any) -> Any:
        self.decided += 1
        if self.decided == 2:
            self.holding.set()
            assert self.release.wait(60), "never released"
        return super().act(request)


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
            await service.streams_ended(self.session.match_id, HANG_UP_WAIT_S)  # the bots have read their result, as the runner waits
            await server.stop(grace=0.5)

        self.loop.run_until_complete(main())

    def join(self) -> Any:
        self.thread.join(60)
        assert not self.thread.is_alive()
        self.tmp.cleanup()
        return self.record

    def stop(self) -> None:
        """Ends the match if a test left it running (its bots' processes taken as ended), then cleans up."""
        if self.thread.is_alive():
            for seat in range(self.session.game.num_players):
                self.loop.call_soon_threadsafe(self.session.process_ended, seat, "test over")
            self.thread.join(30)
        self.tmp.cleanup()

    def env(self, seat: int, token: str | None = None) -> dict[str, str]:
        """The environment of a bot process of ``seat``, as the local runner gives it (``token``: another one)."""
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "ARENA_ADDRESS": self.address,
            "ARENA_MATCH_ID": self.session.match_id,
            "ARENA_TOKEN": token if token is not None else self.session.tokens()[seat],
            "ARENA_BOT_SEED": "9",
        }

    def drop_first_stream(self, seat: int) -> threading.Event:
        """After ``seat``'s first message, end its stream from the referee's side, as a network failure would;
        the event is set once it has been."""
        dropped = threading.Event()
        original = self.session._on_message

        def on_message(s: Any, msg: Any) -> None:
            original(s, msg)
            if s.seat == seat and not dropped.is_set() and s.link is not None:
                dropped.set()
                s.link.close()

        self.session._on_message = on_message  # type: ignore[method-assign]
        return dropped


def bot_thread(ref: Referee, seat: int, out: dict[int, Any]) -> threading.Thread:
    def go() -> None:
        out[seat] = play(RandomBot(seat), ref.address, ref.session.match_id, ref.session.tokens()[seat])

    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


def play_bots(ref: Referee, bots: dict[int, Any]) -> dict[int, Any]:
    """Each seat's bot plays the match through the Python SDK, from a thread of its own; their results, by seat."""
    results: dict[int, Any] = {}

    def go(seat: int) -> None:
        results[seat] = play(bots[seat], ref.address, ref.session.match_id, ref.session.tokens()[seat])

    threads = [threading.Thread(target=go, args=(seat,), daemon=True) for seat in bots]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


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


