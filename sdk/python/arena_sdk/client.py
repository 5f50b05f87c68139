"""Running a bot over gRPC: connect, play, reconnect within the match, log to stderr."""

from __future__ import annotations

import logging
import os
import queue
import sys
import time
from collections.abc import Iterator

import grpc

from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc
from arena_sdk.bot import Bot
from arena_sdk.driver import BotDriver

log = logging.getLogger("arena_sdk")
MAX_MESSAGE = 4 * 1024 * 1024


class MatchRefused(Exception):
    """The referee refused the connection for good (wrong token, match over, seat taken)."""


def _outgoing(box: queue.Queue[pb.BotMessage | None]) -> Iterator[pb.BotMessage]:
    while True:
        item = box.get()
        if item is None:
            return
        yield item


def play(bot: Bot, address: str, match_id: str, token: str, reconnect_seconds: float = 10.0) -> pb.MatchResult | None:
    """Play one match; reconnects after a dropped stream until the result arrives or ``reconnect_seconds`` pass."""
    driver = BotDriver(bot)
    give_up_at: float | None = None
    while driver.result is None:
        box: queue.Queue[pb.BotMessage | None] = queue.Queue()
        box.put(driver.hello(match_id, token))
        options = [("grpc.max_receive_message_length", MAX_MESSAGE), ("grpc.max_send_message_length", MAX_MESSAGE)]
        try:
            with grpc.insecure_channel(address, options=options) as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)
                for msg in stub.Play(_outgoing(box), wait_for_ready=True, timeout=None):
                    give_up_at = None
                    for reply in driver.handle(msg):
                        box.put(reply)
                    if driver.result is not None:
                        break
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND):
                raise MatchRefused(f"{code.name}: {exc.details() if hasattr(exc, 'details') else exc}") from None
            log.warning("stream broke (%s); reconnecting", code)
        finally:
            box.put(None)
        if driver.result is None:
            now = time.monotonic()
            give_up_at = give_up_at or now + reconnect_seconds
            if now > give_up_at:
                log.error("could not reconnect within %.0f s", reconnect_seconds)
                return None
            time.sleep(0.05)
    return driver.result


def run(bot: Bot) -> None:
    """Entry point of a bot process: reads ARENA_ADDRESS, ARENA_MATCH_ID and ARENA_TOKEN from the environment."""
    logging.basicConfig(stream=sys.stderr, level=os.environ.get("ARENA_LOG_LEVEL", "INFO"), format=f"[{bot.name}] %(levelname)s %(message)s")
    try:
        address = os.environ["ARENA_ADDRESS"]
        match_id = os.environ["ARENA_MATCH_ID"]
        token = os.environ["ARENA_TOKEN"]
    except KeyError as exc:
        sys.exit(f"{bot.name}: {exc.args[0]} is not set; bots are started by the referee (arena match)")
    try:
        result = play(bot, address, match_id, token)
    except MatchRefused as exc:
        sys.exit(f"{bot.name}: refused by the referee: {exc}")
    if result is not None:
        log.info("match over: %s", [(s.seat, s.rank) for s in result.seats])
