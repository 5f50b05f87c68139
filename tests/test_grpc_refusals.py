"""What the referee's gRPC service refuses, and with which status (docs/protocol.md, "The stream")."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from arena.v1 import referee_pb2 as pb
from referee.server.service import NO_SEAT
from referee.server.session import TimeControl
from tests.grpc_support import Referee, raw_stream


@pytest.fixture
def referee() -> Iterator[Referee]:
    ref = Referee()
    yield ref
    for seat in (0, 1):
        ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
    ref.join()


@pytest.mark.parametrize(
    ("first", "said"),
    [
        (pb.BotMessage(), "an empty message"),
        (pb.BotMessage(action=pb.ActionResponse(request_id=1)), "an action"),
        (pb.BotMessage(give_up=pb.GiveUp(request_id=1)), "a give_up"),
        # Field 9 is no BotMessage field, and field 1 (hello) sent as a number is not one either: a bot whose copy of
        # referee.proto numbers its hello otherwise. "the first message must be hello" left it sure it had sent one.
        (b"\x48\x01", "an empty message; it holds field 9, which arena.v1.BotMessage does not define"),
        (b"\x08\x01", "an empty message; it holds field 1, which arena.v1.BotMessage does not define (or not with the wire type sent)"),
    ],
    ids=["empty", "action", "give_up", "unknown-field", "wrong-wire-type"],
)
def test_a_first_message_that_is_no_hello_is_refused_saying_what_it_was(referee: Referee, first: pb.BotMessage | bytes, said: str) -> None:
    """Not read as a hello with no match id (NOT_FOUND): the bot is told it must say hello first, and what came instead
    (as the stream's other refusals of a missing hello begin "send hello first: ...", docs/protocol.md)."""
    refused = raw_stream(referee.address, [first if isinstance(first, bytes) else first.SerializeToString()])
    assert isinstance(refused, grpc.RpcError), refused
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (refused.details() or "").startswith(f"send hello first: the first message was {said}"), refused.details()


def test_bytes_that_are_no_bot_message_after_the_hello_are_answered_as_malformed(referee: Referee) -> None:
    """docs/protocol.md: a MALFORMED_ACTION error and verdict, then the stream ends with OK (not an illegal move)."""
    hello = pb.BotMessage(hello=pb.Hello(match_id=referee.session.match_id, token=referee.session.tokens()[0], protocol_version=1))
    replies = raw_stream(referee.address, [hello.SerializeToString(), b"\xff\xfe\x00garbage\x07\x07"])
    assert not isinstance(replies, grpc.RpcError), replies
    got = [pb.RefereeMessage.FromString(r) for r in replies]
    assert [m.WhichOneof("msg") for m in got] == ["start", "error"]
    assert got[1].error.code == pb.MALFORMED_ACTION and got[1].error.message.startswith("undecodable message")
    # The stream's end with OK and no result is explained: the bot knows to reconnect.
    assert got[1].error.message.endswith("): this stream ends here; open a new one and send the hello again")
    for seat in (0, 1):
        referee.loop.call_soon_threadsafe(referee.session.process_ended, seat, "test over")
    record = referee.join()
    assert [v.kind for v in record.result.seats[0].verdicts][:1] == [pb.MALFORMED]


def refused(address: str, hello: pb.Hello) -> tuple[grpc.StatusCode, str]:
    """The status and details that end a stream opened with ``hello``."""
    got = raw_stream(address, [pb.BotMessage(hello=hello).SerializeToString()])
    assert isinstance(got, grpc.RpcError), got
    return got.code(), got.details() or ""


def test_a_hello_with_no_match_id_is_told_so_and_why_it_may_be_empty(referee: Referee) -> None:
    """A Node.js bot that loaded the .proto files with proto-loader's defaults (camelCase names) and wrote
    ``{match_id, token}`` sent a hello without its match_id and read "no match '' here", which did not say why."""
    code, details = refused(referee.address, pb.Hello(token=referee.session.tokens()[0]))
    assert code == grpc.StatusCode.NOT_FOUND
    assert details.startswith("the hello has no match_id: send ARENA_MATCH_ID") and "keepCase: true" in details


def test_a_hello_with_no_token_is_told_so(referee: Referee) -> None:
    """Not "wrong token for this match": the bot sent none."""
    code, details = refused(referee.address, pb.Hello(match_id=referee.session.match_id))
    assert (code, details) == (grpc.StatusCode.UNAUTHENTICATED, "the hello has no token: send ARENA_TOKEN")


def test_a_seats_own_socket_says_the_token_is_wrong_or_missing() -> None:
    """ "this socket serves seat 0 only" alone did not say that the bot's token was the trouble."""
    ref = Referee(only_seat=0)
    try:
        match_id, tokens = ref.session.match_id, ref.session.tokens()
        assert refused(ref.address, pb.Hello(match_id=match_id, token=tokens[1])) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "wrong token: this socket serves seat 0 only",
        )
        assert refused(ref.address, pb.Hello(match_id=match_id)) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "the hello has no token: send ARENA_TOKEN (this socket serves seat 0 only)",
        )
    finally:
        ref.stop()


def test_a_bot_whose_hello_was_refused_is_not_said_to_have_never_tried() -> None:
    """A bot refused (its hello without a match id) that then exited got "exited with code 0 before it connected to the
    referee (a bot connects to ARENA_ADDRESS: with an SDK, call run)": its verdict now says what the referee answered."""
    ref = Referee(only_seat=0)
    code, details = refused(ref.address, pb.Hello(token=ref.session.tokens()[0]))
    for seat in (0, 1):
        ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "the bot's process exited with code 0", True, 0)
    record = ref.join()
    crash = record.result.seats[0].verdicts[0]
    assert crash.kind == pb.CRASH
    assert crash.detail == f"the bot's process exited with code 0 before it connected to the referee: the referee refused its hello ({code.name}: {details})"
    assert record.result.seats[1].verdicts[0].detail.endswith("(a bot connects to ARENA_ADDRESS: with an SDK, call run)")


def test_a_no_show_whose_hellos_were_refused_is_told_the_last_refusal() -> None:
    """A bot retrying with a wrong token until its time to connect ran out was "never connected": now with why."""
    ref = Referee(only_seat=0, tc=TimeControl(connect_timeout_ms=3000))
    refused(ref.address, pb.Hello(match_id=ref.session.match_id, token="stale"))
    ref.loop.call_soon_threadsafe(ref.session.process_ended, 1, "test over")
    record = ref.join()
    no_show = record.result.seats[0].verdicts[0]
    assert no_show.kind == pb.NO_SHOW
    assert no_show.detail == (
        "the bot never connected within its 3 s to connect: the referee refused its hello "
        "(PERMISSION_DENIED: wrong token: this socket serves seat 0 only)"
    )


def test_a_socket_between_two_matches_says_it_serves_no_seat() -> None:
    """A pooled process's socket serves no seat between matches (NO_SEAT): it said "this socket serves seat -1 only"."""
    ref = Referee(only_seat=NO_SEAT)
    try:
        hello = pb.Hello(match_id=ref.session.match_id, token=ref.session.tokens()[0])
        assert refused(ref.address, hello) == (grpc.StatusCode.PERMISSION_DENIED, "this socket serves no seat now")
    finally:
        ref.stop()


def test_a_stream_closed_before_its_hello_is_told_so(referee: Referee) -> None:
    """It read "send hello first", as a stream silent for 10 s did: a bot whose request iterator was empty (its hello
    never queued) could not tell that from one too slow to send it."""
    got = raw_stream(referee.address, [])
    assert isinstance(got, grpc.RpcError), got
    assert (got.code(), got.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "send hello first: the stream was closed before any message")
