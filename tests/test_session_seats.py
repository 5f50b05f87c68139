"""The referee session, seat by seat: each seat's own deadline, ranks, who may connect, and what a crashed seat is sent."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena.v1 import referee_pb2 as pb
from referee.games.generals_war import GeneralsWar
from referee.server.session import AttachError, MatchSession, TimeControl
from tests.test_session import FAST, Scripted, driver_answers, kinds, run_session, silent
from tests.waiting import until

V = pb.VerdictKind


def test_without_forfeits_each_seat_ranks_as_the_game_ranks_it() -> None:
    record, _ = run_session([driver_answers(1), driver_answers(2), driver_answers(3), driver_answers(4)], TimeControl(), seed=4)
    assert not any(r.forfeited for r in record.result.seats)
    assert [r.rank for r in record.result.seats] == list(record.game_result.ranks)
    assert len(set(record.game_result.ranks)) > 1  # a match someone won, so a reversed order would show


def test_each_seat_of_a_simultaneous_choice_is_timed_out_at_its_own_deadline() -> None:
    """Seat 1 spent its bank, seat 0 has its own: seat 1's deadline passing must not cost seat 0 a strike."""
    tc = TimeControl(move_time_ms=50, time_bank_ms=1000, strike_limit=20)
    inner = driver_answers(3)
    late: list[int] = []

    async def go() -> Any:
        session = MatchSession(GeneralsWar(2, 3), ["a", "b"], tc)
        loop = asyncio.get_running_loop()

        def thinker(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
            replies = inner(msg)
            simultaneous = msg.WhichOneof("msg") == "decision" and len(session.game.to_act()) > 1
            if simultaneous and session.seats[1].bank_ms == 0 and not late:
                # Past its move time and seat 1's whole deadline, well within its own bank.
                late.append(msg.decision.decision_index)
                for reply in replies:
                    loop.call_later(0.3, session.post, 0, links[0], reply)
                return []
            return replies

        links = [Scripted(session, 0, thinker), Scripted(session, 1, silent)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await asyncio.wait_for(session.run(), 60)

    record = asyncio.run(go())
    assert late, "no simultaneous choice came after seat 1's bank was spent"
    assert not kinds(record, 0)
    assert 0 < record.seats[0].bank_ms < 1000  # the late answer was charged to seat 0's bank
    assert V.TIMEOUT in kinds(record, 1)


def test_a_seat_that_forfeited_or_whose_process_ended_may_not_connect_again_nor_anyone_once_the_match_is_over() -> None:
    """docs/protocol.md: FAILED_PRECONDITION for a match already over, a seat that forfeited or whose process ended."""

    async def go() -> None:
        tc = TimeControl(move_time_ms=250, time_bank_ms=0, strike_limit=0, connect_timeout_ms=2000)  # the answering seats are never late, even on a loaded machine
        session = MatchSession(GeneralsWar(4, 2), ["a", "b", "c", "d"], tc)
        for i, token in enumerate(session.tokens()):
            session.attach(token, Scripted(session, i, silent if i == 0 else driver_answers(i)))
        task = asyncio.create_task(session.run())
        # its first timeout is over the limit of no strikes
        await until("seat 0's forfeit", lambda: session.seats[0].forfeited_at is not None, every=0.01)
        assert [v.detail for v in session.seats[0].verdicts if v.kind == V.FORFEIT] == ["1 strike, over the limit of 0"]
        with pytest.raises(AttachError) as struck_out:
            session.attach(session.tokens()[0], Scripted(session, 0, driver_answers(5)))
        assert struck_out.value.code == "FAILED_PRECONDITION"
        assert str(struck_out.value) == "seat 0 has forfeited (1 strike, over the limit of 0)"  # why, not only that
        session.process_ended(2, "the bot's process exited with code 1")
        with pytest.raises(AttachError) as ended:
            session.attach(session.tokens()[2], Scripted(session, 2, driver_answers(6)))
        assert ended.value.code == "FAILED_PRECONDITION"
        await task
        with pytest.raises(AttachError) as over:
            session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(7)))
        assert over.value.code == "FAILED_PRECONDITION" and "over" in str(over.value)

    asyncio.run(go())


def test_a_crashed_seat_is_closed_and_sent_nothing_more_and_a_later_exit_is_no_second_verdict() -> None:
    async def go() -> tuple[Any, list[Scripted], list[int]]:
        tc = TimeControl(move_time_ms=250, time_bank_ms=0, strike_limit=0, connect_timeout_ms=2000)  # the answering seats are never late, even on a loaded machine
        session = MatchSession(GeneralsWar(4, 2), ["a", "b", "c", "d"], tc)
        links = [Scripted(session, i, silent if i == 3 else driver_answers(i)) for i in range(4)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        session.process_ended(2, "the bot's process exited with code 1")
        task = asyncio.create_task(session.run())
        # every turn of the loop: the match must still be on once seat 3 is out
        await until("seat 3's forfeit", lambda: session.seats[3].forfeited_at is not None, every=0)
        assert not session.finished
        sent_before = [len(link.sent) for link in links]
        session.process_ended(3, "the bot's process exited with code 0")  # after it struck out
        return await task, links, sent_before

    record, links, sent_before = asyncio.run(go())
    assert kinds(record, 2) == [V.CRASH, V.FORFEIT]
    assert links[2].closed and [m.WhichOneof("msg") for m in links[2].sent] == ["start"]
    assert kinds(record, 3) == [V.TIMEOUT, V.FORFEIT], "a seat already out is not charged a crash as well"
    assert links[3].closed and len(links[3].sent) == sent_before[3]
    assert links[0].of("result") and links[1].of("result")


def test_a_seat_s_waiting_events_come_before_an_error_it_is_sent() -> None:
    """docs/protocol.md: a batch of events comes on its own just before a rejection, an error or the result."""
    inner = driver_answers(1)
    errors_at: list[tuple[int, int]] = []  # (messages sent before the error, the log's length then)

    async def go() -> tuple[Any, Scripted]:
        session = MatchSession(GeneralsWar(4, 4), ["a", "b", "c", "d"], TimeControl())

        class Watched(Scripted):
            def send(self, msg: pb.RefereeMessage) -> None:
                if msg.WhichOneof("msg") == "error":
                    errors_at.append((len(self.sent), len(session.log)))
                super().send(msg)

        def twice(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
            replies = inner(msg)
            return replies + replies  # the copy is stale: its request was answered

        links = [Watched(session, 0, twice)] + [Scripted(session, i, driver_answers(i + 1)) for i in range(1, 4)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await session.run(), links[0]

    record, link = asyncio.run(go())
    assert errors_at and all(e.code == pb.STALE_REQUEST for e in link.of("error"))
    log = record.events
    for before, length in errors_at:
        told = [e.seq for m in link.sent[:before] for e in (m.events.events if m.WhichOneof("msg") == "events" else m.decision.events.events)]
        assert told == [seq for seq in range(length) if log[seq].visible(0)]


def test_each_seat_is_told_the_time_control_it_plays_under() -> None:
    tc = TimeControl(move_time_ms=700, time_bank_ms=900, strike_limit=4)
    _, links = run_session([driver_answers(1), driver_answers(2)], tc)
    for link in links:
        told = link.of("start")[0].time_control
        assert (told.move_time_ms, told.time_bank_ms, told.strike_limit) == (700, 900, 4)


def test_a_give_up_for_a_request_no_longer_pending_is_stale_and_costs_nothing() -> None:
    """A give_up names the request the bot gave up on: sent late, after that request was answered or lapsed, it
    must not time out the seat's next decision; like a late answer, it gets STALE_REQUEST and no verdict."""
    answer = driver_answers(7)
    asked: list[int] = []

    async def go() -> tuple[Any, Scripted]:
        session = MatchSession(GeneralsWar(2, 1), ["b0", "b1"], FAST)

        def late(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
            replies = []
            if msg.WhichOneof("msg") == "decision":
                if asked:  # the previous request, answered long ago
                    replies.append(pb.BotMessage(give_up=pb.GiveUp(request_id=asked[-1])))
                asked.append(msg.decision.request_id)
            return replies + answer(msg)

        links = [Scripted(session, 0, late), Scripted(session, 1, driver_answers(8))]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await session.run(), links[0]

    record, link = asyncio.run(go())
    assert len(asked) > 2 and record.game.is_over()
    assert not kinds(record, 0) and not record.result.seats[0].forfeited
    stale = [e for e in link.of("error") if e.code == pb.STALE_REQUEST]
    assert len(stale) == len(asked) - 1 and "is not pending" in stale[0].message


def test_a_give_up_ends_the_pending_request_at_once_as_its_deadline_would() -> None:
    """The seat's clock is frozen: only the give_up can end its decision. The outcome is its deadline's: a TIMEOUT
    strike, the move time and whole bank charged, the default action played."""
    tc = TimeControl(move_time_ms=500, time_bank_ms=700, strike_limit=3)

    async def go() -> tuple[Any, Scripted]:
        session = MatchSession(GeneralsWar(2, 1), ["b0", "b1"], tc, clock=lambda: 0.0)
        given: list[int] = []
        rest = driver_answers(3)

        def quitting(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
            if msg.WhichOneof("msg") == "decision" and not given:
                given.append(msg.decision.request_id)
                return [pb.BotMessage(give_up=pb.GiveUp(request_id=msg.decision.request_id))]
            return rest(msg)

        links = [Scripted(session, 0, quitting), Scripted(session, 1, driver_answers(4))]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await asyncio.wait_for(session.run(), timeout=60), links[0]

    record, link = asyncio.run(go())
    verdicts = record.result.seats[0].verdicts
    assert [(v.kind, v.decision_index, v.detail) for v in verdicts] == [(V.TIMEOUT, 0, "the bot gave up on the decision")]
    assert record.seats[0].think_ms[0] == 500 + 700 and record.seats[0].bank_ms == 0
    assert record.actions[0].auto and record.actions[0].seat == 0
    assert not link.of("error") and record.game.is_over() and not record.result.seats[0].forfeited


def test_a_timeout_says_how_long_the_seat_had_and_a_late_answer_that_it_came_too_late() -> None:
    """A slow bot read "timeout: no legal action before the deadline" in its verdicts and, in its log, "protocol
    error STALE_REQUEST: request 40 is not pending" for each answer it sent after: neither said how long it had, nor
    that the answer had come too late. The verdict names the time it had, the late answer's error its lateness."""
    tc = TimeControl(move_time_ms=40, time_bank_ms=30, strike_limit=2, connect_timeout_ms=2000)
    asked: list[int] = []

    def late(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        """Answers each decision only when the next one comes: after its deadline, always."""
        if msg.WhichOneof("msg") != "decision":
            return []
        replies = [pb.BotMessage(action=pb.ActionResponse(request_id=asked[-1]))] if asked else []
        asked.append(msg.decision.request_id)
        return replies

    record, links = run_session([late, driver_answers(8)], tc)
    details = [v.detail for v in record.result.seats[0].verdicts if v.kind == V.TIMEOUT]
    assert details[0] == "no legal action within the 70 ms it had (40 ms a decision and 30 ms left of its time bank)", details
    assert details[1] == "no legal action within the 40 ms it had (40 ms a decision, its time bank spent)", details
    stale = [e.message for e in links[0].of("error") if e.code == pb.STALE_REQUEST]
    assert stale and "is not pending: its time ran out before this answer came" in stale[0], stale


def test_a_stale_answer_is_told_why_its_request_is_not_pending_and_which_one_is() -> None:
    """An answer sent twice, an id never sent (a JavaScript Number that lost digits, an unset request_id) and an
    answer after a give_up all read "request N is not pending": the bot author could not tell their mistakes apart.
    Each now says why, and which request of the seat is pending now, if any."""
    answer = driver_answers(7)
    asked: list[int] = []
    tc = TimeControl(move_time_ms=5000, time_bank_ms=0, strike_limit=3, connect_timeout_ms=2000)

    def muddled(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") != "decision":
            return answer(msg)
        rid = msg.decision.request_id
        asked.append(rid)
        if len(asked) == 1:
            mangled = [pb.BotMessage(action=pb.ActionResponse(request_id=n)) for n in (rid + 1_000_000, 0)]
            given = answer(msg)
            return mangled + given + given  # the answer, then the same again
        if len(asked) == 2:
            return [pb.BotMessage(give_up=pb.GiveUp(request_id=rid))] + answer(msg)
        return answer(msg)

    record, links = run_session([muddled, driver_answers(8)], tc)
    assert record.game.is_over()
    stale = [e.message for e in links[0].of("error") if e.code == pb.STALE_REQUEST]
    first, second = asked[0], asked[1]
    assert stale[0] == f"request {first + 1_000_000} is not pending: no request of that id was sent to this seat; request {first} is pending now"
    assert stale[1] == f"request 0 is not pending: no request of that id was sent to this seat (ids start at 1: was request_id set?); request {first} is pending now"
    assert stale[2].startswith(f"request {first} is not pending: it was answered already; ") and stale[2].endswith(" pending now"), stale[2]
    assert stale[3].startswith(f"request {second} is not pending: the bot gave it up, and the game's default action was played for it (a strike); "), stale[3]
    assert len(stale) == 4


def test_an_answer_naming_another_seats_request_plays_nothing_for_that_seat() -> None:
    """docs/protocol.md: an answer always plays for the seat its stream's hello named; another seat's request id, at
    the same decision (General's War asks both seats to reveal at once), is one never sent to this seat."""
    answer = driver_answers(7)
    asked: list[int] = []

    def poaching(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and not asked:
            asked.append(msg.decision.request_id)
            own = answer(msg)
            theirs = pb.BotMessage()
            theirs.CopyFrom(own[0])
            theirs.action.request_id = msg.decision.request_id + 1
            return [theirs] + own
        return answer(msg)

    record, links = run_session([poaching, driver_answers(8)], FAST)
    assert record.game.is_over()
    assert links[1].of("decision")[0].request_id == asked[0] + 1, "the id was seat 1's first request"
    stale = [e.message for e in links[0].of("error") if e.code == pb.STALE_REQUEST]
    assert stale == [f"request {asked[0] + 1} is not pending: no request of that id was sent to this seat; request {asked[0]} is pending now"]
    assert links[1].of("error") == [] and kinds(record, 1) == [] and kinds(record, 0) == []
