"""HTTP/2 keepalive from the bot's side: a referee gone silent (its machine's power or network lost, no FIN, no RST)
is noticed by the SDK's pings, and the referee lets those pings through."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from arena_sdk import client as sdk_client
from arena_sdk.client import play
from referee.server import service as service_module
from referee.server.session import TimeControl
from tests.grpc_support import RandomBot, Referee, hold_stream
from tests.support import HalfOpenProxy
from tests.waiting import wait_for


def quick_pings(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real figures scaled down a hundredfold, in the same proportions (the referee lets a bot ping a little more
    often than the SDK does)."""
    monkeypatch.setattr(sdk_client, "KEEPALIVE_TIME_MS", sdk_client.KEEPALIVE_TIME_MS // 100)
    monkeypatch.setattr(sdk_client, "KEEPALIVE_TIMEOUT_MS", sdk_client.KEEPALIVE_TIMEOUT_MS // 100)
    monkeypatch.setattr(service_module, "BOT_PING_INTERVAL_MS", service_module.BOT_PING_INTERVAL_MS // 100)


def test_the_sdk_pings_at_least_as_seldom_as_the_referee_lets_it() -> None:
    """A bot that pings more often than the referee allows is sent GOAWAY (too_many_pings) and loses its stream."""
    assert sdk_client.KEEPALIVE_TIME_MS >= service_module.BOT_PING_INTERVAL_MS


@contextlib.contextmanager
def seat_waiting_through_a_proxy() -> Iterator[tuple[HalfOpenProxy, threading.Thread, dict[str, Any]]]:
    """Seat 0 plays through a proxy with a short reconnect window; seat 1 holds its stream and never answers, so that
    seat 0, once it has answered, waits on a quiet stream. Yields the proxy, seat 0's thread and its result."""
    ref = Referee(tc=TimeControl(move_time_ms=60_000, time_bank_ms=0, connect_timeout_ms=20_000))
    proxy = HalfOpenProxy(ref.address, Path(ref.tmp.name) / "p.sock")
    out: dict[str, Any] = {}
    hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=ref.session.tokens()[1], protocol_version=1))
    hold_stream(ref.address, hello, threading.Event(), {})

    def seat0() -> None:
        out["result"] = play(RandomBot(0), proxy.address, ref.session.match_id, ref.session.tokens()[0], reconnect_seconds=1.0)

    thread = threading.Thread(target=seat0, daemon=True)
    thread.start()
    try:
        wait_for("seat 0's first answer", lambda: ref.session.seats[0].think_ms, every=0.02)
        yield proxy, thread, out
    finally:
        proxy.close()
        ref.stop()


def test_a_bot_whose_referee_went_silent_gives_up_rather_than_wait_for_ever(monkeypatch: pytest.MonkeyPatch) -> None:
    quick_pings(monkeypatch)
    with seat_waiting_through_a_proxy() as (proxy, thread, out):
        proxy.freeze()
        thread.join(30)
        assert not thread.is_alive(), "the bot still waits on a referee that went silent"
        assert out["result"] is None


def test_a_bot_that_waits_long_on_a_live_referee_keeps_its_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its pings, many while nothing else is sent, are let through: the seat's one connection lasts."""
    quick_pings(monkeypatch)
    with seat_waiting_through_a_proxy() as (proxy, thread, _):
        before = proxy.pings()
        # gRPC pings once a second at the most here: eight pings, where the third past the limit would end it.
        wait_for("eight pings while seat 0 waits", lambda: proxy.pings() >= before + 8 or not thread.is_alive(), every=0.1)
        assert thread.is_alive()
        assert proxy.connections == 1, "the bot's stream was dropped and it reconnected"
