"""What a bot may send the referee, fuzzed: every answer gets the verdict docs/protocol.md promises, and nothing is lost.

A real session of every game is played by seeded random legal answers to a decision of each kind, then the seat
asked sends hypothesis-made answers: any Action message of the game (ids out of range or repeated, kinds that do
not fit the decision, enum numbers the game does not define, nothing set), another game's action, a legal action
altered a little or reordered, a legal action itself, answers to requests not pending (from the seat asked, or
from a seat not asked or whose answer is held), give_ups of the pending request or of another, and messages that
are not answers. Each is judged on its own:
a legal one is played; a malformed message is an ``error`` (MALFORMED_ACTION, a MALFORMED verdict) and an
illegal move a ``rejection`` (an ILLEGAL_ACTION verdict), as the protocol tells them apart; stale and unexpected
messages are errors without a verdict; a refused answer changes nothing (the state, who acts, every seat's view,
the pending requests), the last rejection allowed is a strike and the default action, as is a give_up of the
pending request, and the seat may still answer legally. Raw bytes are only seen by the gRPC service, so they are sent there, over a stream.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.v1 import generals_war_pb2 as gwpb
from arena.v1 import referee_pb2 as pb
from referee.games.registry import GAMES
from referee.protocol.codec import CARD_MESSAGE, CodecError, snake
from referee.protocol.messages import game_field
from referee.server.session import NOTE_MAX, MatchSession, TimeControl
from tests.grpc_support import Referee, hold_stream, raw_stream

V = pb.VerdictKind


def decision_kinds(game_id: str, n: int) -> list[str]:
    """The kinds of decision (fields of the Decision message's ``kind`` oneof) that random play of a few deals meets
    (some never come up with two players; the Assassination Game's sniper_detention_choice is too rare)."""
    game_cls, seen = GAMES[game_id], set[str]()
    for seed in range(3):
        game, rng = game_cls(n, seed), random.Random(seed)
        while game.to_act():
            seen.update(snake(type(game.decision(seat)).__name__) for seat in game.to_act())
            seat = rng.choice(game.to_act())
            game.apply(seat, game.random_action(seat, rng))
    return sorted(seen)


#: Every game at its fewest and most players, and each of its kinds of decision.
CASES = [
    (gid, n, kind)
    for gid, cls in GAMES.items()
    for n in sorted({min(cls.spec.player_counts), max(cls.spec.player_counts)})
    for kind in decision_kinds(gid, n)
]
#: No timeouts while the test thinks; a strike after a few rejections of one decision, a forfeit after a few strikes.
TC = TimeControl(move_time_ms=3_600_000, time_bank_ms=0, strike_limit=2, max_rejections=4, connect_timeout_ms=60_000)
#: Legal sets up to this size are listed in full and compared with the game's check.
LIST_ALL = 2000
#: Random legal play looks this long for a decision of the kind drawn (the rarest come up within a few hundred).
MAX_STEPS = 1500
FUZZ = settings(
    max_examples=6, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)

_RANGES = {
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
}
_EDGES = (0, 1, 2, 3, 52, 53, 54, 107, 108, 2**31 - 1, 2**31, 2**32 - 1, -1, -(2**31))


def _number(fd: Any) -> st.SearchStrategy[int]:
    """Small numbers (card ids, seats, lands), edges of the type, and anything the type holds."""
    lo, hi = _RANGES[fd.type]
    return st.one_of(st.integers(max(lo, -3), min(hi, 120)), st.sampled_from([e for e in _EDGES if lo <= e <= hi]), st.integers(lo, hi))


def _enum(fd: Any) -> st.SearchStrategy[int]:
    """A number the enum defines, or any other (proto3 enums are open: the wire carries it)."""
    assert fd.enum_type is not None
    return st.one_of(st.sampled_from(sorted(fd.enum_type.values_by_number)), st.integers(-(2**31), 2**31 - 1))


def _scalar(draw: Any, fd: Any) -> Any:
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return draw(_enum(fd))
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return draw(st.booleans())
    if fd.type == FieldDescriptor.TYPE_STRING:
        return draw(st.text(max_size=4))
    return draw(_number(fd))


def _fill(draw: Any, msg: Message, depth: int = 0) -> None:
    """Set any of ``msg``'s fields (kind oneofs included) to anything their types hold."""
    descriptor = msg.DESCRIPTOR
    kinds = descriptor.oneofs_by_name.get("kind")
    if kinds is not None:
        choice = draw(st.sampled_from([None, *kinds.fields]))  # none set: a malformed message
        if choice is not None:
            inner = getattr(msg, choice.name)
            inner.SetInParent()
            _fill(draw, inner, depth + 1)
    for fd in descriptor.fields:
        if (kinds is not None and fd.containing_oneof is kinds) or not draw(st.booleans()):
            continue
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            assert fd.message_type is not None
            count = draw(st.integers(0, 4)) if fd.is_repeated else 1
            for _ in range(count if depth < 3 else 0):
                part = getattr(msg, fd.name).add() if fd.is_repeated else getattr(msg, fd.name)
                if fd.message_type.full_name == CARD_MESSAGE:
                    part.id = draw(_number(fd.message_type.fields_by_name["id"]))
                else:
                    _fill(draw, part, depth + 1)
                part.SetInParent()
        elif fd.is_repeated:
            getattr(msg, fd.name).extend(_scalar(draw, fd) for _ in range(draw(st.integers(0, 5))))
        else:
            setattr(msg, fd.name, _scalar(draw, fd))


def _any_action(draw: Any, field: str) -> pb.Action:
    """An Action with the given game's field set to anything (or, with ``field`` '', nothing set)."""
    msg = pb.Action()
    if field:
        inner = getattr(msg, field)
        inner.SetInParent()
        _fill(draw, inner)
    return msg


def _mutate(draw: Any, msg: Message) -> None:
    """Change one field of ``msg`` (or of a message it holds): a value, one more, one repeated, one less, order, cleared."""
    fields: list[Any] = [fd for fd, _ in msg.ListFields()] or list(msg.DESCRIPTOR.fields)
    if not fields:
        return
    fd = draw(st.sampled_from(fields))
    value = getattr(msg, fd.name)
    if fd.type == FieldDescriptor.TYPE_MESSAGE and fd.message_type is not None and fd.message_type.full_name != CARD_MESSAGE:
        if fd.is_repeated:
            if value and draw(st.booleans()):
                _mutate(draw, value[draw(st.integers(0, len(value) - 1))])
            else:
                _fill(draw, value.add())
        elif fd.containing_oneof is None or draw(st.booleans()):
            _mutate(draw, value)
        return
    if fd.is_repeated:
        values = list(value.id for value in value) if fd.type == FieldDescriptor.TYPE_MESSAGE else list(value)
        how = draw(st.sampled_from(["add", "repeat", "drop", "reverse"]))
        if how == "add":
            values.append(draw(_enum(fd)) if fd.type == FieldDescriptor.TYPE_ENUM else draw(st.integers(0, 120)))
        elif how == "repeat" and values:
            values.append(draw(st.sampled_from(values)))
        elif how == "drop" and values:
            values.pop(draw(st.integers(0, len(values) - 1)))
        else:
            values.reverse()
        msg.ClearField(fd.name)
        getattr(msg, fd.name).extend(values)
    elif fd.has_presence and draw(st.booleans()):
        msg.ClearField(fd.name)
    elif fd.type == FieldDescriptor.TYPE_MESSAGE:
        getattr(msg, fd.name).id = draw(st.integers(0, 120))
    else:
        setattr(msg, fd.name, _scalar(draw, fd))


def _undefined_enum(msg: Message) -> bool:
    """Whether ``msg`` (or a message in it) holds an enum number its game does not define: one the enum lacks, or
    its 0, ``..._UNSPECIFIED``, which no game's enum has (an enum field left unset holds it)."""
    for fd in msg.DESCRIPTOR.fields:
        if not fd.is_repeated and fd.has_presence and not msg.HasField(fd.name):
            continue
        value = getattr(msg, fd.name)
        items = value if fd.is_repeated else [value]
        if fd.type == FieldDescriptor.TYPE_ENUM:
            assert fd.enum_type is not None
            defined = fd.enum_type.values_by_number
            if any(v not in defined or defined[v].name.endswith("_UNSPECIFIED") for v in items):
                return True
        elif fd.type == FieldDescriptor.TYPE_MESSAGE and any(_undefined_enum(v) for v in items):
            return True
    return False


def malformed(action: pb.Action, field: str) -> bool:
    """docs/protocol.md's MALFORMED_ACTION, worked out from the message alone: no game's field or another game's,
    no kind set in the game's action, or a value the game cannot hold (an enum number it does not define)."""
    if action.WhichOneof("game") != field:
        return True
    inner = getattr(action, field)
    kind = inner.WhichOneof("kind")
    return kind is None or _undefined_enum(getattr(inner, kind))


def unordered(obj: Any) -> Any:
    """``obj`` with the order of every list in it forgotten (subset answers list ids in any order)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__, tuple(unordered(getattr(obj, f.name)) for f in dataclasses.fields(obj)))
    if isinstance(obj, tuple):
        return tuple(sorted((unordered(x) for x in obj), key=repr))
    return obj


class Inbox:
    """A link that keeps what it is sent; the test answers for the bot."""

    def __init__(self) -> None:
        self.sent: list[pb.RefereeMessage] = []

    def send(self, msg: pb.RefereeMessage) -> None:
        self.sent.append(msg)

    def close(self, reason: str = "") -> None:
        pass

    def since(self, start: int) -> list[pb.RefereeMessage]:
        """What came after the first ``start`` messages, event batches left out (they only precede others)."""
        return [m for m in self.sent[start:] if m.WhichOneof("msg") != "events"]

    def request(self) -> pb.DecisionRequest:
        return [m.decision for m in self.sent if m.WhichOneof("msg") == "decision"][-1]


@dataclasses.dataclass
class Table:
    session: MatchSession
    links: list[Inbox]
    field: str

    @property
    def game(self) -> Any:
        return self.session.game

    def waiting(self) -> list[int]:
        """Seats asked to decide, whose answer is not in yet."""
        return [s.seat for s in self.session.seats if s.pending is not None]

    def kind(self, seat: int) -> str | None:
        """The kind of the decision ``seat`` is asked (its Decision message's field)."""
        return getattr(self.session.codec.decision(self.game.decision(seat)), self.field).WhichOneof("kind")

    def play(self, seat: int, rng: random.Random) -> None:
        """``seat`` answers with a random legal action, which is played."""
        assert not any(m.WhichOneof("msg") in ("error", "rejection") for m in self.answer(seat, self.legal(seat, rng)))

    def snapshot(self) -> tuple[Any, ...]:
        """Everything a refused answer must leave as it was: the state, who acts, every view, every pending request."""
        game, codec = self.game, self.session.codec
        views = tuple(codec.view(game.view(s)).SerializeToString() for s in range(game.num_players))
        pending = tuple((s.pending.request_id, s.pending.decision_index) if s.pending else None for s in self.session.seats)
        held = tuple(s.held for s in self.session.seats)
        return json.dumps(game.full_state(), sort_keys=True), game.to_act(), views, pending, held, len(self.session.actions)

    def answer(self, seat: int, msg: pb.BotMessage) -> list[pb.RefereeMessage]:
        """Post ``msg`` from ``seat``; what the seat was sent for it. The session must not have failed."""
        start = len(self.links[seat].sent)
        self.session.post(seat, self.links[seat], msg)
        done = self.session._done  # an error in a step is set on it at once (run() would raise it)
        assert done is not None and not (done.done() and done.exception() is not None), done and done.exception()
        return self.links[seat].since(start)

    def legal(self, seat: int, rng: random.Random) -> pb.BotMessage:
        action = self.session.codec.action(self.game.random_action(seat, rng))
        return pb.BotMessage(action=pb.ActionResponse(request_id=self.links[seat].request().request_id, action=action))


async def _table(game_id: str, n: int, seed: int) -> tuple[Table, asyncio.Task[Any]]:
    session = MatchSession(GAMES[game_id](n, seed), [f"b{i}" for i in range(n)], TC)
    links = [Inbox() for _ in range(n)]
    for link, token in zip(links, session.tokens()):
        session.attach(token, link)
    task = asyncio.create_task(session.run())
    for _ in range(100):  # the match starts: the first requests go out
        await asyncio.sleep(0)
        if any(m.WhichOneof("msg") == "decision" for link in links for m in link.sent):
            break
    return Table(session, links, game_field(game_id)), task


def _judge(table: Table, seat: int, msg: pb.BotMessage, legal_cache: dict[Any, Any]) -> None:
    """Post ``msg`` as ``seat``'s and check the session's answer, verdicts and state against the protocol."""
    session, game = table.session, table.game
    s = session.seats[seat]
    rid, rejections = (s.pending.request_id, s.pending.rejections) if s.pending is not None else (None, 0)
    verdicts, strikes, refused = len(s.verdicts), s.strikes, s.refused
    before = table.snapshot()

    which = msg.WhichOneof("msg")
    if which == "give_up":
        expect = ("gave up", None) if msg.give_up.request_id == rid else ("error", pb.STALE_REQUEST)
    elif which != "action":
        expect = ("error", pb.UNEXPECTED_MESSAGE)
    elif msg.action.request_id != rid:
        expect = ("error", pb.STALE_REQUEST)
    elif malformed(msg.action.action, table.field):
        with pytest.raises(CodecError):
            session.codec.decode_action(msg.action.action)
        expect = ("error", pb.MALFORMED_ACTION)
    else:
        action = session.codec.decode_action(msg.action.action)
        reason = game.check(seat, action)
        key = (session.version, seat)
        if key not in legal_cache:
            listed = list(itertools.islice(game.legal_actions(seat), LIST_ALL + 1))
            legal_cache[key] = (set(listed), {unordered(a) for a in listed}) if len(listed) <= LIST_ALL else None
        known = legal_cache[key]
        if known is not None:  # the game's check agrees with its list of legal actions
            assert (reason is None) == (unordered(action) in known[1]), (action, reason)
        expect = ("played", action) if reason is None else ("rejection", reason)

    got = table.answer(seat, msg)
    if expect[0] == "played":
        action = expect[1]
        assert not any(m.WhichOneof("msg") in ("error", "rejection") for m in got), got
        played = [(a.seat, a.action, a.auto) for a in session.actions[before[5]:]]
        assert (seat, action, False) in played or s.held == (action, False, msg.action.note[:NOTE_MAX]), "a legal answer was not played"
        assert len(s.verdicts) == verdicts and s.refused == refused
        return
    if expect[0] == "gave up":  # as at its deadline: a TIMEOUT strike and the default action (a forfeit past the limit)
        assert not any(m.WhichOneof("msg") in ("error", "rejection") for m in got), got
        assert s.strikes == strikes + 1 and s.refused == refused
        told = [(v.kind, v.detail) for v in s.verdicts[verdicts:]]
        assert told[:1] == [(V.TIMEOUT, "the bot gave up on the decision")]
        assert [k for k, _ in told[1:]] == ([V.FORFEIT] if s.strikes > TC.strike_limit else [])
        auto = [a for a in session.actions[before[5]:] if a.seat == seat]
        assert (auto and auto[0].auto) or (s.held is not None and s.held[1]), "no default action was played for the give_up"
        return
    if expect[0] == "error":
        assert [(m.WhichOneof("msg"), m.error.code) for m in got] == [expect], got
        minor = 1 if expect[1] == pb.MALFORMED_ACTION else 0
        assert [v.kind for v in s.verdicts[verdicts:]] == [V.MALFORMED] * minor
        assert s.refused == refused + 1 and (s.pending.rejections if s.pending is not None else 0) == rejections
        assert table.snapshot() == before, "a refused answer changed the match"
        return
    # An illegal move: a rejection with the rules' reason, the request still open, unless it was one too many.
    assert rid is not None
    assert [(m.WhichOneof("msg"), m.rejection.request_id, m.rejection.reason) for m in got[:1]] == [("rejection", rid, expect[1])], got
    added = [v.kind for v in s.verdicts[verdicts:]]
    if rejections + 1 < TC.max_rejections:
        assert got[1:] == [] and added == [V.ILLEGAL_ACTION] and s.strikes == strikes
        assert s.pending is not None and s.pending.rejections == rejections + 1
        assert table.snapshot() == before, "a rejected answer changed the match"
        return
    # The last rejection allowed: a strike, the default action played for the seat (a forfeit past the limit).
    assert s.strikes == strikes + 1
    assert added[:2] == [V.ILLEGAL_ACTION, V.ILLEGAL_ACTION] and "illegal actions for one decision" in s.verdicts[verdicts + 1].detail
    assert added[2:] == ([V.FORFEIT] if s.strikes > TC.strike_limit else [])
    auto = [a for a in session.actions[before[5]:] if a.seat == seat]
    assert (auto and auto[0].auto) or (s.held is not None and s.held[1]), "no default action was played after the strike"


@st.composite
def _answers(draw: Any, table: Table, seat: int) -> pb.BotMessage:
    """One answer of ``seat``: of any of the kinds the module's docstring lists."""
    game, codec = table.game, table.session.codec
    rid = table.links[seat].request().request_id
    listed = game.listing(seat, 64) or [game.random_action(seat, random.Random(draw(st.integers(0, 2**16))))]
    legal = codec.action(draw(st.sampled_from(listed)))
    others = [f for f in pb.Action.DESCRIPTOR.fields_by_name if f != table.field]
    how = draw(st.sampled_from(["any", "any", "any", "near", "near", "legal", "foreign", "none", "stale", "other", "give_up"]))
    if how == "any":
        action = _any_action(draw, table.field)
    elif how == "near":
        action = legal
        _mutate(draw, getattr(action, table.field))
    elif how == "legal":
        action = legal
    elif how == "foreign":
        action = _any_action(draw, draw(st.sampled_from(others)))
    elif how == "none":
        empty = pb.ActionResponse(request_id=rid)
        if draw(st.booleans()):
            empty.action.SetInParent()  # an Action with no game's field set, rather than none at all
        return pb.BotMessage(action=empty)
    elif how == "stale":
        wrong = draw(st.one_of(st.integers(0, rid - 1), st.integers(rid + 1, 2**63 - 1)))
        return pb.BotMessage(action=pb.ActionResponse(request_id=wrong, action=legal))
    elif how == "give_up":
        of = draw(st.one_of(st.just(rid), st.integers(0, rid - 1), st.integers(rid + 1, 2**63 - 1)))
        return pb.BotMessage(give_up=pb.GiveUp(request_id=of))
    else:
        return draw(st.sampled_from([pb.BotMessage(), pb.BotMessage(hello=pb.Hello(protocol_version=1))]))
    note = draw(st.sampled_from(["", "why not", "x" * 600]))
    return pb.BotMessage(action=pb.ActionResponse(request_id=rid, action=action, note=note))


@st.composite
def _unasked(draw: Any, table: Table, seat: int) -> pb.BotMessage:
    """An answer from a seat with no request pending: to its last request (answered, or lapsed), or to none."""
    asked = [m.decision.request_id for m in table.links[seat].sent if m.WhichOneof("msg") == "decision"]
    rid = draw(st.sampled_from(asked)) if asked and draw(st.booleans()) else draw(st.integers(0, 2**20))
    if draw(st.integers(0, 3)) == 0:
        return pb.BotMessage(give_up=pb.GiveUp(request_id=rid))
    return pb.BotMessage(action=pb.ActionResponse(request_id=rid, action=_any_action(draw, table.field)))


@pytest.mark.parametrize("game_id,n,aim", CASES)
@FUZZ
@given(seed=st.integers(0, 2**20), skip=st.integers(0, 3), data=st.data())
def test_every_answer_a_bot_can_send_gets_what_the_protocol_says(
    game_id: str, n: int, aim: str, seed: int, skip: int, data: st.DataObject
) -> None:
    """Random legal play to a decision of kind ``aim`` (past ``skip`` of them first), so that every kind is fuzzed,
    the rare ones too, and not only at its first time; its seat then sends drawn answers. Every seat still asked at
    the end then answers legally."""

    async def go() -> None:
        table, task = await _table(game_id, n, seed)
        try:
            rng = random.Random(seed)
            passed, version = 0, -1
            for _ in range(MAX_STEPS):
                waiting = table.waiting()
                if not waiting:
                    return  # this deal never asked for ``aim`` (often enough)
                if any(table.kind(seat) == aim for seat in waiting) and table.session.version != version:
                    if passed == skip:
                        break
                    passed, version = passed + 1, table.session.version
                table.play(rng.choice(waiting), rng)
            cache: dict[Any, Any] = {}
            for _ in range(data.draw(st.integers(1, 16))):
                waiting = table.waiting()
                if not waiting:
                    return
                aimed = [seat for seat in waiting if table.kind(seat) == aim]
                idle = [seat for seat in range(n) if seat not in waiting]  # not asked, or its answer held
                if idle and data.draw(st.integers(0, 5)) == 0:
                    seat = data.draw(st.sampled_from(idle))
                    _judge(table, seat, data.draw(_unasked(table, seat)), cache)
                else:
                    seat = data.draw(st.sampled_from(aimed or waiting))
                    _judge(table, seat, data.draw(_answers(table, seat)), cache)
            for seat in table.waiting():  # whatever was refused, each seat still asked may answer legally
                start = len(table.session.actions)
                table.play(seat, rng)
                assert len(table.session.actions) > start or table.session.seats[seat].held is not None
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(go())



@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Referee, pb.BotMessage]]:
    """A General's War match over gRPC whose seat 1 holds its stream and never answers; seat 0's hello, and its
    first request pending."""
    ref = Referee(2, TimeControl(move_time_ms=3_600_000, time_bank_ms=0, connect_timeout_ms=20_000))
    hang_up, out = threading.Event(), dict[str, Any]()
    tokens = ref.session.tokens()
    holder = hold_stream(ref.address, pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=tokens[1], protocol_version=1)), hang_up, out)
    hello = pb.BotMessage(hello=pb.Hello(match_id=ref.session.match_id, token=tokens[0], protocol_version=1))
    raw_stream(ref.address, [hello.SerializeToString()])  # connects seat 0 once: the match starts
    for _ in range(500):
        if ref.session.seats[0].pending is not None:
            break
        threading.Event().wait(0.01)
    try:
        yield ref, hello
    finally:
        hang_up.set()
        for seat in (0, 1):
            ref.loop.call_soon_threadsafe(ref.session.process_ended, seat, "test over")
        ref.join()
        holder.join(30)


@settings(max_examples=50, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bytes_on_the_wire_are_an_undecodable_message_or_judged_as_the_message_they_parse_to(
    served: tuple[Referee, pb.BotMessage], data: st.DataObject
) -> None:
    """docs/protocol.md: bytes that are no BotMessage are MALFORMED_ACTION (one MALFORMED verdict) and end the stream
    with OK; bytes that parse are judged as that message. Either way the seat's request stays open, unchanged."""
    ref, hello = served
    seat = ref.session.seats[0]
    assert seat.pending is not None
    rid, verdicts = seat.pending.request_id, len(seat.verdicts)
    legal = pb.Action(generals_war=gwpb.Action(reveal_generals=gwpb.RevealGenerals(card_ids=[1, 2])))
    valid = pb.BotMessage(action=pb.ActionResponse(request_id=rid + 1, action=legal)).SerializeToString()
    cut = data.draw(st.integers(0, len(valid)))
    wire = data.draw(st.one_of(st.binary(max_size=48), st.binary(max_size=8).map(lambda junk: valid[:cut] + junk)))
    try:
        parsed: pb.BotMessage | None = pb.BotMessage.FromString(wire)
    except DecodeError:
        parsed = None
    replies = raw_stream(ref.address, [hello.SerializeToString(), wire])
    assert not isinstance(replies, grpc.RpcError), replies  # the stream ends with OK
    got = [pb.RefereeMessage.FromString(r) for r in replies]
    assert [m.WhichOneof("msg") for m in got[:2]] == ["start", "decision"] and got[1].decision.request_id == rid
    told = [(m.WhichOneof("msg"), m.error.code) for m in got[2:] if m.WhichOneof("msg") != "events"]
    added = [v.kind for v in seat.verdicts[verdicts:]]
    if parsed is None:
        assert told == [("error", pb.MALFORMED_ACTION)] and got[-1].error.message.startswith("undecodable message")
        assert added == [V.MALFORMED]
    elif parsed.WhichOneof("msg") == "give_up" and parsed.give_up.request_id == rid:  # as the fuzz above: a strike
        assert told == [] and added == [V.TIMEOUT]
        return
    elif parsed.WhichOneof("msg") == "give_up":
        assert told == [("error", pb.STALE_REQUEST)] and added == []
    elif parsed.WhichOneof("msg") != "action":
        assert told == [("error", pb.UNEXPECTED_MESSAGE)] and added == []
    elif parsed.action.request_id != rid:
        assert told == [("error", pb.STALE_REQUEST)] and added == []
    else:  # the pending request's id: judged as any answer is (the fuzz above covers how)
        assert len(told) <= 1
    assert seat.pending is not None and seat.pending.request_id == rid or seat.held is not None
