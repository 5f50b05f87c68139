"""One match, hosted: seats, clocks, strikes and verdicts around a game's rules.

The session owns the game and the clock. Every input (a bot's message, a
connection or disconnection, a crashed process) is handled in order, one at a
time, so the rules never see two things at once: before the match starts the
inputs wait in a queue (but a bot's messages, which can only be refused then);
once it runs, each is handled the moment it arrives, on the task that brought
it (a stream's reader), and the match moves on from
there (requests, default actions, the next deadline's timer). A hand-off to
the session's own task for every answer cost 0.03-0.1 ms of each decision's
round trip (benchmarks/CHANGES.md, third round).
Timeouts, crashes and illegal actions are handled here, never inside a game.
Transports plug in as ``SeatLink`` objects; the session only hands them
``RefereeMessage`` protobufs.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.v1 import referee_pb2 as pb
from referee.core.game import Event, Game, IllegalAction, Result, ranks_from_scores
from referee.protocol.codec import CodecError, foreign_fields
from referee.protocol.messages import PROTOCOL_VERSION, GameCodec, option_values

V = pb.VerdictKind


class SeatLink(Protocol):
    """One live connection of a seat; ``send`` must not block."""

    def send(self, msg: pb.RefereeMessage) -> None: ...

    def close(self, reason: str = "") -> None:
        """No more messages: the match is over (no reason), or the referee ends this connection early (``reason`` says why)."""
        ...


#: The characters of a bot's note on a decision (ActionResponse.note) kept in the replay; the rest is cut.
NOTE_MAX = 500
NOTE_QUOTED = 300  # the characters of a malformed action's note quoted in its verdict

#: Rejected and malformed messages recorded as verdicts per seat; strikes, crashes and forfeits are always recorded.
MAX_MINOR_VERDICTS = 500

#: Why a seat's connection ends when the seat connects again (``close(REPLACED)``).
REPLACED = "replaced by a newer connection of this seat"


#: Why a request is no longer pending, told to an answer that names it (STALE_REQUEST).
ANSWERED = "it was answered already"
TIMED_OUT = "its time ran out before this answer came, and the game's default action was played for it (a strike)"
LAPSED = "another seat's action ended the decision"

#: What a message after the hello that is neither an action nor a give_up is told (UNEXPECTED_MESSAGE), by its kind.
UNEXPECTED: dict[str | None, str] = {
    "hello": "a second hello: this stream is the seat's already (send actions on it; to reconnect, open a new stream)",
    None: "an empty message: set its action (or give_up)",
}


class AttachError(Exception):
    """A connection the session refuses; ``code`` names the gRPC status to answer with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


#: What a bot's exit code most likely means when it never connected: 0, a script that defines a bot and never
#: calls ``run``; 126 and 127, the shell (which starts every bot) failing to start the command's program.
NEVER_CONNECTED: dict[int | None, str] = {
    0: " (a bot connects to ARENA_ADDRESS: with an SDK, call run)",
    126: " (126: the shell could not run the command's program: is it executable?)",
    127: " (127: the shell found no such program: is the command's first word installed and on PATH?)",
}


@dataclass(frozen=True)
class TimeControl:
    move_time_ms: int = 1000
    time_bank_ms: int = 10000
    strike_limit: int = 3
    #: Rejected actions allowed per decision before the referee plays the default action (a strike).
    max_rejections: int = 20
    #: How long every bot has to connect before it is a no-show.
    connect_timeout_ms: int = 15000

    def to_proto(self) -> pb.TimeControl:
        return pb.TimeControl(move_time_ms=self.move_time_ms, time_bank_ms=self.time_bank_ms, strike_limit=self.strike_limit)


@dataclass
class Pending:
    request_id: int
    decision_index: int
    sent_at: float
    fingerprint: bytes
    version: int  # the game's state version the request was built from
    rejections: int = 0


@dataclass
class Seat:
    seat: int
    name: str
    token: str
    bank_ms: float
    link: SeatLink | None = None
    ever_connected: bool = False
    pending: Pending | None = None
    strikes: int = 0
    forfeited_at: int | None = None
    gone: bool = False  # the bot's process has ended
    verdicts: list[pb.Verdict] = field(default_factory=list)
    cursor: int = 0  # events of the log already delivered to this seat
    #: Events for this seat not sent yet, a batch per action applied. They are held until the seat is next sent
    #: something: folded, all of them, into its next decision request, or sent as batches just before a
    #: rejection, an error or the result. So framing depends on the game alone (when the seat is asked),
    #: never on timing, and a seat is not woken while another one thinks.
    outbox: list[list[pb.Event]] = field(default_factory=list)
    #: Why each request of this seat that is no longer pending was closed (answered, timed out, replaced...), so that an
    #: answer that names one is told which: "is not pending" alone read the same for a duplicate answer, a late one and
    #: an id mangled on the way (a JavaScript Number), and an id never sent.
    closed: dict[int, str] = field(default_factory=dict)
    held: tuple[Any, bool, str] | None = None  # a simultaneous choice waiting for the other seats' (action, auto, note)
    minor_verdicts: int = 0  # rejected or malformed messages, recorded or not (see MAX_MINOR_VERDICTS)
    refused: int = 0  # messages refused: minor verdicts, stale or unexpected messages (service.FLOOD_AFTER)
    think_ms: list[float] = field(default_factory=list)  # per answered decision: request sent to answer handled
    #: The last refusal of a hello on the seat's own socket ("NOT_FOUND: no match 'x' here"), for its verdict if it never connects.
    refused_hello: str = ""


@dataclass
class LoggedAction:
    seat: int
    action: Any
    auto: bool  # played by the referee (timeout, forfeit) rather than by the bot
    note: str = ""  # the bot's note on its decision (ActionResponse.note), for the replay


@dataclass
class MatchRecord:
    """Everything that happened: enough to replay the match and to render it."""

    match_id: str
    game: Game[Any]
    codec: GameCodec
    names: list[str]
    actions: list[LoggedAction]
    events: list[Event]
    seats: list[Seat]
    result: pb.MatchResult
    game_result: Result
    started_at: float
    finished_at: float
    #: The events as encoded for the seats (None where no seat saw one): the replay reuses them.
    encoded_events: list[pb.Event | None] = field(default_factory=list)


class MatchSession:
    """Hosts one match of ``game`` for bots that connect through links."""

    def __init__(
        self,
        game: Game[Any],
        names: list[str],
        time_control: TimeControl | None = None,
        match_id: str | None = None,
        list_limit: int = 64,
        clock: Callable[[], float] = time.monotonic,
        tokens: list[str] | None = None,
    ) -> None:
        if len(names) != game.num_players:
            raise ValueError(f"{len(names)} names for {game.num_players} seats")
        self.game = game
        self.codec = GameCodec(type(game))
        self.match_id = match_id or secrets.token_hex(8)
        self.tc = time_control or TimeControl()
        self.list_limit = list_limit
        self.clock = clock
        tokens = tokens or [secrets.token_hex(16) for _ in names]
        self.seats = [Seat(i, name, tokens[i], float(self.tc.time_bank_ms)) for i, name in enumerate(names)]
        self.inbox: deque[tuple[str, int, Any]] = deque()  # inputs kept until the match runs, or the step ends
        self.log: list[Event] = []
        self._events_pb: list[pb.Event | None] = []
        self.actions: list[LoggedAction] = []
        self.decisions = 0
        self.version = 0  # bumped whenever the game's state changes
        self._request_ids = itertools.count(1)
        self.finished = False
        self.record: MatchRecord | None = None
        self._all_connected = asyncio.Event()
        self._started_at = time.time()
        #: While the match runs: inputs are handled as they arrive (not queued), and this resolves at its end.
        self._done: asyncio.Future[None] | None = None
        self._stepping = False  # inside a step: an input that arrives now (re-entrantly) waits in the inbox
        self._started = False  # the bots' connect wait is over: the match's inputs are judged from now on
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    # --- connections (called by transports) --------------------------------------

    def tokens(self) -> list[str]:
        return [s.token for s in self.seats]

    def seat_of(self, token: str) -> int | None:
        """The seat a token belongs to, if any.

        Compared as bytes: ``compare_digest`` raises TypeError on a str with non-ASCII characters, and a hello
        whose token had one ended its stream with UNKNOWN (which the SDKs retry) instead of UNAUTHENTICATED.
        """
        given = token.encode()
        return next((s.seat for s in self.seats if secrets.compare_digest(s.token.encode(), given)), None)

    def attach(self, token: str, link: SeatLink) -> int:
        """Bind ``link`` to the seat whose token it presented; raises AttachError if refused."""
        index = self.seat_of(token)
        if index is None:
            raise AttachError("UNAUTHENTICATED", "wrong token for this match" if token else "the hello has no token: send ARENA_TOKEN")
        seat = self.seats[index]
        if self.finished:
            raise AttachError("FAILED_PRECONDITION", "the match is over")
        if seat.gone or seat.forfeited_at is not None:
            # Why, as its FORFEIT verdict says: a bot reconnecting after its strikes ran out while it was away is told so.
            why = next((v.detail for v in seat.verdicts if v.kind == V.FORFEIT), "the bot's process ended")
            raise AttachError("FAILED_PRECONDITION", f"seat {seat.seat} has forfeited ({why})")
        resumed = seat.ever_connected
        old, seat.link = seat.link, link
        if old is not None:
            # The token proves the seat, and a reconnect must work whatever state the old connection is in: one
            # cut on the bot's side only (half-open) still looks alive here. The newer stream wins; what the old
            # one still sends is ignored (inputs are judged by their link).
            old.close(REPLACED)
        seat.ever_connected = True
        link.send(pb.RefereeMessage(start=self._game_start(seat, resumed)))
        self._check_ready()
        self._submit(("attach", seat.seat, link))
        return seat.seat

    def hello_refused(self, seat: int, why: str) -> None:
        """A hello on ``seat``'s own socket was refused (``why``: its status and details)."""
        self.seats[seat].refused_hello = why

    def _never_connected(self, s: Seat) -> str:
        """What a verdict of a seat that never connected adds: the refusal of its last hello, if it sent one."""
        return f": the referee refused its hello ({s.refused_hello})" if s.refused_hello else ""

    def _check_ready(self) -> None:
        if all(s.ever_connected or s.gone for s in self.seats):
            self._all_connected.set()

    def post(self, seat: int, link: SeatLink, msg: pb.BotMessage) -> None:
        """A message arrived from ``seat`` over ``link``."""
        self._submit(("message", seat, (link, msg)))

    def detach(self, seat: int, link: SeatLink) -> None:
        """``link`` of ``seat`` is gone (stream closed, broken, or refused a message); the seat may connect again."""
        if self.seats[seat].link is link:
            self.seats[seat].link = None

    def malformed(self, seat: int, link: SeatLink, detail: str, code: int = pb.MALFORMED_ACTION) -> None:
        """``link`` of ``seat`` sent something that is not a usable message (undecodable or too large).

        Ignored from a link no longer the seat's (replaced or dropped), as its other messages are.
        """
        if self.seats[seat].link is not link:
            return
        link.send(pb.RefereeMessage(error=pb.ProtocolError(code=code, message=detail)))  # type: ignore[arg-type]
        self._submit(("malformed", seat, detail))

    def process_ended(self, seat: int, detail: str, started: bool = True, code: int | None = None, resigned: bool = False) -> None:
        """The bot process of ``seat`` has exited (reported by the runner, with its exit ``code`` when it has one);
        ``started`` False: it never ran; ``resigned``: its player resigned (a RESIGNED verdict, not a CRASH).

        A process that ran but never connected is told apart, with what its code most likely means
        (NEVER_CONNECTED): "exited with code 0" alone reads as a clean end, 127 as nothing at all.
        """
        s = self.seats[seat]
        if started and not s.ever_connected:
            detail += " before it connected to the referee" + (self._never_connected(s) or NEVER_CONNECTED.get(code, ""))
        self.seats[seat].gone = True
        self._check_ready()
        self._submit(("ended", seat, (V.RESIGNED if resigned else V.CRASH, detail)))

    # --- the match loop -----------------------------------------------------------

    async def run(self) -> MatchRecord:
        """Play the match to its end and return the record."""
        try:
            await asyncio.wait_for(self._all_connected.wait(), self.tc.connect_timeout_ms / 1000)
        except TimeoutError:
            pass
        self._started = True
        self._drain_inbox()  # crashes before connecting are judged as crashes, not no-shows
        for s in self.seats:
            if not s.ever_connected and s.forfeited_at is None:
                self._verdict(s, V.NO_SHOW, f"the bot never connected within its {self.tc.connect_timeout_ms / 1000:g} s to connect{self._never_connected(s)}")
                self._forfeit(s, "no show")
        self._append_events(self.game.opening_events())
        self._done = asyncio.get_running_loop().create_future()
        try:
            self._step(None)
            await self._done
        finally:
            self._done = None
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        return self._finish()

    def _submit(self, item: tuple[str, int, Any]) -> None:
        """An input: handled at once while the match runs, else kept for it (but a message before the match, refused at once)."""
        if self._done is None or self._done.done() or self._stepping:
            if not self._started and item[0] in ("message", "malformed"):
                # No request is pending before the match: a message can only be refused, so it is, now. Kept, a bot that
                # connected first could fill the referee's memory while the others had their time to connect.
                self._handle(item)
                return
            self.inbox.append(item)
            return
        self._step(item)

    def _step(self, item: tuple[str, int, Any] | None) -> None:
        """Handle ``item`` (if any), then move the match on until it waits for a bot or a deadline, or ends.

        An error in the rules or the session ends ``run`` with it, as it would have in ``run``'s own task.
        """
        assert self._done is not None
        self._stepping = True
        try:
            if item is not None:
                self._handle(item)
            self._advance()
            while self.inbox and not self._done.done():  # inputs that arrived during the step itself
                self._advance()
        except Exception as exc:  # noqa: BLE001 - handed to run(), which raises it
            if not self._done.done():
                self._done.set_exception(exc)
        finally:
            self._stepping = False

    def _advance(self) -> None:
        assert self._done is not None
        while True:
            self._drain_inbox()
            if self.game.is_over():
                self._done.set_result(None)
                return
            if self._autoplay():
                continue
            self._issue_requests()
            deadline = self._next_deadline()
            if deadline <= self.clock():
                self._expire()
                continue
            self._arm(deadline)
            return

    def _arm(self, deadline: float) -> None:
        """Wake up at ``deadline`` (the earliest pending decision's) to judge a timeout."""
        if self._timer is not None:
            if self._timer_at == deadline:
                return
            self._timer.cancel()
        self._timer_at = deadline
        self._timer = asyncio.get_running_loop().call_later(max(0.0, deadline - self.clock()), self._on_deadline)

    def _on_deadline(self) -> None:
        self._timer = None
        if self._done is None or self._done.done():
            return
        if self._stepping:  # cannot happen from the event loop, but a step must never nest
            return
        self._stepping = True
        try:
            self._expire()
        except Exception as exc:  # noqa: BLE001 - handed to run(), which raises it
            self._done.set_exception(exc)
            return
        finally:
            self._stepping = False
        self._step(None)

    def _drain_inbox(self) -> None:
        while self.inbox:
            self._handle(self.inbox.popleft())

    def _autoplay(self) -> bool:
        """Play default actions for forfeited seats; True if anything was played."""
        for seat in self.game.to_act():
            s = self.seats[seat]
            if s.forfeited_at is not None and s.held is None:
                self._play(s, self.game.default_action(seat), auto=True)
                return True
        return False

    def _issue_requests(self) -> None:
        acting = set(self.game.to_act())
        for s in self.seats:
            if s.pending is not None and s.seat not in acting:
                self._close(s, LAPSED)  # the decision went away (another seat's action ended it)
        for seat in sorted(acting):
            s = self.seats[seat]
            if s.forfeited_at is not None or s.held is not None:
                continue
            if s.pending is not None and s.pending.version == self.version:
                continue
            msg = self._request(s)
            fingerprint = msg.SerializeToString()
            if s.pending is not None and s.pending.fingerprint == fingerprint:
                s.pending.version = self.version
                continue
            sent_at = s.pending.sent_at if s.pending else self.clock()  # a re-issued request keeps its clock
            index = s.pending.decision_index if s.pending else self._next_decision_index()
            new = next(self._request_ids)
            if s.pending is not None:
                s.closed[s.pending.request_id] = f"request {new} replaced it, the view having changed"
            s.pending = Pending(new, index, sent_at, fingerprint, self.version)
            self._send_request(s, msg)

    def _next_decision_index(self) -> int:
        self.decisions += 1
        return self.decisions - 1

    def _request(self, s: Seat) -> pb.DecisionRequest:
        """The request for ``s`` without its id and timing (those change; the rest fingerprints it)."""
        game = self.game
        msg = pb.DecisionRequest()
        view, decision = game.view(s.seat), game.decision(s.seat)
        self.codec.fill_request(msg, view, decision, game.listing(s.seat, self.list_limit))
        return msg

    def _send_request(self, s: Seat, body: pb.DecisionRequest | None = None) -> None:
        assert s.pending is not None
        if s.link is None:
            return
        msg = body if body is not None else self._request(s)  # a body is built for this send alone: no copy
        msg.request_id = s.pending.request_id
        msg.decision_index = s.pending.decision_index
        left = self._time_left_ms(s)
        msg.time_left_ms = max(0, int(left))
        msg.time_bank_left_ms = max(0, int(min(left, s.bank_ms)))
        if s.outbox:  # the events that led here ride along: one message instead of several
            for batch in s.outbox:
                msg.events.events.extend(batch)
            s.outbox = []
        s.link.send(pb.RefereeMessage(decision=msg))

    def _time_left_ms(self, s: Seat) -> float:
        assert s.pending is not None
        elapsed = (self.clock() - s.pending.sent_at) * 1000
        return self.tc.move_time_ms + s.bank_ms - elapsed

    def _next_deadline(self) -> float:
        deadlines = [
            s.pending.sent_at + (self.tc.move_time_ms + s.bank_ms) / 1000 for s in self.seats if s.pending is not None
        ]
        return min(deadlines) if deadlines else self.clock() + 3600

    def _charge(self, s: Seat, elapsed: float | None = None) -> None:
        """Spend the time the pending decision took (``elapsed`` ms, else as the clock says): move time first, then
        the bank."""
        assert s.pending is not None
        if elapsed is None:
            elapsed = (self.clock() - s.pending.sent_at) * 1000
        s.think_ms.append(elapsed)
        s.bank_ms = max(0.0, s.bank_ms - max(0.0, elapsed - self.tc.move_time_ms))

    def _expire(self) -> None:
        now = self.clock()
        for s in self.seats:
            if s.pending is None or s.pending.sent_at + (self.tc.move_time_ms + s.bank_ms) / 1000 > now:
                continue
            s.closed[s.pending.request_id] = TIMED_OUT
            self._time_out(s, detail=self._time_had(s))
            return

    def _time_had(self, s: Seat) -> str:
        """Why a pending decision timed out, with the time it had: a slow bot learns it was slow, and by how much."""
        move, bank = self.tc.move_time_ms, round(s.bank_ms)
        spent = f"and {bank} ms left of its time bank" if bank else "its time bank spent"
        return f"no legal action within the {move + bank} ms it had ({move} ms a decision{',' if not bank else ''} {spent})"

    def _time_out(self, s: Seat, detail: str, elapsed: float | None = None) -> None:
        """``s`` spent its decision's time: a strike, and the default action played for it."""
        kind = V.TIMEOUT if s.link is not None else V.DISCONNECT
        self._charge(s, elapsed)
        self._strike(s, kind, detail)
        if s.pending is not None and s.seat in self.game.to_act():
            self._play(s, self.game.default_action(s.seat), auto=True)

    def _handle(self, item: tuple[str, int, Any]) -> None:
        kind, seat, payload = item
        s = self.seats[seat]
        if kind == "attach":
            if payload is not s.link:  # replaced since: the newer link's own attach does this
                return
            s.cursor = len(self.log)  # a fresh link gets the view in the next request, not old events
            s.outbox = []
            if s.pending is not None:
                self._send_request(s)
        elif kind == "ended":
            if s.link is not None:
                s.link.close()
                s.link = None
            if not self.finished and s.forfeited_at is None:
                verdict, detail = payload
                self._verdict(s, verdict, detail)
                self._forfeit(s, "resigned" if verdict == V.RESIGNED else "the bot's process ended")
        elif kind == "message":
            link, msg = payload
            if link is s.link:
                self._on_message(s, msg)
        elif kind == "malformed":
            self._minor_verdict(s, V.MALFORMED, payload)

    def _on_message(self, s: Seat, msg: pb.BotMessage) -> None:
        which = msg.WhichOneof("msg")
        if which != "action":
            if which == "give_up":
                self._give_up(s, msg.give_up.request_id)
                return
            s.refused += 1
            self._protocol_error(s, pb.UNEXPECTED_MESSAGE, UNEXPECTED.get(which, UNEXPECTED[None]) + foreign_fields(msg))
            return
        answer = msg.action
        if s.pending is None or answer.request_id != s.pending.request_id:
            self._stale(s, answer.request_id)
            return
        try:
            action = self.codec.decode_action(answer.action)
        except CodecError as exc:
            # The note is the bot's own words on this answer: an SDK that could not send the action says why there.
            note = " ".join(answer.note.split())[:NOTE_QUOTED]  # on one line, as every verdict
            said = str(exc) if answer.HasField("action") else f"{exc}{foreign_fields(answer)}"
            said = f"{said}; the bot's note: {note}" if note else said
            self._minor_verdict(s, V.MALFORMED, said)
            self._protocol_error(s, pb.MALFORMED_ACTION, said)
            return
        reason = self.game.check(s.seat, action)
        if reason is not None:
            self._reject(s, reason)
            return
        self._charge(s)
        self._play(s, action, auto=False, note=answer.note[:NOTE_MAX])

    def _give_up(self, s: Seat, request_id: int) -> None:
        """The bot will not answer ``request_id``: its time runs out now, with the outcome of its deadline (the move
        time and the whole bank spent, a TIMEOUT strike, the default action), so that giving up gains a bot nothing
        over waiting, and a bot whose SDK cannot say it fares the same, only later."""
        if s.pending is None or request_id != s.pending.request_id:
            self._stale(s, request_id)
            return
        s.closed[request_id] = "the bot gave it up, and the game's default action was played for it (a strike)"
        self._time_out(s, elapsed=self.tc.move_time_ms + s.bank_ms, detail="the bot gave up on the decision")

    def _stale(self, s: Seat, request_id: int) -> None:
        """An answer or give_up for a request that is not pending: refused, with no verdict."""
        s.refused += 1
        why = s.closed.get(request_id)
        if why is None:
            why = "no request of that id was sent to this seat" + (" (ids start at 1: was request_id set?)" if request_id == 0 else "")
        now = f"request {s.pending.request_id} is" if s.pending is not None else "no request of this seat is"
        self._protocol_error(s, pb.STALE_REQUEST, f"request {request_id} is not pending: {why}; {now} pending now")

    def _close(self, s: Seat, why: str) -> None:
        """``s``'s pending request (if any) is no longer pending; ``why``, unless a reason was given already."""
        if s.pending is not None:
            s.closed.setdefault(s.pending.request_id, why)
            s.pending = None

    def _reject(self, s: Seat, reason: str) -> None:
        assert s.pending is not None and s.link is not None
        s.pending.rejections += 1
        self._minor_verdict(s, V.ILLEGAL_ACTION, reason)
        self._flush(s)
        s.link.send(pb.RefereeMessage(rejection=pb.Rejection(request_id=s.pending.request_id, reason=reason)))
        if s.pending.rejections >= self.tc.max_rejections:
            self._charge(s)
            s.closed[s.pending.request_id] = f"{s.pending.rejections} rejected answers closed it, and the game's default action was played for it (a strike)"
            self._strike(s, V.ILLEGAL_ACTION, f"{s.pending.rejections} illegal actions for one decision")
            if s.seat in self.game.to_act():
                self._play(s, self.game.default_action(s.seat), auto=True)

    def _protocol_error(self, s: Seat, code: int, message: str) -> None:
        if s.link is not None:
            self._flush(s)
            s.link.send(pb.RefereeMessage(error=pb.ProtocolError(code=code, message=message)))  # type: ignore[arg-type]

    def _play(self, s: Seat, action: Any, auto: bool, note: str = "") -> None:
        """Play a legal action; in a simultaneous decision, hold it until every acting seat has chosen.

        Held actions are then applied in seat order, so the log and the events
        do not depend on which bot answered first.
        """
        self._close(s, ANSWERED)
        acting = self.game.to_act()
        if len(acting) > 1:
            s.held = (action, auto, note)
            if all(self.seats[x].held is not None for x in acting):
                for x in sorted(acting):
                    held, self.seats[x].held = self.seats[x].held, None
                    assert held is not None
                    self._apply(self.seats[x], *held)
            return
        self._apply(s, action, auto, note)

    def _apply(self, s: Seat, action: Any, auto: bool, note: str = "") -> None:
        try:
            events = self.game.apply(s.seat, action)
        except IllegalAction as exc:  # a default action the rules refuse is a bug in the game
            raise RuntimeError(f"{self.game.spec.id}: default action {action!r} refused: {exc}") from exc
        s.pending = None
        self.version += 1
        self.actions.append(LoggedAction(s.seat, action, auto, note))
        self._append_events(events)

    def _append_events(self, events: list[Event]) -> None:
        self.log.extend(events)
        for s in self.seats:
            self._deliver(s)

    def _deliver(self, s: Seat) -> None:
        if s.link is None:
            s.cursor = len(self.log)
            s.outbox = []
            return
        batch = [self._encoded_event(seq) for seq in range(s.cursor, len(self.log)) if self.log[seq].visible(s.seat)]
        s.cursor = len(self.log)
        if batch:
            s.outbox.append(batch)

    def _flush(self, s: Seat) -> None:
        """Send ``s`` its waiting events, a batch per action (before any other message, so that order is kept)."""
        if s.link is not None:
            for batch in s.outbox:
                s.link.send(pb.RefereeMessage(events=pb.EventBatch(events=batch)))
        s.outbox = []

    def _encoded_event(self, seq: int) -> pb.Event:
        """Each event is encoded once, whichever seats see it."""
        while len(self._events_pb) <= seq:
            self._events_pb.append(None)
        msg = self._events_pb[seq]
        if msg is None:
            msg = self._events_pb[seq] = self.codec.event(self.log[seq].payload, seq)
        return msg

    # --- penalties ----------------------------------------------------------------

    def _verdict(self, s: Seat, kind: int, detail: str) -> None:
        index = s.pending.decision_index if s.pending is not None else self.decisions
        s.verdicts.append(pb.Verdict(kind=kind, decision_index=index, detail=detail))  # type: ignore[arg-type]

    def _minor_verdict(self, s: Seat, kind: int, detail: str) -> None:
        """A rejected or malformed message: recorded up to MAX_MINOR_VERDICTS per seat, then counted only.

        A bot decides how many it sends: 150,000 malformed answers made a result of 7.8 MB, over what gRPC sends
        (MAX_REFEREE_MESSAGE), so no seat got its result, and the replay took 15 MB.
        """
        s.minor_verdicts += 1
        s.refused += 1
        if s.minor_verdicts < MAX_MINOR_VERDICTS:
            self._verdict(s, kind, detail)
        elif s.minor_verdicts == MAX_MINOR_VERDICTS:
            self._verdict(s, kind, f"{detail} (the seat's {MAX_MINOR_VERDICTS}th rejected or malformed message: later ones are not recorded)")

    def _strike(self, s: Seat, kind: int, detail: str) -> None:
        self._verdict(s, kind, detail)
        s.strikes += 1
        if s.strikes > self.tc.strike_limit:
            self._forfeit(s, f"{s.strikes} strike{'' if s.strikes == 1 else 's'}, over the limit of {self.tc.strike_limit}")

    def _forfeit(self, s: Seat, detail: str) -> None:
        if s.forfeited_at is not None:
            return
        self._verdict(s, V.FORFEIT, detail)
        s.forfeited_at = self.decisions
        self._close(s, "the seat forfeited")

    # --- the end ------------------------------------------------------------------

    def _game_start(self, s: Seat, resumed: bool) -> pb.GameStart:
        bank = s.bank_ms
        if s.pending is not None:  # a decision under way spends the bank once its move time is gone, away or not
            bank = max(0.0, min(bank, self._time_left_ms(s)))
        return pb.GameStart(
            match_id=self.match_id,
            game=self.game.spec.id,
            seat=s.seat,
            num_seats=len(self.seats),
            options=option_values(self.game.options),
            time_control=self.tc.to_proto(),
            protocol_version=PROTOCOL_VERSION,
            resumed=resumed,
            seat_names=[x.name for x in self.seats],
            time_bank_left_ms=int(bank),
        )

    def _final_ranks(self, result: Result) -> tuple[int, ...]:
        """The game's ranks, except that seats that forfeited rank last (earlier forfeits lower)."""
        keys: list[tuple[int, int]] = []
        for s in self.seats:
            if s.forfeited_at is None:
                keys.append((1, -result.ranks[s.seat]))
            else:
                keys.append((0, s.forfeited_at))
        return ranks_from_scores(keys)

    def _finish(self) -> MatchRecord:
        self.finished = True
        game_result = self.game.result()
        ranks = self._final_ranks(game_result)
        result = pb.MatchResult(match_id=self.match_id)
        for s in self.seats:
            result.seats.add(
                seat=s.seat,
                rank=ranks[s.seat],
                score=game_result.scores[s.seat],
                forfeited=s.forfeited_at is not None,
                verdicts=s.verdicts,
            )
        for s in self.seats:
            if s.link is not None:
                self._flush(s)
                s.link.send(pb.RefereeMessage(result=result))
                s.link.close()
                s.link = None
        self.record = MatchRecord(
            match_id=self.match_id,
            game=self.game,
            codec=self.codec,
            names=[s.name for s in self.seats],
            actions=self.actions,
            events=self.log,
            seats=self.seats,
            result=result,
            game_result=game_result,
            started_at=self._started_at,
            finished_at=time.time(),
            encoded_events=self._events_pb,
        )
        return self.record
