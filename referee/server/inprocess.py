"""Matches with bots in this process: the real session and the real SDK driver, no network.

The links serialise every message to bytes and parse it back, as a wire would,
and hand the bytes each seat receives to ``on_send`` (the hidden-information check reads them).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from arena.v1 import referee_pb2 as pb
from arena_sdk.bot import Bot
from arena_sdk.driver import BotDriver
from referee.core.game import Game
from referee.server.session import MatchRecord, MatchSession, TimeControl

RELAXED = TimeControl(move_time_ms=60_000, time_bank_ms=60_000, connect_timeout_ms=60_000)


class MemoryLink:
    def __init__(self, session: MatchSession, driver: BotDriver, on_send: Callable[[int, bytes], None] | None) -> None:
        self.session = session
        self.driver = driver
        self.on_send = on_send
        self.seat = -1
        self.loop = asyncio.get_running_loop()

    def send(self, msg: pb.RefereeMessage) -> None:
        data = msg.SerializeToString()
        if self.on_send is not None:
            self.on_send(self.seat, data)
        self.loop.call_soon(self._receive, data)

    def _receive(self, data: bytes) -> None:
        for reply in self.driver.handle(pb.RefereeMessage.FromString(data)):
            self.session.post(self.seat, self, pb.BotMessage.FromString(reply.SerializeToString()))

    def close(self, reason: str = "") -> None:
        pass


async def play_async(
    game: Game[Any],
    bots: list[Bot],
    time_control: TimeControl = RELAXED,
    on_send: Callable[[int, bytes], None] | None = None,
    list_limit: int = 64,
) -> MatchRecord:
    session = MatchSession(game, [b.name for b in bots], time_control, list_limit=list_limit)
    for bot, token in zip(bots, session.tokens()):
        link = MemoryLink(session, BotDriver(bot), on_send)
        link.seat = session.tokens().index(token)  # known before attach(), which sends GameStart at once
        session.attach(token, link)
    return await session.run()


def play(game: Game[Any], bots: list[Bot], **kwargs: Any) -> MatchRecord:
    """Play ``game`` to the end with ``bots`` in seat order."""
    box: list[MatchRecord] = []

    async def main() -> None:
        # Not the main task's result: Python 3.11's asyncio.run can format that task's repr at exit, the whole game state.
        box.append(await play_async(game, bots, **kwargs))

    asyncio.run(main())
    return box[0]
