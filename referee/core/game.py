"""The contract between the referee and a game's rules.

A game is pure rules. It is created from (number of players, seed, options),
says which seats must act now, lists and checks their actions from one
description of the decision, applies actions and returns events tagged with
the seats that may see them, gives each seat a view holding only what that
seat may know, and finally gives the result. It does no I/O, reads no clock
and draws all chance from its own ``random.Random(seed)``.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, islice
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

from referee.core.records import quicken

OptionValue = int | bool | str
#: The most digits a whole-number option is read with: far past every bound, far short of Python's 4300-digit limit.
MAX_DIGITS = 100
_PAST_MAX_DIGITS = 10**MAX_DIGITS  # the smallest number of more digits (worked out once, not at every option)


def shown(raw: object, cut: int = 60) -> str:
    """``raw`` as an error quotes it: its repr, cut short (a value thousands of characters long made a page of one line)."""
    text = repr(raw)
    return text if len(text) <= cut else f"{text[:cut]}… ({len(text)} characters)"


class OptionError(ValueError):
    """A game option that is unknown or out of range."""


class IllegalAction(ValueError):
    """An action that the rules do not allow now; the message says why."""


@dataclass(frozen=True)
class OptionSpec:
    """One game option: its type, default, bounds and what it means."""

    name: str
    default: OptionValue
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def typed(self, value: OptionValue) -> str:
        """``value`` as a user types it after ``-o NAME=``: ``true`` rather than Python's ``True``."""
        return str(value).lower() if isinstance(value, bool) else str(value)

    def parse(self, raw: object) -> OptionValue:
        """Coerce ``raw`` (a value or the text given on a command line) to this option's type."""
        if isinstance(raw, int) and not isinstance(raw, bool) and abs(raw) >= _PAST_MAX_DIGITS:
            # str() of an int of over 4300 digits raises ValueError: every branch below (and the error's repr) would
            raise OptionError(f"option {self.name!r} takes a number of at most {MAX_DIGITS} digits, not one of more")
        kind = type(self.default)
        value: OptionValue
        if kind is bool:
            if isinstance(raw, bool):
                value = raw
            elif str(raw).lower() in ("1", "true", "yes", "on"):
                value = True
            elif str(raw).lower() in ("0", "false", "no", "off"):
                value = False
            else:
                raise OptionError(f"option {self.name!r} takes true or false, not {shown(raw)}")
        elif kind is int:
            if isinstance(raw, bool):
                raise OptionError(f"option {self.name!r} takes a whole number, not {shown(raw)}")
            # ASCII digits only: int() also reads "１", "٣" and "1_0", which nobody means as a number of rounds
            if not (isinstance(raw, int) or re.fullmatch(r"\s*[+-]?[0-9]+\s*", str(raw))):
                raise OptionError(f"option {self.name!r} takes a whole number, not {shown(raw)}")
            text = str(raw).strip()
            digits = text.lstrip("+-").lstrip("0") or "0"  # leading zeros count toward int()'s limit too
            if len(digits) > MAX_DIGITS:  # int() refuses over 4300 digits with a ValueError, and nobody means such a number
                raise OptionError(f"option {self.name!r} takes a number of at most {MAX_DIGITS} digits, not one of {len(digits)}")
            value = int(digits) * (-1 if text.startswith("-") else 1)
            if self.minimum is not None and value < self.minimum:
                raise OptionError(f"option {self.name!r} must be at least {self.minimum}, not {value}")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(f"option {self.name!r} must be at most {self.maximum}, not {value}")
        else:
            value = str(raw)
            if self.choices and value not in self.choices:
                raise OptionError(f"option {self.name!r} must be one of {', '.join(self.choices)}, not {shown(value)}")
        return value


@dataclass(frozen=True)
class BoardLayout:
    """A board's rooms (or places) on a grid, for viewers to draw the table: no rule reads it.

    ``grid`` holds each row's place names as the game's state names them (None where there is no place);
    ``inside`` pairs a place drawn within another (a holding cell in an office) with that place.
    """

    grid: tuple[tuple[str | None, ...], ...]
    inside: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class GameSpec:
    """What a game is, as data: it drives option validation, `arena games` and the docs."""

    id: str
    name: str
    player_counts: tuple[int, ...]
    summary: str
    rules_file: str
    #: What a seat's score in the result counts, in words (the ranks may come from elsewhere: who won).
    score: str
    options: tuple[OptionSpec, ...] = ()
    #: Raised whenever a change to the rules can make a recorded (seed, actions) re-play otherwise; replays carry it.
    rules_version: int = 1
    #: The board, for games played on one (the replay viewer draws it).
    board: BoardLayout | None = None

    def resolve_options(self, given: Mapping[str, object] | None = None) -> dict[str, OptionValue]:
        """Defaults overlaid with ``given``; unknown names and bad values raise OptionError."""
        known = {o.name: o for o in self.options}
        resolved: dict[str, OptionValue] = {o.name: o.default for o in self.options}
        for name, raw in (given or {}).items():
            if name not in known:
                names = ", ".join(sorted(known)) or "none"
                raise OptionError(f"{self.id} has no option {name!r} (options: {names})")
            resolved[name] = known[name].parse(raw)
        return resolved

    @property
    def players_text(self) -> str:
        """The player counts as said: "2", "2 or 4", "2 to 6"."""
        counts = sorted(self.player_counts)
        if len(counts) > 2 and counts == list(range(counts[0], counts[-1] + 1)):
            return f"{counts[0]} to {counts[-1]}"
        return " or ".join(filter(None, [", ".join(map(str, counts[:-1])), str(counts[-1])]))

    def check_players(self, num_players: int) -> None:
        if num_players not in self.player_counts:
            raise OptionError(f"{self.id} is played by {self.players_text} players, not {num_players}")


@dataclass(frozen=True)
class Event:
    """Something that happened, and the seats that may see it (``None``: everyone)."""

    payload: Any
    visible_to: frozenset[int] | None = None

    def visible(self, seat: int) -> bool:
        return self.visible_to is None or seat in self.visible_to


@dataclass(frozen=True)
class Result:
    """The outcome: rank per seat (1 is best, equal ranks are ties) and a score per seat."""

    ranks: tuple[int, ...]
    scores: tuple[float, ...]


def ranks_from_scores(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranks (1, 2, 2, 4) from keys where larger is better."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


A = TypeVar("A")


class Game(ABC, Generic[A]):
    """The rules of one game, as pure functions of its state."""

    spec: ClassVar[GameSpec]
    #: The dataclasses an action of this game may be (the protocol's Action oneof).
    action_types: ClassVar[tuple[type, ...]]
    #: The protobuf module of this game (``arena.v1.<game>_pb2``); a class variable, which the codec reads from the class.
    proto_module: ClassVar[ModuleType]

    def __init__(self, num_players: int, seed: int, options: Mapping[str, object] | None = None) -> None:
        self.spec.check_players(num_players)
        self.num_players = num_players
        self.seed = seed
        self.options = self.spec.resolve_options(options)
        self.rng = random.Random(seed)
        self._opening: list[Event] = []
        self._decisions: dict[int, Any] = {}

    def opening_events(self) -> list[Event]:
        """Events of the setup done in the constructor (the deal)."""
        return list(self._opening)

    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats that must act now: one, several for simultaneous plays, none once over."""

    def is_over(self) -> bool:
        return not self.to_act()

    def decision(self, seat: int) -> Any:
        """What ``seat`` must decide now, described compactly (kind and constraints).

        Worked out once per state: the view, the listing, the check and the
        random or default action of one step all read it, and ``apply`` starts
        afresh. Code that edits the state by hand (tests) calls ``forget``.
        """
        known = self._decisions.get(seat)
        if known is None:
            known = self._decisions[seat] = self._decide(seat)
        return known

    def forget(self) -> None:
        """Drop the decisions worked out for the current state (it was edited by hand)."""
        self._decisions = {}

    @abstractmethod
    def _decide(self, seat: int) -> Any:
        """What ``seat`` must decide now; raises ValueError if it has nothing to decide."""

    @abstractmethod
    def legal_actions(self, seat: int) -> Iterator[A]:
        """Every legal action of ``seat``, lazily; derived from ``decision``."""

    @abstractmethod
    def check(self, seat: int, action: A) -> str | None:
        """Why ``action`` is illegal for ``seat`` now, or None if it is legal; derived from ``decision``."""

    def apply(self, seat: int, action: A) -> list[Event]:
        """Play ``action`` for ``seat``; raises IllegalAction with the reason if it is not legal."""
        if seat not in self.to_act():
            raise IllegalAction(f"seat {seat} is not to act")
        reason = self.check(seat, action)
        if reason is not None:
            raise IllegalAction(reason)
        try:
            return self._apply(seat, action)
        finally:
            self._decisions = {}

    @abstractmethod
    def _apply(self, seat: int, action: A) -> list[Event]:
        """Play a checked action."""

    @abstractmethod
    def default_action(self, seat: int) -> A:
        """The action the referee plays for a seat that timed out, crashed or forfeited."""

    def listing(self, seat: int, limit: int) -> list[A] | None:
        """Every legal action of ``seat`` when there are at most ``limit``, else None (the decision describes them)."""
        if self.least_count(seat) > limit:
            return None
        listed = list(islice(self.legal_actions(seat), limit + 1))
        return listed if len(listed) <= limit else None

    def least_count(self, seat: int) -> int:
        """A lower bound on the number of legal actions of ``seat``, found without listing them (0: unknown).

        Games whose action sets explode override it, so that a set too long
        to send is not half listed first.
        """
        return 0

    def random_action(self, seat: int, rng: random.Random) -> A:
        """A uniformly chosen legal action; games with huge action sets override this."""
        return rng.choice(list(self.legal_actions(seat)))

    @abstractmethod
    def view(self, seat: int) -> Any:
        """Everything ``seat`` may know now, and nothing else."""

    @abstractmethod
    def hidden_cards(self, seat: int) -> set[int]:
        """Cards ``seat`` may not know of now (for the hidden-information check).

        These are the cards in places the seat cannot see (decks, other hands,
        face-down plays) that it has not been shown since they were last
        shuffled: a card once revealed to everyone, then put under a deck, may
        still be named in the events that told of it.
        """

    @abstractmethod
    def result(self) -> Result:
        """Ranks and scores; only meaningful once ``is_over()``."""

    @abstractmethod
    def full_state(self) -> dict[str, Any]:
        """Everything, for spectators after the match and for replays (JSON-ready)."""


quicken(Event)
quicken(Result)


def broadcast(payload: Any) -> Event:
    """An event every seat sees."""
    return Event(payload, None)


def private(payload: Any, *seats: int) -> Event:
    """An event only ``seats`` see."""
    return Event(payload, frozenset(seats))


def split(seat: int, num_players: int, mine: Any, theirs: Any) -> list[Event]:
    """The same happening told in full to ``seat`` and in part to everyone else."""
    others = frozenset(s for s in range(num_players) if s != seat)
    events = [private(mine, seat)]
    if others:
        events.append(Event(theirs, others))
    return events


def choose_cards_reason(chosen: Iterable[int], candidates: Iterable[int], least: int, most: int) -> str | None:
    """Why ``chosen`` is not a set of ``least``..``most`` distinct cards from ``candidates``."""
    chosen = list(chosen)
    allowed = set(candidates)
    if len(set(chosen)) != len(chosen):
        return "a card is named twice"
    stray = [c for c in chosen if c not in allowed]
    if stray:
        return f"card {stray[0]} may not be chosen now"
    if not least <= len(chosen) <= most:
        if least == most:
            return f"choose exactly {least} card(s), not {len(chosen)}"
        return f"choose {least} to {most} cards, not {len(chosen)}"
    return None


def card_subsets(candidates: Iterable[int], least: int, most: int) -> Iterator[tuple[int, ...]]:
    """Every set of ``least``..``most`` cards from ``candidates``, smallest sets first."""
    pool = sorted(candidates)
    for size in range(least, min(most, len(pool)) + 1):
        yield from combinations(pool, size)
