"""Matches with bots in this process: the real session and the real SDK driver, no network.

The links serialise every message to bytes and parse it back, as a wire would,
and hand the bytes each seat receives to ``on_send`` (the hidden-information check reads them).
"""

from __future__ import annotations

import asyncio
import time
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
        #: What the bot raised: its process would have ended with it, and not sat silent until its time ran out.
        self.error: Exception | None = None

    def send(self, msg: pb.RefereeMessage) -> None:
        data = msg.SerializeToString()
        if self.on_send is not None:
            self.on_send(self.seat, data)
        self.loop.call_soon(self._receive, data)

    def _receive(self, data: bytes) -> None:
        if self.error is not None:
            return
        msg = pb.RefereeMessage.FromString(data)
        try:
            replies = self.driver.handle(msg)
        except Exception as exc:  # noqa: BLE001 - raised again by play_async, once the match is over
            self.error = exc
            self.session.process_ended(self.seat, f"the bot raised {type(exc).__name__}: {exc}")
            return
        for reply in replies:
            self.session.post(self.seat, self, pb.BotMessage.FromString(reply.SerializeToString()))

    def close(self, reason: str = "") -> None:
        pass


async def play_async(
    game: Game[Any],
    bots: list[Bot],
    time_control: TimeControl = RELAXED,
    on_send: Callable[[int, bytes], None] | None = None,
    list_limit: int = 64,
    clock: Callable[[], float] = time.monotonic,
) -> MatchRecord:
    """The match's record; what a bot raised is raised here, with its traceback, once the match is over (a bot that
    raised sat silent for its whole time, minutes of RELAXED's, for each of its decisions). A bot whose SDK gave up
    on a decision (its ``give_up``) times out at once, as it would at its deadline. ``clock``: the session's
    (a test freezes it, so that no decision's time runs out but by giving up)."""
    session = MatchSession(game, [b.name for b in bots], time_control, list_limit=list_limit, clock=clock)
    links = []
    for bot, token in zip(bots, session.tokens()):
        link = MemoryLink(session, BotDriver(bot), on_send)
        link.seat = session.tokens().index(token)  # known before attach(), which sends GameStart at once
        links.append(link)
        session.attach(token, link)
    record = await session.run()
    for link in links:
        if link.error is not None:
            raise link.error
    return record


def play(game: Game[Any], bots: list[Bot], **kwargs: Any) -> MatchRecord:
    """Play ``game`` to the end with ``bots`` in seat order."""
    box: list[MatchRecord] = []

    async def main() -> None:
        # Not the main task's result: Python 3.11's asyncio.run can format that task's repr at exit, the whole game state.
        box.append(await play_async(game, bots, **kwargs))

    asyncio.run(main())
    return box[0]
