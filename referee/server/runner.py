"""A local match: the referee serving each seat on its own unix socket, one bot process (or container) per seat.

Bots whose manifest allows it (``matches_per_process`` above 1) may instead be
played by a process kept in a ``BotPool`` between matches: the pool hands it
each next match as one line on its stdin. A pooled process is never handed a
deal it has already played (the same game, seed and options), so a bot cannot
carry what it saw of a deal into the other half of a duplicate pair.

A pooled process keeps one socket for all its matches, served by a referee
service that answers only for the seat it plays now: no server is started and
stopped per match, and the bot may keep its connection open between matches.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import tempfile
from collections import deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from arena.v1 import referee_pb2 as pb
from referee.core.game import OptionError
from referee.games.registry import GAMES, game_class
from referee.server.cancelling import finish
from referee.server.launchers import (
    BotHandle, EngineUnavailable, Launcher, LaunchError, LaunchSpec, ProcessHandle, ProcessLauncher, copy_failure, resigned, why_ended,
)
from referee.server.manifest import BotManifest, load_manifest
from referee.server.seeds import bot_seed
from referee.server.service import HANG_UP_WAIT_S, NO_SEAT, RefereeService, make_server
from referee.server.session import MatchRecord, MatchSession, TimeControl

SOCKET = "referee.sock"
#: The longest path a unix socket may have (108 bytes with its NUL), and what the sockets' paths take below their
#: scratch folder's parent ("/arena-pool-XXXXXXXX/socket123456/referee.sock", with room to spare).
SOCKET_PATH_MAX, SOCKET_ROOM = 107, 60
#: Idle processes a pool keeps at most; beyond, the one idle longest is stopped (a ladder meets many bots).
MAX_IDLE = 32
#: Hand-outs a pool remembers (``BotPool.assignments``), the latest: a ladder's pool lives for months.
MAX_ASSIGNMENTS = 10_000


@dataclass
class MatchSetup:
    game: str
    bot_dirs: list[Path]
    seed: int
    options: dict[str, str]
    time_control: TimeControl
    log_dir: Path
    sandbox: str = "process"  # or "docker"
    #: The session's match id, which also begins each seat's log name; empty: a fresh random one. The ladder names
    #: each try of a match so that a try stopped half-way can remove the logs it wrote.
    match_id: str = ""
    #: Process bots each held to one CPU (``launcher_for``), when no launcher is handed to ``run_local_match``.
    pin_cpus: bool = False


@dataclass
class LocalMatch:
    record: MatchRecord
    manifests: list[BotManifest]
    logs: list[Path]
    #: Why each seat whose bot the sandbox's engine failed to start (EngineUnavailable) was not started, by seat: the
    #: seat's CRASH is the platform's doing, and the ladder plays such a match again instead of rating it.
    engine_failures: dict[int, str] = field(default_factory=dict)


def prepare(game_id: str, bot_dirs: list[Path]) -> list[BotManifest]:
    """Check the game and the bots before anything starts; raises OptionError or ManifestError."""
    cls = game_class(game_id)
    cls.spec.check_players(len(bot_dirs))
    manifests = [load_manifest(d) for d in bot_dirs]
    for m in manifests:
        check_plays(m, game_id)
    return manifests


def check_plays(m: BotManifest, game_id: str) -> None:
    """Refuse a bot that does not play ``game_id`` (OptionError), naming the games it lists that do not exist."""
    if not m.plays(game_id):
        unknown = [g for g in m.games if g not in GAMES]  # a misspelt id reads as a bot that plays something else
        hint = f"; no game is called {', '.join(unknown)}: `arena games` lists them" if unknown else ""
        raise OptionError(f"bot {m.name} ({m.path}) does not play {game_id} (its games: {', '.join(m.games)}{hint})")


def launcher_for(sandbox: str, pin_cpus: bool = False) -> Launcher:
    """The launcher of ``sandbox``; ``pin_cpus``: process bots each held to one CPU (a container has one already)."""
    if sandbox == "process":
        return ProcessLauncher(pin_cpus)
    if sandbox == "docker":
        from referee.server.sandbox import DockerLauncher

        return DockerLauncher()
    raise OptionError(f"unknown sandbox {sandbox!r} (process or docker)")


def scratch_root() -> str | None:
    """Where the folders holding the seats' sockets go: the temporary folder (None), unless its path leaves a socket's
    too little room, then /tmp. A deep TMPDIR (a CI job's, a cluster's scratch folder) ended every match at once in
    gRPC's "Failed to bind to address"."""
    return None if len(os.fsencode(tempfile.gettempdir())) + SOCKET_ROOM <= SOCKET_PATH_MAX else "/tmp"


def deal_of(setup: MatchSetup) -> Hashable:
    """What makes two matches the same deal: game, seed and options (the seats may differ)."""
    return (setup.game, setup.seed, tuple(sorted(setup.options.items())))


@dataclass(eq=False)
class _Resident:
    """A pooled bot process and what it has played."""

    handle: ProcessHandle
    manifest: BotManifest
    key: Hashable
    number: int  # the pool's count of processes when it started
    played: int = 0
    log_start: int = 0  # where this match's lines begin in the process's log
    deals: set[Hashable] = field(default_factory=set)
    session: MatchSession | None = None
    seat: int = -1
    watcher: asyncio.Task[None] | None = None
    service: RefereeService | None = None  # on the process's own socket, serving its current seat alone
    server: grpc.aio.Server | None = None
    address: str = ""

    @property
    def alive(self) -> bool:
        return self.handle.proc.returncode is None


class BotPool:
    """Bot processes kept alive between matches, for bots whose manifest sets ``matches_per_process`` above 1.

    At most ``max_idle`` processes wait between matches: without a cap, a ladder kept a process of every bot
    it had met, one per seat of the largest set each had played. ``close()`` ends every process (their stdin
    closes, then they are stopped).
    """

    def __init__(self, log_dir: Path | None = None, max_idle: int = MAX_IDLE, pin_cpus: bool = False) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="arena-pool-", dir=scratch_root()))
        #: The processes' own logs (each match's part is copied to the match's log). None: in the pool's folder, each
        #: removed with its process (a ladder's pool lives for months, and the logs' every match part is kept already).
        self.log_dir = log_dir or self.tmp / "logs"
        self.keep_logs = log_dir is not None
        self.idle: list[_Resident] = []  # the one idle longest first
        self.max_idle = max_idle
        self.residents: list[_Resident] = []  # processes started and not yet stopped by the pool
        self._retiring: set[asyncio.Task[None]] = set()
        #: ``pin_cpus``: each process held to one CPU for its whole life, chosen as it starts (not again per match).
        self.launcher = ProcessLauncher(pin_cpus)
        self.started = 0  # processes launched, for the benchmarks
        #: The latest hand-outs (MAX_ASSIGNMENTS), kept after close(): (process number, bot key, deal). All of them were
        #: kept, a few hundred bytes each, for as long as a ladder ran.
        self.assignments: deque[tuple[int, Hashable, Hashable]] = deque(maxlen=MAX_ASSIGNMENTS)

    @staticmethod
    def pools(manifest: BotManifest) -> bool:
        return manifest.matches_per_process > 1

    async def acquire(self, manifest: BotManifest, deal: Hashable, session: MatchSession, seat: int, key: Hashable = None) -> _Resident:
        """An idle process of this bot that has not played ``deal``, or a new one; bound to ``seat`` of ``session``.

        ``key`` names the bot (the ladder passes its version id, since each match hands it a fresh copy of the
        bot's folder); by default its folder and command.
        """
        key = key if key is not None else (manifest.path, manifest.command)
        for r in self.idle:
            if r.key == key and deal not in r.deals and r.alive:
                self.idle.remove(r)
                break
        else:
            r = await self._launch(manifest, key)
        r.session, r.seat = session, seat
        assert r.service is not None
        r.service.add(session)
        r.service.only_seat = seat
        r.deals.add(deal)
        r.played += 1
        self.assignments.append((r.number, key, deal))
        log = r.handle.log_path
        r.log_start = log.stat().st_size if log.exists() else 0
        return r

    async def _launch(self, manifest: BotManifest, key: Hashable) -> _Resident:
        self.started += 1
        number = self.started  # others may start while this one launches
        home = self.tmp / f"home{number}"
        # A folder of its own, made now: the process outlives the folder it came from, and shares it with no other.
        folder = self.tmp / f"bot{number}"
        spec = LaunchSpec(
            seat=-1,
            manifest=manifest,
            bot_dir=folder,
            seat_dir=self.tmp,
            home=home,
            env={"ARENA_BOT_NAME": manifest.name},
            log_path=self.log_dir / f"pool-{manifest.name}-{number}.log",
            control=True,
        )
        sockets = self.tmp / f"socket{number}"
        service = RefereeService(only_seat=NO_SEAT)
        server: grpc.aio.Server | None = None
        try:
            try:
                shutil.copytree(manifest.path, folder, symlinks=False, ignore_dangling_symlinks=True)
            except OSError as exc:  # shutil.Error too: a named pipe, a file it may not read
                raise LaunchError(f"could not copy the bot's folder for its process: {copy_failure(exc)}") from None
            sockets.mkdir()
            self.log_dir.mkdir(parents=True, exist_ok=True)  # the launcher makes no parents of a log
            server = make_server(service)
            server.add_insecure_port(f"unix:{sockets / SOCKET}")
            await server.start()
            handle = await self.launcher.launch(spec)
        except BaseException:
            if server is not None:
                await server.stop(None)
            self._remove_files(number)
            raise
        assert isinstance(handle, ProcessHandle)
        r = _Resident(handle, manifest, key, number, service=service, server=server, address=f"unix:{sockets / SOCKET}")
        r.watcher = asyncio.create_task(self._watch(r))
        self.residents.append(r)
        return r

    async def _watch(self, r: _Resident) -> None:
        code = await r.handle.wait()
        if r in self.idle:
            self.idle.remove(r)
        if r.session is not None and not r.session.finished:
            r.session.process_ended(r.seat, why_ended(r.handle, code), code=code, resigned=resigned(r.handle))
        if r.session is None:  # between matches: its socket serves nobody any more (during one, the match's end stops it)
            await self._stop_server(r)
            self._forget(r)

    async def hung_up(self, r: _Resident) -> None:
        """Wait (a moment at most) until ``r``'s streams of its match have ended: it has read its result and logged it."""
        if r.service is not None and r.session is not None:
            await r.service.streams_ended(r.session.match_id, HANG_UP_WAIT_S)

    async def release(self, r: _Resident, clean: bool) -> None:
        """The match of ``r`` is over: keep the process for another (if it played cleanly and may play more) or stop it."""
        if r.service is not None:
            if r.session is not None:
                r.service.remove(r.session.match_id)
            r.service.only_seat = NO_SEAT
        r.session, r.seat = None, -1
        if clean and r.alive and r.played < r.manifest.matches_per_process:
            self.idle.append(r)
            while len(self.idle) > self.max_idle:
                task = asyncio.create_task(self._retire(self.idle.pop(0)))  # not on this match's time
                self._retiring.add(task)
                task.add_done_callback(self._retiring.discard)
        else:
            await self._retire(r)

    async def _retire(self, r: _Resident) -> None:
        """Stop ``r``'s process and its socket, and forget it."""
        r.handle.close_control()
        await r.handle.stop(grace=2.0)
        await self._stop_server(r)
        self._forget(r)

    def _forget(self, r: _Resident) -> None:
        """Take a stopped process off the pool's books, with its copy of the bot, its home and its socket's folder.

        They stayed until the pool closed: a ladder's pool lives as long as the ladder, and kept a copy of the bot
        (and whatever it wrote in its home) for every process it had ever started. Its log goes too, unless the pool
        was given a folder to keep the logs in.
        """
        if r in self.residents:
            self.residents.remove(r)
        self._remove_files(r.number)
        if not self.keep_logs:
            r.handle.log_path.unlink(missing_ok=True)

    def _remove_files(self, number: int) -> None:
        """The copy of the bot, the home and the socket's folder of the pool's process ``number``."""
        for name in ("bot", "home", "socket"):
            shutil.rmtree(self.tmp / f"{name}{number}", ignore_errors=True)

    @staticmethod
    async def _stop_server(r: _Resident) -> None:
        server, r.server = r.server, None
        if server is not None:
            await server.stop(grace=0.5)

    async def close(self) -> None:
        await asyncio.gather(*self._retiring, return_exceptions=True)
        residents = list(self.residents)
        await asyncio.gather(*(self._retire(r) for r in residents))
        for r in residents:
            if r.watcher is not None:
                r.watcher.cancel()
        await asyncio.gather(*(r.watcher for r in residents if r.watcher is not None), return_exceptions=True)
        self.idle.clear()
        shutil.rmtree(self.tmp, ignore_errors=True)


async def run_local_match(
    setup: MatchSetup, launcher: Launcher | None = None, pool: BotPool | None = None, pool_keys: Sequence[Hashable] | None = None
) -> LocalMatch:
    """Play one match; bots that allow it are played by ``pool``'s processes (only with the process sandbox).

    ``pool_keys`` name each seat's bot for the pool (see ``BotPool.acquire``). A pooled seat's log is the part of
    its process's log written during this match, copied to the seat's usual log file.
    """
    manifests = prepare(setup.game, setup.bot_dirs)
    launcher = launcher or launcher_for(setup.sandbox, setup.pin_cpus)
    game = game_class(setup.game)(len(manifests), setup.seed, setup.options)
    match_id = setup.match_id or secrets.token_hex(8)
    session = MatchSession(game, [m.name for m in manifests], setup.time_control, match_id=match_id)
    logs = [setup.log_dir / f"{match_id}-seat{seat}-{m.name}.log" for seat, m in enumerate(manifests)]
    with contextlib.suppress(OSError):  # one that cannot be made is each seat's CRASH, said as its bot starts
        setup.log_dir.mkdir(parents=True, exist_ok=True)
    servers: list[grpc.aio.Server] = []
    handles: list[BotHandle | None] = [None] * len(manifests)
    watchers: list[asyncio.Task[None]] = []
    engine_failures: dict[int, str] = {}
    residents: list[_Resident] = []
    use_pool = pool is not None and setup.sandbox == "process" and isinstance(launcher, ProcessLauncher)
    pooled = [use_pool and pool is not None and pool.pools(m) for m in manifests]
    # The seats' sockets and homes; pooled seats need none (0.1 ms a match to make and remove, on the loop).
    scratch = contextlib.nullcontext("") if all(pooled) else tempfile.TemporaryDirectory(prefix="arena-", dir=scratch_root(), ignore_cleanup_errors=True)

    async def clean_up() -> None:
        for w in watchers:
            w.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
        await asyncio.gather(*(h.stop() for h in handles if h is not None))
        # Every stream ends before a pooled process is handed another match, and before its log is copied: the
        # bot has then read its result and logged it. A seat's server stopped while its last message (the result)
        # was still to go out left the bot trying to reconnect to this match for its whole reconnect window (10 s);
        # stopping returns once the streams have ended, so the grace costs nothing unless a stream is stuck.
        await asyncio.gather(*(s.stop(grace=2.0) for s in servers), *(pool.hung_up(r) for r in residents if pool is not None))
        if pool is not None:
            record_seats = session.seats
            for r in residents:
                _copy_log(r.handle.log_path, r.log_start, logs[r.seat])
            await asyncio.gather(
                *(pool.release(r, session.finished and record_seats[r.seat].forfeited_at is None and not record_seats[r.seat].verdicts) for r in residents)
            )
        _note_crashes(session, logs)

    with scratch as tmp:
        try:
            for seat in range(len(manifests)):
                if pooled[seat]:
                    continue  # served on its process's own socket
                # One socket per seat, in a directory of its own: a bot can reach only its own seat.
                seat_dir = Path(tmp) / f"seat{seat}"
                seat_dir.mkdir()
                service = RefereeService(only_seat=seat)
                service.add(session)
                server = make_server(service)
                server.add_insecure_port(f"unix:{seat_dir / SOCKET}")
                servers.append(server)  # before it starts: stopped even if cancelled while starting
                await server.start()
                # A container's unprivileged user must reach the socket (connecting needs write access to it), but
                # must not write in the folder: it is mounted read-only there too.
                os.chmod(seat_dir, 0o755)
                os.chmod(seat_dir / SOCKET, 0o777)
            for seat, (manifest, token) in enumerate(zip(manifests, session.tokens())):
                seed_of_bot = bot_seed(setup.seed, seat)  # it must not tell the match seed, which deals every card
                if pooled[seat] and pool is not None:
                    try:
                        resident = await pool.acquire(manifest, deal_of(setup), session, seat, pool_keys[seat] if pool_keys else None)
                    except Exception as exc:  # noqa: BLE001 - the seat's crash, as a bot the launcher cannot start
                        _not_started(session, seat, logs[seat], exc)
                        continue
                    residents.append(resident)
                    order = {"address": resident.address, "match_id": match_id, "token": token, "seed": seed_of_bot}
                    try:
                        resident.handle.send_control(json.dumps(order))
                    except (BrokenPipeError, ConnectionResetError) as exc:
                        session.process_ended(seat, f"the bot's process is gone: {exc}")
                    continue
                spec = LaunchSpec(
                    seat=seat,
                    manifest=manifest,
                    bot_dir=manifest.path,
                    seat_dir=Path(tmp) / f"seat{seat}",
                    home=Path(tmp) / f"home{seat}",
                    env={"ARENA_MATCH_ID": match_id, "ARENA_TOKEN": token, "ARENA_BOT_SEED": seed_of_bot, "ARENA_BOT_NAME": manifest.name},
                    log_path=logs[seat],
                )
                watchers.append(asyncio.create_task(_start_and_watch(launcher, spec, session, handles, engine_failures)))
            record = await session.run()
        finally:
            await finish(asyncio.ensure_future(clean_up()))  # a Ctrl-C arriving now must not leave bots or servers running
    return LocalMatch(record, manifests, logs, engine_failures)


def _note_crashes(session: MatchSession, logs: list[Path]) -> None:
    """End a crashed seat's log with how its process ended, and a no-show's with its time to connect: a bot that dies
    before it prints, or never connects, leaves nothing else there."""
    for seat, log in zip(session.seats, logs):
        for verdict in seat.verdicts:
            if verdict.kind in (pb.CRASH, pb.NO_SHOW):
                try:
                    with log.open("a", encoding="utf-8") as out:
                        out.write(f"[referee] at decision {verdict.decision_index}: {verdict.detail}\n")
                except OSError:
                    pass


def _copy_log(source: Path, start: int, target: Path) -> None:
    # Made at the match's start: its folder gone since (a ladder's data folder removed) is an error, not made again.
    target.parent.mkdir(exist_ok=True)
    try:
        with source.open("rb") as f:
            f.seek(start)
            target.write_bytes(f.read())
    except OSError:
        target.write_bytes(b"")


def _not_started(session: MatchSession, seat: int, log: Path, exc: Exception) -> None:
    """The bot of ``seat`` could not be started (``exc``): its log and its CRASH verdict say why."""
    said = str(exc) if isinstance(exc, LaunchError) else f"the bot could not be started ({type(exc).__name__}: {exc})"
    session.process_ended(seat, said, started=False)  # first: a log that cannot be written (a full disk) must not stop it
    with contextlib.suppress(OSError):
        log.parent.mkdir(exist_ok=True)  # not its parents: see _start_and_watch
        log.write_text(f"{said}\n")


async def _start_and_watch(
    launcher: Launcher, spec: LaunchSpec, session: MatchSession, handles: list[BotHandle | None], engine_failures: dict[int, str]
) -> None:
    """Start one bot, then tell the session if it ends before the match does; a bot the engine failed to start goes
    into ``engine_failures`` too."""
    try:
        # The log folder run_local_match made, again if it went meanwhile, but not its parents: a ladder's data folder
        # moved away while the match started up was made again around it (ladder/grounds.py).
        spec.log_path.parent.mkdir(exist_ok=True)
        handle = await launcher.launch(spec)
    except Exception as exc:  # noqa: BLE001 - a launcher's own failure too: told now, not as a bot that never connected, seconds later
        if isinstance(exc, EngineUnavailable):
            engine_failures[spec.seat] = str(exc)
        _not_started(session, spec.seat, spec.log_path, exc)
        return
    handles[spec.seat] = handle
    code = await handle.wait()
    if not session.finished:
        session.process_ended(spec.seat, why_ended(handle, code), code=code, resigned=resigned(handle))
