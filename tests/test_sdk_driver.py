"""The Python SDK's driver fed the referee's messages directly: what the bot's hooks are told and what is sent back.

sdk/typescript/test/sdk.test.ts checks the same of the TypeScript SDK's driver.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.v1 import generals_war_pb2 as gw
from arena.v1 import glory_pb2 as gl
from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request
from arena_sdk.driver import UNSENT, BotDriver, wrap

START = pb.RefereeMessage(start=pb.GameStart(match_id="m1", game="generals-war", seat=1, num_seats=2, protocol_version=1))


def reveal_request(request_id: int) -> pb.RefereeMessage:
    decision = pb.Decision(generals_war=gw.Decision(reveal_choice=gw.RevealChoice()))
    raw = pb.DecisionRequest(request_id=request_id, decision_index=request_id, time_left_ms=1500, time_bank_left_ms=500, decision=decision)
    return pb.RefereeMessage(decision=raw)


def rejection(request_id: int) -> pb.RefereeMessage:
    return pb.RefereeMessage(rejection=pb.Rejection(request_id=request_id, reason=f"not {request_id}"))


class Recorder(Bot):
    """Reveals nothing, and keeps what each hook was told."""

    name = "recorder"
    version = "2.0"

    def __init__(self) -> None:
        self.told: list[tuple[str, Any]] = []
        self.requests: list[Request] = []

    def on_start(self, start: pb.GameStart) -> None:
        self.told.append(("start", start.seat))

    def act(self, request: Request) -> Any:
        self.told.append(("act", request.request_id))
        self.requests.append(request)
        return gw.Action(reveal_generals=gw.RevealGenerals())

    def on_events(self, events: list[Any]) -> None:
        self.told.append(("events", [e.WhichOneof("kind") for e in events]))

    def on_rejection(self, reason: str) -> None:
        self.told.append(("rejection", reason))

    def on_result(self, result: pb.MatchResult) -> None:
        self.told.append(("result", [s.rank for s in result.seats]))


def test_hello_carries_the_match_the_token_and_the_bots_name_and_version() -> None:
    hello = BotDriver(Recorder()).hello("m1", "secret").hello
    assert (hello.match_id, hello.token, hello.protocol_version, hello.bot_name, hello.bot_version) == ("m1", "secret", 1, "recorder", "2.0")


def test_each_decision_gets_its_own_retries_and_a_rejection_of_another_request_is_not_answered() -> None:
    bot = Recorder()
    bot.max_retries = 1
    driver = BotDriver(bot, clock=lambda: 0.0)  # no time passes: each act is told the referee's figures as sent
    driver.handle(START)
    answered = [[r.WhichOneof("msg") for r in driver.handle(m)] for m in (reveal_request(5), rejection(5), rejection(5), rejection(4))]
    assert answered == [["action"], ["action"], ["give_up"], []]
    # A new decision: asked again after its first rejection, though the last one had used its retries up.
    (answer,) = driver.handle(reveal_request(6))
    assert answer.action.request_id == 6 and answer.action.action.generals_war.WhichOneof("kind") == "reveal_generals"
    assert [[r.WhichOneof("msg") for r in driver.handle(m)] for m in (rejection(5), rejection(6), rejection(6))] == [[], ["action"], ["give_up"]]
    assert [t for t in bot.told if t[0] != "start"] == [
        ("act", 5), ("rejection", "not 5"), ("act", 5), ("rejection", "not 5"), ("rejection", "not 4"),
        ("act", 6), ("rejection", "not 5"), ("rejection", "not 6"), ("act", 6), ("rejection", "not 6"),
    ]
    assert {(r.seat, r.kind, r.decision_index) for r in bot.requests} == {(1, "reveal_choice", 5), (1, "reveal_choice", 6)}
    assert {(r.time_left_ms, r.time_bank_left_ms) for r in bot.requests} == {(1500, 500)}


def test_the_hooks_are_told_the_start_the_games_events_and_the_result() -> None:
    bot = Recorder()
    driver = BotDriver(bot)
    driver.handle(START)
    round_started = pb.Event(seq=0, generals_war=gw.Event(round_started=gw.RoundStarted(round=1)))
    target = pb.Event(seq=1, generals_war=gw.Event(target_chosen=gw.TargetChosen(target=0)))
    driver.handle(pb.RefereeMessage(events=pb.EventBatch(events=[round_started, target])))
    driver.handle(pb.RefereeMessage(error=pb.ProtocolError(code=pb.STALE_REQUEST, message="stale")))
    result = pb.MatchResult(match_id="m1", seats=[pb.SeatResult(seat=0, rank=1), pb.SeatResult(seat=1, rank=2)])
    assert driver.handle(pb.RefereeMessage(result=result)) == []
    assert bot.told == [("start", 1), ("events", ["round_started", "target_chosen"]), ("result", [1, 2])]
    assert driver.result == result


def test_wrap_puts_a_games_action_in_the_envelope_and_passes_an_envelope_through() -> None:
    target = gw.Action(choose_target=gw.ChooseTarget(target=2))
    assert wrap(target, "generals-war") == pb.Action(generals_war=target)
    envelope = pb.Action(generals_war=gw.Action(reveal_generals=gw.RevealGenerals(card_ids=[1])))
    assert wrap(envelope, "generals-war") is envelope
    assert wrap(None, "generals-war") == pb.Action() and wrap(target, "glory") == pb.Action()


def test_an_envelope_of_another_game_or_an_action_of_no_kind_is_sent_as_no_action_and_said_so(caplog: pytest.LogCaptureFixture) -> None:
    """As the TypeScript SDK does (sdk/typescript/test/sdk.test.ts): the referee would refuse them as malformed all the same."""
    glory = pb.Action(glory=gl.Action(pass_turn=gl.PassTurn()))
    with caplog.at_level("ERROR", logger="arena_sdk"):
        for slip in (glory, pb.Action(generals_war=gw.Action()), gw.Action(), pb.Action()):
            assert wrap(slip, "generals-war") == pb.Action(), slip
    told = "not an action of generals-war (an arena.v1.generals_war.Action with one of reveal_generals, choose_target, play_squad); sending no action"
    assert [r.getMessage().endswith(told) for r in caplog.records] == [True] * 4, caplog.records[0].getMessage()
    assert wrap(gw.Action(reveal_generals=gw.RevealGenerals()), "generals-war").generals_war.WhichOneof("kind") == "reveal_generals"


def test_an_action_not_sent_goes_with_why_as_its_note_in_place_of_the_bots(caplog: pytest.LogCaptureFixture) -> None:
    """The referee quotes a malformed action's note in its verdict: `arena match` told "got none", why only the log."""

    class Slipping(Recorder):
        def act(self, request: Request) -> Any:
            request.note("my own thoughts")
            return {"reveal_generals": []} if request.request_id == 5 else super().act(request)

    driver = BotDriver(Slipping())
    driver.handle(START)
    with caplog.at_level("ERROR", logger="arena_sdk"):
        (slipped,) = driver.handle(reveal_request(5))
    assert slipped.action.action == pb.Action()
    assert slipped.action.note.startswith(UNSENT + "act returned {'reveal_generals': []}, not an action of generals-war (an ")
    (played,) = driver.handle(reveal_request(6))
    assert played.action.note == "my own thoughts", "an action sent keeps the bot's own note"


def test_events_folded_into_a_decision_are_told_before_act_is_asked() -> None:
    """The referee folds the events since the last message into the request: the bot must know them when it decides."""
    bot = Recorder()
    driver = BotDriver(bot)
    driver.handle(START)
    request = reveal_request(3)
    request.decision.events.events.add(seq=4, generals_war=gw.Event(round_started=gw.RoundStarted(round=2)))
    request.decision.events.events.add(seq=5, generals_war=gw.Event(target_chosen=gw.TargetChosen(target=0)))
    assert len(driver.handle(request)) == 1
    assert bot.told[1:] == [("events", ["round_started", "target_chosen"]), ("act", 3)]


def test_a_rejection_before_any_decision_is_told_and_not_answered() -> None:
    bot = Recorder()
    driver = BotDriver(bot)
    driver.handle(START)
    assert driver.handle(rejection(1)) == []
    assert len(driver.handle(reveal_request(2))) == 1
    assert bot.told[1:] == [("rejection", "not 1"), ("act", 2)]


def test_a_bot_is_asked_again_three_times_by_default() -> None:
    """docs/bots.md: after a rejection ``act`` is asked again, up to ``max_retries`` = 3 times."""
    bot = Recorder()
    driver = BotDriver(bot)
    driver.handle(START)
    answers = [[r.WhichOneof("msg") for r in driver.handle(m)] for m in (reveal_request(7), *[rejection(7)] * 5)]
    assert answers == [["action"]] * 4 + [["give_up"], []]


def test_a_request_unwraps_the_games_view_and_lists_actions_only_when_the_referee_did() -> None:
    raw = reveal_request(1).decision
    raw.view.generals_war.CopyFrom(gw.View(seat=1, round=4))
    request = Request(raw, START.start)
    assert (request.view.seat, request.view.round) == (1, 4) and request.kind == "reveal_choice"
    assert request.legal_actions is None, "not listed: the bot must work from the decision"
    listed = gw.Action(reveal_generals=gw.RevealGenerals(card_ids=[3]))
    raw.legal_actions.add(generals_war=listed)
    raw.legal_actions_listed = True
    assert Request(raw, START.start).legal_actions == [listed]
    raw.ClearField("legal_actions")
    assert Request(raw, START.start).legal_actions == [], "listed and empty is not the same as not listed"


def test_a_note_keeps_500_characters_of_any_plane_and_takes_any_value() -> None:
    """A character outside the BMP given as its two surrogate halves counts once; a non-string note is its str()."""
    request = Request(reveal_request(1).decision, START.start)
    request.note("\ud83d\ude00" * 600)
    assert request.noted == "\U0001f600" * 500
    request.note(42)  # type: ignore[arg-type]
    assert request.noted == "42"


def test_an_answer_the_referee_could_not_use_is_given_up_on_and_act_is_not_asked_again(caplog: pytest.LogCaptureFixture) -> None:
    """MALFORMED_ACTION and MESSAGE_TOO_LARGE leave the request open, and act would slip the same way again: the
    driver gives it up. Other errors are not about the pending answer, and once the match is over nothing is."""
    bot = Recorder()
    driver = BotDriver(bot)
    driver.handle(START)

    def error(code: pb.ErrorCode) -> list[str]:
        return [r.WhichOneof("msg") for r in driver.handle(pb.RefereeMessage(error=pb.ProtocolError(code=code, message="not an action")))]

    assert error(pb.MALFORMED_ACTION) == [], "nothing is pending before the first decision"
    driver.handle(reveal_request(5))
    with caplog.at_level("WARNING", logger="arena_sdk"):
        assert error(pb.STALE_REQUEST) == [] and error(pb.UNEXPECTED_MESSAGE) == []
        (given,) = driver.handle(pb.RefereeMessage(error=pb.ProtocolError(code=pb.MALFORMED_ACTION, message="garbled")))
    assert given.give_up.request_id == 5
    assert any("giving up on decision 5" in r.getMessage() for r in caplog.records)
    driver.handle(reveal_request(6))
    (given,) = driver.handle(pb.RefereeMessage(error=pb.ProtocolError(code=pb.MESSAGE_TOO_LARGE, message="too large")))
    assert given.give_up.request_id == 6
    driver.handle(pb.RefereeMessage(result=pb.MatchResult(match_id="m1")))
    assert error(pb.MALFORMED_ACTION) == [] and error(pb.MESSAGE_TOO_LARGE) == [], "nothing is pending once the match is over"
    assert [t for t in bot.told if t[0] == "act"] == [("act", 5), ("act", 6)]


def test_a_rejection_is_logged_with_the_decision_and_the_kind_of_action_that_was_refused(caplog: pytest.LogCaptureFixture) -> None:
    """A referee's reason such as 'reveal generals (possibly none) now' says what it wanted, not what the bot sent:
    the log names the decision and the kind of the action act returned, so a bot answering the wrong decision shows."""

    class Squad(Recorder):
        def act(self, request: Request) -> Any:
            super().act(request)
            return gw.Action(play_squad=gw.PlaySquad(card_ids=[3]))

    driver = BotDriver(Squad())
    driver.handle(START)
    with caplog.at_level("WARNING", logger="arena_sdk"):
        driver.handle(reveal_request(5))
        driver.handle(rejection(5))
        driver.handle(rejection(4))  # not the pending request: nothing to say of it
    assert [r.getMessage() for r in caplog.records] == [
        "action rejected: not 5 (decision 5, asked for reveal_choice, answered with play_squad)",
        "action rejected: not 4",
    ]


def test_time_left_is_what_is_left_when_act_is_called_not_what_the_referee_sent() -> None:
    """A request that waited in the SDK (behind a slow answer, or through earlier tries) has less time than the
    referee's figure, counted from when it sent it: ``time_left_ms`` subtracts the wait, the move time going first and
    the bank after it. The referee's own figure stays in ``raw``."""
    now = [100.0]
    bot = Recorder()
    driver = BotDriver(bot, clock=lambda: now[0])
    driver.handle(START)
    driver.handle(reveal_request(1), received_at=99.75)  # came 250 ms ago: 1500 - 250, the bank untouched
    now[0] = 101.0
    driver.handle(rejection(1))  # asked again 1.25 s after it came: 250 ms left, all of it bank
    driver.handle(reveal_request(2), received_at=99.0)  # waited 2 s, more than it had
    driver.handle(reveal_request(3))  # no arrival given: it came now
    left = [(r.request_id, r.time_left_ms, r.time_bank_left_ms, r.waited_ms) for r in bot.requests]
    assert left == [(1, 1250, 500, 250), (1, 250, 250, 1250), (2, 0, 0, 2000), (3, 1500, 500, 0)]
    assert bot.requests[2].raw.time_left_ms == 1500


def test_every_member_of_a_request_says_what_it_is_in_help() -> None:
    """``help(request)`` is where a Python author looks first: ``view``, ``kind``, ``choice``... said nothing there."""
    members = [name for name in dir(Request) if not name.startswith("_")]
    assert {"view", "decision", "kind", "choice", "seat", "request_id", "time_left_ms"} <= set(members)
    assert [name for name in members if not (getattr(Request, name).__doc__ or "").strip()] == []


def test_a_late_answers_stale_request_is_logged_with_its_decision_and_how_long_it_took(caplog: pytest.LogCaptureFixture) -> None:
    """The referee names the request by an id found nowhere else, where arena match's table says timeout@5, by
    decision: the log line adds the decision and how long the answer took from the request's arrival, as the
    TypeScript SDK's does."""
    now = [10.0]

    class Slow(Recorder):
        def act(self, request: Request) -> Any:
            now[0] += 2.6  # a slow think
            return super().act(request)

    driver = BotDriver(Slow(), clock=lambda: now[0])
    driver.handle(START)
    driver.handle(reveal_request(5))
    driver.handle(reveal_request(6), received_at=now[0] - 2.6)  # it came while act thought about request 5

    def stale(request_id: int) -> pb.RefereeMessage:
        return pb.RefereeMessage(error=pb.ProtocolError(code=pb.STALE_REQUEST, message=f"request {request_id} is not pending: its time ran out"))

    with caplog.at_level("WARNING", logger="arena_sdk"):
        for request_id in (5, 6, 9):  # 9: no answer of this bot's, said as the referee said it
            driver.handle(stale(request_id))
    assert [r.getMessage() for r in caplog.records] == [
        "protocol error STALE_REQUEST: request 5 is not pending: its time ran out (decision 5: answered 2600 ms after it came, of the 1500 ms it had)",
        "protocol error STALE_REQUEST: request 6 is not pending: its time ran out (decision 6: answered 5200 ms after it came, of the 1500 ms it had)",
        "protocol error STALE_REQUEST: request 9 is not pending: its time ran out",
    ]
