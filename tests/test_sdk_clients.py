"""Both SDKs' clients against a scripted referee: what ends a bot, what it retries, what it logs, its orders.

A bot author should not be able to tell the Python SDK from the TypeScript one by how it connects: the
same gRPC statuses are final (UNAUTHENTICATED, FAILED_PRECONDITION, NOT_FOUND, PERMISSION_DENIED, ABORTED) and
every other one is retried; a stream that ends without a result is reconnected; protocol errors are
logged with their code's name; a pooled process follows its orders on stdin (a blank line skipped, a
refused match not its end, a new address a new connection, each match's seed). The sample random bots
of both languages play against a fake referee that plays each stream from a script.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Union

import grpc
import pytest

from arena.v1 import generals_war_pb2 as gw
from arena.v1 import referee_pb2 as pb
from arena.v1 import referee_pb2_grpc
from arena_sdk import Bot, Request
from arena_sdk.client import MatchRefused, open_channel, play_async
from tests.support import SAMPLE_BOTS, load_bot_class
from tests.test_typescript import NODE, READY, SAMPLE, bundled

#: One step of a stream's script: a message to send, seconds to wait, a status to end with, or "hold"
#: (read until the bot hangs up) or "read" (take one answer).
Step = Union[pb.RefereeMessage, float, grpc.StatusCode, str, Callable[[], None]]

START = pb.RefereeMessage(start=pb.GameStart(match_id="m", game="generals-war", seat=0, num_seats=2, protocol_version=1))
RESULT = pb.RefereeMessage(result=pb.MatchResult(match_id="m", seats=[pb.SeatResult(seat=0, rank=1), pb.SeatResult(seat=1, rank=2)]))
#: Statuses that refuse a bot for good (docs/protocol.md), and some that do not.
FINAL = [grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED,
         grpc.StatusCode.ABORTED]  # the seat taken by another connection: taking it back fights that one for it
PASSING = [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.INTERNAL, grpc.StatusCode.INVALID_ARGUMENT]
LANGS = ["python", pytest.param("typescript", marks=pytest.mark.skipif(not READY and not os.environ.get("CI"), reason="needs node and the SDK's packages"))]


def decision(request_id: int) -> pb.RefereeMessage:
    """A reveal choice of General's War with eight listed actions, so that the random bot's pick shows its seed."""
    listed = [pb.Action(generals_war=gw.Action(reveal_generals=gw.RevealGenerals(card_ids=[i]))) for i in range(8)]
    choice = gw.Decision(reveal_choice=gw.RevealChoice())
    return pb.RefereeMessage(
        decision=pb.DecisionRequest(
            request_id=request_id, time_left_ms=5000, decision=pb.Decision(generals_war=choice), legal_actions=listed, legal_actions_listed=True
        )
    )


class ScriptedReferee(referee_pb2_grpc.RefereeServicer):
    """A referee that plays its n-th stream from the n-th script (the last one again for any later stream), on a thread of its own.

    ``hellos`` has each stream's Hello; ``peers`` each stream's client address (over ``tcp``, a connection's own port);
    ``answers`` each action the bot sent, as (request id, its card ids); ``ended`` is set when a stream's script is done
    (or the bot hung up midway).
    """

    def __init__(self, *scripts: list[Step], tcp: bool = False) -> None:
        self.scripts = scripts
        self.tcp = tcp
        self.hellos: list[pb.Hello] = []
        self.peers: list[str] = []
        self.answers: list[tuple[int, list[int]]] = []
        self.ended = threading.Event()
        self.tmp = tempfile.TemporaryDirectory(prefix="arena-s-")
        self.address = f"unix:{Path(self.tmp.name) / 'r.sock'}"
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._serve(),), daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    async def _serve(self) -> None:
        server = grpc.aio.server()
        referee_pb2_grpc.add_RefereeServicer_to_server(self, server)
        if self.tcp:
            self.address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        else:
            server.add_insecure_port(self.address)
        await server.start()
        self.stopping = asyncio.Event()
        self.ready.set()
        await self.stopping.wait()
        await server.stop(None)

    async def Play(self, request_iterator: Any, context: grpc.aio.ServicerContext) -> None:  # noqa: N802
        first = await context.read()
        assert isinstance(first, pb.BotMessage)
        self.hellos.append(first.hello)
        self.peers.append(context.peer())
        try:
            await self._play(context)
        finally:
            self.ended.set()

    async def _play(self, context: grpc.aio.ServicerContext) -> None:
        for step in self.scripts[min(len(self.hellos), len(self.scripts)) - 1]:
            if isinstance(step, pb.RefereeMessage):
                await context.write(step)
            elif isinstance(step, float):
                await asyncio.sleep(step)
            elif isinstance(step, grpc.StatusCode):
                await context.abort(step, "scripted")
            elif callable(step):
                step()
            elif step == "read":
                answer = await context.read()
                assert isinstance(answer, pb.BotMessage)
                self.answers.append((answer.action.request_id, list(answer.action.action.generals_war.reveal_generals.card_ids)))
            else:
                assert step == "hold"
                while await context.read() is not grpc.aio.EOF:
                    pass

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.thread.join(10)
        self.tmp.cleanup()


@pytest.fixture
def referees() -> Iterator[list[ScriptedReferee]]:
    """Scripted referees a test makes (``referees.append(ScriptedReferee(...))``), closed after it."""
    made: list[ScriptedReferee] = []
    yield made
    for ref in made:
        ref.close()


@pytest.fixture(scope="module")
def ts_bot(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """ts-random bundled from the current sources, or None without node."""
    return bundled(SAMPLE, tmp_path_factory.mktemp("ts") / "ts-random") if READY else None


def run_bot(lang: str, ts_bot: Path | None, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """The random sample bot of ``lang`` as its own process, with ``env`` (and PATH, PYTHONPATH) and ``stdin``."""
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.pathsep.join(sys.path), **env}
    if lang == "python":
        cmd, cwd = [sys.executable, "bot.py"], SAMPLE_BOTS / "random"
    else:
        assert NODE is not None and ts_bot is not None
        cmd, cwd = [NODE, "dist/main.js"], ts_bot
    return subprocess.run(cmd, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=60)


def match_env(ref: ScriptedReferee) -> dict[str, str]:
    return {"ARENA_ADDRESS": ref.address, "ARENA_MATCH_ID": "m", "ARENA_TOKEN": "t"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("code", FINAL, ids=lambda c: c.name)
def test_a_final_refusal_ends_the_bot_at_once_and_says_why(lang: str, code: grpc.StatusCode, ts_bot: Path | None, referees: list[ScriptedReferee]) -> None:
    referees.append(ref := ScriptedReferee([code]))
    proc = run_bot(lang, ts_bot, match_env(ref))
    assert proc.returncode == 1 and f"refused by the referee: {code.name}: scripted" in proc.stderr, proc.stderr
    assert len(ref.hellos) == 1, "not tried again"


@pytest.mark.parametrize("lang", LANGS)
def test_both_sdks_say_the_result_in_the_same_words(lang: str, ts_bot: Path | None, referees: list[ScriptedReferee]) -> None:
    """The Python SDK logged its result as a list of tuples (``match over: [(0, 1), (1, 2)]``), the TypeScript one in words."""
    referees.append(ref := ScriptedReferee([START, RESULT, "hold"]))
    proc = run_bot(lang, ts_bot, match_env(ref))
    assert proc.returncode == 0 and "INFO match over: seat 0 rank 1, seat 1 rank 2\n" in proc.stderr, proc.stderr


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("end", [*PASSING, None], ids=lambda c: c.name if c else "ended-without-result")
def test_any_other_end_of_a_stream_is_reconnected(lang: str, end: grpc.StatusCode | None, ts_bot: Path | None, referees: list[ScriptedReferee]) -> None:
    """A stream that fails with any other status, or ends (OK) before the result, is followed by a new one, which plays on."""
    referees.append(ref := ScriptedReferee([START, *([end] if end else [])], [START, decision(4), "read", RESULT, "hold"]))
    proc = run_bot(lang, ts_bot, match_env(ref))
    assert proc.returncode == 0 and "match over" in proc.stderr, proc.stderr
    assert [(h.match_id, h.token) for h in ref.hellos] == [("m", "t")] * 2
    assert [request for request, _ in ref.answers] == [4]


@pytest.mark.parametrize("lang", LANGS)
def test_protocol_errors_are_logged_with_their_codes_name(lang: str, ts_bot: Path | None, referees: list[ScriptedReferee]) -> None:
    codes = [name for name in pb.ErrorCode.keys() if name != "ERROR_CODE_UNSPECIFIED"]
    errors = [pb.RefereeMessage(error=pb.ProtocolError(code=name, message=f"said {name}")) for name in codes]
    referees.append(ref := ScriptedReferee([START, *errors, RESULT, "hold"]))
    proc = run_bot(lang, ts_bot, match_env(ref))
    assert proc.returncode == 0, proc.stderr
    for name in codes:
        assert f"protocol error {name}: said {name}" in proc.stderr, proc.stderr


def order(ref: ScriptedReferee, match_id: str, seed: int | None = None) -> str:
    return '{"address": "%s", "match_id": "%s", "token": "t", "seed": %s}\n' % (ref.address, match_id, "null" if seed is None else seed)


@pytest.mark.parametrize("lang", LANGS)
def test_a_pooled_process_follows_its_orders(lang: str, ts_bot: Path | None, referees: list[ScriptedReferee]) -> None:
    """Each order is played at its address with its seed, as a fresh process would, over the connection to that address
    it has open; a blank line is skipped; a refused match is logged and the next one played."""
    play3 = [START, decision(1), "read", decision(2), "read", decision(3), "read", RESULT, "hold"]
    referees.append(first := ScriptedReferee(play3, play3, [grpc.StatusCode.FAILED_PRECONDITION], tcp=True))
    referees.append(second := ScriptedReferee(play3))
    orders = order(first, "m1", 5) + "\n  \n" + order(first, "m2", 6) + order(first, "m3") + order(second, "m4", 7)
    proc = run_bot(lang, ts_bot, {"ARENA_CONTROL": "stdin"}, orders)
    assert proc.returncode == 0, proc.stderr
    assert [h.match_id for h in first.hellos] == ["m1", "m2", "m3"] and [h.match_id for h in second.hellos] == ["m4"], proc.stderr
    assert len(set(first.peers)) == 1, f"one connection for the matches at one address: {first.peers}"
    assert proc.stderr.count("match over") == 3 and proc.stderr.count("refused by the referee: FAILED_PRECONDITION") == 1, proc.stderr
    # Seeded from its order: the last match is played as a process started for it alone plays it.
    referees.append(alone := ScriptedReferee(play3))
    assert run_bot(lang, ts_bot, {**match_env(alone), "ARENA_BOT_SEED": "7"}).returncode == 0
    assert second.answers == alone.answers and len({tuple(ids) for _, ids in alone.answers}) > 1


def test_the_reconnect_window_starts_again_with_each_message(referees: list[ScriptedReferee]) -> None:
    """A stream that breaks after a message it sent is a new failure: a referee that keeps breaking, but sends
    something each time, is not given up on when the failures add up to more than the window.
    (sdk/typescript/test/client.test.ts checks the same of the TypeScript SDK.)"""
    breaking = [0.4, START, grpc.StatusCode.UNAVAILABLE]  # on purpose: four such failures take more than the 1 s window
    referees.append(ref := ScriptedReferee(breaking, breaking, breaking, breaking, [START, RESULT, "hold"]))
    bot = load_bot_class("random", "RandomBot")(0)
    result = asyncio.run(play_async(bot, ref.address, "m", "t", reconnect_seconds=1))
    assert result is not None and len(ref.hellos) == 5


def test_a_match_over_a_kept_channel_hangs_up_its_stream(referees: list[ScriptedReferee]) -> None:
    """A pooled process keeps its channel for the next match, but still hangs up the finished match's stream:
    the referee waits for that (docs/protocol.md, "Bots that play several matches") before it counts the match done."""
    referees.append(ref := ScriptedReferee([START, RESULT, "hold"]))
    bot = load_bot_class("random", "RandomBot")(0)

    async def main() -> tuple[pb.MatchResult | None, bool]:
        channel = open_channel(ref.address)
        try:
            result = await play_async(bot, ref.address, "m", "t", channel=channel)
            hung_up = await asyncio.get_running_loop().run_in_executor(None, ref.ended.wait, 10)
            return result, hung_up
        finally:
            await channel.close()

    result, hung_up = asyncio.run(main())
    assert result is not None and hung_up, "the stream was left open"


def test_an_exception_raised_by_act_ends_play_with_it(referees: list[ScriptedReferee]) -> None:
    """docs/bots.md: an exception raised by ``act`` ends the bot (its traceback in the log), not swallowed into a
    decision never answered, nor a reconnect that asks the same again."""

    class Broken(Bot):
        def act(self, request: Request) -> Any:
            raise ValueError(f"no idea what to do at {request.request_id}")

    referees.append(ref := ScriptedReferee([START, decision(3), "hold"]))
    with pytest.raises(ValueError, match="no idea what to do at 3"):
        asyncio.run(asyncio.wait_for(play_async(Broken(), ref.address, "m", "t"), 30))
    assert len(ref.hellos) == 1


class StatusBeforeAnswer:
    """A Play call whose read of a decision returns only once gRPC has the stream's status, as it does when the
    status comes with the decision: the answer is then written to a call gRPC knows is over."""

    def __init__(self, call: Any) -> None:
        self.call = call

    async def read(self) -> Any:
        msg = await self.call.read()
        if msg is not grpc.aio.EOF and msg.HasField("decision"):
            await self.call.code()
        return msg

    async def write(self, msg: pb.BotMessage) -> None:
        await self.call.write(msg)

    def cancel(self) -> bool:
        return bool(self.call.cancel())


@pytest.mark.parametrize("end", [grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.PERMISSION_DENIED], ids=lambda c: c.name)
def test_an_answer_to_a_stream_grpc_has_seen_end_is_a_broken_stream(end: grpc.StatusCode, referees: list[ScriptedReferee], monkeypatch: pytest.MonkeyPatch) -> None:
    """grpc.aio raises asyncio.InvalidStateError, not an RpcError, for a write to a call whose status it has: the bot
    died of that traceback when its referee ended the stream just after a decision. It is the stream's end, told by
    its status: a broken stream is reconnected, a refusal ends the bot with its reason."""
    real: Any = referee_pb2_grpc.RefereeStub
    streams: list[object] = []

    class Stub:
        def __init__(self, channel: grpc.aio.Channel) -> None:
            self.stub = real(channel)

        def Play(self, **kwargs: Any) -> Any:  # noqa: N802
            call = self.stub.Play(**kwargs)
            streams.append(call)
            return StatusBeforeAnswer(call) if len(streams) == 1 else call

    monkeypatch.setattr(referee_pb2_grpc, "RefereeStub", Stub)
    referees.append(ref := ScriptedReferee([START, decision(3), end], [START, decision(4), "read", RESULT, "hold"]))
    bot = load_bot_class("random", "RandomBot")(0)
    run = asyncio.wait_for(play_async(bot, ref.address, "m", "t", reconnect_seconds=5), 30)
    if end == grpc.StatusCode.PERMISSION_DENIED:
        with pytest.raises(MatchRefused, match="PERMISSION_DENIED: scripted"):
            asyncio.run(run)
        assert len(ref.hellos) == 1
    else:
        result = asyncio.run(run)
        assert result is not None and len(ref.hellos) == 2 and [request for request, _ in ref.answers] == [4]


class Overrunning(Bot):
    """Answers request 1 six seconds late by the test's clock (``now``); keeps what ``act`` was told of each request."""

    def __init__(self, now: list[float]) -> None:
        self.now = now
        self.left: dict[int, int] = {}

    def act(self, request: Request) -> Any:
        self.left[request.request_id] = request.time_left_ms
        if request.request_id == 1:
            self.now[0] += 6.0  # past its 5000 ms
        return gw.Action(reveal_generals=gw.RevealGenerals())


def test_a_request_read_at_once_after_a_late_answer_is_timed_from_when_the_earlier_one_ran_out(referees: list[ScriptedReferee]) -> None:
    """The referee counts ``time_left_ms`` from when it sent a request; nothing reads the stream while ``act`` runs. A
    request sent while ``act`` ran past its deadline waited in the stream since then, at the earliest the deadline: the
    SDK tells ``act`` what is left from there (5000 ms less the 1000 it may have waited), not the referee's figure."""
    now = [0.0]  # the clock moves only when a test step or act moves it: each read is at once unless a step says
    referees.append(ref := ScriptedReferee([START, decision(1), decision(2), "read", "read", RESULT, "hold"]))
    bot = Overrunning(now)
    result = asyncio.run(asyncio.wait_for(play_async(bot, ref.address, "m", "t", clock=lambda: now[0]), 30))
    assert result is not None
    assert bot.left == {1: 5000, 2: 4000}


def test_a_request_the_sdk_waited_for_after_a_late_answer_has_its_whole_time(referees: list[ScriptedReferee]) -> None:
    """A read that waited for its message shows it came then, after the late answer: what is read after it (here an
    event batch, then the request) came later still, and the request's time is the referee's."""
    now = [0.0]

    def later() -> None:
        now[0] += 2.0  # while the bot waits for decision 2 (the real pause before lets it start waiting)

    referees.append(ref := ScriptedReferee([START, decision(1), "read", 0.3, later, pb.RefereeMessage(events=pb.EventBatch()), decision(2), "read", RESULT, "hold"]))
    bot = Overrunning(now)
    result = asyncio.run(asyncio.wait_for(play_async(bot, ref.address, "m", "t", clock=lambda: now[0]), 30))
    assert result is not None
    assert bot.left == {1: 5000, 2: 5000}
