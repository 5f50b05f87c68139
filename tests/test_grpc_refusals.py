"""What the referee's gRPC service refuses, and with which status (docs/protocol.md, "The stream")."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from arena.v1 import referee_pb2 as pb
from tests.grpc_support import Referee, raw_stream


@pytest.fixture
def referee() -> Iterator[Referee]:
    ref = Referee()
    yield ref
    for seat in (0, 1):
        ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
    ref.join()


@pytest.mark.parametrize(
    "first",
    [pb.BotMessage(), pb.BotMessage(action=pb.ActionResponse(request_id=1))],
    ids=["empty", "action"],
)
def test_a_first_message_that_is_no_hello_is_refused_as_such(referee: Referee, first: pb.BotMessage) -> None:
    """Not read as a hello with no match id (NOT_FOUND): the bot is told it must say hello first."""
    refused = raw_stream(referee.address, [first.SerializeToString()])
    assert isinstance(refused, grpc.RpcError), refused
    assert (refused.code(), refused.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "the first message must be hello")


def test_bytes_that_are_no_bot_message_after_the_hello_are_answered_as_malformed(referee: Referee) -> None:
    """docs/protocol.md: a MALFORMED_ACTION error and verdict, then the stream ends with OK (not an illegal move)."""
    hello = pb.BotMessage(hello=pb.Hello(match_id=referee.session.match_id, token=referee.session.tokens()[0], protocol_version=1))
    replies = raw_stream(referee.address, [hello.SerializeToString(), b"\xff\xfe\x00garbage\x07\x07"])
    assert not isinstance(replies, grpc.RpcError), replies
    got = [pb.RefereeMessage.FromString(r) for r in replies]
    assert [m.WhichOneof("msg") for m in got] == ["start", "error"]
    assert got[1].error.code == pb.MALFORMED_ACTION and got[1].error.message.startswith("undecodable message")
    for seat in (0, 1):
        referee.loop.call_soon_threadsafe(referee.session.process_ended, seat, "test over")
    record = referee.join()
    assert [v.kind for v in record.result.seats[0].verdicts][:1] == [pb.MALFORMED]
