"""The referee session, more: what arrives outside the match's run."""

from __future__ import annotations

import asyncio

import pytest

from arena.v1 import generals_war_pb2 as gwpb
from arena.v1 import referee_pb2 as pb
from referee.games.generals_war import GeneralsWar
from referee.server.session import MatchRecord, MatchSession, TimeControl
from tests.test_session import FAST, FakeClock, Scripted, driver_answers, silent, thinking


def test_messages_sent_before_the_match_starts_are_refused_at_once_not_kept() -> None:
    """A bot that connected first and sent answers while the others had yet to connect (15 s, 300 s for `arena referee
    serve`) had every message kept in the session's queue, 64 KiB each at most, with no limit: nothing counted them as
    refused, so the stream's flood pause never began either. No request is pending then: each is stale at once."""

    async def go() -> tuple[int, int, list[int]]:
        session = MatchSession(GeneralsWar(2, 1), ["a", "b"], FAST)
        link = Scripted(session, 0, silent)
        session.attach(session.tokens()[0], link)
        answer = pb.BotMessage(action=pb.ActionResponse(request_id=1, note="x" * 1000))
        for _ in range(1000):
            session.post(0, link, answer)
        return len(session.inbox), session.seats[0].refused, [e.code for e in link.of("error")]

    queued, refused, errors = asyncio.run(go())
    assert queued == 1, "only the seat's attach waits for the match"
    assert refused == 1000 and errors == [pb.STALE_REQUEST] * 1000


def test_an_answer_read_before_the_timer_fires_is_taken_its_bank_spent() -> None:
    """docs/protocol.md, Timing: the deadline is the referee's timer. An answer it reads a moment past the deadline
    (its own loop was busy, so the timer had yet to fire) is played, not struck: the referee's delays are not the bot's.
    The time is still charged, so the bank is gone."""
    clock = FakeClock()
    late_once = thinking(clock, 3, lambda n: 2.0 if n == 1 else 0)  # 100 ms of move time and the 1,000 ms bank long gone

    async def go() -> MatchRecord:
        tc = TimeControl(move_time_ms=100, time_bank_ms=1000, strike_limit=5)
        session = MatchSession(GeneralsWar(2, 3), ["a", "b"], tc, clock=clock)
        for link, token in zip([Scripted(session, 0, late_once), Scripted(session, 1, driver_answers(4))], session.tokens()):
            session.attach(token, link)
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    assert not record.result.seats[0].verdicts
    assert record.seats[0].bank_ms == 0 and record.seats[0].think_ms[0] == pytest.approx(2000)


def test_the_last_rejection_allowed_closes_its_request_as_the_rejection_comment_says() -> None:
    """referee.proto's Rejection: the request stays open, unless that rejection was the last allowed (TimeControl's
    max_rejections, 20 in matches): then it is a strike, the default action is played, and a retry is stale."""
    bad = pb.Action(generals_war=gwpb.Action(choose_target=gwpb.ChooseTarget(target=9)))
    asked: dict[str, int] = {}
    inner = driver_answers(7)

    def stubborn(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        """Answers its first request, and each rejection of it, with an illegal move; plays the rest."""
        which = msg.WhichOneof("msg")
        if which == "decision" and not asked:
            asked["rid"] = msg.decision.request_id
            inner(msg)  # the driver learns of the request; its answer is replaced
        elif which != "rejection":
            return inner(msg)
        return [pb.BotMessage(action=pb.ActionResponse(request_id=asked["rid"], action=bad))]

    async def go() -> list[Scripted]:
        tc = TimeControl(move_time_ms=60_000, time_bank_ms=0, strike_limit=5, max_rejections=3)
        session = MatchSession(GeneralsWar(2, 1), ["a", "b"], tc)
        links = [Scripted(session, 0, stubborn), Scripted(session, 1, driver_answers(8))]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        await asyncio.wait_for(session.run(), 60)
        return links

    link = asyncio.run(go())[0]
    assert [r.request_id for r in link.of("rejection")] == [asked["rid"]] * 3
    assert [e.code for e in link.of("error")][:1] == [pb.STALE_REQUEST], "the retry after the last rejection was not stale"


def test_a_second_hello_and_an_empty_message_are_told_what_was_expected() -> None:
    """Both read "expected an action, got ...": a bot author who sent a hello before each answer, or a message whose
    field his library dropped, was not told what to do instead."""
    sent: list[int] = []
    inner = driver_answers(4)

    def muddled(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and not sent:
            sent.append(msg.decision.request_id)
            # The last: a message whose only field (11) is none of BotMessage's, from a bot's own copy of referee.proto.
            return [pb.BotMessage(hello=pb.Hello(match_id="m", token="t")), pb.BotMessage(), pb.BotMessage.FromString(b"\x58\x01")] + inner(msg)
        return inner(msg)

    async def go() -> list[tuple[int, str]]:
        session = MatchSession(GeneralsWar(2, 1), ["a", "b"], FAST)
        links = [Scripted(session, 0, muddled), Scripted(session, 1, driver_answers(5))]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        await session.run()
        return [(e.code, e.message) for e in links[0].of("error")]

    assert asyncio.run(go()) == [
        (pb.UNEXPECTED_MESSAGE, "a second hello: this stream is the seat's already (send actions on it; to reconnect, open a new stream)"),
        (pb.UNEXPECTED_MESSAGE, "an empty message: set its action (or give_up)"),
        (pb.UNEXPECTED_MESSAGE, "an empty message: set its action (or give_up); it holds field 11, which arena.v1.BotMessage does not"
         " define (or not with the wire type sent): are the bot's .proto files the referee's (proto/arena/v1/)?"),
    ]


def test_a_malformed_actions_note_is_quoted_in_its_verdict_and_error() -> None:
    """An SDK that cannot send the bot's action sends none, with why as its note (sdk/python/arena_sdk/driver.py
    UNSENT): `arena match` said only "expected an action of generals_war, got none", and why was in the bot's log."""
    from tests.test_session import kinds, run_session

    sent = {"n": 0}
    inner = driver_answers(4)

    def slipping(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and sent["n"] < 2:
            sent["n"] += 1
            note = "the SDK sent no action: act returned None,\n  not an action" if sent["n"] == 1 else "  \n "
            return [pb.BotMessage(action=pb.ActionResponse(request_id=msg.decision.request_id, note=note))] + inner(msg)
        return inner(msg)

    record, links = run_session([slipping, driver_answers(5)], TimeControl(move_time_ms=300, time_bank_ms=0))
    details = [v.detail for v in record.seats[0].verdicts if v.kind == pb.MALFORMED]
    quoted = "expected an action of generals_war, got none; the bot's note: the SDK sent no action: act returned None, not an action"
    assert details == [quoted, "expected an action of generals_war, got none"], "a blank note is no note"
    assert [e.message for e in links[0].of("error") if e.code == pb.MALFORMED_ACTION] == details
    assert pb.MALFORMED in kinds(record, 0)


def test_an_answer_whose_action_the_referees_proto_does_not_number_so_is_told_which_field_came() -> None:
    """A bot whose copy of referee.proto numbers ActionResponse's action otherwise sent its action and was told "got
    none": the field the referee could not read is named, and the .proto files are suspected."""
    from tests.test_session import run_session

    sent: list[int] = []
    inner = driver_answers(4)

    def renumbered(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and not sent:
            sent.append(msg.decision.request_id)
            answer = pb.ActionResponse.FromString(pb.ActionResponse(request_id=msg.decision.request_id).SerializeToString() + b"\x4a\x00")
            return [pb.BotMessage(action=answer)] + inner(msg)
        return inner(msg)

    record, links = run_session([renumbered, driver_answers(5)], TimeControl(move_time_ms=300, time_bank_ms=0))
    told = [e.message for e in links[0].of("error") if e.code == pb.MALFORMED_ACTION]
    assert told == [
        "expected an action of generals_war, got none; it holds field 9, which arena.v1.ActionResponse does not define"
        " (or not with the wire type sent): are the bot's .proto files the referee's (proto/arena/v1/)?"
    ]
    assert [v.detail for v in record.seats[0].verdicts if v.kind == pb.MALFORMED] == told
