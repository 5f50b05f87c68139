"""Running a bot over gRPC: connect, play, reconnect within the match, log to stderr.

The stream is driven by grpc's asyncio API on one thread: each message is read,
handed to the driver and answered in place. (The synchronous API feeds its
request stream from a thread of its own, which cost a thread hand-off per
answer: about a third of a decision's round trip. Reading the stream on a task
of its own while ``act`` ran on a worker thread, to note when each request
came, cost two: the median round trip went from 0.39-0.43 to 0.54-0.64 ms.)

So nothing reads the stream while ``act`` runs, and a request that came
meanwhile is read only after it returns. The referee sends a seat a new
request while ``act`` runs only once the one it answers has run out (it timed
out); then the next request read without waiting is taken as come when that
one ran out, the earliest it can have: ``act`` is told at most the time left,
never more. A read that waited for its message (``WAITED_S``) shows that what
it read came then.

A bot process plays one match (the ARENA_* variables say which), or, when the
referee starts it with ``ARENA_CONTROL=stdin``, one match per line it reads on
standard input until that closes (see "Bots that play several matches" in
docs/protocol.md). Between those matches it keeps its channel to the address
it was last given, which a pooled process's referee keeps the same: a new
match is a new stream on a connection already open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable

import grpc

from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc
from arena_sdk.bot import Bot
from arena_sdk.driver import BotDriver

log = logging.getLogger("arena_sdk")
MAX_MESSAGE = 4 * 1024 * 1024
#: HTTP/2 keepalive: the bot pings its referee after this long without traffic, and drops the connection if the ping is
#: not answered in KEEPALIVE_TIMEOUT_MS, so that a referee gone silent (its machine's power or network lost) ends in a
#: reconnect, then giving up, not in a wait for ever. The referee lets a bot ping this often (its BOT_PING_INTERVAL_MS).
KEEPALIVE_TIME_MS = 30_000
KEEPALIVE_TIMEOUT_MS = 10_000
#: Statuses that mean the referee refused this bot for good (wrong token, match over, seat forfeited or another seat's socket).
#: ABORTED is the referee's "replaced by a newer connection of this seat": a stream this process still reads was
#: replaced by another process's (a second copy of the bot, started by hand): taking the seat back fought it for the seat.
_REFUSED = (
    grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.ABORTED,
)


#: A read that took longer than this waited for its message: the message came then, not while ``act`` ran. (A
#: message already there is read in tens of microseconds; on a loaded machine it may take longer, and the request
#: is then timed from the read, without the bound.)
WAITED_S = 0.001


class MatchRefused(Exception):
    """The referee refused the connection for good (wrong token, match over, seat forfeited, another seat's socket),
    or ended it for another connection of the seat."""


def open_channel(address: str) -> grpc.aio.Channel:
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE),
        ("grpc.max_send_message_length", MAX_MESSAGE),
        ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
        ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
        # While the bot waits on its opponents nothing else is sent: by default gRPC then pings twice, then every five
        # minutes, and waits a minute for an answer whatever keepalive_timeout says.
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.http2.min_time_between_pings_ms", KEEPALIVE_TIME_MS),
        ("grpc.http2.ping_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ]
    return grpc.aio.insecure_channel(address, options=options)


async def play_async(
    bot: Bot,
    address: str,
    match_id: str,
    token: str,
    reconnect_seconds: float = 10.0,
    channel: grpc.aio.Channel | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> pb.MatchResult | None:
    """Play one match; reconnects after a dropped stream until the result arrives or ``reconnect_seconds`` pass.

    With ``channel`` (open to ``address``), the match is played over it and it is left open; gRPC itself
    reconnects it after a drop. Without, a channel is opened for the match and closed after it.
    A broken stream is logged once as a warning; the attempts to reconnect after it, at debug level.
    ``clock`` (seconds, monotonic) times each message's arrival, for the time a request waited before ``act``.
    """
    driver = BotDriver(bot, clock=clock)
    give_up_at: float | None = None
    while driver.result is None:
        try:
            async with contextlib.nullcontext(channel) if channel is not None else open_channel(address) as channel_now:
                # Bounded: a referee that is gone for good (killed, its match over) must not keep the bot waiting forever.
                wait = (give_up_at or time.monotonic() + reconnect_seconds) - time.monotonic()
                try:
                    await asyncio.wait_for(channel_now.channel_ready(), max(wait, 0.05))
                except asyncio.TimeoutError:
                    log.error("no referee at %s within %.0f s", address, reconnect_seconds)
                    return None
                call = referee_pb2_grpc.RefereeStub(channel_now).Play(wait_for_ready=True)
                await call.write(driver.hello(match_id, token))
                while True:
                    asked_at = clock()
                    msg = await call.read()
                    if msg is grpc.aio.EOF:
                        break
                    came_at = clock()
                    if came_at - asked_at > WAITED_S:
                        driver.late_since = None  # it came while the SDK waited for it, not while act ran
                    elif driver.late_since is not None and msg.WhichOneof("msg") == "decision":
                        came_at = min(came_at, driver.late_since)
                    give_up_at = None
                    for reply in driver.handle(msg, came_at):
                        if not await _send(call, reply):
                            break  # the next read raises the stream's status, or ends it
                    if driver.result is not None:
                        break
                if driver.result is not None:
                    # Said before hanging up: a process playing several matches has its log cut into the matches'
                    # parts as each stream ends, and a line printed after went to the next match's part.
                    _log_result(driver.result)
                    call.cancel()
                else:  # the referee ended the stream without a result (read() raises on an error status)
                    _reconnecting(give_up_at, "stream ended early")
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code in _REFUSED:
                assert code is not None
                raise MatchRefused(f"{code.name}: {exc.details() if hasattr(exc, 'details') else exc}") from None
            if driver.result is None:
                _reconnecting(give_up_at, f"stream broke ({code.name if code is not None else exc})")
        if driver.result is None:
            now = time.monotonic()
            give_up_at = give_up_at or now + reconnect_seconds
            if now > give_up_at:
                log.error("could not reconnect within %.0f s", reconnect_seconds)
                return None
            await asyncio.sleep(0.05)
    return driver.result


async def _send(call: grpc.aio.StreamStreamCall, message: pb.BotMessage) -> bool:
    """Write ``message``; False when gRPC already has the stream's status (its end came with the message answered).

    grpc.aio raises asyncio.InvalidStateError, not an RpcError, for that write: the bot died of the traceback
    where the stream's end (a broken stream, a refusal) was to be read and acted on.
    """
    try:
        await call.write(message)
    except asyncio.InvalidStateError:
        return False
    return True


def _reconnecting(give_up_at: float | None, why: str) -> None:
    """Log a try to reconnect: a warning for a stream that had worked (``give_up_at`` not set yet), else at debug level."""
    (log.warning if give_up_at is None else log.debug)("%s; reconnecting", why)


def play(bot: Bot, address: str, match_id: str, token: str, reconnect_seconds: float = 10.0) -> pb.MatchResult | None:
    """Play one match (blocking); see ``play_async``."""
    return asyncio.run(play_async(bot, address, match_id, token, reconnect_seconds))


def _log_result(result: pb.MatchResult) -> None:
    log.info("match over: %s", ", ".join(f"seat {s.seat} rank {s.rank}" for s in result.seats))


def _play_from_control(bot: Bot) -> None:
    """Several matches in a row: one JSON line per match on stdin ({address, match_id, token, seed}); EOF ends."""
    asyncio.run(_control_loop(bot))


async def _control_loop(bot: Bot) -> None:
    """``_play_from_control`` on one event loop, with the channel to the last address kept open between matches."""
    loop = asyncio.get_running_loop()
    address, channel = "", None
    try:
        # Read on a thread: stdin may be a pipe (the referee's) or a file (a bot author's test), and only one line waits.
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            if not line.strip():
                continue
            order = json.loads(line)
            if order.get("seed") is not None:
                os.environ["ARENA_BOT_SEED"] = str(order["seed"])
            if order["address"] != address or channel is None:
                if channel is not None:
                    await channel.close()
                address, channel = order["address"], open_channel(order["address"])
            try:
                await play_async(bot, address, order["match_id"], order["token"], channel=channel)
            except MatchRefused as exc:
                log.error("refused by the referee: %s", exc)
    finally:
        if channel is not None:
            await channel.close()


LEVELS = {"DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARNING": logging.WARNING, "WARN": logging.WARNING, "ERROR": logging.ERROR}


def log_level(text: str | None) -> int | None:
    """The level ARENA_LOG_LEVEL names, in any case (WARN is WARNING); None for an unknown one. Unset is INFO."""
    return LEVELS.get((text or "INFO").strip().upper())


def run(bot: Bot) -> None:
    """Entry point of a bot process: reads ARENA_ADDRESS, ARENA_MATCH_ID and ARENA_TOKEN from the environment.

    With ``ARENA_CONTROL=stdin`` it plays every match the referee hands it on standard input instead.
    """
    level = log_level(os.environ.get("ARENA_LOG_LEVEL"))
    # The name its bot.toml gives it, which the referee hands on: the class's own is a sample's once copied and renamed.
    name = os.environ.get("ARENA_BOT_NAME") or bot.name
    logging.basicConfig(stream=sys.stderr, level=level or logging.INFO, format=f"[{name}] %(levelname)s %(message)s")
    for library in ("asyncio", "grpc"):  # DEBUG is the bot's and the SDK's: these libraries' own is about their event loops
        logging.getLogger(library).setLevel(max(level or logging.INFO, logging.INFO))
    if level is None:
        log.warning("ARENA_LOG_LEVEL=%s is not a level (DEBUG, INFO, WARNING, ERROR); logging at INFO", os.environ["ARENA_LOG_LEVEL"])
    if os.environ.get("ARENA_CONTROL") == "stdin":
        _play_from_control(bot)
        return
    # Empty is unset, as in the TypeScript SDK: `ARENA_ADDRESS= python bot.py` was a gRPC error about an address "".
    for variable in ("ARENA_ADDRESS", "ARENA_MATCH_ID", "ARENA_TOKEN"):
        if not os.environ.get(variable):
            sys.exit(f"{name}: {variable} is not set; bots are started by the referee (arena match)")
    address, match_id, token = os.environ["ARENA_ADDRESS"], os.environ["ARENA_MATCH_ID"], os.environ["ARENA_TOKEN"]
    try:
        result = play(bot, address, match_id, token)
    except MatchRefused as exc:
        sys.exit(f"{name}: refused by the referee: {exc}")
    if result is None:  # no referee, or it was lost for good: the reason is logged
        sys.exit(1)
