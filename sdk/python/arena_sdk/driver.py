"""The protocol logic of a bot, apart from any transport.

``BotDriver.handle`` takes each message from the referee and returns the
messages to send back. The gRPC client feeds it from a stream; the referee's
in-process runner feeds it directly.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from arena.v1 import referee_pb2 as pb
from arena_sdk.bot import NOTE_MAX, Bot, Request

PROTOCOL_VERSION = 1
#: Errors that say the referee could not use the bot's answer, which leaves the request open.
UNUSED_ANSWER = frozenset({pb.MALFORMED_ACTION, pb.MESSAGE_TOO_LARGE})
#: How many answers' times are kept, for a STALE_REQUEST naming one of them.
TIMED_ANSWERS = 16
log = logging.getLogger("arena_sdk")


class BotDriver:
    def __init__(self, bot: Bot, max_retries: int | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        """``clock``: seconds, for how long a request waited before ``act`` was called (only differences are used)."""
        self.bot = bot
        self.clock = clock
        #: When the pending request arrived, by ``clock``.
        self.pending_since = 0.0
        self.start: pb.GameStart | None = None
        self.result: pb.MatchResult | None = None
        self.pending: pb.DecisionRequest | None = None
        self.retries = 0
        #: The last answer, its request and the action sent: a rejection's log line names their kinds (found only then,
        #: not at every decision).
        self.answered: tuple[Request, pb.Action] | None = None
        self.max_retries = bot.max_retries if max_retries is None else max_retries
        #: The last answers by request id: (decision index, the referee's time_left_ms, ms from arrival to answer).
        self.timed: dict[int, tuple[int, int, int]] = {}
        #: When the last answer's request ran out (by ``clock``), if ``act`` answered it after that; else None. The
        #: referee may have sent this seat's next request at any moment since, while ``act`` still ran (see the client).
        self.late_since: float | None = None

    def hello(self, match_id: str, token: str) -> pb.BotMessage:
        return pb.BotMessage(
            hello=pb.Hello(
                match_id=match_id,
                token=token,
                protocol_version=PROTOCOL_VERSION,
                bot_name=self.bot.name,
                bot_version=self.bot.version,
            )
        )

    def handle(self, msg: pb.RefereeMessage, received_at: float | None = None) -> list[pb.BotMessage]:
        """The replies to ``msg``; ``received_at`` (by ``clock``): when it arrived, if it waited (default: now)."""
        which = msg.WhichOneof("msg")
        if which == "start":
            self.start = msg.start
            self.bot.on_start(msg.start)
        elif which == "events":
            self._events(msg.events)
        elif which == "decision":
            # Taken before on_events: the time the bot's hooks take is the decision's too.
            self.pending_since = self.clock() if received_at is None else received_at
            if msg.decision.events.events:  # events folded into the request come first
                self._events(msg.decision.events)
            self.pending = msg.decision
            self.retries = 0
            return self._answer()
        elif which == "rejection":
            pending = self.pending if self.pending is not None and msg.rejection.request_id == self.pending.request_id else None
            if pending is not None and self.answered is not None:
                # The reason says what the referee wanted; the kind sent shows a bot answering another decision.
                request, action = self.answered
                game = action.WhichOneof("game")
                sent = getattr(action, game).WhichOneof("kind") if game else None
                log.warning("action rejected: %s (decision %d, asked for %s, answered with %s)", msg.rejection.reason, pending.decision_index, request.kind, sent)
            else:
                log.warning("action rejected: %s", msg.rejection.reason)
            self.bot.on_rejection(msg.rejection.reason)
            if pending is not None:
                self.retries += 1
                if self.retries <= self.max_retries:
                    return self._answer()
                if self.retries == self.max_retries + 1:  # once: the referee may still reject answers sent before
                    return self._give_up(f"after {self.retries} rejected actions (max_retries {self.max_retries})")
        elif which == "error":
            log.warning("protocol error %s: %s%s", pb.ErrorCode.Name(msg.error.code), msg.error.message, self._lateness(msg.error))
            if msg.error.code in UNUSED_ANSWER and self.pending is not None and self.result is None:
                # act is not asked again for a decision whose answer was not an action: it would slip the same way
                return self._give_up("(its answer was not a usable action)")
        elif which == "result":
            self.result = msg.result
            self.bot.on_result(msg.result)
        return []

    def _events(self, batch: pb.EventBatch) -> None:
        if self.start is not None:
            field = self.start.game.replace("-", "_")
            self.bot.on_events([getattr(e, field) for e in batch.events])

    def _lateness(self, error: pb.ProtocolError) -> str:
        """For a STALE_REQUEST naming an answer of this bot: which decision it was and how long the answer took. The
        referee names the request by its id, which appears nowhere else, where `arena match` and the replay count
        decisions (as the TypeScript SDK says it)."""
        found = re.match(r"request (\d+)\b", error.message) if error.code == pb.STALE_REQUEST else None
        timed = self.timed.get(int(found.group(1))) if found else None
        if timed is None:
            return ""
        return f" (decision {timed[0]}: answered {timed[2]} ms after it came, of the {timed[1]} ms it had)"

    def _give_up(self, why: str) -> list[pb.BotMessage]:
        """Tell the referee (and the log) no answer will come for the pending request: it ends it now, as its deadline
        would."""
        assert self.pending is not None
        log.warning(
            "giving up on decision %d %s: the referee plays the default action and gives a TIMEOUT strike",
            self.pending.decision_index, why,
        )
        return [pb.BotMessage(give_up=pb.GiveUp(request_id=self.pending.request_id))]

    def _answer(self) -> list[pb.BotMessage]:
        assert self.pending is not None and self.start is not None
        request = Request(self.pending, self.start, round((self.clock() - self.pending_since) * 1000))
        faults: list[str] = []
        action = wrap(self.bot.act(request), self.start.game, faults)
        self.answered = (request, action)
        pending = self.pending
        took_ms = round((self.clock() - self.pending_since) * 1000)
        self.timed.pop(pending.request_id, None)  # re-inserted last: the dict keeps the newest answers
        self.timed[pending.request_id] = (pending.decision_index, pending.time_left_ms, took_ms)
        self.late_since = self.pending_since + pending.time_left_ms / 1000 if took_ms > pending.time_left_ms else None
        if len(self.timed) > TIMED_ANSWERS:
            del self.timed[next(iter(self.timed))]
        # An action not sent goes with why as its note, which the referee quotes in its MALFORMED verdict: the verdict
        # said only "got none", and why was in the bot's log alone.
        note = f"{UNSENT}{faults[0]}"[:NOTE_MAX] if faults else request.noted
        answer = pb.ActionResponse(request_id=self.pending.request_id, action=action, note=note)
        return [pb.BotMessage(action=answer)]


#: How the note of an action the SDK could not send begins (the referee's MALFORMED verdict quotes the note).
UNSENT = "the SDK sent no action: "


def wrap(action: Any, game: str, faults: list[str] | None = None) -> pb.Action:
    """The envelope Action for a game's action message (an envelope of the game passes through).

    What is not an action of the game (None, a dict, another game's message or envelope, an action of no kind) is
    logged as an error (and added to ``faults``) and becomes the empty action, which the referee refuses as
    malformed, as the TypeScript SDK does: it raised TypeError, and one slip of ``act`` ended the bot and forfeited
    the match.
    """
    field = game.replace("-", "_")
    if isinstance(action, pb.Action):
        envelope = action
        inner = getattr(action, field) if action.WhichOneof("game") == field else None
    else:
        envelope = pb.Action()
        inner = action if isinstance(action, type(getattr(envelope, field))) else None
        if inner is not None:
            getattr(envelope, field).CopyFrom(inner)
    if inner is None or not inner.WhichOneof("kind"):
        # Its kinds named, as the TypeScript SDK names them: "not an action of glory" alone left the author to look up what is.
        descriptor = getattr(pb.Action(), field).DESCRIPTOR
        kinds = ", ".join(f.name for f in descriptor.oneofs_by_name["kind"].fields)
        fault = f"act returned {_described(action)}, not an action of {game} ({_a(descriptor.full_name)} with one of {kinds})"
        log.error("%s; sending no action", fault)
        if faults is not None:
            faults.append(fault)
        return pb.Action()
    return envelope


def _a(name: str) -> str:
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _described(value: Any) -> str:
    if isinstance(value, Message):
        return f"{_a(value.DESCRIPTOR.full_name)} message"
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."
