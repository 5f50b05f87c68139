"""A seat played at the keyboard (``arena play``): the player's view and choices in the terminal, through the SDK.

The player is an SDK bot like any other, so the referee treats the seat as it treats a bot: it is told only what
the seat may know, and what the player types is checked by the same rules. The bot runs on a thread of the
``arena`` process (with its own event loop), reading the terminal while the referee's loop goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import select
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from arena.cli.replay_text import board_lines, is_card, message_line, printable, seat_name, table_lines
from arena.v1 import referee_pb2 as pb
from arena_sdk import Bot, Request, random_action
from arena_sdk.client import MatchRefused, play_async
from referee.core.cards import card_str
from referee.games.registry import GAMES
from referee.server.frames import board_json, message_json
from referee.server.launchers import BotHandle, Launcher, LaunchSpec
from referee.server.words import CARD_ID_KEY, NO_WORDS, enum_words

HELP = """\
  NUMBER   play the listed action with that number
  r        play a legal action chosen at random
  v        show your view again
  q        resign: the seat forfeits and the match goes on without you"""
#: The help's last line, with an example of the decision's actions (one that lists them shows none of its own).
TYPED = "  or type the action in protobuf text format (docs/protocol.md has every message), for example: {example}"


class Resigned(Exception):
    """The player typed q, or the input ended."""


class Stopped(Exception):
    """The match is over, or the command is stopping, while the player was being asked."""


def read_line(prompt: str, stop: threading.Event | None = None, fd: int = 0) -> str:
    """One line from the terminal, read from ``fd`` (stdin) without Python's buffered stdin, a byte at a time once one is
    there, and given up with Stopped once ``stop`` is set: the runner stops the seat when the match ends or the
    command is interrupted, and a thread left waiting on the terminal held the streams open until their grace ran
    out (and a daemon thread holding a buffered stream's lock at exit can abort the interpreter)."""
    print(prompt, end="", flush=True)
    line = bytearray()
    while not line.endswith(b"\n"):
        if stop is not None:
            while not select.select([fd], [], [], 0.1)[0]:
                if stop.is_set():
                    raise Stopped
        chunk = os.read(fd, 1)
        if not chunk:
            if line:
                break
            raise EOFError
        line += chunk
    return line.decode(errors="replace").strip()


def action_class(request: Request) -> type[Message]:
    """The game's own Action message (``generals_war_pb2.Action``, ...), which the player's text is read into."""
    return type(getattr(pb.Action(), request.field))


def example(request: Request, rng: random.Random) -> str:
    return text_format.MessageToString(random_action(request, rng), as_one_line=True)


def examples(request: Request, rng: random.Random, draws: int = 100) -> list[str]:
    """One legal action of each kind the decision allows, typed as the player would type it, in the order the game's
    Action message lists its kinds: of ``draws`` random actions (a Glory turn's kinds are drawn equally often, so its
    rarest comes up within a few dozen draws), the longest of each kind, so that the example shows how several cards
    are typed: General's War's squad of ten cards in hand showed ``play_squad { card_ids: 6 }``, and the player who meant
    to place three cards was left to guess that a field is repeated."""
    found: dict[str, str] = {}
    for _ in range(draws):
        action = random_action(request, rng)
        kind, typed = str(action.WhichOneof("kind")), text_format.MessageToString(action, as_one_line=True)
        if len(typed) > len(found.get(kind, "")):
            found[kind] = typed
    order = [f.name for f in action_class(request).DESCRIPTOR.oneofs_by_name["kind"].fields]
    return [found[kind] for kind in order if kind in found]


def cards_in(value: Any, key: str = "") -> Iterator[int]:
    """The ids of the cards a message's JSON holds, as Card messages or in fields of card ids (``card_ids``), at any
    depth, in the order they come."""
    if is_card(value):
        yield value["id"]
    elif type(value) is int and CARD_ID_KEY.search(key):
        yield value
    elif isinstance(value, dict):
        for field, item in value.items():
            yield from cards_in(item, field)
    elif isinstance(value, list):
        for item in value:
            yield from cards_in(item, key)


def _by_name(value: Any, key: str = "") -> Any:
    """A message's JSON with each list of cards (Card messages or card ids) in the order of the cards' names, so that
    two sets of cards whose names are the same read the same: "cards Jc 9c" and "cards 9c Jc"."""
    if isinstance(value, dict) and not is_card(value):
        return {field: _by_name(item, field) for field, item in value.items()}
    if isinstance(value, list) and value:
        if all(is_card(v) for v in value):
            return sorted(value, key=lambda v: card_str(v["id"]))
        if CARD_ID_KEY.search(key) and all(type(v) is int for v in value):
            return sorted(value, key=card_str)
        return [_by_name(v, key) for v in value]
    return value


def option_lines(actions: Sequence[Any], names: Sequence[str], rounds: object, words: Mapping[str, str], game: str = "") -> list[str]:
    """The listed actions (their JSON), one line each; those that read alike, their cards' order aside, with their
    cards' ids: with a deck per player a Glory hand may hold two 9c, and "defend: cards 9c" listed twice told the
    player not which was which."""
    lines = [message_line(action, names, rounds, words, game) for action in actions]
    looks = [message_line(_by_name(action), names, rounds, words, game) for action in actions]
    alike = Counter(looks)
    return [
        f"{line} ({ids})" if alike[look] > 1 and (ids := card_ids_line(action)) else line
        for line, look, action in zip(lines, looks, actions)
    ]


def card_ids_line(decision: Any) -> str | None:
    """The cards of a decision (or an action) with the id an action names them by, each once: "card ids: 4h 137 · Ac 0
    · Ac 54". Shown when the actions are not listed, so typed, and beside listed actions that read alike: the view
    names a card by rank and suit alone, and with a deck per player one hand may hold two "Ac"."""
    ids = list(dict.fromkeys(cards_in(decision)))
    return "card ids: " + " · ".join(f"{card_str(card)} {card}" for card in ids) if ids else None


def parse_choice(line: str, request: Request, rng: random.Random, examples: random.Random | None = None) -> Any:
    """The action ``line`` names, or a ``str``: why it names none. Legality is the referee's to judge.

    ``rng`` draws r's actions; ``examples`` (else ``rng``) the examples shown, so that showing one changes no later r.
    """
    listed = request.legal_actions
    if line.isdigit():
        if not listed:
            return "nothing is listed for this decision: type the action (see the example), or r"
        try:
            number = int(line)
        except ValueError:  # "²" is a digit to isdigit, not to int; nor is a number past 4,300 digits
            number = 0
        if not 1 <= number <= len(listed):
            return f"no action numbered {line}: pick 1 to {len(listed)}"
        return listed[number - 1]
    if line == "r":
        return random_action(request, rng)
    action = action_class(request)()
    try:
        text_format.Parse(line, action)
    except text_format.ParseError as exc:
        return f"not an action ({exc}); ? shows what you can type"
    if action.WhichOneof("kind") is None:
        return f"say which action, as in: {example(request, examples or rng)}"
    return action


class KeyboardPlayer(Bot):
    """Shows the seat's view, its events and the decision; plays what the player picks or types."""

    name = "you"
    version = "1"
    max_retries = 1_000_000  # a person corrects a refused action as often as it takes; strikes still count

    def __init__(
        self, ask: Callable[[str], str] | None = None, say: Callable[[str], None] = print, seed: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:  # fmt: skip
        #: Set when the seat is stopped: the terminal is no longer read.
        self.stopped = threading.Event()
        self.ask = ask or (lambda prompt: read_line(prompt, self.stopped))
        self.say = say
        self.rng = random.Random(seed)  # r's choices: a seed and the same typing replay the same match
        self.examples = random.Random(seed)
        self.names: list[str] = []
        #: The game's rounds (before any extra round), for the round an event or a decision names: from the start's
        #: options, since the events of a round's start come before any view (which gives its ``rounds`` too).
        self.rounds: int | None = None
        #: The game's enum values in words (``enum_words``), once the start names the game.
        self.words: Mapping[str, str] = NO_WORDS
        self.game = ""
        self.clock = clock

    def _say(self, line: str) -> None:
        self.say(printable(line))  # a bot's name is its author's text: no escape sequences reach the terminal

    def on_start(self, start: pb.GameStart) -> None:
        self.names = list(start.seat_names)
        self.rounds = start.options["rounds"].int_value if "rounds" in start.options else None
        self.words = enum_words(start.game)
        self.game = start.game
        seats = ", ".join(seat_name(self.names, s) for s in range(len(self.names)))
        self._say(f"{start.game}: you are seat {start.seat} of {start.num_seats}: {seats}; ? for help at any prompt")

    def on_events(self, events: list[Any]) -> None:
        for event in events:
            self._say(f"  · {message_line(message_json(event), self.names, self.rounds, self.words, self.game)}")

    def show(self, request: Request) -> None:
        self._say(f"--- decision {request.decision_index} · your view:")
        view = message_json(request.view)
        board = GAMES[request.start.game].spec.board if request.start.game in GAMES else None
        if board is not None:
            for line in board_lines(board_json(board), view):
                self._say(f"  {line}")
        for line in table_lines({"game": request.start.game, "names": self.names}, view):
            self._say(f"  {line}")
        rounds = view.get("rounds", self.rounds)
        self._say(f"asked: {message_line(message_json(request.decision), self.names, rounds, self.words, request.start.game)}")
        listed = request.legal_actions
        if listed:
            for i, line in enumerate(option_lines([message_json(a) for a in listed], self.names, rounds, self.words, request.start.game), 1):
                self._say(f"  {i}. {line}")
        else:
            ids = card_ids_line(message_json(request.decision))
            if ids:
                self._say(f"  {ids}")
            self._say("  (too many actions to list) for example, one of each kind:")
            for typed in examples(request, self.examples):
                self._say(f"    {typed}")

    def act(self, request: Request) -> Any:
        self.show(request)
        shown_at = self.clock()  # the request was sent no later: past its time here, the referee's deadline has passed
        while True:
            try:
                line = self.ask("> ")
            except EOFError:
                raise Resigned("the input ended") from None
            if line in ("", "?", "h", "help"):
                for help_line in HELP.splitlines():  # each line its own: printable wrote the line breaks out as "\\n"
                    self._say(help_line)
                self._say(TYPED.format(example=example(request, self.examples)))
                continue
            if line == "v":
                self.show(request)
                continue
            if line == "q":
                raise Resigned("you resigned")
            chosen = parse_choice(line, request, self.rng, self.examples)
            if isinstance(chosen, str):
                self._say(chosen)
                continue
            allowed = request.time_left_ms / 1000
            if allowed and self.clock() - shown_at > allowed:  # the events to come show the default action, not this one
                self._say(
                    f"too late: decision {request.decision_index} allowed {round(allowed, 1):g} s, which ran out before your answer: "
                    "the referee has played the game's default action for you (a strike), not yours"
                )
            return chosen

    def on_rejection(self, reason: str) -> None:
        self._say(f"refused: {reason}")

    def on_result(self, result: pb.MatchResult) -> None:
        self._say("the match is over")


def not_a_rejection(record: logging.LogRecord) -> bool:
    """A filter for the SDK's log at the keyboard: its "action rejected" warning, which the player has been told
    already ("refused: ..."), stays out of the terminal."""
    return not record.getMessage().startswith("action rejected")


class ThreadHandle:
    """The keyboard's seat, played on a thread of this process: it ends when the match ends or the player resigns."""

    def __init__(self, player: KeyboardPlayer, spec: LaunchSpec) -> None:
        self.player = player
        self.loop = asyncio.get_running_loop()
        self.done: asyncio.Future[int] = self.loop.create_future()
        self.why_ended = ""  # the verdict's detail when the seat ends before the match (launchers.why_ended): no process exited
        self.resigned = False  # the player resigned: a RESIGNED verdict, not a CRASH (launchers.resigned)
        address = f"unix:{Path(spec.seat_dir) / 'referee.sock'}"
        threading.Thread(target=self._play, args=(address, spec.env["ARENA_MATCH_ID"], spec.env["ARENA_TOKEN"]), daemon=True, name="keyboard").start()

    def _play(self, address: str, match_id: str, token: str) -> None:
        player = self.player
        code = 1
        # A loop of the thread's own, left open: gRPC's poller is shared by the process's loops, and a call's last
        # events, arriving after a resignation had closed this loop, were handed to it and raised "Event loop is closed".
        loop = asyncio.new_event_loop()
        sdk_log = logging.getLogger("arena_sdk")
        sdk_log.addFilter(not_a_rejection)
        try:
            loop.run_until_complete(play_async(player, address, match_id, token))
            code = 0
        except Resigned as exc:
            self.why_ended = f"the player at the keyboard resigned ({exc})"
            self.resigned = True
            player.say(f"{exc}: the seat forfeits")
        except Stopped:
            pass
        except MatchRefused as exc:
            self.why_ended = f"the referee refused the keyboard's seat: {exc}"
            player.say(f"the referee refused the seat: {exc}")
        except Exception as exc:  # the seat ends either way; the referee is told below, as of a bot that crashed
            self.why_ended = f"the keyboard's seat failed: {type(exc).__name__}: {exc}"
            player.say(self.why_ended)
        finally:
            sdk_log.removeFilter(not_a_rejection)
            with contextlib.suppress(RuntimeError):  # the match's loop is closed: nobody waits any more
                self.loop.call_soon_threadsafe(self._finish, code)

    def _finish(self, code: int) -> None:
        if not self.done.done():
            self.done.set_result(code)

    async def wait(self) -> int:
        return await asyncio.shield(self.done)

    async def stop(self, grace: float = 1.0) -> None:
        """Stop reading the terminal and let the seat's stream close, within ``grace`` seconds (a thread cannot be
        killed: one stuck elsewhere is a daemon, which the process's exit ends)."""
        self.player.stopped.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait(), grace)


class KeyboardLauncher:
    """Starts ``seat`` at the keyboard and every other seat with ``others``."""

    def __init__(self, others: Launcher, seat: int, player: KeyboardPlayer) -> None:
        self.others = others
        self.seat = seat
        self.player = player
        self.name = others.name

    async def launch(self, spec: LaunchSpec) -> BotHandle:
        if spec.seat != self.seat:
            return await self.others.launch(spec)
        return ThreadHandle(self.player, spec)
