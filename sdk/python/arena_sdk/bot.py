"""The bot base class and the request it answers."""

from __future__ import annotations

from typing import Any

from arena.v1 import referee_pb2 as pb

#: The characters of a note the referee keeps (referee.server.session.NOTE_MAX); the SDK sends no more than these.
NOTE_MAX = 500


def game_field(game_id: str) -> str:
    """The field of a game in the protocol's oneofs: ``generals-war`` -> ``generals_war``."""
    return game_id.replace("-", "_")


class Request:
    """One decision request, with the game's own messages unwrapped.

    ``view`` and ``decision`` are the game's protobuf messages (for example
    ``arena.v1.generals_war_pb2.View``); ``choice`` is the set member of the
    decision's ``kind`` oneof, and ``kind`` its name. ``raw`` is the whole
    ``DecisionRequest`` as received, ``start`` the match's ``GameStart``.
    """

    def __init__(self, raw: pb.DecisionRequest, start: pb.GameStart, waited_ms: int = 0) -> None:
        self.raw = raw
        self.start = start
        self.field = game_field(start.game)
        self.noted = ""
        #: Milliseconds from the request's arrival in the SDK to this call of ``act``: the time it waited behind an
        #: earlier answer (and, asked again after a rejection, the time the earlier tries took).
        self.waited_ms = max(0, waited_ms)

    def note(self, text: str) -> None:
        """Say why: ``text`` goes with this decision's answer and is shown beside the action in the replay.

        At most 500 characters are kept. No other seat is sent it, but replays are public once the match's
        deal is over (the ladder's too), so write nothing the bot must hide from later opponents. A later
        call replaces the note; a note with an action the referee refuses is dropped.
        """
        # Cut here, not only by the referee: a long note (a debug dump) made the answer larger than the referee
        # takes (64 KiB), and the action went with it. A lone surrogate cannot be sent (the answer raised
        # UnicodeEncodeError and the bot died): it becomes U+FFFD.
        self.noted = str(text)[: 2 * NOTE_MAX].encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")[:NOTE_MAX]

    @property
    def seat(self) -> int:
        """This bot's seat, from 0."""
        return self.start.seat

    @property
    def view(self) -> Any:
        """The game's ``View`` message: everything this seat may know now, nothing it may not (for Land & Castle
        ``arena.v1.land_and_castle_pb2.View``). What each field holds is said by the comments of the game's
        ``proto/arena/v1/<game>.proto``; what is left out, and why, by docs/games/<game>.md."""
        return getattr(self.raw.view, self.field)

    @property
    def decision(self) -> Any:
        """The game's ``Decision`` message, whose ``kind`` oneof holds the decision's constraints (``choice``)."""
        return getattr(self.raw.decision, self.field)

    @property
    def kind(self) -> str:
        """The kind of decision, the name of the member of ``decision``'s oneof that is set, such as ``"attack_choice"``."""
        return str(self.decision.WhichOneof("kind"))

    @property
    def choice(self) -> Any:
        """The decision's constraints: the message of its ``kind`` (such as an ``AttackChoice``, with its ``playable`` cards)."""
        return getattr(self.decision, self.kind)

    @property
    def legal_actions(self) -> list[Any] | None:
        """The game's actions, when the referee listed them all; None when only ``decision`` describes them."""
        if not self.raw.legal_actions_listed:
            return None
        return [getattr(a, self.field) for a in self.raw.legal_actions]

    @property
    def time_left_ms(self) -> int:
        """Milliseconds left for this decision (move time plus bank) when ``act`` was called.

        The referee's figure (``raw.time_left_ms``) is counted from when it sent the request; the SDK subtracts what
        the request waited since it arrived (``waited_ms``, by a monotonic clock), such as behind an earlier ``act``
        that ran past its deadline, or the tries before a rejection. The time the request spent on its way is not
        counted: keep a margin. It is the same figure all through one call of ``act``: take the clock from there.
        """
        return max(0, self.raw.time_left_ms - self.waited_ms)

    @property
    def time_bank_left_ms(self) -> int:
        """Of ``time_left_ms``, the part that comes from the match's time bank (spent after the move time)."""
        return min(self.raw.time_bank_left_ms, self.time_left_ms)

    @property
    def decision_index(self) -> int:
        """How many decisions the match asked of any seat before this one."""
        return self.raw.decision_index

    @property
    def request_id(self) -> int:
        """The referee's id of this request; the SDK puts it on the answer."""
        return self.raw.request_id


class Bot:
    """Subclass this and implement ``act``; the other hooks are optional."""

    name = "bot"
    version = "0"
    #: How often ``act`` is asked again after a rejected action before the bot gives up on that decision.
    max_retries = 3

    def on_start(self, start: pb.GameStart) -> None:
        """The match started (or resumed after a reconnect)."""

    def act(self, request: Request) -> Any:
        """Return the game's action message (such as ``generals_war_pb2.Action``) for this request."""
        raise NotImplementedError

    def on_events(self, events: list[Any]) -> None:
        """Events this seat may see, as the game's Event messages, in order."""

    def on_rejection(self, reason: str) -> None:
        """The last action was illegal; ``act`` is asked again with the same request."""

    def on_result(self, result: pb.MatchResult) -> None:
        """The match is over."""
