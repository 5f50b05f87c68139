"""The referee session: clocks, strikes, verdicts, forfeits and connections, around real rules."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from arena.v1 import generals_war_pb2 as gwpb
from arena.v1 import referee_pb2 as pb
from arena_sdk.driver import BotDriver
from referee.compiled import in_use
from referee.games.generals_war import GeneralsWar
from referee.server.inprocess import MemoryLink
from referee.server.session import NOTE_MAX, REPLACED, AttachError, MatchSession, TimeControl
from tests.support import load_bot_class
from tests.waiting import until

RandomBot = load_bot_class("random", "RandomBot")
V = pb.VerdictKind
FAST = TimeControl(move_time_ms=40, time_bank_ms=40, strike_limit=2, connect_timeout_ms=2000)


class Scripted:
    """A link whose answers come from ``answer(msg) -> list[BotMessage]``; records what it was sent."""

    def __init__(self, session: MatchSession, seat: int, answer: Callable[[pb.RefereeMessage], list[pb.BotMessage]]) -> None:
        self.session = session
        self.seat = seat
        self.answer = answer
        self.sent: list[pb.RefereeMessage] = []
        self.closed = False
        self.reason = ""

    def send(self, msg: pb.RefereeMessage) -> None:
        self.sent.append(msg)
        asyncio.get_running_loop().call_soon(self._reply, msg)

    def _reply(self, msg: pb.RefereeMessage) -> None:
        for reply in self.answer(msg):
            self.session.post(self.seat, self, reply)

    def close(self, reason: str = "") -> None:
        self.closed = True
        self.reason = self.reason or reason

    def of(self, kind: str) -> list[Any]:
        return [getattr(m, kind) for m in self.sent if m.WhichOneof("msg") == kind]


def silent(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
    return []


def illegal_answers(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
    """Answers every request, and every rejection, with an action the rules refuse."""
    if msg.WhichOneof("msg") in ("decision", "rejection"):
        rid = msg.decision.request_id if msg.WhichOneof("msg") == "decision" else msg.rejection.request_id
        bad = pb.Action(generals_war=gwpb.Action(choose_target=gwpb.ChooseTarget(target=9)))
        return [pb.BotMessage(action=pb.ActionResponse(request_id=rid, action=bad))]
    return []


def driver_answers(seed: int) -> Callable[[pb.RefereeMessage], list[pb.BotMessage]]:
    return BotDriver(RandomBot(seed)).handle


def run_session(answers: list[Callable[[pb.RefereeMessage], list[pb.BotMessage]]], tc: TimeControl = FAST, seed: int = 1) -> tuple[Any, list[Scripted]]:
    async def go() -> tuple[Any, list[Scripted]]:
        session = MatchSession(GeneralsWar(len(answers), seed), [f"b{i}" for i in range(len(answers))], tc)
        links = [Scripted(session, i, a) for i, a in enumerate(answers)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await session.run(), links

    return asyncio.run(go())


def kinds(record: Any, seat: int) -> list[int]:
    return [v.kind for v in record.result.seats[seat].verdicts]


def test_a_silent_seat_times_out_strikes_out_and_forfeits_but_the_match_ends() -> None:
    record, links = run_session([silent, driver_answers(3)])
    k = kinds(record, 0)
    assert k[:3] == [V.TIMEOUT, V.TIMEOUT, V.TIMEOUT] and k[3] == V.FORFEIT
    seat0 = record.result.seats[0]
    assert seat0.forfeited and seat0.rank == 2 and record.result.seats[1].rank == 1
    assert record.game.is_over()
    assert all(a.auto for a in record.actions if a.seat == 0)
    assert links[0].of("result") and links[1].of("result")
    assert not kinds(record, 1), "the other seat must be unaffected"


def test_the_time_bank_covers_a_slow_decision() -> None:
    tc = TimeControl(move_time_ms=20, time_bank_ms=400, strike_limit=0)
    delays = iter([0.1] + [0.0] * 10_000)
    inner = driver_answers(5)

    def slow(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        replies = inner(msg)
        if msg.WhichOneof("msg") == "decision":
            import time

            time.sleep(next(delays))  # on purpose: the first decision is late, past its move time, within the bank
        return replies

    record, links = run_session([slow, driver_answers(6)], tc)
    assert not kinds(record, 0)
    assert record.seats[0].bank_ms < 400 - 50
    first = links[0].of("decision")[0]
    assert first.time_left_ms <= 420 and first.time_bank_left_ms <= 400


def test_a_timeout_spends_the_whole_bank() -> None:
    """docs/protocol.md, "Timing": the deadline is move time plus bank, so a seat that misses it has no bank left after."""
    tc = TimeControl(move_time_ms=300, time_bank_ms=100, strike_limit=3)
    inner = driver_answers(5)
    asked = {"n": 0}

    def late_once(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        replies = inner(msg)
        if msg.WhichOneof("msg") == "decision":
            asked["n"] += 1
            if asked["n"] == 1:
                return []  # the first decision is never answered
        return replies

    record, links = run_session([late_once, driver_answers(6)], tc)
    assert kinds(record, 0)[0] == V.TIMEOUT
    first, *later = links[0].of("decision")
    assert first.time_bank_left_ms == 100
    assert later and all(d.time_bank_left_ms == 0 and d.time_left_ms <= tc.move_time_ms for d in later)
    assert record.seats[0].bank_ms == 0


def test_an_illegal_action_is_rejected_with_a_reason_and_may_be_retried() -> None:
    tried = {"bad": 0}
    inner = driver_answers(7)

    def sloppy(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and tried["bad"] == 0:
            tried["bad"] += 1
            inner(msg)  # the driver learns of the request; its answer is replaced by a bad one
            bad = pb.Action(generals_war=gwpb.Action(reveal_generals=gwpb.RevealGenerals(card_ids=[9999])))  # the first decision: reveal
            return [pb.BotMessage(action=pb.ActionResponse(request_id=msg.decision.request_id, action=bad))]
        return inner(msg)

    record, links = run_session([sloppy, driver_answers(8)], TimeControl(move_time_ms=2000, time_bank_ms=0))
    rejections = links[0].of("rejection")
    assert len(rejections) == 1 and "9999" in rejections[0].reason
    assert kinds(record, 0) == [V.ILLEGAL_ACTION]
    assert not record.result.seats[0].forfeited
    assert not any(a.auto for a in record.actions), "the retry was played, not a default"


def test_endless_illegal_actions_become_a_strike() -> None:
    tc = TimeControl(move_time_ms=5000, time_bank_ms=0, strike_limit=0, max_rejections=5)
    record, links = run_session([illegal_answers, driver_answers(2)], tc)
    k = kinds(record, 0)
    assert k.count(V.ILLEGAL_ACTION) == 6 and k[-1] == V.FORFEIT  # five rejections, then the strike
    # The answer to the fifth rejection comes after it closed the request: told so, not only "not pending".
    stale = [e.message for e in links[0].of("error") if e.code == pb.STALE_REQUEST]
    assert stale[0].endswith(" is not pending: 5 rejected answers closed it, and the game's default action was played for it (a strike); no request of this seat is pending now"), stale


def test_malformed_and_stale_answers_are_protocol_errors_not_illegal_moves() -> None:
    state = {"n": 0}
    inner = driver_answers(4)

    def confused(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision" and state["n"] < 3:
            state["n"] += 1
            rid = msg.decision.request_id
            if state["n"] == 1:  # no action at all
                return [pb.BotMessage(action=pb.ActionResponse(request_id=rid))]
            if state["n"] == 2:  # an answer to a request that does not exist
                return [pb.BotMessage(action=pb.ActionResponse(request_id=rid + 1000))] + inner(msg)
            return [pb.BotMessage(hello=pb.Hello())] + inner(msg)
        return inner(msg)

    record, links = run_session([confused, driver_answers(5)], TimeControl(move_time_ms=300, time_bank_ms=0))
    codes = [e.code for e in links[0].of("error")]
    assert codes[:3] == [pb.MALFORMED_ACTION, pb.STALE_REQUEST, pb.UNEXPECTED_MESSAGE]
    assert V.MALFORMED in kinds(record, 0) and V.ILLEGAL_ACTION not in kinds(record, 0)
    # Each refused message counts towards the flood guard (service.FLOOD_AFTER), verdict or not.
    assert record.seats[0].refused == len(codes) >= 3 and record.seats[1].refused == 0


def test_a_flood_of_malformed_answers_is_recorded_up_to_a_cap_and_every_seat_gets_its_result() -> None:
    """150,000 MALFORMED verdicts made a result too large for gRPC to send: no seat got it, not even the others'."""
    from referee.server.service import MAX_REFEREE_MESSAGE
    from referee.server.session import MAX_MINOR_VERDICTS

    inner = driver_answers(4)

    def flood(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision":  # a pile of answers with no action, then a legal one
            return [pb.BotMessage(action=pb.ActionResponse(request_id=msg.decision.request_id))] * 400 + inner(msg)
        return inner(msg)

    record, links = run_session([flood, driver_answers(5)], TimeControl(move_time_ms=5000, time_bank_ms=0))
    verdicts = record.result.seats[0].verdicts
    assert len(verdicts) == MAX_MINOR_VERDICTS and {v.kind for v in verdicts} == {V.MALFORMED}
    assert "later ones are not recorded" in verdicts[-1].detail
    assert record.seats[0].minor_verdicts > MAX_MINOR_VERDICTS  # still counted
    assert not record.result.seats[0].forfeited  # malformed answers are not strikes
    assert record.result.ByteSize() < MAX_REFEREE_MESSAGE // 16
    assert all(link.of("result") for link in links)


def test_a_crashed_process_forfeits_and_the_others_play_on() -> None:
    async def go() -> Any:
        session = MatchSession(GeneralsWar(4, 2), ["a", "b", "c", "d"], FAST)
        for i, token in enumerate(session.tokens()):
            session.attach(token, Scripted(session, i, driver_answers(i)))
        session.process_ended(2, "the bot's process exited with code 1")
        return await session.run()

    record = asyncio.run(go())
    assert kinds(record, 2) == [V.CRASH, V.FORFEIT]
    assert record.result.seats[2].rank == 4
    assert all(not kinds(record, s) for s in (0, 1, 3))


def test_a_bot_that_never_connects_is_a_no_show() -> None:
    async def go() -> Any:
        tc = TimeControl(move_time_ms=50, time_bank_ms=0, connect_timeout_ms=100)
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], tc)
        session.attach(session.tokens()[0], Scripted(session, 0, driver_answers(1)))
        return await session.run()

    record = asyncio.run(go())
    assert kinds(record, 1) == [V.NO_SHOW, V.FORFEIT]
    assert record.result.seats[0].rank == 1


def test_wrong_tokens_are_refused_without_harm() -> None:
    async def go() -> Any:
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], FAST)
        session.attach(session.tokens()[0], Scripted(session, 0, driver_answers(1)))
        with pytest.raises(AttachError) as wrong:
            session.attach("not-a-token", Scripted(session, 0, silent))
        assert wrong.value.code == "UNAUTHENTICATED"
        # compare_digest refuses non-ASCII str: such a token raised TypeError, and gRPC answered UNKNOWN (retried).
        with pytest.raises(AttachError) as foreign:
            session.attach("jeton-é", Scripted(session, 0, silent))
        assert foreign.value.code == "UNAUTHENTICATED" and session.seat_of("jeton-é") is None
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(2)))
        return await session.run()

    record = asyncio.run(go())
    assert not kinds(record, 0) and not kinds(record, 1)


def test_a_second_connection_of_a_seat_replaces_the_first_whose_late_messages_are_ignored() -> None:
    """A reconnect must work even while the old connection looks alive (half-open): the newer one takes the seat."""

    async def go() -> tuple[Any, Scripted, Scripted]:
        tc = TimeControl(move_time_ms=2000, time_bank_ms=0, connect_timeout_ms=2000)
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], tc)
        old = Scripted(session, 0, silent)
        session.attach(session.tokens()[0], old)
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(2)))
        task = asyncio.create_task(session.run())
        await until("seat 0's first request", lambda: session.seats[0].pending is not None, every=0.01)
        assert session.seats[0].pending is not None
        pending = session.seats[0].pending.request_id
        new = Scripted(session, 0, driver_answers(1))
        assert session.attach(session.tokens()[0], new) == 0
        assert old.closed and old.reason == REPLACED
        # What the old connection still sends counts for nothing: not a malformed action, not an oversized message.
        session.post(0, old, pb.BotMessage(action=pb.ActionResponse(request_id=pending, action=pb.Action())))
        session.post(0, old, pb.BotMessage())
        session.malformed(0, old, "a message of 70000 bytes", pb.MESSAGE_TOO_LARGE)
        return await task, old, new

    record, old, new = asyncio.run(go())
    assert record.game.is_over() and not kinds(record, 0) and not kinds(record, 1)
    assert [m.WhichOneof("msg") for m in old.sent] == ["start", "decision"]  # nothing after it was replaced
    assert new.of("start")[0].resumed and new.of("decision")[0].request_id == old.of("decision")[0].request_id
    assert not new.of("error")


def test_a_reconnecting_seat_resumes_with_its_pending_request() -> None:
    async def go() -> tuple[Any, Scripted, Scripted]:
        tc = TimeControl(move_time_ms=3000, time_bank_ms=0)
        session = MatchSession(GeneralsWar(2, 9), ["a", "b"], tc)
        dropped = Scripted(session, 0, silent)
        session.attach(session.tokens()[0], dropped)
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(2)))
        task = asyncio.create_task(session.run())
        await until("seat 0's first request", lambda: dropped.of("decision"), every=0.01)
        session.detach(0, dropped)
        await asyncio.sleep(0.05)  # away a while, the match going on: nothing to wait for
        again = Scripted(session, 0, driver_answers(3))
        session.attach(session.tokens()[0], again)
        return await task, dropped, again

    record, dropped, again = asyncio.run(go())
    start = again.of("start")[0]
    assert start.resumed and start.seat == 0
    assert again.of("decision"), "the pending request is sent again after reconnecting"
    assert dropped.of("decision")[0].request_id == again.of("decision")[0].request_id
    assert not kinds(record, 0)


def test_every_seat_is_told_only_its_own_draws() -> None:
    record, links = run_session([driver_answers(1), driver_answers(2)], TimeControl())
    for seat, link in enumerate(links):
        for batch in link.of("events") + [d.events for d in link.of("decision")]:  # batches, and events folded into requests
            for event in batch.events:
                drawn = event.generals_war.cards_drawn
                if event.generals_war.WhichOneof("kind") == "cards_drawn" and drawn.seat != seat:
                    assert not drawn.cards and drawn.count > 0


def test_memory_link_is_the_real_driver() -> None:
    """The in-process link answers through the SDK driver (used by the conformance suite)."""

    async def go() -> Any:
        session = MatchSession(GeneralsWar(2, 1), ["a", "b"])
        for i, token in enumerate(session.tokens()):
            link = MemoryLink(session, BotDriver(RandomBot(i)), None)
            link.seat = i
            session.attach(token, link)
        return await session.run()

    record = asyncio.run(go())
    assert record.game.is_over() and not any(a.auto for a in record.actions)


def test_events_ride_in_the_decision_request_that_follows_them_and_reach_every_seat_in_order() -> None:
    """A seat asked to decide gets the events since its last message inside the request; other seats get a batch.

    Every event a seat may see arrives exactly once, in log order, whichever way it travels.
    """
    slow = TimeControl(move_time_ms=3000, time_bank_ms=3000)
    record, links = run_session([driver_answers(1), driver_answers(2)], tc=slow, seed=4)
    assert record.game.is_over()
    folded = 0
    for link in links:
        seqs: list[int] = []
        for msg in link.sent:
            kind = msg.WhichOneof("msg")
            if kind == "events":
                seqs += [e.seq for e in msg.events.events]
            elif kind == "decision":
                folded += len(msg.decision.events.events)
                seqs += [e.seq for e in msg.decision.events.events]
        expected = [seq for seq, e in enumerate(record.events) if e.visible(link.seat)]
        assert seqs == expected
    assert folded > 0, "no request carried its events"


def test_the_sdk_hands_folded_events_to_the_bot_before_it_decides() -> None:
    seen: list[str] = []

    class Watcher(RandomBot):  # type: ignore[misc, valid-type]
        def on_events(self, events: list[Any]) -> None:
            seen.append(f"events:{len(events)}")

        def act(self, request: Any) -> Any:
            seen.append("act")
            return super().act(request)

    driver = BotDriver(Watcher(0))
    game = GeneralsWar(2, 4)
    session = MatchSession(game, ["a", "b"], TimeControl())
    driver.handle(pb.RefereeMessage(start=session._game_start(session.seats[0], False)))
    request = session._request(session.seats[0])
    request.events.events.add(seq=0)
    request.events.events.add(seq=1)
    replies = driver.handle(pb.RefereeMessage(decision=request))
    assert seen == ["events:2", "act"] and len(replies) == 1


def test_the_sdk_says_once_in_the_log_and_to_the_referee_when_it_gives_up_on_a_rejected_decision(caplog: pytest.LogCaptureFixture) -> None:
    """Else a bot's log showed only rejections and its verdicts an unexplained TIMEOUT, and the referee waited out the
    decision's deadline for an answer that would not come."""
    driver = BotDriver(RandomBot(0), max_retries=2)
    session = MatchSession(GeneralsWar(2, 4), ["a", "b"], TimeControl())
    driver.handle(pb.RefereeMessage(start=session._game_start(session.seats[0], False)))
    request = session._request(session.seats[0])
    request.decision_index = 7
    assert len(driver.handle(pb.RefereeMessage(decision=request))) == 1
    reject = pb.RefereeMessage(rejection=pb.Rejection(request_id=request.request_id, reason="no"))
    with caplog.at_level("WARNING", logger="arena_sdk"):
        answers = [[m.WhichOneof("msg") for m in driver.handle(reject)] for _ in range(5)]
    assert answers == [["action"], ["action"], ["give_up"], [], []]
    gave_up = [r.getMessage() for r in caplog.records if "giving up" in r.getMessage()]
    assert gave_up == [
        "giving up on decision 7 after 3 rejected actions (max_retries 2): the referee plays the "
        "default action and gives a TIMEOUT strike"
    ]


def test_an_answer_is_handled_the_moment_it_is_posted_and_the_next_request_goes_out_with_it() -> None:
    """No hand-off to the session's own task: the stream's reader that posts an answer plays it."""

    async def go() -> None:
        # Four players: the first decision (the target) is one seat's; two players would begin with a simultaneous one.
        session = MatchSession(GeneralsWar(4, 4), ["a", "b", "c", "d"], FAST)
        links = [Scripted(session, i, silent) for i in range(4)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        task = asyncio.create_task(session.run())
        for _ in range(100):
            await asyncio.sleep(0)
            if any(link.of("decision") for link in links):
                break
        (seat,) = session.game.to_act()
        request = links[seat].of("decision")[-1]
        reply = BotDriver(RandomBot(1))
        reply.start = links[seat].of("start")[0]
        (answer,) = reply.handle(pb.RefereeMessage(decision=request))
        played = len(session.actions)
        session.post(seat, links[seat], answer)  # no await between posting and looking
        assert len(session.actions) == played + 1 and session.actions[-1].seat == seat
        follower = session.game.to_act()
        if follower:
            assert links[follower[0]].of("decision")[-1].request_id > request.request_id
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())


@pytest.mark.skipif(in_use(), reason="subclasses a game's rules, which the interpreter cannot do to a compiled class")
def test_an_error_in_the_rules_ends_run_with_that_error() -> None:
    class Broken(GeneralsWar):
        def apply(self, seat: int, action: Any) -> Any:
            raise ZeroDivisionError("a bug in the rules")

    async def go() -> None:
        session = MatchSession(Broken(2, 1), ["a", "b"], FAST)
        links = [Scripted(session, i, driver_answers(i)) for i in range(2)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        with pytest.raises(ZeroDivisionError, match="a bug in the rules"):
            await asyncio.wait_for(session.run(), 5)

    asyncio.run(go())


def test_an_answer_posted_while_the_session_sends_is_handled_in_the_same_step() -> None:
    """A link that answers inside ``send`` (no await in between) must not leave its answer waiting for a timeout."""

    class Eager(Scripted):
        def send(self, msg: pb.RefereeMessage) -> None:
            self.sent.append(msg)
            self._reply(msg)

    async def go() -> Any:
        session = MatchSession(GeneralsWar(2, 6), ["a", "b"], TimeControl(move_time_ms=5000, time_bank_ms=5000))
        links = [Eager(session, i, driver_answers(i)) for i in range(2)]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await asyncio.wait_for(session.run(), 5)

    record = asyncio.run(go())
    assert record.game.is_over()
    assert all(not s.verdicts for s in record.result.seats), "no seat timed out"


def test_a_process_that_exits_before_connecting_is_told_apart() -> None:
    """"exited with code 0" alone reads as a clean end; a bot that never called run is the usual cause."""

    async def go() -> Any:
        session = MatchSession(GeneralsWar(4, 2), ["a", "b", "c", "d"], FAST)
        for i, token in enumerate(session.tokens()):
            if i != 3:
                session.attach(token, Scripted(session, i, driver_answers(i)))
        session.process_ended(2, "the bot's process exited with code 1", code=1)
        session.process_ended(3, "the bot's process exited with code 0", code=0)
        return await session.run()

    record = asyncio.run(go())
    connected, never = record.result.seats[2].verdicts[0], record.result.seats[3].verdicts[0]
    assert connected.detail == "the bot's process exited with code 1"
    assert never.kind == V.CRASH and never.detail.startswith("the bot's process exited with code 0 before it connected to the referee")
    assert "with an SDK, call run" in never.detail


@pytest.mark.parametrize("slip", [None, {"play_squad": [3]}, pb.Hello(bot_name="not an action")], ids=["None", "dict", "another message"])
def test_an_sdk_bot_whose_act_returns_no_action_sends_none_and_plays_on(slip: Any, caplog: pytest.LogCaptureFixture) -> None:
    """The Python SDK raised TypeError and the bot ended: one slip of act forfeited the match (the TypeScript SDK sends no action)."""

    class Slipping(RandomBot):  # type: ignore[misc, valid-type]
        slipped = False

        def act(self, request: Any) -> Any:
            if not Slipping.slipped:
                Slipping.slipped = True
                return slip
            return super().act(request)

    with caplog.at_level("ERROR", logger="arena_sdk"):
        record, links = run_session([BotDriver(Slipping(9)).handle, driver_answers(10)], TimeControl(move_time_ms=300, time_bank_ms=0))
    assert record.game.is_over() and not record.result.seats[0].forfeited
    assert kinds(record, 0) == [V.MALFORMED, V.TIMEOUT]  # the empty action refused, the decision's time then ran out
    assert links[0].of("result")
    assert any("not an action of generals-war (an arena.v1.generals_war.Action with one of " in r.getMessage() for r in caplog.records)


def test_an_sdk_request_tells_the_time_left_the_bank_and_the_decisions_index() -> None:
    """The TypeScript SDK's Request had timeBankLeftMs and decisionIndex; the Python one only time_left_ms."""
    seen: list[tuple[int, int, int, int]] = []

    class Timed(RandomBot):  # type: ignore[misc, valid-type]
        def act(self, request: Any) -> Any:
            seen.append((request.time_left_ms, request.time_bank_left_ms, request.decision_index, request.request_id))
            return super().act(request)

    # A clock that stands still: the SDK takes from time_left_ms what a request waited, a few ms on a loaded machine.
    driver = BotDriver(Timed(11), clock=lambda: 0.0)
    record, links = run_session([driver.handle, driver_answers(12)], TimeControl(move_time_ms=2000, time_bank_ms=500))
    asked = links[0].of("decision")
    assert seen == [(d.time_left_ms, d.time_bank_left_ms, d.decision_index, d.request_id) for d in asked]
    assert seen[0][1] == 500 and seen[0][0] <= 2500 and [s[2] for s in seen] == sorted({s[2] for s in seen})


def test_a_process_that_ends_before_connecting_does_not_hold_the_match_for_the_connect_timeout() -> None:
    """The other seats play at once: waiting the whole connect timeout (15 s by default) for a bot known dead wastes it."""

    async def go() -> Any:
        tc = TimeControl(move_time_ms=300, time_bank_ms=0, connect_timeout_ms=60_000)
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], tc)
        session.attach(session.tokens()[0], Scripted(session, 0, driver_answers(1)))
        session.process_ended(1, "the bot's process exited with code 1", code=1)
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    assert kinds(record, 1) == [V.CRASH, V.FORFEIT] and not kinds(record, 0)
    assert record.game.is_over()


def test_a_bot_that_could_not_be_started_is_not_said_to_have_run_without_connecting() -> None:
    """The launcher's own words stand: "before it connected" (with its exit-code hint) is for a process that ran."""

    async def go() -> Any:
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], TimeControl(move_time_ms=300, time_bank_ms=0))
        session.attach(session.tokens()[0], Scripted(session, 0, driver_answers(1)))
        session.process_ended(1, "the image arena/nothing does not exist", started=False)
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    assert [(v.kind, v.detail) for v in record.result.seats[1].verdicts][0] == (V.CRASH, "the image arena/nothing does not exist")


class FakeClock:
    """The session's clock, moved by hand: a bot "thinks" by moving it before it answers."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def thinking(clock: FakeClock, seed: int, seconds: Callable[[int], float]) -> Callable[[pb.RefereeMessage], list[pb.BotMessage]]:
    """driver_answers(seed), each after "thinking" ``seconds(n)`` by ``clock`` over its n-th request (from 1)."""
    inner = driver_answers(seed)
    asked = {"n": 0}

    def thinker(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision":
            asked["n"] += 1
            clock.now += seconds(asked["n"])
        return inner(msg)

    return thinker


def test_only_time_past_the_move_time_is_taken_from_the_bank_and_each_request_tells_what_is_left() -> None:
    clock = FakeClock()
    thinker = thinking(clock, 3, lambda n: 0.3 if n == 1 else 0.05)  # 200 ms past the move time once, then within it

    async def go() -> tuple[Any, Scripted]:
        tc = TimeControl(move_time_ms=100, time_bank_ms=1000, strike_limit=5)
        session = MatchSession(GeneralsWar(2, 3), ["a", "b"], tc, clock=clock)
        links = [Scripted(session, 0, thinker), Scripted(session, 1, driver_answers(4))]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await asyncio.wait_for(session.run(), 20), links[0]

    record, link = asyncio.run(go())
    assert not kinds(record, 0) and record.seats[0].bank_ms == pytest.approx(800)
    first, second = link.of("decision")[:2]
    assert (first.time_left_ms, first.time_bank_left_ms) == (1100, 1000)
    assert (second.time_left_ms, second.time_bank_left_ms) == (900, 800)
    assert record.seats[0].think_ms[:2] == [pytest.approx(300), pytest.approx(50)]


def test_a_seat_that_reconnects_is_told_the_bank_it_has_left_and_its_request_the_time_left() -> None:
    """The bank in GameStart is what is left of it now, and the re-sent request counts the time spent while away:
    GameStart said 800 (the bank as last charged) where the request said 400."""
    clock = FakeClock()
    inner = driver_answers(3)
    asked = {"n": 0}
    gone = asyncio.Event()

    def thinker(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        if msg.WhichOneof("msg") == "decision":
            asked["n"] += 1
            if asked["n"] == 2:  # its connection drops while it thinks
                gone.set()
                return []
            clock.now += 0.3  # 200 ms of the bank spent
        return inner(msg)

    async def go() -> tuple[Any, Scripted, Scripted]:
        tc = TimeControl(move_time_ms=100, time_bank_ms=1000, strike_limit=5)
        session = MatchSession(GeneralsWar(2, 3), ["a", "b"], tc, clock=clock)
        first = Scripted(session, 0, thinker)
        session.attach(session.tokens()[0], first)
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(4)))
        task = asyncio.create_task(session.run())
        await asyncio.wait_for(gone.wait(), 10)
        session.detach(0, first)
        clock.now += 0.5  # away for 500 ms: 100 + 800 - 500 left
        again = Scripted(session, 0, driver_answers(5))
        session.attach(session.tokens()[0], again)
        return await asyncio.wait_for(task, 20), first, again

    record, first, again = asyncio.run(go())
    start = again.of("start")[0]
    assert start.resumed and start.time_bank_left_ms == 400
    resent = again.of("decision")[0]
    assert resent.request_id == first.of("decision")[1].request_id
    assert (resent.time_left_ms, resent.time_bank_left_ms) == (400, 400)
    assert not kinds(record, 0)


def test_a_seat_whose_stream_is_down_when_its_time_runs_out_gets_disconnect_not_timeout() -> None:
    async def go() -> Any:
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], FAST)
        session.attach(session.tokens()[0], Scripted(session, 0, silent))
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(2)))
        session.detach(0, session.seats[0].link)  # type: ignore[arg-type]
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    k = kinds(record, 0)
    assert k[:3] == [V.DISCONNECT] * 3 and k[3] == V.FORFEIT


def test_a_timeout_spends_the_whole_bank_and_its_verdict_names_the_decision() -> None:
    record, links = run_session([silent, driver_answers(3)])
    timeouts = [v for v in record.result.seats[0].verdicts if v.kind == V.TIMEOUT]
    assert [v.decision_index for v in timeouts] == [d.decision_index for d in links[0].of("decision")][: len(timeouts)]
    assert record.seats[0].bank_ms == 0
    later = links[0].of("decision")[1]
    assert later.time_bank_left_ms == 0 and later.time_left_ms <= FAST.move_time_ms


def test_a_long_note_is_cut_by_the_referee_whatever_the_bot_sends() -> None:
    """The SDKs cut notes themselves; a bot of its own making may not, and the replay keeps NOTE_MAX characters."""
    inner = driver_answers(3)

    def wordy(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        replies = inner(msg)
        for reply in replies:
            if reply.WhichOneof("msg") == "action":
                reply.action.note = "n" * (3 * NOTE_MAX)
        return replies

    record, _ = run_session([wordy, driver_answers(4)], TimeControl(move_time_ms=2000, time_bank_ms=0))
    notes = [a.note for a in record.actions if a.seat == 0 and not a.auto]
    assert notes and all(note == "n" * NOTE_MAX for note in notes)


def test_the_time_of_a_decision_closed_by_rejections_is_charged() -> None:
    clock = FakeClock()

    def spam(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
        clock.now += 0.15 if msg.WhichOneof("msg") in ("decision", "rejection") else 0
        return illegal_answers(msg)

    async def go() -> Any:
        tc = TimeControl(move_time_ms=100, time_bank_ms=1000, strike_limit=0, max_rejections=2)
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], tc, clock=clock)
        session.attach(session.tokens()[0], Scripted(session, 0, spam))
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(2)))
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    assert kinds(record, 0) == [V.ILLEGAL_ACTION] * 3 + [V.FORFEIT]
    assert record.seats[0].think_ms == [pytest.approx(300)] and record.seats[0].bank_ms == pytest.approx(800)


def test_simultaneous_choices_are_applied_in_seat_order_whichever_bot_answers_first() -> None:
    """The log, and so the replay and the events, must not depend on which bot was quicker."""

    class Late(Scripted):
        def send(self, msg: pb.RefereeMessage) -> None:
            self.sent.append(msg)
            first = msg.WhichOneof("msg") == "decision" and len(self.of("decision")) == 1
            asyncio.get_running_loop().call_later(0.05 if first else 0, self._reply, msg)

    async def go() -> Any:
        # Two players begin with a simultaneous choice (the reveal); seat 1 answers it well before seat 0.
        session = MatchSession(GeneralsWar(2, 6), ["a", "b"], TimeControl(move_time_ms=5000, time_bank_ms=0))
        links = [Late(session, 0, driver_answers(1)), Scripted(session, 1, driver_answers(2))]
        for link, token in zip(links, session.tokens()):
            session.attach(token, link)
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    assert [a.seat for a in record.actions[:2]] == [0, 1]
    assert not kinds(record, 0) and not kinds(record, 1)


def test_seats_that_forfeit_rank_last_the_earlier_forfeit_lower() -> None:
    async def go() -> Any:
        session = MatchSession(GeneralsWar(4, 2), ["a", "b", "c", "d"], TimeControl(move_time_ms=2000, time_bank_ms=0))
        inner = driver_answers(3)

        def quitter(msg: pb.RefereeMessage) -> list[pb.BotMessage]:
            if msg.WhichOneof("msg") == "decision" and session.decisions > 1:
                session.process_ended(3, "the bot's process exited with code 1")
                return []
            return inner(msg)

        answers = [driver_answers(0), driver_answers(1), driver_answers(2), quitter]
        for i, token in enumerate(session.tokens()):
            session.attach(token, Scripted(session, i, answers[i]))
        session.process_ended(2, "the bot's process exited with code 1")  # at once; seat 3 later
        return await asyncio.wait_for(session.run(), 20)

    record = asyncio.run(go())
    assert record.seats[2].forfeited_at == 0 < record.seats[3].forfeited_at
    assert [record.result.seats[s].rank for s in (3, 2)] == [3, 4]
    assert sorted(record.result.seats[s].rank for s in (0, 1)) in ([1, 2], [1, 1])


def test_the_default_action_is_played_at_once_when_rejections_close_a_decision() -> None:
    """The seat does not wait out its move time (a minute here) for a decision its rejections already closed."""

    async def go() -> Any:
        tc = TimeControl(move_time_ms=60_000, time_bank_ms=0, strike_limit=1, max_rejections=2)
        session = MatchSession(GeneralsWar(2, 2), ["a", "b"], tc)
        session.attach(session.tokens()[0], Scripted(session, 0, illegal_answers))
        session.attach(session.tokens()[1], Scripted(session, 1, driver_answers(2)))
        return await asyncio.wait_for(session.run(), 10)

    record = asyncio.run(go())
    assert kinds(record, 0) == [V.ILLEGAL_ACTION] * 6 + [V.FORFEIT]  # two decisions: two rejections and a strike each
    assert [a.auto for a in record.actions if a.seat == 0][:2] == [True, True]
