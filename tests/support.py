"""Shared helpers for the tests: sample bots by path, random play, card ids in messages."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import random
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee.core.cards import Suit, card_id, joker_id
from referee.core.game import Event, Game
from referee.games.registry import GAMES
from referee.server.runner import launcher_for

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_BOTS = ROOT / "sample_bots"
TEST_BOTS = ROOT / "tests" / "bots"  # bots that misbehave on purpose

#: (game id, player count) for every game and every count it allows.
CONFIGS = [(gid, n) for gid, cls in GAMES.items() for n in cls.spec.player_counts]


def stop_if_running(proc: subprocess.Popen[Any]) -> None:
    """SIGTERM, then SIGKILL after a minute: for a ``finally``, as a failed check left a ladder playing for hours."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def docker_ready() -> bool:
    """Whether the Docker sandbox can run bots here (an engine and the sandbox image)."""
    try:
        launcher_for("docker")
        return True
    except Exception:
        return False


def load_bot_class(bot_dir: str, class_name: str) -> Any:
    """A bot class from a sample bot's bot.py (bot directories are not packages)."""
    path = SAMPLE_BOTS / bot_dir / "bot.py"
    spec = importlib.util.spec_from_file_location(f"sample_bot_{bot_dir}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, class_name)


def random_playout(game: Game[Any], rng: random.Random, max_steps: int = 200_000) -> Iterator[tuple[int, Any, list[Event]]]:
    """Play random legal actions to the end, yielding (seat, action, events) for each step."""
    for _ in range(max_steps):
        acting = game.to_act()
        if not acting:
            return
        seat = rng.choice(acting)
        action = game.random_action(seat, rng)
        yield seat, action, game.apply(seat, action)
    raise AssertionError(f"{game.spec.id} did not end within {max_steps} steps")


def card_ids_in(msg: Message) -> Iterator[int]:
    """Every card a message names: each arena.v1.Card, and every field called card_id(s) or ending so."""
    for fd, value in msg.ListFields():
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            assert fd.message_type is not None
            if fd.message_type.GetOptions().map_entry:
                value = list(value.values())
                if not value or not isinstance(value[0], Message):
                    continue
            items = value if fd.is_repeated else [value]
            if fd.message_type.full_name == "arena.v1.Card":
                yield from (int(c.id) for c in items)
            else:
                for item in items:
                    yield from card_ids_in(item)
        elif fd.name.endswith("card_id") or fd.name.endswith("card_ids"):
            yield from (int(v) for v in (value if fd.is_repeated else [value]))


class PingCounter:
    """Counts the HTTP/2 PING frames (not their acknowledgements) in a client's bytes to its server, fed as they come:
    the keepalive pings, which nothing above HTTP/2 sees."""

    PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    PING, ACK = 0x6, 0x1

    def __init__(self) -> None:
        self.pings = 0
        self._buffer = b""
        self._preface_left = len(self.PREFACE)

    def feed(self, data: bytes) -> None:
        skipped = min(self._preface_left, len(data))
        self._preface_left -= skipped
        self._buffer += data[skipped:]
        while len(self._buffer) >= 9:  # a frame's header: length (3 bytes), type, flags, stream (4)
            end = 9 + int.from_bytes(self._buffer[:3], "big")
            if len(self._buffer) < end:
                return
            if self._buffer[3] == self.PING and not self._buffer[4] & self.ACK:
                self.pings += 1
            self._buffer = self._buffer[end:]


class HalfOpenProxy:
    """A unix-socket proxy to ``upstream`` (a ``unix:`` address) that can cut its connections on the client's side only.

    ``cut()`` resets every connection open now towards its client and stops relaying, but keeps the upstream
    side open and silent: the server sees a half-open connection, as a dropped network leaves one. Later
    connections are relayed as usual. Serves from a thread of its own at ``address``. ``pings()`` says how many
    keepalive pings its clients have sent through it.
    """

    def __init__(self, upstream: str, path: Path) -> None:
        self.upstream = upstream.removeprefix("unix:")
        self.address = f"unix:{path}"
        self.path = path
        self.connections = 0
        self._counters: list[PingCounter] = []
        self._open: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter, list[asyncio.Task[None]]]] = []
        self._kept: list[asyncio.StreamWriter] = []
        self.frozen = False
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        assert ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)

        async def main() -> None:
            self._server = await asyncio.start_unix_server(self._handle, str(self.path))
            ready.set()
            async with self._server:
                await self._server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError):
            self.loop.run_until_complete(main())

    async def _handle(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.connections += 1
        if self.frozen:
            self._kept.append(client_w)
            return
        up_r, up_w = await asyncio.open_unix_connection(self.upstream)
        self._counters.append(counter := PingCounter())
        tasks = [asyncio.create_task(self._pipe(client_r, up_w, counter)), asyncio.create_task(self._pipe(up_r, client_w))]
        self._open.append((client_w, up_w, tasks))

    def pings(self) -> int:
        return sum(counter.pings for counter in self._counters)

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counter: PingCounter | None = None) -> None:
        with contextlib.suppress(Exception):
            while data := await reader.read(65536):
                if counter is not None:
                    counter.feed(data)
                writer.write(data)
                await writer.drain()
        with contextlib.suppress(Exception):
            writer.close()

    def freeze(self) -> None:
        """Relay nothing more, either way, but close nothing: the referee's machine as a client sees it when that
        machine lost its power or its network. Later connections are accepted and left as silent."""

        def go() -> None:
            self.frozen = True
            for client_w, up_w, tasks in self._open:
                for task in tasks:
                    task.cancel()
                self._kept += [client_w, up_w]
            self._open = []

        self._call(go)

    def cut(self) -> int:
        """Cut every connection open now on the client's side; returns how many."""

        def go() -> int:
            cut = 0
            for client_w, up_w, tasks in self._open:
                for task in tasks:
                    task.cancel()
                client_w.transport.abort()
                self._kept.append(up_w)  # open and silent
                cut += 1
            self._open = []
            return cut

        return int(self._call(go))

    def _call(self, fn: Any) -> Any:
        async def call() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(10)

    def close(self) -> None:
        def go() -> None:
            for task in asyncio.all_tasks(self.loop):
                task.cancel()

        self.loop.call_soon_threadsafe(go)
        self.thread.join(10)


_SUITS = {"c": Suit.CLUBS, "d": Suit.DIAMONDS, "h": Suit.HEARTS, "s": Suit.SPADES}
_RANKS = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}


def named_card(name: str, deck: int = 0) -> int:
    """A card id of ``deck`` from a short name, as the rules tests write hands: ``Kh``, ``Tc``, ``5s``; ``X0`` and
    ``X1`` are the deck's two jokers."""
    if name[0] == "X":
        return joker_id(int(name[1:] or 0), deck)
    return card_id(_RANKS.get(name[0]) or int(name[0]), _SUITS[name[1]], deck)


def tell_trackers(trackers: Sequence[Any], events: Iterable[Event]) -> None:
    """Hand each tracker (a ``seat`` and a ``told(payload)``) the events its seat sees, in order, as a bot receives them."""
    events = list(events)
    for tracker in trackers:
        for event in events:
            if event.visible(tracker.seat):
                tracker.told(event.payload)


def play_tracked(game: Game[Any], trackers: Sequence[Any], move: Callable[[], tuple[int, Any]], check: Callable[[Any, Any], int]) -> int:
    """Play ``game`` to its end with ``move()`` (a seat and its action), telling the trackers every event they see.

    Before each move ``check(tracker, view)`` compares each tracker with its seat's view and returns how many
    remembered cards it compared; the total is returned, so a test can tell that its games remembered anything.
    """
    compared = 0
    tell_trackers(trackers, game.opening_events())
    while game.to_act():
        for tracker in trackers:
            compared += check(tracker, game.view(tracker.seat))
        seat, action = move()
        tell_trackers(trackers, game.apply(seat, action))
    return compared


def so_far(num_bots: int, played: Iterable[Any]) -> Any:
    """The standings so far (``--report-every``'s ``SoFar``) of ``played`` games, taken in the order given."""
    from referee.tournament.standings import SoFar

    tally = SoFar(num_bots)
    for game in played:
        tally.add(game.scheduled.index, game.result)
    return tally
